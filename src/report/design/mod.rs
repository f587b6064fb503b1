//! `gate plan`'s text: the report of [`crate::design`] in words, tables, a plan-file snippet
//! and a terminal OC curve (`curve.rs`); [`svg`] draws the same curves as a chart and
//! [`compare`] renders `gate plan --compare`. Renderers only: every figure shown is one the
//! design computed (or the published lattice's OC at a point).

use std::fmt::Write as _;

use crate::design::{EvaluateLaunched, EvaluateReport, EvaluateUnavailable, LatticeJson};
use crate::design::{OneSampleReport, StagedReport};
use crate::format::percent_apart;
use crate::format::{num, percent, rate};
use crate::model::OnInconclusive;

pub mod compare;
mod curve;
pub mod svg;
mod zone;

pub use svg::render_svg;

/// The human-readable `--evaluate` report.
pub fn render_evaluate(e: &EvaluateReport) -> String {
    let mut out = String::new();
    let (h, g) = (rate(e.healthy), rate(e.regressed));
    let verdict = |ok: bool| if ok { "within" } else { "ABOVE" };
    let _ = writeln!(
        out,
        "Single plan (n {}, c {}): run {}, pass if at most {} fail\n",
        e.n,
        e.c,
        trials(e.n),
        e.c
    );
    let _ = writeln!(
        out,
        "  P(PASS | healthy {h})    {:>8}  alpha = P(not PASS | healthy) {}, {} the requested {}",
        percent(e.p_pass_healthy),
        percent(e.realised_alpha),
        verdict(e.meets_alpha),
        percent(e.alpha)
    );
    let _ = writeln!(
        out,
        "  P(PASS | regressed {g})  {:>8}  beta {}, {} the requested {}",
        percent(e.p_pass_regressed),
        percent(e.realised_beta),
        verdict(e.meets_beta),
        percent(e.beta)
    );
    let _ = writeln!(
        out,
        "  curtailed expected trials: {:.1} when healthy, {:.1} when regressed\n  \
         (information limit for these risks: {:.1} / {:.1})",
        e.curtailed_asn_healthy,
        e.curtailed_asn_regressed,
        e.asn_bound_healthy,
        e.asn_bound_regressed
    );
    if let Some(EvaluateLaunched {
        jobs: j,
        launched_healthy: lh,
        launched_regressed: lr,
    }) = e.launched
    {
        let _ = writeln!(
            out,
            "  with --jobs {j}: {lh:.1} / {lr:.1} trials launched (graded + cancelled in flight, \
             trials finishing in ordinal order)"
        );
    }
    if let Some(EvaluateUnavailable { rate: u, risks: x }) = &e.unavailable {
        let _ = writeln!(
            out,
            "  with {} of trials unavailable, budget {}: alpha {} (INCONCLUSIVE by the budget {}), \
             beta {}",
            rate(*u),
            x.budget,
            percent(x.realised_alpha),
            percent(x.p_budget_healthy),
            percent(x.realised_beta)
        );
    }
    let _ = writeln!(out, "\nOperating characteristic (exact)");
    let _ = writeln!(
        out,
        "  {:>9} {:>10} {:>16}",
        "true rate", "P(PASS)", "expected trials"
    );
    for row in &e.oc {
        let _ = writeln!(
            out,
            "  {:>9} {:>10} {:>16.1}",
            rate(row.p),
            percent(row.p_pass),
            row.curtailed_asn
        );
    }
    out
}

/// "1 trial" / "2 trials".
fn trials(n: u64) -> String {
    format!("{n} trial{}", if n == 1 { "" } else { "s" })
}

/// The decision lattice a person can apply by hand: after t graded trials, PASS once
/// failures <= r_t, FAIL once failures >= a_t. At most a dozen rows, evenly spaced in t (the
/// full lattice is in the JSON).
fn lattice_text(out: &mut String, lattice: &[LatticeJson]) {
    lattice_table(
        out,
        lattice,
        &LatticeTable {
            steps: &[
                1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10_000,
                20_000, 25_000, 50_000, 100_000,
            ],
            caption: "as failure counts, after t graded trials:",
            headings: ["trials t", "PASS if failures <=", "FAIL if failures >="],
            widths: [10, 22],
        },
    );
}

