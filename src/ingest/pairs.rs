//! `gate ingest --base`: pair the runs of a base suite with the runs of a head suite.
//!
//! Pair k of a test case is its k-th run on head with its k-th run on base (test id and run
//! ordinal, as the result files list them, in the order given). A run with no partner (one
//! side ran the test more often) is left out and counted, never graded. The pairs are judged
//! (in `judge.rs`) by the same [`crate::pairs::PairSampler`] as `gate run`'s pairs, in pair
//! order, so `gate report` and `gate verify` recompute the ingest's verdict from its ledger.

use std::collections::HashMap;

use super::{Attempt, History};

/// The ledger header's record of a compare rule judging result files: no order (the runs
/// were made elsewhere) and no base command.
pub fn record(rule: &crate::plan::compare::CompareRule) -> crate::pairs::CompareRecord {
    crate::pairs::CompareRecord {
        odds_ratio: rule.odds_ratio,
        alpha: rule.alpha,
        beta: rule.beta,
        max_pairs: rule.max_pairs,
        rates: rule.rates,
        order_seed: 0,
        base_run: "junit: the `--base` result files".to_string(),
        base_check: None,
        base_cwd: None,
        drop: Some(rule.drop),
        loss_route: rule.loss_route,
    }
}

/// One test case's runs on both sides, paired by ordinal.
#[derive(Debug, Clone)]
pub struct PairedHistory {
    /// The test's id.
    pub test: String,
    /// Pair k: (head's k-th run, base's k-th run); index 0 is pair 1.
    pub pairs: Vec<(Vec<Attempt>, Vec<Attempt>)>,
    /// Runs with no partner on the other side, left out.
    pub unpaired: u64,
}

/// Pair every head history with the base history of the same test. Returns the paired ones,
/// in head's order, and the ids found on only one side.
pub fn pair(head: &[History], base: Vec<History>) -> (Vec<PairedHistory>, Vec<String>) {
    let mut base: HashMap<String, History> =
        base.into_iter().map(|h| (h.test.clone(), h)).collect();
    let mut out = Vec::new();
    let mut alone = Vec::new();
    for h in head {
        let Some(b) = base.remove(&h.test) else {
            alone.push(h.test.clone());
            continue;
        };
        let n = h.trials.len().min(b.trials.len());
        let unpaired = (h.trials.len() + b.trials.len() - 2 * n) as u64;
        out.push(PairedHistory {
            test: h.test.clone(),
            pairs: h.trials.iter().cloned().zip(b.trials).take(n).collect(),
            unpaired,
        });
    }
    let mut rest: Vec<String> = base.into_keys().collect();
    rest.sort();
    alone.extend(rest);
    (out, alone)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Outcome;
    use crate::pairs::Side;

    fn history(test: &str, outcomes: &[bool]) -> History {
        History {
            test: test.to_string(),
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
        let (paired, alone) = pair(&head, base);
        assert_eq!(paired.len(), 1);
        let a = &paired[0];
        assert_eq!(a.test, "a");
        assert_eq!(a.pairs.len(), 2);
        assert_eq!(a.unpaired, 1);
        assert!(a.pairs[0].0[0].passed && !a.pairs[0].1[0].passed);
        assert_eq!(alone, vec!["b".to_string(), "c".to_string()]);
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
