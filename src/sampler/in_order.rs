//! In-order consumption (invariant 2): finished items are offered in any order and consumed
//! strictly in ordinal order, never in completion order.
//!
//! Both ordered samplers keep this state — [`super::OrderedSampler`] for trials and
//! [`crate::pair_sampler::PairSampler`] for pairs — and it lives here once: the lowest ordinal not
//! yet settled, the items waiting above it, and the rules for what becomes of each item when
//! its turn comes:
//!
//! - an item waits until every lower ordinal is settled (finished, cancelled, or known never
//!   to come);
//! - a cancelled item is skipped; an ordinal known never to come ([`InOrder::gap_before`])
//!   is skipped or stops consumption, as the owner's [`Gaps`] says;
//! - a harness error stops all consumption from the moment it arrives, whatever its ordinal;
//! - once the consumer has decided, later items are excluded.
//!
//! What "consuming" means is the owner's: it passes a closure that feeds the item to its rule
//! and says whether the rule has decided. This type knows nothing of rules or verdicts.

use std::collections::BTreeMap;

use crate::model::Shard;

/// What became of an item (a trial, a pair) once the in-order consumer reached it in
/// ordinal order; the replay records it on each trial, and the reports print it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Disposition {
    /// Its outcome was consumed and is in the tally.
    Counted,
    /// It finished, but after the decision, after a harness error, or after a sequential
    /// plan's gap: recorded, never counted.
    Excluded,
    /// Stopped by gate for a reason unrelated to its content: skipped, not a gap.
    Cancelled,
    /// The harness could not run it: nothing from here on is consumed.
    HarnessError,
    /// Only later attempts are recorded; attempt 1 is missing (a damaged ledger): never
    /// offered to the consumer. The replay's alone; [`InOrder`] never settles an item so.
    NoFirstAttempt,
}

impl Disposition {
    /// Lowercase name used in the JSON and JUnit reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Disposition::Counted => "counted",
            Disposition::Excluded => "excluded",
            Disposition::Cancelled => "cancelled",
            Disposition::HarnessError => "harness_error",
            Disposition::NoFirstAttempt => "no_first_attempt",
        }
    }
}

/// How an item settles when its turn comes: fed to the consumer, or skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Settle<G> {
    /// A graded item (an unavailable one included): the consumer is fed `G`.
    Consume(G),
    /// Stopped by gate: skipped, never a gap.
    Cancelled,
    /// The harness could not run it: consumption stops.
    HarnessError,
}

/// An item [`InOrder`] can order: a trial's outcome, or a complete pair's.
pub trait Finished: Copy {
    /// What the consumer is fed once the item is known to be graded.
    type Graded;

    /// How the item settles.
    fn settle(self) -> Settle<Self::Graded>;

    /// Whether a graded item is unavailable (it spends the unavailable budget instead of
    /// grading): [`InOrder::waiting`] counts those apart.
    fn unavailable(&self) -> bool;
}

/// What an ordinal known never to come does to consumption.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gaps {
    /// Skip it: a single plan's verdict does not depend on order.
    Skip,
    /// Stop consuming at the first: a sequential rule's verdict depends on order, so every
    /// later item is excluded.
    Stop,
}

/// The in-order consumption state: items offered above the next ordinal wait their turn.
#[derive(Debug, Clone)]
pub struct InOrder<T> {
    gaps: Gaps,
    shard: Option<Shard>,
    /// The lowest ordinal not yet settled.
    next: u64,
    /// Items offered above `next`, waiting for their turn.
    waiting: BTreeMap<u64, T>,
    halted: bool,
    blocked_at_gap: bool,
    decided_at: Option<u64>,
    cancelled: u64,
    excluded: u64,
}

impl<T: Finished> InOrder<T> {
    /// A fresh consumer starting at ordinal 1. With a shard, the ordinals the shard does not
    /// own are never waited for.
    pub fn new(gaps: Gaps, shard: Option<Shard>) -> Self {
        let mut s = InOrder {
            gaps,
            shard,
            next: 1,
            waiting: BTreeMap::new(),
            halted: false,
            blocked_at_gap: false,
            decided_at: None,
            cancelled: 0,
            excluded: 0,
        };
        s.next = s.owned_from(1);
        s
    }

    /// Whether `ordinal` may still be offered: not settled and not already waiting.
    pub fn accepts(&self, ordinal: u64) -> bool {
        ordinal >= self.next && !self.waiting.contains_key(&ordinal)
    }