/// How [`lattice_table`] lays a lattice out.
pub(super) struct LatticeTable {
    /// The round steps in t to choose from (the first giving at most 12 rows).
    pub steps: &'static [u64],
    /// The line above the table.
    pub caption: &'static str,
    /// The three column headings: t, the PASS bound, the FAIL bound.
    pub headings: [&'static str; 3],
    /// The width of the t column and of each bound column.
    pub widths: [usize; 2],
}

/// A lattice as a table of at most a dozen rows, evenly spaced in t and always ending at
/// the truncation; `-` where a verdict is not reachable yet.
pub(super) fn lattice_table(out: &mut String, lattice: &[LatticeJson], t: &LatticeTable) {
    let Some(last) = lattice.last() else {
        return;
    };
    let raw = last.trials.div_ceil(12).max(1);
    let step = t.steps.iter().copied().find(|&s| s >= raw).unwrap_or(raw);
    let cell = |v: Option<u64>| v.map_or_else(|| "-".to_string(), |v| v.to_string());
    let [tw, w] = t.widths;
    let _ = writeln!(out, "  {}", t.caption);
    let [h0, h1, h2] = t.headings;
    let _ = writeln!(out, "  {h0:>tw$} {h1:>w$} {h2:>w$}");
    for row in lattice
        .iter()
        .filter(|r| r.trials % step == 0 || r.trials == last.trials)
    {
        let _ = writeln!(
            out,
            "  {:>tw$} {:>w$} {:>w$}",
            row.trials,
            cell(row.pass_max_failures),
            cell(row.fail_min_failures)
        );
    }
}

/// The human-readable report.
pub fn render_text(r: &OneSampleReport) -> String {
    let mut out = String::new();
    let (h, g) = (rate(r.healthy), rate(r.regressed));
    let s = &r.single;
    let q = &r.sequential;
    // `write!` into a String cannot fail; the results are ignored on purpose.
    let _ = writeln!(
        out,
        "Plans that tell a healthy agent ({h} per trial) from a regressed one ({g}),\n\
         with producer's risk alpha {} and consumer's risk beta {}.\n\
         alpha is {}; beta is P(PASS | regressed).\n",
        num(r.alpha),
        num(r.beta),
        r.alpha_definition
    );

    let _ = writeln!(
        out,
        "Single plan: run {}, pass if at most {} fail, i.e. at least {} succeed",
        s.n, s.c, s.min_successes
    );
    let rows = [
        (
            format!("P(PASS | healthy {h})"),
            s.p_pass_healthy,
            format!(
                "fails a healthy agent {} of the time; alpha {}",
                percent(1.0 - s.p_pass_healthy),
                percent(r.alpha)
            ),
        ),
        (
            format!("P(PASS | regressed {g})"),
            s.p_pass_regressed,
            format!(
                "misses the regression {} of the time; beta {}",
                percent(s.p_pass_regressed),
                percent(r.beta)
            ),
        ),
    ];
    let width = rows.iter().map(|x| x.0.len()).max().unwrap_or(0);
    for (label, value, note) in &rows {
        let _ = writeln!(out, "  {label:<width$}  {:>7}  ({note})", percent(*value));
    }
    let _ = writeln!(
        out,
        "  curtailed (stop at the {} failure or the {} success): expected trials\n  \
         {:.1} when healthy, {:.1} when regressed\n",
        ordinal(s.c + 1),
        ordinal(s.min_successes),
        s.curtailed_asn_healthy,
        s.curtailed_asn_regressed
    );

    match (q.accept_llr, q.reject_llr) {
        (Some(accept), Some(reject)) => {
            let _ = writeln!(
                out,
                "Sequential plan: Wald's SPRT (rule: wald), at most {}\n  \
                 the LLR moves {:+.3} per failure and {:+.3} per success;\n  \
                 FAIL once LLR >= {:.3}, PASS once LLR <= {:.3} (Wald's thresholds: the\n  \
                 exact risks below may land above or below the request)",
                trials(q.max_trials),
                q.llr_per_failure,
                q.llr_per_success,
                reject,
                accept
            );
        }
        _ => {
            let _ = writeln!(
                out,
                "Sequential plan: calibrated (rule: calibrated), at most {}\n  \
                 a truncated test on the (trials, failures) lattice whose exact risks are\n  \
                 within the request, never costlier than Wald's rule or the single plan",
                trials(q.max_trials)
            );
        }
    }
    let earliest = |t: Option<u64>, what: &str| match t {
        Some(t) => format!(
            "{what} after {t} straight {}",
            if what == "PASS" {
                "successes"
            } else {
                "failures"
            }
        ),
        None => format!("no {what} within {}", trials(q.max_trials)),
    };
    let _ = writeln!(
        out,
        "  earliest verdicts: {}, {}",
        earliest(q.earliest_pass, "PASS"),
        earliest(q.earliest_fail, "FAIL")
    );
    lattice_text(&mut out, &r.lattice);
    let _ = writeln!(
        out,
        "  {:<22} {:>8} {:>8} {:>15} {:>16}",
        "true rate", "P(PASS)", "P(FAIL)", "P(INCONCLUSIVE)", "expected trials"
    );
    for (label, pass, fail, inc, asn) in [
        (
            format!("healthy {h}"),
            q.p_pass_healthy,
            q.p_fail_healthy,
            q.p_inconclusive_healthy,
            q.asn_healthy,
        ),
        (
            format!("regressed {g}"),
            q.p_pass_regressed,
            q.p_fail_regressed,
            q.p_inconclusive_regressed,
            q.asn_regressed,
        ),
    ] {
        let _ = writeln!(
            out,
            "  {label:<22} {:>8} {:>8} {:>15} {:>16.1}",
            percent(pass),
            percent(fail),
            percent(inc),
            asn
        );
    }
    let _ = writeln!(
        out,
        "  {:<22} {:>8} {:>8} {:>15} {:>16.1}",
        format!("worst case {}", rate_at(q.asn_max_p)),
        "",
        "",
        "",
        q.asn_max
    );
    let _ = writeln!(
        out,
        "  realised alpha {} ({}), realised beta {} (P(PASS | regressed))",
        percent(q.realised_alpha),
        alpha_short(r.on_inconclusive),
        percent(q.realised_beta)
    );
    for (name, realised, asked) in [
        ("alpha", q.realised_alpha, r.alpha),
        ("beta", q.realised_beta, r.beta),
    ] {
        if realised > asked {
            let (realised, asked) = percent_apart(realised, asked);
            let _ = writeln!(
                out,
                "  warning: the realised {name} {realised} is above the requested {asked}; {}",
                if r.calibrated_fits() {
                    "the\n  calibrated rule (the default) keeps it"
                } else {
                    "no\n  calibrated rule fits within these max_trials either: raise `--max-trials`"
                }
            );
        }
    }
    let _ = writeln!(
        out,
        "  information limit (Wald's lower bound for ANY test with these risks): {:.1} trials\n  \
         when healthy, {:.1} when regressed; this plan spends {:.2}x and {:.2}x that",
        q.asn_bound_healthy, q.asn_bound_regressed, q.asn_ratio_healthy, q.asn_ratio_regressed
    );
    discreteness_note(&mut out, r);
    let _ = writeln!(
        out,
        "  against the curtailed single plan ({:.1} / {:.1} expected trials): {} when healthy,\n  \
         {} when regressed\n",
        s.curtailed_asn_healthy,
        s.curtailed_asn_regressed,
        saving(q.saving_healthy),
        saving(q.saving_regressed)
    );
    zone::render(&mut out, &r.zone, s.curtailed_asn_healthy, q.asn_healthy);
    if let Some(j) = &r.jobs {
        let _ = writeln!(
            out,
            "With --jobs {}: expected trials LAUNCHED (graded + cancelled in flight at the decision,\n\
             when trials finish in ordinal order; uneven durations can launch more)",
            j.jobs
        );
        let _ = writeln!(
            out,
            "  single plan      {:.1} when healthy, {:.1} when regressed\n  \
             sequential plan  {:.1} when healthy, {:.1} when regressed\n",
            j.single_launched_healthy,
            j.single_launched_regressed,
            j.sequential_launched_healthy,
            j.sequential_launched_regressed
        );
    }
    if let Some(u) = &r.unavailable {
        let _ = writeln!(
            out,
            "With {} of trials unavailable (transport faults, `timeout: unavailable`), exact:",
            rate(u.rate)
        );
        for (name, x) in [
            ("single plan", &u.single),
            ("sequential plan", &u.sequential),
        ] {
            let _ = writeln!(
                out,
                "  {name:<16} budget {}: alpha {}, beta {}, expected trials {:.1} / {:.1}\n  \
                 {:<16} (a healthy agent is INCONCLUSIVE by the budget {} of the time)",
                x.budget,
                percent(x.realised_alpha),
                percent(x.realised_beta),
                x.trials_healthy,
                x.trials_regressed,
                "",
                percent(x.p_budget_healthy),
            );

            if x.realised_alpha > r.alpha {
                let _ = writeln!(
                    out,
                    "  warning: with these faults the {name} fails a healthy agent {} of the \
                     time,\n  above alpha {}: raise `policy.max_unavailable` or fix the faults",
                    percent(x.realised_alpha),
                    percent(r.alpha)
                );
            }
        }
        let _ = writeln!(
            out,
            "  note: `timeout: unavailable` replaces a timed-out trial instead of counting it, \
             so a\n  regression whose failures are slow can hide behind the budget\n"
        );
    }

    let _ = writeln!(out, "Operating characteristic (exact)");
    let _ = writeln!(
        out,
        "  {:>9} {:>15} {:>13} {:>18} {:>15} {:>13}",
        "true rate",
        "single P(PASS)",
        "single trials",
        "sequential P(PASS)",
        "P(INCONCLUSIVE)",
        "seq. trials"
    );
    for row in &r.oc {
        let _ = writeln!(
            out,
            "  {:>9} {:>15} {:>13.1} {:>18} {:>15} {:>13.1}",
            rate(row.p),
            percent(row.single_p_pass),
            row.single_curtailed_asn,
            percent(row.sequential_p_pass),
            percent(row.sequential_p_inconclusive),
            row.sequential_asn
        );
    }
    let _ = writeln!(
        out,
        "  (trials: expected graded trials; the single plan's are with curtailment)\n"
    );

    out.push_str(&curve::terminal_curve(r));
    out.push('\n');
    if let Some(st) = &r.staged {
        render_staged(&mut out, r, st);
    }

    let _ = writeln!(out, "Plan file snippet (sampling rule):");
    let _ = writeln!(
        out,
        "version: 1\nsampling:\n  single: {{n: {}, c: {}}}\n  \
         # or the sequential test (expected {:.1} trials when healthy, {:.1} when regressed):\n  \
         # sequential: {{healthy: {}, regressed: {}, alpha: {}, beta: {}, max_trials: {}{}}}",
        s.n,
        s.c,
        q.asn_healthy,
        q.asn_regressed,
        num(r.healthy),
        num(r.regressed),
        num(r.alpha),
        num(r.beta),
        q.max_trials,
        if q.rule == "wald" { ", rule: wald" } else { "" }
    );
    out
}

/// The staged section of `gate plan --stage B`'s text.
fn render_staged(out: &mut String, r: &OneSampleReport, st: &StagedReport) {
    let (h, g) = (rate(r.healthy), rate(r.regressed));
    let _ = writeln!(
        out,
        "Staged plan: {} rule deciding only after every {} trials (each stage one round of \
         parallel shards), at most {} stages ({})",
        st.rule,
        st.stage,
        st.max_stages,
        trials(st.max_trials)
    );
    let _ = writeln!(
        out,
        "  P(PASS | healthy {h})    {:>7}  (realised alpha {}; asked {})\n  \
         P(PASS | regressed {g})  {:>7}  (realised beta; asked {})",
        percent(st.p_pass_healthy),
        percent(st.realised_alpha),
        percent(r.alpha),
        percent(st.p_pass_regressed),
        percent(r.beta)
    );
    let _ = writeln!(
        out,
        "  {:<34} {:>19} {:>19}\n  {:<34} {:>9} {:>9} {:>9} {:>9}",
        "expected", "trials", "stages (rounds)", "", "healthy", "regressed", "healthy", "regressed"
    );
    let rows = [
        (
            format!("staged, stages of {}", st.stage),
            (st.trials_healthy, st.trials_regressed),
            (st.stages_healthy, st.stages_regressed),
        ),
        (
            "fully sequential, one at a time".to_string(),
            (st.sequential_trials_healthy, st.sequential_trials_regressed),
            (st.sequential_trials_healthy, st.sequential_trials_regressed),
        ),
        (
            "single plan at the same stage ends".to_string(),
            (st.single_trials_healthy, st.single_trials_regressed),
            (st.single_stages_healthy, st.single_stages_regressed),
        ),
    ];
    for (label, (th, tr), (sh, sr)) in &rows {
        let _ = writeln!(out, "  {label:<34} {th:>9.1} {tr:>9.1} {sh:>9.2} {sr:>9.2}");
    }
    let _ = writeln!(
        out,
        "\n  {:>9} {:>10} {:>15} {:>8} {:>8}",
        "true rate", "P(PASS)", "P(INCONCLUSIVE)", "trials", "stages"
    );
    for row in &st.oc {
        let _ = writeln!(
            out,
            "  {:>9} {:>10} {:>15} {:>8.1} {:>8.2}",
            rate(row.p),
            percent(row.p_pass),
            percent(row.p_inconclusive),
            row.trials,
            row.stages
        );
    }
    let _ = writeln!(
        out,
        "\n  Stage ends (PASS at most / FAIL at least this many failures):"
    );
    for row in &st.lattice {
        let show = |x: Option<u64>| x.map_or("-".to_string(), |v| v.to_string());
        let _ = writeln!(
            out,
            "    after {:>5} trials: PASS <= {:>4}  FAIL >= {:>4}",
            row.trials,
            show(row.pass_max_failures),
            show(row.fail_min_failures)
        );
    }
    let _ = writeln!(
        out,
        "  plan file: sequential: {{healthy: {}, regressed: {}, alpha: {}, beta: {}, stage: {}, max_stages: {}{}}}\n",
        num(r.healthy),
        num(r.regressed),
        num(r.alpha),
        num(r.beta),
        st.stage,
        st.max_stages,
        if st.rule == "wald" {
            ", rule: wald"
        } else {
            ""
        }
    );
}

/// When a design is far from Wald's bound because of the lattice, say so. The bound assumes
/// the LLR lands exactly on a threshold; when one trial moves it a large part of the way
/// (a fifth or more), every test overshoots by up to a whole step, so the distance is the
/// discreteness of whole trials, not the rule.
fn discreteness_note(out: &mut String, r: &OneSampleReport) {
    let q = &r.sequential;
    if q.asn_ratio_healthy <= 1.10 && q.asn_ratio_regressed <= 1.10 {
        return;
    }
    let to_fail = ((1.0 - r.beta) / r.alpha).ln();
    let to_pass = (r.beta / (1.0 - r.alpha)).ln();
    let (fail_share, pass_share) = (q.llr_per_failure / to_fail, q.llr_per_success / to_pass);
    if fail_share.max(pass_share) < 0.2 {
        return;
    }
    let _ = writeln!(
        out,
        "  note: one failure moves the LLR {:.0}% of the way to Wald's FAIL threshold, one \
         success {:.0}%\n  of the way to PASS: on a lattice this coarse any test overshoots \
         by up to a step, which\n  the bound ignores; that, not the rule, keeps this design \
         above the bound",
        fail_share * 100.0,
        pass_share * 100.0
    );
}

/// A computed rate (not one the user typed), to one decimal of a percent.
pub(super) fn rate_at(p: f64) -> String {
    format!("{:.1}%", p * 100.0)
}

/// "1st", "2nd", "3rd", "4th", "11th", "21st", …
fn ordinal(n: u64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// A fraction of trials saved, in words.
fn saving(saved: f64) -> String {
    if saved >= 0.0 {
        format!("saves {:.0}%", saved * 100.0)
    } else {
        format!("costs {:.0}% more", -saved * 100.0)
    }
}

/// The definition of alpha under a policy, short.
fn alpha_short(policy: OnInconclusive) -> &'static str {
    match policy {
        OnInconclusive::Fail => "P(not PASS | healthy)",
        OnInconclusive::Pass => "P(FAIL | healthy)",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_and_ordinals_read_naturally() {
        assert_eq!(ordinal(1), "1st");
        assert_eq!(ordinal(12), "12th");
        assert_eq!(ordinal(22), "22nd");
        assert_eq!(ordinal(103), "103rd");
    }
}
