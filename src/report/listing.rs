//! Which tasks a human-facing report lists, in which order, and which it counts instead.
//!
//! A suite task's test cases are tasks of their own; a suite of thousands of cases would
//! print thousands of sections of which almost all say PASS. The terminal and the Markdown
//! summary therefore list a large suite's cases by what needs reading — FAIL and harness
//! errors first, then undecided cases (INCONCLUSIVE, or continuing in a next stage) — and
//! count its passing cases on one line. A suite of at most [`LIST_EVERY_CASE`] cases is
//! listed whole, in the order of its results, as before. The JSON and JUnit reports keep
//! every case; this module only chooses what a person reads.

use std::collections::BTreeMap;

use crate::model::{Judgement, Verdict};

use super::model::Report;
use super::words::continues_reason;

/// A suite of at most this many test cases lists every case in the terminal and the
/// Markdown summary; a larger one lists its cases that are not PASS and counts the rest.
pub const LIST_EVERY_CASE: usize = 50;

/// A large suite's cases that are not PASS listed in full, at most; the rest are counted
/// (the JSON and JUnit reports list every case).
pub const LIST_NOT_PASSING: usize = 100;

/// One entry of a human-facing report's task list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// The task at this index of [`Report::tasks`], listed in full.
    Task(usize),
    /// A large suite's cases that are counted, not listed.
    Counted(Counted),
}

/// A large suite's test cases counted on one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counted {
    /// The suite task's id.
    pub suite: String,
    /// Its test cases.
    pub cases: usize,
    /// Cases listed before this line (not PASS).
    pub listed: usize,
    /// Cases that are PASS (none of them listed).
    pub passed: usize,
    /// Cases that are not PASS but were left out past [`LIST_NOT_PASSING`].
    pub not_passing: usize,
}

impl Counted {
    /// The line that stands for the counted cases, e.g. "s: 9,995 more test cases PASS
    /// (…)": the same words in every renderer.
    pub fn words(&self) -> String {
        let mut what = format!(
            "{}: {} {}test case{} PASS",
            self.suite,
            thousands(self.passed),
            if self.listed > 0 { "more " } else { "" },
            if self.passed == 1 { "" } else { "s" }
        );
        if self.not_passing > 0 {
            what.push_str(&format!(
                " and {} more not PASS",
                thousands(self.not_passing)
            ));
        }
        format!(
            "{what}, counted, not listed (a suite of more than {LIST_EVERY_CASE} cases lists at most \
             {LIST_NOT_PASSING} cases that are not PASS, failures first; the JSON and JUnit reports list all {} cases)",
            thousands(self.cases)
        )
    }
}

/// A count with thousands separators: 49,995.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// The order of a large suite's cases: failures (and harness errors) first, then undecided
/// cases, then passing ones.
fn rank(report: &Report, index: usize) -> u8 {
    if continues_reason(report, index).is_some() {
        return 1;
    }
    match report.tasks[index].verdict() {
        Judgement::Verdict(Verdict::Fail) | Judgement::HarnessError => 0,
        Judgement::Verdict(Verdict::Inconclusive) => 1,
        Judgement::Verdict(Verdict::Pass) => 2,
    }
}

/// The suites of more than [`LIST_EVERY_CASE`] cases, each with the indices of its cases in
/// [`Report::tasks`] (in report order). A case's id is `SUITE/CASE` and its suite is one of
/// [`Report::suites`].
pub fn large_suites(report: &Report) -> BTreeMap<&str, Vec<usize>> {
    let mut members = suites(report);
    members.retain(|_, cases| cases.len() > LIST_EVERY_CASE);
    members
}

/// The large suites whose cases the terminal and the Markdown summary count: none with
/// `--verbose` ([`Report::lists_every_case`]), which lists every case in report order.
fn counted_suites(report: &Report) -> BTreeMap<&str, Vec<usize>> {
    if report.lists_every_case() {
        return BTreeMap::new();
    }
    large_suites(report)
}

/// Every suite's cases: indices in [`Report::tasks`].
fn suites(report: &Report) -> BTreeMap<&str, Vec<usize>> {
    let mut members: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    if report.suites.is_empty() {
        return members;
    }
    let ids: std::collections::HashSet<&str> =
        report.suites.iter().map(|s| s.id.as_str()).collect();
    for (i, t) in report.tasks.iter().enumerate() {
        if let Some(s) = crate::ledger::suite_of(t.id()).filter(|s| ids.contains(s)) {
            members.entry(s).or_default().push(i);
        }
    }
    members
}

/// The entries a human-facing report lists, in order. Tasks that are not a suite's cases,
/// and the cases of a suite of at most [`LIST_EVERY_CASE`] cases, keep their order; a larger
/// suite's cases stand where its first case stood, its non-passing cases first (at most
/// [`LIST_NOT_PASSING`]) and the rest counted in one [`Entry::Counted`].
pub fn entries(report: &Report) -> Vec<Entry> {
    let members = counted_suites(report);
    // The suite each large suite's case belongs to, by index.
    let mut suite_at: Vec<Option<&str>> = vec![None; report.tasks.len()];
    for (s, cases) in &members {
        for &c in cases {
            suite_at[c] = Some(s);
        }
    }
    let mut out = Vec::with_capacity(report.tasks.len().min(1024));
    for (i, at) in suite_at.iter().enumerate() {
        let Some(s) = *at else {
            out.push(Entry::Task(i));
            continue;
        };
        let cases = &members[s];
        if cases[0] != i {
            // Listed with the suite's first case.
            continue;
        }
        let mut ranked: Vec<(u8, usize)> = cases.iter().map(|&c| (rank(report, c), c)).collect();
        // Stable: file order within each rank.
        ranked.sort_by_key(|&(r, _)| r);
        let not_passing = ranked.iter().filter(|(r, _)| *r < 2).count();
        let listed = not_passing.min(LIST_NOT_PASSING);
        out.extend(ranked[..listed].iter().map(|&(_, c)| Entry::Task(c)));
        out.push(Entry::Counted(Counted {
            suite: s.to_string(),
            cases: cases.len(),
            listed,
            passed: cases.len() - not_passing,
            not_passing: not_passing - listed,
        }));
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn thousands_are_separated() {
        assert_eq!(super::thousands(0), "0");
        assert_eq!(super::thousands(999), "999");
        assert_eq!(super::thousands(49_995), "49,995");
        assert_eq!(super::thousands(1_000_000), "1,000,000");
    }
}
