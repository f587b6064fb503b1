//! `gate plan --compare`'s text: the paired rule, its OC in θ, its risks at pairs of rates,
//! and the price of not knowing base's rate.

use std::fmt::Write as _;

use super::rate_at;
use crate::design::{CompareReport, LatticeJson};
use crate::format::{num, percent, rate};

/// "1 pair" / "2 pairs".
fn pairs(n: u64) -> String {
    format!("{n} pair{}", if n == 1 { "" } else { "s" })
}

/// The human-readable report.
pub fn render_text(r: &CompareReport) -> String {
    let c = &r.compare;
    let mut out = String::new();
    let effect = match (c.base, c.regressed) {
        (Some(b), Some(h)) => format!(
            "catch an odds ratio R = {} (base {} against\nhead {} under independent pairs): head \
             losing R discordant pairs for each one it wins.",
            num_short(c.odds_ratio),
            rate(b),
            rate(h)
        ),
        _ => format!(
            "catch an odds ratio R = {}: head losing R\ndiscordant pairs for each one it wins.",
            num_short(c.odds_ratio)
        ),
    };
    // `write!` into a String cannot fail; the results are ignored on purpose.
    let _ = writeln!(
        out,
        "Compare head against base in pairs: {effect}\n\
         Producer's risk alpha {}, consumer's risk beta {}; no pass rate needs to be known.\n",
        num(c.alpha),
        num(c.beta)
    );
    let _ = writeln!(
        out,
        "Each pair runs the task once on head and once on base. Pairs where both sides agree\n\
         say nothing; the rule reads the discordant pairs, in pair order, and counts head's\n\
         losses. If the two rates are equal, head loses half of them (θ = 50%), whatever the\n\
         rate and however the two sides are correlated; a regression makes head lose\n\
         θ1 = R/(1+R) = {}.\n",
        rate_at(c.theta_regressed)
    );
    let rule = match c.rule {
        "wald" => "Wald's SPRT (rule: wald)",
        _ => "calibrated (rule: calibrated)",
    };
    let _ = writeln!(
        out,
        "Rule on discordant pairs: {rule}, at most {} discordant pairs\n  \
         and at most {} in all, then INCONCLUSIVE{}",
        c.max_discordant,
        pairs(c.max_pairs),
        if c.max_pairs_default {
            format!(
                "\n  (max_pairs {}, the default: the fewest that keep alpha when {} of pairs \
                 disagree)",
                c.max_pairs,
                rate(c.min_discordance)
            )
        } else {
            format!(" (max_pairs {})", c.max_pairs)
        }
    );
    let earliest = |t: Option<u64>, what: &str, how: &str| match t {
        Some(t) => format!("{what} after {t} straight {how}"),
        None => format!("no {what} within {} discordant pairs", c.max_discordant),
    };
    let _ = writeln!(
        out,
        "  earliest verdicts: {}, {}",
        earliest(c.earliest_pass, "PASS", "head wins"),
        earliest(c.earliest_fail, "FAIL", "head losses")
    );
    lattice_losses(&mut out, &r.lattice);
    let _ = writeln!(
        out,
        "  information limit (Wald's lower bound for ANY test at alpha and the lattice's beta): {:.1}\n  \
         discordant pairs when head = base, {:.1} when regressed; this rule spends {:.1} / {:.1},\n  \
         {:.2}x and {:.2}x that",
        c.discordant_bound_null,
        c.discordant_bound_regressed,
        c.discordant_null,
        c.discordant_regressed,
        c.discordant_ratio_null,
        c.discordant_ratio_regressed
    );
    out.push('\n');

    let _ = writeln!(out, "Risks (exact; each for what it says it covers):");
    let _ = writeln!(
        out,
        "  P(PASS | regressed)         {:>7}  at most, the requested {}: for every regression of\n  \
         {:<27} {:>7}  odds ratio R (θ >= θ1) that is also a fall of at least {} points, at\n  \
         {:<27} {:>7}  every base rate and correlation (discordant rule {} + loss route {})",
        percent(c.realised_beta),
        percent(c.beta),
        "",
        "",
        num_short(c.drop * 100.0),
        "",
        "",
        percent(c.lattice_realised_beta),
        percent(c.loss_route_beta)
    );
    let _ = writeln!(
        out,
        "  P(FAIL | head = base)       {:>7}  at most, within alpha {}, for every base rate and\n  \
         {:<27} {:>7}  correlation",
        percent(c.realised_fail_alpha),
        percent(c.alpha),
        "",
        ""
    );
    let _ = writeln!(
        out,
        "  P(not PASS | head = base)   {:>7}  at most (an INCONCLUSIVE fails the gate) when at\n  \
         {:<27} {:>7}  least {} of pairs are discordant; below that it depends on the\n  \
         {:<27} {:>7}  rate: the table of rates below gives it, and the max_pairs it needs",
        percent(c.realised_alpha),
        "",
        "",
        rate(c.min_discordance),
        "",
        ""
    );
    match c.loss_route {
        Some(l) => {
            let _ = writeln!(
                out,
                "  loss route: PASS once head's losses (head fails, base passes) are too rare for a\n  \
                 fall of {} points: none in the first {} pairs, then one more every {} pairs",
                num_short(c.drop * 100.0),
                l.first,
                l.step
            );
        }
        None => {
            let _ = writeln!(
                out,
                "  loss route: none, max_pairs {} is too few for it; a task both sides always\n  \
                 pass (or fail) ends INCONCLUSIVE",
                c.max_pairs
            );
        }
    }
    match (c.alpha_min_discordance, c.alpha_base_range) {
        (Some(dmin), Some([lo, hi])) => {
            let _ = writeln!(
                out,
                "  the discordant rule alone keeps alpha down to {} discordant pairs: independent\n  \
                 sides with equal rates between {} and {}; closer to 0% or 100% it is the\n  \
                 loss route that PASSes, and alpha holds where the table below says it does",
                rate_at(dmin),
                rate_at(lo),
                rate_at(hi)
            );
        }
        (Some(dmin), None) => {
            let _ = writeln!(
                out,
                "  alpha holds only when at least {} of pairs are discordant, which no\n  \
                 independent sides with equal rates reach: raise `--max-pairs`",
                rate_at(dmin)
            );
        }
        _ => {
            let _ = writeln!(
                out,
                "  warning: the rule's own P(not PASS | head = base) is above alpha whatever \
                 the pairs;\n  the calibrated rule (the default) keeps it"
            );
        }
    }
    if c.realised_alpha > c.alpha {
        let _ = writeln!(
            out,
            "  warning: with max_pairs {} a run where {} of pairs disagree ends INCONCLUSIVE \
             too often:\n  alpha {} is above the requested {}; raise `--max-pairs`",
            c.max_pairs,
            rate(c.min_discordance),
            percent(c.realised_alpha),
            percent(c.alpha)
        );
    }
    if c.realised_beta > c.beta {
        let _ = writeln!(
            out,
            "  warning: the realised beta {} is above the requested {}; the calibrated rule \
             (the default) keeps it",
            percent(c.realised_beta),
            percent(c.beta)
        );
    }
    out.push('\n');

    let _ = writeln!(
        out,
        "Operating characteristic by θ = P(head loses | discordant), exact, as many pairs as it needs"
    );
    let _ = writeln!(
        out,
        "  {:>9} {:>8} {:>8} {:>15} {:>19}",
        "θ", "P(PASS)", "P(FAIL)", "P(INCONCLUSIVE)", "discordant pairs"
    );
    for row in &c.oc {
        let _ = writeln!(
            out,
            "  {:>9} {:>8} {:>8} {:>15} {:>19.1}",
            rate_at(row.theta),
            percent(row.p_pass),
            percent(row.p_fail),
            percent(row.p_inconclusive),
            row.expected_discordant
        );
    }
    let _ = writeln!(
        out,
        "  (θ below 50%: head better than base; θ1 = {} is the regression to catch)\n",
        rate_at(c.theta_regressed)
    );

    let _ = writeln!(
        out,
        "At these pass rates (independent sides, with max_pairs {}), exact:",
        c.max_pairs
    );
    let _ = writeln!(
        out,
        "  {:>6} {:>6} {:>11} {:>8} {:>8} {:>15} {:>13} {:>14} {:>17}",
        "base",
        "head",
        "discordant",
        "P(PASS)",
        "P(FAIL)",
        "P(INCONCLUSIVE)",
        "out of pairs",
        "expected pairs",
        "alpha needs pairs"
    );
    for a in &c.at {
        let _ = writeln!(
            out,
            "  {:>6} {:>6} {:>11} {:>8} {:>8} {:>15} {:>13} {:>14.1} {:>17}",
            rate(a.base),
            rate(a.head),
            rate_at(a.discordance),
            percent(a.p_pass),
            percent(a.p_fail),
            percent(a.p_inconclusive),
            percent(a.p_out_of_pairs),
            a.expected_pairs,
            match (a.base == a.head, a.max_pairs_for_alpha) {
                (false, _) => "-".to_string(),
                (true, Some(m)) if m <= c.max_pairs => format!("{m} (holds)"),
                (true, Some(m)) => format!("{m} (NOT held)"),
                (true, None) => "> 100x (NOT held)".to_string(),
            }
        );
    }
    let _ = writeln!(
        out,
        "  (each pair is two runs: one on head, one on base; \"alpha needs pairs\": the fewest\n  \
         max_pairs that keep P(not PASS | head = base) <= alpha at that rate)\n"
    );
    let _ = writeln!(
        out,
        "Operating characteristic over base rate and drop (independent sides, head = base − drop,\nmax_pairs {}), exact:",
        c.max_pairs
    );
    let _ = writeln!(
        out,
        "  {:>6} {:>6} {:>8} {:>8} {:>15} {:>14}",
        "base", "drop", "P(PASS)", "P(FAIL)", "P(INCONCLUSIVE)", "expected pairs"
    );
    for row in &c.oc_by_drop {
        let _ = writeln!(
            out,
            "  {:>6} {:>6} {:>8} {:>8} {:>15} {:>14.1}",
            rate(row.base),
            rate_at(row.drop),
            percent(row.p_pass),
            percent(row.p_fail),
            percent(row.p_inconclusive),
            row.expected_pairs
        );
    }
    out.push('\n');
    if let Some(s) = &c.one_sample {
        let _ = writeln!(
            out,
            "Price of not knowing base's rate: a one-sample plan told healthy {} and regressed\n  \
             {} expects {:.1} / {:.1} trials; compare expects {:.1} / {:.1} runs, {:.1}x / {:.1}x that.\n",
            rate(s.healthy),
            rate_at(s.regressed),
            s.trials_healthy,
            s.trials_regressed,
            s.runs_healthy,
            s.runs_regressed,
            s.runs_healthy / s.trials_healthy,
            s.runs_regressed / s.trials_regressed
        );
    }
    let _ = writeln!(out, "Plan file snippet (sampling rule):");
    let effect = match (c.base, c.regressed) {
        (Some(b), Some(h)) => format!("base: {}, regressed: {}", num(b), num(h)),
        _ => format!("odds_ratio: {}", num(c.odds_ratio)),
    };
    let _ = writeln!(
        out,
        "compare: {{{effect}, drop: {}, alpha: {}, beta: {}, max_pairs: {}{}}}",
        num(c.drop),
        num(c.alpha),
        num(c.beta),
        c.max_pairs,
        if c.rule == "wald" { ", rule: wald" } else { "" }
    );
    out
}

/// The lattice as head losses, at most a dozen rows (the full lattice is in the JSON).
fn lattice_losses(out: &mut String, lattice: &[LatticeJson]) {
    super::lattice_table(
        out,
        lattice,
        &super::LatticeTable {
            steps: &[
                1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10_000,
            ],
            caption: "after t discordant pairs:",
            headings: [
                "discordant t",
                "PASS if head losses <=",
                "FAIL if head losses >=",
            ],
            widths: [16, 24],
        },
    );
}

/// An odds ratio to at most three decimals (2.25, 3, 1.778).
fn num_short(x: f64) -> String {
    let s = format!("{x:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}
