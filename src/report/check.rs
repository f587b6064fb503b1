//! `gate check`'s text: one block per task of a [`PlanCheck`] (its rule, exact risks,
//! expected trials or pairs, zone; a suite's family; a compare rule's risks at the base
//! rates named), then one line for the plan. The figures are computed in
//! [`crate::plan::check`]; its JSON form is the [`PlanCheck`] itself.

use std::fmt::Write as _;

use crate::format::{percent, rate, zone_line};
use crate::model::OnInconclusive;
use crate::plan::check::{CompareCheck, PlanCheck};

/// A risk in at most six significant digits, rounded up, so that a bound printed with it
/// stays true (a share of `policy.suite_alpha` such as 0.05131670194948623 prints 0.0513168;
/// the 0.05 a user wrote prints 0.05).
fn up6(x: f64) -> String {
    if !(x.is_finite() && x > 0.0) {
        return format!("{x}");
    }
    let plain = format!("{x}");
    let digits = plain.trim_start_matches(['0', '.']).len();
    if digits <= 6 {
        return plain;
    }
    // Decimals that keep six significant digits, then the smallest such decimal >= x.
    let decimals = (5 - x.log10().floor() as i32).max(0) as usize;
    let scale = 10f64.powi(decimals as i32);
    let up = (x * scale).ceil() / scale;
    let s = format!("{up:.decimals$}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The outcome a risk alpha is of: under `on_inconclusive: fail` an INCONCLUSIVE fails the
/// gate too.
fn red(policy: OnInconclusive) -> &'static str {
    match policy {
        OnInconclusive::Fail => "not PASS",
        OnInconclusive::Pass => "FAIL",
    }
}

/// The human form: one block per task, then one line for the plan.
pub fn render_text(check: &PlanCheck) -> String {
    let mut out = String::new();
    for t in &check.tasks {
        // `write!` to a String cannot fail.
        let _ = writeln!(out, "{}  (line {})", t.id, t.line);
        if let (Some(s), Some(_)) = (&t.suite, &t.compare) {
            let _ = writeln!(
                out,
                "  suite      each run runs the suite on head and on base (results read from {} on each side); each test case is paired head against base, run by run, and judged by this compare rule",
                s.results
            );
            if let Some((alpha, beta)) = t.family.as_ref().and_then(|f| f.alpha.zip(f.beta)) {
                let _ = writeln!(
                    out,
                    "  family     the test cases are one family: the compare rule is designed again at alpha 1 − (1 − {})^(1/K) for the K cases the first run records (beta {} each), so P(a suite whose every case is as good on head as on base is not PASS) ≤ {} (at the discordance floor, for independent cases); later runs get only the undecided cases on both sides ($GATE_SUITE_CASES)",
                    up6(alpha),
                    up6(beta),
                    up6(alpha)
                );
            }
        } else if let Some(s) = &t.suite {
            let _ = writeln!(
                out,
                "  suite      each run's test cases (read from {}) judged one by one by this rule",
                s.results
            );
            // The cases are counted at run time, so the line says how the share works.
            let _ = match t.family.as_ref().and_then(|f| f.alpha.zip(f.beta)) {
                Some((alpha, beta)) => writeln!(
                    out,
                    "  family     the test cases are one family: the rule is designed again at alpha 1 − (1 − {})^(1/K) for the K cases the first run records (beta {} each), so P(a suite of healthy cases is not PASS) ≤ {}; later runs get only the undecided cases ($GATE_SUITE_CASES)",
                    up6(alpha),
                    up6(beta),
                    up6(alpha)
                ),
                None => writeln!(
                    out,
                    "  family     none: a fixed `single:` rule states no healthy rate, so each test case's risk is its own; later runs get only the undecided cases ($GATE_SUITE_CASES)"
                ),
            };
        }
        let _ = writeln!(out, "  rule       {}", t.rule);
        if let Some(c) = &t.compare {
            compare_lines(&mut out, c, check.on_inconclusive);
        }
        if let (Some(rates), Some(risks)) = (t.rates, t.risks) {
            let red = red(check.on_inconclusive);
            let _ = writeln!(
                out,
                "  risks      alpha = P({red} | {}) = {:.4} · beta = P(PASS | {}) = {:.4}",
                rate(rates.healthy),
                risks.alpha,
                rate(rates.regressed),
                risks.beta
            );
        }
        if let (Some(rates), Some(e)) = (t.rates, t.expected_trials) {
            let _ = writeln!(
                out,
                "  trials     expected {:.1} at {} · {:.1} at {} · at most {}",
                e.healthy,
                rate(rates.healthy),
                e.regressed,
                rate(rates.regressed),
                t.max_trials
            );
        }
        if let (Some(rates), Some(e)) = (t.rates, t.expected_stages) {
            let _ = writeln!(
                out,
                "  stages     expected {:.2} at {} · {:.2} at {} (each stage one round of parallel shards)",
                e.healthy,
                rate(rates.healthy),
                e.regressed,
                rate(rates.regressed)
            );
        }
        if let Some(d) = t.discriminates {
            let _ = writeln!(
                out,
                "  trials     at most {} (fewer when the verdict is certain early)",
                t.max_trials
            );
            let _ = writeln!(
                out,
                "  tells      passes a {} agent 95% of the time and a {} agent 10% of the time (no rates given: use `design:` to state them)",
                percent(d.p_pass_95),
                percent(d.p_pass_10)
            );
        }
        if let Some(z) = &t.zone {
            let _ = writeln!(out, "  zone       {}", zone_line(z, t.rates.is_some()));
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "{}: ok · {} task{} · on_inconclusive: {}",
        check.plan,
        check.tasks.len(),
        if check.tasks.len() == 1 { "" } else { "s" },
        match check.on_inconclusive {
            OnInconclusive::Fail => "fail",
            OnInconclusive::Pass => "pass",
        }
    );
    out
}

/// A compare task's exact risks and cost, and a warning when its `max_pairs` leaves the
/// producer's risk above the request at the discordance floor.
fn compare_lines(out: &mut String, c: &CompareCheck, policy: OnInconclusive) {
    let alpha = match policy {
        OnInconclusive::Fail => format!(
            "P(not PASS | head = base) = {:.4} (with max_pairs {}, the largest when at least {}% of pairs are discordant)",
            c.alpha,
            c.max_pairs,
            c.min_discordance * 100.0
        ),
        OnInconclusive::Pass => format!(
            "P(FAIL | head = base) = {:.4} (for every base rate)",
            c.alpha
        ),
    };
    let _ = writeln!(
        out,
        "  risks      alpha = {alpha} · beta = P(PASS | θ = {:.4}) = {:.4} (the discordant rule, for every base rate and correlation)",
        c.theta1, c.beta
    );
    if c.loss_route_beta > 0.0 {
        let _ = writeln!(
            out,
            "  beta       at most {:.4} with the loss route ({:.4}), for a regression of odds ratio {} that is also a fall of at least {} points",
            c.beta + c.loss_route_beta,
            c.loss_route_beta,
            crate::format::short_ratio(c.odds_ratio),
            crate::format::short_ratio(c.drop * 100.0)
        );
    }
    let red = red(policy);
    // Alpha depends on how often pairs disagree: stated at the rates named, with what it
    // would take where it does not hold.
    for a in &c.at {
        let risk = match policy {
            OnInconclusive::Fail => a.p_not_pass,
            OnInconclusive::Pass => a.p_fail,
        };
        // A risk above alpha says so in the words `gate plan --compare` uses: the alpha (a
        // task's share of `policy.suite_alpha`, too) is NOT held at that rate (review 9, a17).
        let verdict = if a.alpha_holds {
            format!("within alpha {}", c.alpha_requested)
        } else {
            match a.max_pairs_for_alpha {
                Some(m) => format!(
                    "above alpha {}, so alpha is NOT held here: max_pairs {m} would keep it",
                    c.alpha_requested
                ),
                None => format!(
                    "above alpha {}, so alpha is NOT held here: no max_pairs up to 100 times this one keeps it",
                    c.alpha_requested
                ),
            }
        };
        let _ = writeln!(
            out,
            "  at {:<7} P({red} | head = base = {}, independent sides, {} of pairs discordant) = {risk:.4}, {verdict} · expected {:.1} pairs{}",
            percent(a.base),
            percent(a.base),
            percent(a.discordance),
            a.expected_pairs,
            match a.named_by {
                "at" => "",
                "plan" => " (the rule's base rate)",
                _ => " (a default rate: name yours with --at)",
            }
        );
    }
    if let Some([lo, hi]) = c.alpha_base_range {
        let _ = writeln!(
            out,
            "  alpha      the discordant rule alone keeps it for equal rates between {} and {} (at least {} of pairs discordant); nearer 0% or 100% it holds where the loss route PASSes, as the lines above say",
            percent(lo),
            percent(hi),
            percent(c.alpha_min_discordance.unwrap_or(f64::NAN))
        );
    }
    let _ = writeln!(
        out,
        "  pairs      expected {:.1} discordant pairs when head = base · {:.1} when regressed · at most {} pairs (each pair is two runs)",
        c.expected_discordant[0], c.expected_discordant[1], c.max_pairs
    );
    if c.alpha <= c.alpha_requested {
        return;
    }
    let holds = match c.alpha_min_discordance {
        Some(d) if d <= 0.5 => {
            let half = (1.0 - 2.0 * d).sqrt() / 2.0;
            format!(
                "alpha holds only when at least {} of pairs are discordant (independent sides with equal rates between {} and {})",
                percent(d),
                percent(0.5 - half),
                percent(0.5 + half)
            )
        }
        Some(d) => format!(
            "alpha holds only when at least {} of pairs are discordant, which no independent sides with equal rates reach",
            percent(d)
        ),
        None => "no share of discordant pairs keeps alpha".to_string(),
    };
    let _ = writeln!(
        out,
        "  warning    alpha {:.4} is above the requested {}: with max_pairs {} the pairs run out (INCONCLUSIVE, which fails the gate) before a verdict when few pairs disagree; {holds}; raise `max_pairs`, or leave it out for the default",
        c.alpha, c.alpha_requested, c.max_pairs
    );
}

#[cfg(test)]
mod up6_tests {
    use super::up6;

    #[test]
    fn a_family_risk_prints_in_six_digits_rounded_up() {
        assert_eq!(up6(0.05), "0.05");
        assert_eq!(up6(0.1), "0.1");
        assert_eq!(up6(0.05131670194948623), "0.0513168");
        assert_eq!(up6(0.001_025_315), "0.00102532");
        for x in [0.05131670194948623, 0.001_025_315, 1.0 / 3.0, 0.07] {
            assert!(up6(x).parse::<f64>().unwrap() >= x, "{x}");
        }
    }
}