    /// Offer item `ordinal`. Returns the items this settled, in ordinal order (none while a
    /// lower ordinal is still pending); `consume` is called on each one counted, and
    /// returns whether the owner's rule has now decided. An ordinal already settled, or
    /// offered twice, is ignored: an item is graded once (invariant 1). A harness error halts
    /// consumption on arrival, before any lower ordinal settles.
    pub fn offer(
        &mut self,
        ordinal: u64,
        item: T,
        mut consume: impl FnMut(T::Graded) -> bool,
    ) -> Vec<(u64, Disposition)> {
        if matches!(item.settle(), Settle::HarnessError) {
            self.halted = true;
        }
        if !self.accepts(ordinal) {
            return Vec::new();
        }
        self.waiting.insert(ordinal, item);
        let mut settled = Vec::new();
        self.advance(&mut settled, &mut consume);
        settled
    }

    /// Every ordinal below `ordinal` that was not offered never will be. Under
    /// [`Gaps::Skip`] consumption goes on past such gaps; under [`Gaps::Stop`] it stops at
    /// the first, and the items waiting beyond it settle as excluded.
    pub fn gap_before(
        &mut self,
        ordinal: u64,
        mut consume: impl FnMut(T::Graded) -> bool,
    ) -> Vec<(u64, Disposition)> {
        let mut settled = Vec::new();
        while self.next < ordinal {
            if self.waiting.contains_key(&self.next) {
                self.advance(&mut settled, &mut consume);
                continue;
            }
            self.blocked_at_gap |= self.gaps == Gaps::Stop;
            let resume = self
                .waiting
                .range(self.next..)
                .next()
                .map_or(ordinal, |(&o, _)| o.min(ordinal));
            self.next = self.owned_from(resume);
        }
        self.advance(&mut settled, &mut consume);
        settled
    }

    /// Stop consuming from now on, as if a harness error had arrived.
    pub fn halt(&mut self) {
        self.halted = true;
    }

    /// The ordinal whose item reached the decision.
    pub fn decided_at(&self) -> Option<u64> {
        self.decided_at
    }

    /// Whether a harness error stopped consumption.
    pub fn halted(&self) -> bool {
        self.halted
    }

    /// Whether consumption stopped at a gap ([`Gaps::Stop`] only).
    pub fn blocked_at_gap(&self) -> bool {
        self.blocked_at_gap
    }

    /// Cancelled items settled so far.
    pub fn cancelled(&self) -> u64 {
        self.cancelled
    }

    /// Finished items never counted: excluded once settled, or still waiting behind a lower
    /// ordinal that never finished.
    pub fn uncounted_finished(&self) -> u64 {
        self.excluded
            + self
                .waiting
                .values()
                .filter(|o| matches!(o.settle(), Settle::Consume(_)))
                .count() as u64
    }

    /// Offered items waiting behind a lower ordinal: (graded, unavailable).
    pub fn waiting(&self) -> (u64, u64) {
        self.waiting
            .values()
            .fold((0, 0), |(g, u), o| match (o.settle(), o.unavailable()) {
                (Settle::Consume(_), true) => (g, u + 1),
                (Settle::Consume(_), false) => (g + 1, u),
                _ => (g, u),
            })
    }

    fn owned_from(&self, ordinal: u64) -> u64 {
        match self.shard {
            Some(s) if s.m > 1 && !s.owns(ordinal) => {
                // The next ordinal ≡ k (mod m) at or above `ordinal`.
                let offset = (s.k - 1 + s.m - (ordinal - 1) % s.m) % s.m;
                ordinal.saturating_add(offset)
            }
            _ => ordinal,
        }
    }

    fn advance(
        &mut self,
        settled: &mut Vec<(u64, Disposition)>,
        consume: &mut impl FnMut(T::Graded) -> bool,
    ) {
        while let Some(item) = self.waiting.remove(&self.next) {
            let ordinal = self.next;
            settled.push((ordinal, self.settle(ordinal, item, consume)));
            self.next = self.owned_from(ordinal.saturating_add(1));
        }
    }

