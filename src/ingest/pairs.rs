//! `gate ingest --base`: pair the runs of a base suite with the runs of a head suite.
//!
//! A test case's trial from head's k-th file is paired with its trial from base's k-th file
//! (the j-th repeat within a file with the j-th), in the order the files are given: pairs
//! are made by the run a trial came from ([`History::places`]), never by ordinal alone, so
//! that a run without the test on one side cannot slide that side's later runs onto earlier
//! partners (a run missing the test is a failed trial in its place; a run that skipped it
//! leaves its partner unpaired). A run with no partner (one side ran the test more often, or
//! skipped it) is left out and counted, never graded. A test only head records is new on
//! head: there is nothing to compare it with, so it is named and not judged. A test only base
//! records (removed, or skipped in every run, on head) is evidence missing, not evidence of
//! no regression: it is kept with no pair, and its compare task is INCONCLUSIVE. The pairs are judged
//! (in `commands/ingest/judge.rs`) by the same [`crate::pairs::PairSampler`] as `gate run`'s
//! pairs, in pair order, so `gate report` and `gate verify` recompute the ingest's verdict from its ledger.

use std::collections::HashMap;

use super::{Attempt, History};

/// One test case's runs on both sides, paired by ordinal.
#[derive(Debug, Clone)]
pub struct PairedHistory {
    /// The test's id.
    pub test: String,
    /// Pair k: (head's k-th run, base's k-th run); index 0 is pair 1.
    pub pairs: Vec<(Vec<Attempt>, Vec<Attempt>)>,
    /// Runs with no partner on the other side, left out.
    pub unpaired: u64,
    /// Base records the test and head never does (removed, or skipped in every run, on
    /// head): it has no pair, and its missing evidence must not read as no regression.
    pub base_only: bool,
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
        let mut base_at: HashMap<(usize, usize), Vec<Attempt>> =
            b.places.iter().copied().zip(b.trials).collect();
        let mut pairs = Vec::new();
        for (place, attempts) in h.places.iter().zip(&h.trials) {
            if let Some(partner) = base_at.remove(place) {
                pairs.push((attempts.clone(), partner));
            }
        }
        let unpaired = (h.trials.len() + base_at.len() - pairs.len()) as u64;
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
    use crate::pairs::Side;

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
        }
    }

    #[test]
    fn runs_pair_by_test_id_and_ordinal_and_the_extra_runs_are_left_out() {
        let head = vec![history("a", &[true, false, true]), history("b", &[true])];
        let base = vec![history("c", &[true]), history("a", &[false, true])];
        let (paired, head_only) = pair(&head, base);
        assert_eq!(paired.len(), 2);
        let a = &paired[0];
        assert_eq!(a.test, "a");
        assert_eq!(a.pairs.len(), 2);
        assert_eq!(a.unpaired, 1);
        assert!(!a.base_only);
        assert!(a.pairs[0].0[0].passed && !a.pairs[0].1[0].passed);
        // A test only base records is kept, with no pair, to block a PASS.
        let c = &paired[1];
        assert_eq!((c.test.as_str(), c.pairs.len(), c.unpaired), ("c", 0, 1));
        assert!(c.base_only);
        assert_eq!(head_only, vec!["b".to_string()]);
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
        assert_eq!(row.fault, Some(crate::ledger::Fault::Transport));
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
