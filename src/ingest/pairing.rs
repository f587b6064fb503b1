//! `gate ingest --base`: pair the runs of a base suite with the runs of a head suite.
//!
//! A test case's trial from head's k-th file is paired with its trial from base's k-th file
//! (the j-th repeat within a file with the j-th), in the order the files are given: pairs
//! are made by the run a trial came from ([`History::places`]), never by ordinal alone, so
//! that a run without the test on one side cannot slide that side's later runs onto earlier
//! partners. The two sides are not read alike where a run has no record of the test (review
//! 9, a04/a08): on head, a run that lacks it or skipped it while head's other runs ran it is
//! a failed trial in its place (`ingest::histories`), as in plain ingest; on base, such a run
//! is *no observation*, never a base failure (a base failure in that pair would cancel head's
//! failure and favour head). A place that only one side has — base had no observation there,
//! one side has more runs, or more repeats of the test in a run (a test recorded twice in one
//! file, a suite appended twice) — is a pair with one side: its side's rows are written,
//! and the pair sampler reads it as a gap, so a verdict reached before it stands and none is
//! reached after it (INCONCLUSIVE). A head failure is thus never dropped: it is either in a
//! graded pair or in a hole no PASS can be read across. A test only head records is new on
//! head: there is nothing to compare it with, so it is named and not judged (or INCONCLUSIVE
//! if it failed there). A test only base records (removed, or skipped in every run, on head)
//! is evidence missing, not evidence of no regression: it is kept with no pair, and its
//! compare task is INCONCLUSIVE. The pairs are judged (in [`crate::judge`]) by the
//! same [`crate::pair_sampler::PairSampler`] as `gate run`'s pairs, in pair order, so
//! `gate report` and `gate verify` recompute the ingest's verdict from its ledger (a pair
//! with one side recorded is a gap there too).

use std::collections::BTreeMap;
use std::collections::HashMap;

use super::{Attempt, History};

/// One place of a test case (a run file's index on each side, the repeat within it): what
/// each side recorded there. At least one side is there.
#[derive(Debug, Clone)]
pub struct Pair {
    /// (the run file's index among its side's files, 0-based; the repeat within it, 0-based).
    pub place: (usize, usize),
    /// Head's attempts at this place; `None` when head has no such place.
    pub head: Option<Vec<Attempt>>,
    /// Base's attempts; `None` when base has no such place, or its run had no record of the
    /// test there (skipped or missing: no observation).
    pub base: Option<Vec<Attempt>>,
    /// Base's run exists and has other records of the test, but not this one (skipped, or
    /// missing): said in the INCONCLUSIVE reason.
    pub base_absent: bool,
}

impl Pair {
    /// Both sides recorded: a pair the sampler can grade.
    pub fn complete(&self) -> bool {
        self.head.is_some() && self.base.is_some()
    }

    /// Why this pair has one side only, in words (for a decision's reason).
    pub fn why_one_sided(&self) -> String {
        let (run, repeat) = (self.place.0 + 1, self.place.1 + 1);
        let at = if repeat == 1 {
            format!("run file #{run}")
        } else {
            format!("record #{repeat} of the test in run file #{run}")
        };
        match (&self.head, &self.base) {
            (Some(_), None) if self.base_absent => format!(
                "base skipped the test, or has no record of it, in {at} while its other runs ran it: no observation on base, so head's trial there has no partner"
            ),
            (Some(_), None) => format!(
                "head has {at} and base does not (head has more runs, or recorded the test more times in that run)"
            ),
            (None, _) => format!(
                "base has {at} and head does not (base has more runs, or recorded the test more times in that run)"
            ),
            (Some(_), Some(_)) => format!("{at} has both sides"),
        }
    }
}