    fn settle(
        &mut self,
        ordinal: u64,
        item: T,
        consume: &mut impl FnMut(T::Graded) -> bool,
    ) -> Disposition {
        let graded = match item.settle() {
            Settle::Cancelled => {
                self.cancelled += 1;
                return Disposition::Cancelled;
            }
            Settle::HarnessError => {
                self.halted = true;
                return Disposition::HarnessError;
            }
            Settle::Consume(g) => g,
        };
        if self.halted || self.blocked_at_gap || self.decided_at.is_some() {
            self.excluded += 1;
            return Disposition::Excluded;
        }
        if consume(graded) {
            self.decided_at = Some(ordinal);
        }
        Disposition::Counted
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A test item that carries its own ordinal, so the consumer can record what it saw.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    struct Item {
        ordinal: u64,
        kind: Kind,
    }

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Kind {
        Graded,
        Unavailable,
        Cancelled,
        HarnessError,
    }

    impl Finished for Item {
        type Graded = u64;
        fn settle(self) -> Settle<u64> {
            match self.kind {
                Kind::Graded | Kind::Unavailable => Settle::Consume(self.ordinal),
                Kind::Cancelled => Settle::Cancelled,
                Kind::HarnessError => Settle::HarnessError,
            }
        }
        fn unavailable(&self) -> bool {
            self.kind == Kind::Unavailable
        }
    }

    fn item(ordinal: u64, kind: Kind) -> Item {
        Item { ordinal, kind }
    }

    /// Offers `items` in the order given to a consumer that decides after `decide_after`
    /// consumed items; returns (everything settled, in the order settled; what was consumed).
    fn run(
        items: &[Item],
        decide_after: usize,
        shard: Option<Shard>,
    ) -> (Vec<(u64, Disposition)>, Vec<u64>, InOrder<Item>) {
        let mut s = InOrder::new(Gaps::Stop, shard);
        let mut consumed = Vec::new();
        let mut settled = Vec::new();
        for &it in items {
            settled.extend(s.offer(it.ordinal, it, |o| {
                consumed.push(o);
                consumed.len() >= decide_after
            }));
        }
        (settled, consumed, s)
    }

    #[test]
    fn an_item_waits_for_every_lower_ordinal() {
        let items = [item(3, Kind::Graded), item(2, Kind::Graded)];
        let (settled, consumed, s) = run(&items, 99, None);
        assert!(settled.is_empty() && consumed.is_empty());
        assert_eq!(s.waiting(), (2, 0));
        assert_eq!(s.uncounted_finished(), 2);
        let (settled, consumed, _) = run(&[items[0], items[1], item(1, Kind::Graded)], 99, None);
        assert_eq!(consumed, [1, 2, 3]);
        assert_eq!(
            settled,
            [
                (1, Disposition::Counted),
                (2, Disposition::Counted),
                (3, Disposition::Counted)
            ]
        );
    }

    #[test]
    fn a_second_offer_of_an_ordinal_is_ignored() {
        let mut s = InOrder::new(Gaps::Stop, None);
        let mut seen = Vec::new();
        s.offer(2, item(2, Kind::Graded), |o| {
            seen.push(o);
            false
        });
        assert!(!s.accepts(2));
        assert!(s.offer(2, item(2, Kind::Unavailable), |_| false).is_empty());
        s.offer(1, item(1, Kind::Graded), |o| {
            seen.push(o);
            false
        });
        assert!(!s.accepts(1));
        assert!(s.offer(1, item(1, Kind::Graded), |_| true).is_empty());
        assert_eq!(seen, [1, 2]);
        assert_eq!(s.decided_at(), None);
    }

    #[test]
    fn after_the_decision_items_are_excluded_and_cancelled_ones_skipped() {
        let items = [
            item(1, Kind::Graded),
            item(2, Kind::Cancelled),
            item(3, Kind::Unavailable),
            item(4, Kind::Graded),
        ];
        let (settled, consumed, s) = run(&items, 2, None);
        assert_eq!(consumed, [1, 3]);
        assert_eq!(s.decided_at(), Some(3));
        assert_eq!(s.cancelled(), 1);
        assert_eq!(settled[3], (4, Disposition::Excluded));
        assert_eq!(s.uncounted_finished(), 1);
    }

    #[test]
    fn a_harness_error_halts_on_arrival_even_above_the_next_ordinal() {
        let items = [
            item(3, Kind::HarnessError),
            item(2, Kind::Graded),
            item(1, Kind::Graded),
        ];
        let (settled, consumed, s) = run(&items, 99, None);
        assert!(s.halted());
        assert!(consumed.is_empty());
        assert_eq!(
            settled,
            [
                (1, Disposition::Excluded),
                (2, Disposition::Excluded),
                (3, Disposition::HarnessError)
            ]
        );
    }

    #[test]
    fn a_gap_is_skipped_or_stops_consumption_as_the_owner_says() {
        for (gaps, want) in [(Gaps::Skip, vec![3, 4]), (Gaps::Stop, vec![])] {
            let mut s = InOrder::new(gaps, None);
            let mut consumed = Vec::new();
            let mut feed = |o| {
                consumed.push(o);
                false
            };
            s.offer(3, item(3, Kind::Graded), &mut feed);
            let settled = s.gap_before(3, &mut feed);
            s.offer(4, item(4, Kind::Graded), &mut feed);
            assert_eq!(settled.len(), 1);
            assert_eq!(s.blocked_at_gap(), gaps == Gaps::Stop);
            assert_eq!(consumed, want, "{gaps:?}");
        }
    }

    #[test]
    fn a_shard_waits_only_for_its_own_ordinals() {
        let shard = Some(Shard { k: 2, m: 3 });
        let items = [item(5, Kind::Graded), item(2, Kind::Graded)];
        let (settled, consumed, _) = run(&items, 99, shard);
        assert_eq!(consumed, [2, 5]);
        assert_eq!(
            settled,
            [(2, Disposition::Counted), (5, Disposition::Counted)]
        );
    }

    fn kind() -> impl Strategy<Value = Kind> {
        prop_oneof![
            6 => Just(Kind::Graded),
            2 => Just(Kind::Unavailable),
            1 => Just(Kind::Cancelled),
            1 => Just(Kind::HarnessError),
        ]
    }

    /// `items` (ordinals 1..) offered in the order `order` shuffles them into.
    fn shuffled(kinds: &[Kind], order: &[usize]) -> Vec<Item> {
        let mut items: Vec<Item> = kinds
            .iter()
            .enumerate()
            .map(|(i, &k)| item(i as u64 + 1, k))
            .collect();
        for i in (1..items.len()).rev() {
            items.swap(i, order[i] % (i + 1));
        }
        items
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Without harness errors, any completion order consumes the same sequence, settles
        /// the same items the same way, and decides at the same ordinal as offering them in
        /// ordinal order does.
        #[test]
        fn any_completion_order_consumes_the_same_sequence(
            kinds in proptest::collection::vec(kind(), 1..80),
            order in proptest::collection::vec(0usize..10_000, 80),
            decide_after in 1usize..60,
        ) {
            let kinds: Vec<Kind> = kinds
                .into_iter()
                .map(|k| if k == Kind::HarnessError { Kind::Graded } else { k })
                .collect();
            let in_order: Vec<Item> = kinds
                .iter()
                .enumerate()
                .map(|(i, &k)| item(i as u64 + 1, k))
                .collect();
            let (want_settled, want_consumed, want) = run(&in_order, decide_after, None);
            let (mut got_settled, got_consumed, got) =
                run(&shuffled(&kinds, &order), decide_after, None);
            prop_assert_eq!(&got_consumed, &want_consumed);
            // Settled in ordinal order within each offer; over the whole run, every item once.
            got_settled.sort_by_key(|&(o, _)| o);
            prop_assert_eq!(got_settled, want_settled);
            prop_assert_eq!(got.decided_at(), want.decided_at());
            prop_assert_eq!(got.cancelled(), want.cancelled());
            prop_assert_eq!(got.uncounted_finished(), want.uncounted_finished());
        }

        /// With harness errors, consumption still follows ordinal order: what is consumed is
        /// a prefix of what the walk in ordinal order consumes (which stops at the first
        /// harness error; one that arrives early stops it sooner), every item settles exactly
        /// once, and each offer returns its settled items in ordinal order.
        #[test]
        fn consumption_is_in_ordinal_order_whatever_arrives(
            kinds in proptest::collection::vec(kind(), 1..80),
            order in proptest::collection::vec(0usize..10_000, 80),
            decide_after in 1usize..60,
        ) {
            let items = shuffled(&kinds, &order);
            let mut s = InOrder::new(Gaps::Stop, None);
            let mut consumed = Vec::new();
            let mut all = Vec::new();
            for &it in &items {
                let settled = s.offer(it.ordinal, it, |o| {
                    consumed.push(o);
                    consumed.len() >= decide_after
                });
                prop_assert!(settled.windows(2).all(|w| w[0].0 + 1 == w[1].0));
                all.extend(settled);
            }
            let ordinals: Vec<u64> = all.iter().map(|&(o, _)| o).collect();
            prop_assert_eq!(ordinals, (1..=kinds.len() as u64).collect::<Vec<_>>());
            let reference: Vec<u64> = kinds
                .iter()
                .enumerate()
                .take_while(|(_, k)| **k != Kind::HarnessError)
                .filter(|(_, k)| matches!(k, Kind::Graded | Kind::Unavailable))
                .map(|(i, _)| i as u64 + 1)
                .take(decide_after)
                .collect();
            prop_assert!(reference.starts_with(&consumed), "{:?} {:?}", consumed, reference);
        }

        /// Gaps, in a shard or not, under both [`Gaps`]: some owned ordinals are never
        /// offered, the rest arrive shuffled, `gap_before(cut)` is called once every offered
        /// ordinal below `cut` has arrived (the scheduler's promise), then the rest arrive and
        /// `gap_before` closes the run. What is consumed, each item's disposition, the
        /// decision and the counts equal a walk of the owned ordinals in order: a gap is
        /// passed over (`Skip`) or stops consumption and excludes every later finished item
        /// (`Stop`).
        #[test]
        fn gaps_and_shards_settle_as_the_walk_in_ordinal_order(
            kinds in proptest::collection::vec(kind(), 1..80),
            missing in proptest::collection::vec(proptest::bool::weighted(0.15), 80),
            order in proptest::collection::vec(0usize..10_000, 80),
            decide_after in 1usize..60,
            cut_at in 1u64..90,
            stop in proptest::bool::ANY,
            sharded in proptest::bool::ANY,
            k in 1u64..4,
        ) {
            let gaps = if stop { Gaps::Stop } else { Gaps::Skip };
            let shard = sharded.then_some(Shard { k, m: 3 });
            let owns = |o: u64| shard.is_none_or(|s| s.owns(o));
            let n = kinds.len() as u64;
            // The scheduler never says a gap beyond the run's last ordinal.
            let cut_at = cut_at.min(n + 1);
            // Owned ordinals, each an item or a gap; harness errors aside (they halt on
            // arrival, which the second property covers).
            let plan: Vec<(u64, Option<Kind>)> = (1..=n)
                .filter(|&o| owns(o))
                .map(|o| {
                    let k = kinds[o as usize - 1];
                    let k = if k == Kind::HarnessError { Kind::Graded } else { k };
                    (o, (!missing[o as usize - 1]).then_some(k))
                })
                .collect();
            // The reference: walk the owned ordinals in order.
            let mut want_consumed = Vec::new();
            let mut want_settled = Vec::new();
            let (mut blocked, mut decided_at, mut cancelled, mut excluded) = (false, None, 0, 0);
            for &(o, k) in &plan {
                match k {
                    None => blocked |= gaps == Gaps::Stop,
                    Some(Kind::Cancelled) => {
                        cancelled += 1;
                        want_settled.push((o, Disposition::Cancelled));
                    }
                    Some(_) if blocked || decided_at.is_some() => {
                        excluded += 1;
                        want_settled.push((o, Disposition::Excluded));
                    }
                    Some(_) => {
                        want_consumed.push(o);
                        if want_consumed.len() >= decide_after {
                            decided_at = Some(o);
                        }
                        want_settled.push((o, Disposition::Counted));
                    }
                }
            }
            // The run: offered items shuffled, those below the cut first.
            let offered: Vec<Item> = plan
                .iter()
                .filter_map(|&(o, k)| k.map(|k| item(o, k)))
                .collect();
            let mut before: Vec<Item> = offered.iter().copied().filter(|i| i.ordinal < cut_at).collect();
            let mut after: Vec<Item> = offered.iter().copied().filter(|i| i.ordinal >= cut_at).collect();
            for v in [&mut before, &mut after] {
                for i in (1..v.len()).rev() {
                    v.swap(i, order[i] % (i + 1));
                }
            }
            let mut s = InOrder::new(gaps, shard);
            let mut consumed = Vec::new();
            let mut settled = Vec::new();
            let mut feed = |o: u64| {
                consumed.push(o);
                consumed.len() >= decide_after
            };
            for &it in &before {
                settled.extend(s.offer(it.ordinal, it, &mut feed));
            }
            settled.extend(s.gap_before(cut_at, &mut feed));
            for &it in &after {
                settled.extend(s.offer(it.ordinal, it, &mut feed));
            }
            settled.extend(s.gap_before(n + 1, &mut feed));
            settled.sort_by_key(|&(o, _)| o);
            prop_assert_eq!(consumed, want_consumed);
            prop_assert_eq!(settled, want_settled);
            prop_assert_eq!(s.decided_at(), decided_at);
            prop_assert_eq!(s.cancelled(), cancelled);
            prop_assert_eq!(s.uncounted_finished(), excluded);
            prop_assert_eq!(s.blocked_at_gap(), gaps == Gaps::Stop && plan.iter().any(|(_, k)| k.is_none()));
        }
    }
}
