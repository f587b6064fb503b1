//! Estimates from n graded trials with s successes: unbiased pass@k and pass^k, and
//! Wilson and Clopper–Pearson intervals for the per-trial success rate.
//!
//! - pass@k (at least one of k succeeds), unbiased (Chen et al. 2021, "Evaluating large
//!   language models trained on code"): `1 - C(n-s, k) / C(n, k)`, evaluated as
//!   `1 - prod_{i = n-s+1..n} (1 - k/i)` so that no coefficient is ever formed.
//! - pass^k (all k succeed), unbiased (Yao et al. 2024, tau-bench): `C(s, k) / C(n, k)`,
//!   evaluated as `prod_{i < k} (s - i) / (n - i)`. The plug-in `(s/n)^k` is biased upward.
//! - Wilson score interval, and the exact Clopper–Pearson interval found by bisection on
//!   the exact binomial tails of [`super::binomial`] (no beta quantile routine, so no edge
//!   case of one). Both are closed form at s = 0 and s = n.
//!
//! "Unbiased" and "exact" hold for a fixed number of trials. After a curtailed or sequential
//! stop they do not: the reports then publish [`super::post_stop`]'s figures and keep these
//! as naive ones.

use super::binomial;

/// An interval.
// Two-sided, `[lo, hi]`, for a rate. The JSON report writes it as is (hence the schema
// name: the report schema's, which predates this derive).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, schemars::JsonSchema)]
#[schemars(rename = "JsonInterval")]
pub struct Interval {
    /// Lower bound.
    pub lo: f64,
    /// Upper bound.
    pub hi: f64,
}

/// Unbiased pass@k from n trials with s successes; None when k == 0, k > n or s > n.
pub fn pass_at_k(n: u64, s: u64, k: u64) -> Option<f64> {
    if k == 0 || k > n || s > n {
        return None;
    }
    // Fewer than k failures: every k-subset contains a success.
    if n - s < k {
        return Some(1.0);
    }
    let kf = k as f64;
    let none: f64 = (n - s + 1..=n).map(|i| 1.0 - kf / i as f64).product();
    Some(1.0 - none)
}

/// Unbiased pass^k from n trials with s successes; None when k == 0, k > n or s > n.
pub fn pass_hat_k(n: u64, s: u64, k: u64) -> Option<f64> {
    if k == 0 || k > n || s > n {
        return None;
    }
    if s < k {
        return Some(0.0);
    }
    Some((0..k).map(|i| (s - i) as f64 / (n - i) as f64).product())
}

/// The standard normal quantile z with P(|Z| <= z) = `confidence`.
fn two_sided_z(confidence: f64) -> f64 {
    std::f64::consts::SQRT_2 * statrs::function::erf::erfc_inv(1.0 - confidence)
}

fn valid(s: u64, n: u64, confidence: f64) -> bool {
    n > 0 && s <= n && confidence.is_finite() && confidence > 0.0 && confidence < 1.0
}

/// Wilson score interval at `confidence` (e.g. 0.95) for s successes in n trials.
/// None when n == 0, s > n or confidence is not strictly between 0 and 1.
pub fn wilson(s: u64, n: u64, confidence: f64) -> Option<Interval> {
    if !valid(s, n, confidence) {
        return None;
    }
    let z = two_sided_z(confidence);
    let z2 = z * z;
    let (sf, nf) = (s as f64, n as f64);
    if s == 0 {
        return Some(Interval {
            lo: 0.0,
            hi: z2 / (nf + z2),
        });
    }
    if s == n {
        return Some(Interval {
            lo: nf / (nf + z2),
            hi: 1.0,
        });
    }
    let center = (sf + z2 / 2.0) / (nf + z2);
    let half = z / (nf + z2) * (sf * (nf - sf) / nf + z2 / 4.0).sqrt();
    Some(Interval {
        lo: (center - half).max(0.0),
        hi: (center + half).min(1.0),
    })
}

/// Exact (Clopper–Pearson) interval at `confidence` for s successes in n trials: the rates
/// at which observing s or more (resp. s or fewer) successes has probability
/// (1 - confidence) / 2. None when n == 0, s > n or confidence is not strictly between 0
/// and 1.
pub fn clopper_pearson(s: u64, n: u64, confidence: f64) -> Option<Interval> {
    if !valid(s, n, confidence) {
        return None;
    }
    let tail = (1.0 - confidence) / 2.0;
    let nf = n as f64;
    let lo = if s == 0 {
        0.0
    } else if s == n {
        tail.powf(1.0 / nf)
    } else {
        // P(X >= s | p) rises with p; lo is where it reaches `tail`.
        solve_increasing(|p| binomial::sf(n, s - 1, p), tail)
    };
    let hi = if s == n {
        1.0
    } else if s == 0 {
        1.0 - tail.powf(1.0 / nf)
    } else {
        // P(X <= s | p) falls as p rises; hi is where it drops to `tail`.
        solve_increasing(|p| -binomial::cdf(n, s, p), -tail)
    };
    Some(Interval { lo, hi })
}

