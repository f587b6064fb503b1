//! `gate explain`'s text: what a CI retry setting measures, in words and a table of rates,
//! and, given a healthy and a regressed rate, the retry gate against `gate plan`'s single
//! plan. Every figure is one [`crate::explain`] computed.

use std::fmt::Write as _;

use crate::explain::Explanation;
use crate::format::{num, percent, percent_uncertain, plural, rate};

/// The human-readable explanation.
pub fn render_text(e: &Explanation) -> String {
    let mut out = String::new();
    let (r, k) = (e.retries, e.attempts);
    // `write!` into a String cannot fail; the results are ignored on purpose.
    if r == 0 {
        let _ = writeln!(
            out,
            "Retries: 0. Each test runs once and the gate goes green if that run passes.\n\
             The gate measures pass@1, the per-run success rate itself: a sample of one.\n\
             As an acceptance plan it is (n = 1, c = 0).\n"
        );
    } else {
        let _ = writeln!(
            out,
            "Retries: {r}. Each test gets up to {k} attempts and the gate goes green if any one passes.\n\
             The gate measures {m}: P(at least one of {k} runs succeeds) = 1 - (1 - p)^{k}.\n\
             As an acceptance plan it is (n = {k}, c = {r}): it accepts even when {r} of {k} sampled\n\
             runs fail.\n",
            m = e.measures
        );
    }
    let head = (
        "true per-run success".to_string(),
        format!("gate passes ({})", e.measures),
        format!("all {k} pass (pass^{k})"),
    );
    let (w1, w2, w3) = (head.0.len(), head.1.len(), head.2.len());
    let _ = writeln!(out, "  {:>w1$}   {:>w2$}   {:>w3$}", head.0, head.1, head.2);
    for row in &e.rows {
        let _ = writeln!(
            out,
            "  {:>w1$}   {:>w2$}   {:>w3$}",
            rate(row.rate),
            percent_uncertain(row.p_gate_passes),
            percent_uncertain(row.pass_hat_k)
        );
    }
    if let Some(c) = &e.comparison {
        let _ = writeln!(
            out,
            "\nHealthy {} vs regressed {} (alpha {}, beta {}):",
            rate(c.healthy),
            rate(c.regressed),
            num(c.alpha),
            num(c.beta)
        );
        let labels = [
            format!("retries: {r} ({})", e.measures),
            "gate plan's single plan".to_string(),
        ];
        let lw = labels.iter().map(String::len).max().unwrap_or(0);
        let _ = writeln!(
            out,
            "  {:<lw$}  {:>5}  {:>8}  {:>17}  {:>19}  {:>22}",
            "",
            "runs",
            "may fail",
            "P(PASS | healthy)",
            "P(PASS | regressed)",
            "catches the regression"
        );
        for (label, g) in labels.iter().zip([c.retry_gate, c.plan]) {
            let _ = writeln!(
                out,
                "  {label:<lw$}  {:>5}  {:>8}  {:>17}  {:>19}  {:>22}",
                g.n,
                g.c,
                percent(g.p_pass_healthy),
                percent(g.p_pass_regressed),
                percent(g.p_catch_regressed)
            );
        }
        let _ = writeln!(
            out,
            "The retry gate catches a fall from {} to {} {} of the time; {} trials with at most\n\
             {} catch it {} of the time and still pass a healthy agent {} of the time.",
            rate(c.healthy),
            rate(c.regressed),
            percent(c.retry_gate.p_catch_regressed),
            c.plan.n,
            plural(c.plan.c, "failure", "failures"),
            percent(c.plan.p_catch_regressed),
            percent(c.plan.p_pass_healthy)
        );
    }
    out
}