/// One test case's runs on both sides, paired by place.
#[derive(Debug, Clone)]
pub struct PairedHistory {
    /// The test's id.
    pub test: String,
    /// Pair k at index k − 1, in (run, repeat) order: every place either side recorded.
    pub pairs: Vec<Pair>,
    /// Pairs with one side only (see [`Pair::why_one_sided`]).
    pub unpaired: u64,
    /// Base records the test and head never does (removed, or skipped in every run, on
    /// head): it has no pair, and its missing evidence must not read as no regression.
    pub base_only: bool,
}

impl PairedHistory {
    /// The first pair with one side only, and its number (1-based).
    pub fn first_one_sided(&self) -> Option<(u64, &Pair)> {
        self.pairs
            .iter()
            .enumerate()
            .find(|(_, p)| !p.complete())
            .map(|(i, p)| (i as u64 + 1, p))
    }
}

/// Pair every head history with the base history of the same test. Returns the paired ones
/// in head's order, then the tests only base records (`base_only`, no pairs, sorted), and
/// the ids only head records (new on head: nothing to compare them with).
pub fn pair(head: &[History], base: Vec<History>) -> (Vec<PairedHistory>, Vec<String>) {
    let mut base: HashMap<String, History> =
        base.into_iter().map(|h| (h.test.clone(), h)).collect();
    let mut out = Vec::new();
    let mut head_only = Vec::new();
    for h in head {
        let Some(b) = base.remove(&h.test) else {
            head_only.push(h.test.clone());
            continue;
        };
        // Every place either side has, in (run, repeat) order.
        let mut places: BTreeMap<(usize, usize), Pair> = BTreeMap::new();
        for (place, attempts) in h.places.iter().zip(&h.trials) {
            places.insert(
                *place,
                Pair {
                    place: *place,
                    head: Some(attempts.clone()),
                    base: None,
                    base_absent: false,
                },
            );
        }
        for ((place, attempts), absent) in b.places.iter().zip(b.trials).zip(&b.absent) {
            let slot = places.entry(*place).or_insert_with(|| Pair {
                place: *place,
                head: None,
                base: None,
                base_absent: false,
            });
            if *absent {
                // No observation on base: not a base failure (review 9, a04).
                slot.base_absent = true;
            } else {
                slot.base = Some(attempts);
            }
        }
        // A place where neither side observed anything (base's stand-in, head without the
        // run) is no pair at all.
        let pairs: Vec<Pair> = places
            .into_values()
            .filter(|p| p.head.is_some() || p.base.is_some())
            .collect();
        let unpaired = pairs.iter().filter(|p| !p.complete()).count() as u64;
        out.push(PairedHistory {
            test: h.test.clone(),
            pairs,
            unpaired,
            base_only: false,
        });
    }
    let mut rest: Vec<History> = base.into_values().collect();
    rest.sort_by(|a, b| a.test.cmp(&b.test));
    out.extend(rest.into_iter().map(|b| PairedHistory {
        test: b.test,
        pairs: Vec::new(),
        unpaired: b.trials.len() as u64,
        base_only: true,
    }));
    (out, head_only)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Outcome;
    use crate::pair_sampler::Side;

    fn history(test: &str, outcomes: &[bool]) -> History {
        History {
            test: test.to_string(),
            places: (0..outcomes.len()).map(|r| (r, 0)).collect(),
            trials: outcomes
                .iter()
                .map(|&passed| {
                    vec![Attempt {
                        passed,
                        duration_s: 0.0,
                        message: String::new(),
                        detail: String::new(),
                        unavailable: false,
                    }]
                })
                .collect(),
            absent: vec![false; outcomes.len()],
        }
    }

    #[test]
    fn runs_pair_by_test_id_and_place_and_the_extra_runs_are_one_sided_pairs() {
        let head = vec![history("a", &[true, false, true]), history("b", &[true])];
        let base = vec![history("c", &[true]), history("a", &[false, true])];
        let (paired, head_only) = pair(&head, base);
        assert_eq!(paired.len(), 2);
        let a = &paired[0];
        assert_eq!(a.test, "a");
        // Head's third run has no partner: a pair with head's side only (a gap), not dropped.
        assert_eq!(a.pairs.len(), 3);
        assert_eq!(a.unpaired, 1);
        assert!(!a.base_only);
        let side = |p: &Option<Vec<Attempt>>| p.as_ref().map(|a| a[0].passed);
        assert_eq!(side(&a.pairs[0].head), Some(true));
        assert_eq!(side(&a.pairs[0].base), Some(false));
        assert_eq!(
            (side(&a.pairs[2].head), side(&a.pairs[2].base)),
            (Some(true), None)
        );
        assert_eq!(a.first_one_sided().map(|(k, _)| k), Some(3));
        // A test only base records is kept, with no pair, to block a PASS.
        let c = &paired[1];
        assert_eq!((c.test.as_str(), c.pairs.len(), c.unpaired), ("c", 0, 1));
        assert!(c.base_only);
        assert_eq!(head_only, vec!["b".to_string()]);
    }

    /// Review 9, a04: base skipped (or lacked) the test in a run where head failed it, and
    /// base's stand-in failure made the pair (fail, fail), so head's failure never counted.
    /// Base's run without a record is no observation: the pair has head's side only.
    #[test]
    fn rev9_a04_a_base_run_without_the_test_is_no_observation_not_a_base_failure() {
        let head = vec![history("x", &[false, true])];
        let mut b = history("x", &[false, true]);
        b.absent[0] = true;
        let (paired, _) = pair(&head, vec![b]);
        let x = &paired[0];
        assert_eq!(x.pairs.len(), 2);
        assert!(x.pairs[0].base.is_none() && x.pairs[0].base_absent);
        assert!(!x.pairs[0].head.as_ref().unwrap()[0].passed);
        assert!(x.pairs[1].complete());
        assert_eq!(x.first_one_sided().map(|(k, _)| k), Some(1));
        assert!(
            x.pairs[0]
                .why_one_sided()
                .contains("no observation on base")
        );
    }

    /// Review 9, a04/a19: a test recorded twice in one head run (passing, then failing) paired
    /// its first record and dropped the second. The second record is a pair with head's side.
    #[test]
    fn rev9_a19_a_second_record_of_a_test_in_one_head_run_is_kept_as_a_one_sided_pair() {
        let mut h = history("x", &[true, false]);
        h.places = vec![(0, 0), (0, 1)];
        let (paired, _) = pair(&[h], vec![history("x", &[true])]);
        let x = &paired[0];
        assert_eq!(x.pairs.len(), 2);
        assert!(x.pairs[0].complete());
        assert_eq!(x.pairs[1].place, (0, 1));
        assert!(!x.pairs[1].head.as_ref().unwrap()[0].passed && x.pairs[1].base.is_none());
    }

    /// `gate ingest --base` once graded an errored sample declared unavailable
    /// (`--errors unavailable`) as a head or base failure: the paired reader built its rows
    /// apart from the one-sample reader and ignored the flag. Both now record the attempt
    /// through `Attempt::row`, and the pair sampler voids a pair with an unavailable side.
    #[test]
    fn a_declared_fault_on_one_side_is_recorded_unavailable_not_failed() {
        let a = Attempt {
            passed: false,
            unavailable: true,
            duration_s: 1.5,
            message: "errored".into(),
            detail: String::new(),
        };
        assert_eq!(a.outcome(), Outcome::Unavailable);
        let row = a.row("t", 3, 1, "2026-12-01T00:00:00Z", Some(Side::Base));
        assert_eq!(row.outcome, Outcome::Unavailable);
        assert_eq!(row.fault, Some(crate::model::Fault::Transport));
        assert_eq!(
            (row.trial, row.side, row.graded),
            (3, Some(Side::Base), true)
        );
        let failed = Attempt {
            unavailable: false,
            ..a
        };
        assert_eq!(failed.outcome(), Outcome::Fail);
        assert!(!failed.row("t", 3, 2, "", None).graded);
    }
}