/// The p in [0, 1] where an increasing `f` crosses `target`, by bisection to the last bit.
pub(crate) fn solve_increasing(f: impl Fn(f64) -> f64, target: f64) -> f64 {
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    // 1100 halvings reach adjacent doubles even near 0; the loop usually ends far sooner.
    for _ in 0..1100 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Enumerate every k-subset of n trials with s successes (bit masks).
    fn brute(n: u64, s: u64, k: u64) -> (f64, f64) {
        let (mut any, mut all, mut total) = (0u64, 0u64, 0u64);
        // Trials 0..s succeed, s..n fail.
        for mask in 0u32..(1u32 << n) {
            if u64::from(mask.count_ones()) != k {
                continue;
            }
            total += 1;
            let succ = u64::from((mask & ((1u32 << s) - 1)).count_ones());
            if succ > 0 {
                any += 1;
            }
            if succ == k {
                all += 1;
            }
        }
        (any as f64 / total as f64, all as f64 / total as f64)
    }

    #[test]
    fn pass_at_k_and_pass_hat_k_match_enumeration() {
        for n in 1..=12u64 {
            for s in 0..=n {
                for k in 1..=n {
                    let (any, all) = brute(n, s, k);
                    let at = pass_at_k(n, s, k).expect("defined");
                    let hat = pass_hat_k(n, s, k).expect("defined");
                    assert!(
                        (at - any).abs() < 1e-13,
                        "pass@{k} n={n} s={s}: {at} vs {any}"
                    );
                    assert!(
                        (hat - all).abs() < 1e-13,
                        "pass^{k} n={n} s={s}: {hat} vs {all}"
                    );
                }
            }
        }
    }

    #[test]
    fn undefined_estimates_are_none() {
        assert_eq!(pass_at_k(5, 3, 0), None);
        assert_eq!(pass_at_k(5, 3, 6), None);
        assert_eq!(pass_at_k(5, 6, 2), None);
        assert_eq!(pass_hat_k(0, 0, 1), None);
        assert_eq!(wilson(0, 0, 0.95), None);
        assert_eq!(clopper_pearson(0, 0, 0.95), None);
        assert_eq!(wilson(3, 2, 0.95), None);
        assert_eq!(clopper_pearson(1, 2, 1.0), None);
        assert_eq!(wilson(1, 2, f64::NAN), None);
    }

    #[test]
    fn wilson_known_values_and_closed_ends() {
        // 8 of 10 at 95%: the textbook Wilson interval is [0.4902, 0.9433].
        let w = wilson(8, 10, 0.95).expect("interval");
        assert!(
            (w.lo - 0.4902).abs() < 5e-5 && (w.hi - 0.9433).abs() < 5e-5,
            "{w:?}"
        );
        let z = two_sided_z(0.95);
        assert!((z - 1.959_963_984_540_054).abs() < 1e-12);
        let w0 = wilson(0, 20, 0.95).expect("interval");
        assert_eq!(w0.lo, 0.0);
        assert!((w0.hi - z * z / (20.0 + z * z)).abs() < 1e-15);
        let wn = wilson(20, 20, 0.95).expect("interval");
        assert_eq!(wn.hi, 1.0);
    }

    #[test]
    fn clopper_pearson_known_values_and_closed_ends() {
        // 0 of 10 at 95%: hi solves (1 - hi)^10 = 0.025, i.e. hi = 0.30850 (to 5 places).
        let c0 = clopper_pearson(0, 10, 0.95).expect("interval");
        assert_eq!(c0.lo, 0.0);
        assert!((c0.hi - 0.3085).abs() < 5e-5, "{c0:?}");
        assert!(((1.0 - c0.hi).powi(10) - 0.025).abs() < 1e-15);
        // 8 of 10 at 95%: the standard table gives [0.4439, 0.9748].
        let c = clopper_pearson(8, 10, 0.95).expect("interval");
        assert!(
            (c.lo - 0.4439).abs() < 5e-5 && (c.hi - 0.9748).abs() < 5e-5,
            "{c:?}"
        );
        // The defining equations hold at the ends.
        assert!((binomial::sf(10, 7, c.lo) - 0.025).abs() < 1e-12);
        assert!((binomial::cdf(10, 8, c.hi) - 0.025).abs() < 1e-12);
        let cn = clopper_pearson(10, 10, 0.95).expect("interval");
        assert_eq!(cn.hi, 1.0);
        assert!((cn.lo - 0.025f64.powf(0.1)).abs() < 1e-15);
    }
}
