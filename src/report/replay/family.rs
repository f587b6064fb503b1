//! The check that the shard ledgers of a suite task are one family: every shard's runs
//! recorded the same test cases, and so designed the same rule for them.
//!
//! A shard designs its family (the per-case rule at Šidák's share of the suite's alpha) on
//! the K test cases its own first run records. Machines that collect different tests give
//! shards different K, different rules and different case sets; a merged report would then
//! judge every case by one rule neither shard ran, and state a family risk that is neither
//! shard's (review 9, a12). Such ledgers are refused, naming them and the difference.

use std::collections::BTreeSet;

use crate::ledger::{Family, Ledger, suite_of};

use super::ReportError;

/// Refuse ledgers (two or more) in which a suite task's runs recorded different test cases
/// or different family designs. A ledger with no recorded design (a shard cut before its
/// first run's row) is held to the cases of those with one.
pub(super) fn refuse_mixed_families(ledgers: &[Ledger]) -> Result<(), ReportError> {
    let Some(first) = ledgers.first() else {
        return Ok(());
    };
    if ledgers.len() < 2 {
        return Ok(());
    }
    for spec in first.header().tasks.iter().filter(|t| t.suite.is_some()) {
        let suite = spec.id.as_str();
        // Per ledger: the design it recorded (on the run that fixed its cases) and the test
        // cases its rows name.
        let seen: Vec<(&Ledger, Option<&Family>, BTreeSet<&str>)> = ledgers
            .iter()
            .map(|l| {
                let mut family = None;
                let mut cases = BTreeSet::new();
                for a in l.attempts() {
                    if a.task == suite {
                        if family.is_none() {
                            family = a.suite_run.as_ref().and_then(|r| r.family.as_ref());
                        }
                        // A case a run skipped while it had never run it was recorded (the
                        // runner collected it): a machine that skips it in every run records
                        // it too, with no row of its own (review 10, a17).
                        for id in a.suite_run.iter().flat_map(|r| &r.never_ran) {
                            if let Some(case) =
                                id.strip_prefix(suite).and_then(|c| c.strip_prefix('/'))
                            {
                                cases.insert(case);
                            }
                        }
                    } else if suite_of(&a.task) == Some(suite) {
                        cases.insert(&a.task[suite.len() + 1..]);
                    }
                }
                (l, family, cases)
            })
            .collect();
        let all: BTreeSet<&str> = seen.iter().flat_map(|s| s.2.iter().copied()).collect();
        let mut designed = seen.iter().filter(|s| s.1.is_some());
        let Some(one) = designed.next() else {
            continue;
        };
        // Another design, or another case set beside a design, is not one family.
        let other = designed.find(|s| s.1 != one.1 || s.2 != one.2).or_else(|| {
            (one.2 != all)
                .then(|| seen.iter().find(|s| s.2 != one.2))
                .flatten()
        });
        if let Some(other) = other {
            return Err(ReportError::MixedFamily {
                task: suite.to_string(),
                first: one.0.path.clone(),
                first_ran: ran(one.1, &one.2, &other.2),
                other: other.0.path.clone(),
                other_ran: ran(other.1, &other.2, &one.2),
            });
        }
    }
    Ok(())
}

/// What one ledger's runs recorded of the suite, in words: its cases (those it lacks beside
/// `other`'s, and those only it has) and the share they were judged at.
fn ran(family: Option<&Family>, cases: &BTreeSet<&str>, other: &BTreeSet<&str>) -> String {
    const NAMED: usize = 5;
    let list = |ids: Vec<&&str>| {
        let shown: Vec<String> = ids
            .iter()
            .take(NAMED)
            .map(|c| format!("`{}`", crate::untrusted::one_line(c)))
            .collect();
        let more = ids.len().saturating_sub(NAMED);
        if more > 0 {
            format!("{} and {more} more", shown.join(", "))
        } else {
            shown.join(", ")
        }
    };
    let mut text = format!(
        "records {} test case{}",
        cases.len(),
        if cases.len() == 1 { "" } else { "s" }
    );
    let lacks: Vec<&&str> = other.difference(cases).collect();
    let only: Vec<&&str> = cases.difference(other).collect();
    if !lacks.is_empty() {
        text.push_str(&format!(", lacking {}", list(lacks)));
    }
    if !only.is_empty() {
        text.push_str(&format!(", with {} the other lacks", list(only)));
    }
    match family {
        Some(f) => text.push_str(&format!(
            " (its cases judged each at alpha {:.6}, Šidák's share of {} over {} cases)",
            f.case_alpha, f.alpha, f.cases
        )),
        None => text.push_str(" (no family design recorded)"),
    }
    text
}
