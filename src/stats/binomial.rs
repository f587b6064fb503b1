//! Binomial probabilities, exact to double precision for any n a gate can use.
//!
//! The point mass uses Catherine Loader's saddle-point form ("Fast and accurate computation
//! of binomial probabilities", 2000; the algorithm behind R's `dbinom`): it never forms the
//! huge `ln C(n, k)` that a log-gamma difference would, so its relative error stays near
//! machine precision for n in the millions. Tails are summed outward from the requested
//! point with the exact term ratio, starting on the side of the mean that makes the sum a
//! *tail* (small terms first in relative terms), so both small and large probabilities keep
//! their relative precision: [`cdf`] for P(X <= k) and [`sf`] for P(X > k).
//!
//! Out-of-domain arguments (p outside [0, 1] or NaN) give NaN rather than a panic; every
//! caller validates its rates before it gets here.

use std::f64::consts::PI;

/// `ln(2 pi)`.
const LN_2PI: f64 = 1.837_877_066_409_345_5;

/// The Stirling error `ln(n!) - [(n + 1/2) ln n - n + ln sqrt(2 pi)]` for integer n.
///
/// For n <= 15 it is computed from the exact factorial (exact in f64 up to 15! < 2^53); above
/// that, from the asymptotic series, whose truncation error at these cut-offs is below
/// 1e-17 (Loader 2000, table 1).
fn stirlerr(n: u64) -> f64 {
    const S0: f64 = 1.0 / 12.0;
    const S1: f64 = 1.0 / 360.0;
    const S2: f64 = 1.0 / 1260.0;
    const S3: f64 = 1.0 / 1680.0;
    const S4: f64 = 1.0 / 1188.0;
    if n == 0 {
        // ln 0! = 0 and the bracket tends to ln sqrt(2 pi); the value is never used for n = 0
        // because the callers treat k = 0 and k = n separately.
        return 0.0;
    }
    if n <= 15 {
        let fact: f64 = (1..=n).map(|i| i as f64).product();
        let x = n as f64;
        return fact.ln() - (x + 0.5) * x.ln() + x - 0.5 * LN_2PI;
    }
    let x = n as f64;
    let xx = x * x;
    if n > 500 {
        (S0 - S1 / xx) / x
    } else if n > 80 {
        (S0 - (S1 - S2 / xx) / xx) / x
    } else if n > 35 {
        (S0 - (S1 - (S2 - S3 / xx) / xx) / xx) / x
    } else {
        (S0 - (S1 - (S2 - (S3 - S4 / xx) / xx) / xx) / xx) / x
    }
}

/// The deviance term `x ln(x / np) + np - x`, computed without cancellation when x is close
/// to np (Loader 2000, section 2).
fn bd0(x: f64, np: f64) -> f64 {
    if (x - np).abs() < 0.1 * (x + np) {
        let mut v = (x - np) / (x + np);
        let mut s = (x - np) * v;
        if s.abs() < f64::MIN_POSITIVE {
            return s;
        }
        let mut ej = 2.0 * x * v;
        v *= v;
        // The series converges geometrically with ratio v^2 < 1/81; 1000 is a guard only.
        for j in 1..1000u32 {
            ej *= v;
            let s1 = s + ej / f64::from(2 * j + 1);
            if s1 == s {
                return s1;
            }
            s = s1;
        }
        s
    } else {
        x * (x / np).ln() + np - x
    }
}

/// `ln C(n, k)`, the log of the binomial coefficient; `-inf` when k > n.
///
/// Written as `k ln(n/k) + (n-k) ln(n/(n-k))` (two non-negative terms) plus the Stirling
/// corrections, so it keeps full relative precision where a difference of log-gammas of
/// numbers near 10^5 would lose four or five digits.
pub fn ln_choose(n: u64, k: u64) -> f64 {
    if k > n {
        return f64::NEG_INFINITY;
    }
    if k == 0 || k == n {
        return 0.0;
    }
    let k = k.min(n - k);
    if k < 30 {
        // A short exact-ratio sum: each factor (n - i) / (i + 1) is rounded once.
        return (0..k).map(|i| ((n - i) as f64 / (i + 1) as f64).ln()).sum();
    }
    let (nf, kf) = (n as f64, k as f64);
    let m = nf - kf;
    let main = kf * (nf / kf).ln() - m * (-kf / nf).ln_1p();
    let corr = stirlerr(n) - stirlerr(k) - stirlerr(n - k);
    main + corr - 0.5 * (LN_2PI + kf.ln() + (-kf / nf).ln_1p())
}

/// P(X = k) for X ~ Binomial(n, p), with relative error near machine precision.
pub fn pmf(n: u64, k: u64, p: f64) -> f64 {
    if !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if k > n {
        return 0.0;
    }
    let q = 1.0 - p;
    if p == 0.0 {
        return if k == 0 { 1.0 } else { 0.0 };
    }
    if p == 1.0 {
        return if k == n { 1.0 } else { 0.0 };
    }
    let nf = n as f64;
    if k == 0 {
        if n == 0 {
            return 1.0;
        }
        let lc = if p < 0.1 {
            -bd0(nf, nf * q) - nf * p
        } else {
            nf * q.ln()
        };
        return lc.exp();
    }
    if k == n {
        let lc = if q < 0.1 {
            -bd0(nf, nf * p) - nf * q
        } else {
            nf * p.ln()
        };
        return lc.exp();
    }
    let kf = k as f64;
    let lc = stirlerr(n) - stirlerr(k) - stirlerr(n - k) - bd0(kf, nf * p) - bd0(nf - kf, nf * q);
    let lf = (2.0 * PI).ln() + kf.ln() + (-kf / nf).ln_1p();
    (lc - 0.5 * lf).exp()
}

/// P(X <= k) for X ~ Binomial(n, p). Exact to double precision; a small lower tail keeps its
/// relative precision.
pub fn cdf(n: u64, k: u64, p: f64) -> f64 {
    if !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if k >= n {
        return 1.0;
    }
    if (k as f64) <= n as f64 * p {
        lower_tail(n, k, p)
    } else {
        1.0 - upper_tail(n, k + 1, p)
    }
}

/// P(X > k) for X ~ Binomial(n, p), the survival function. A small upper tail keeps its
/// relative precision (unlike `1 - cdf`).
pub fn sf(n: u64, k: u64, p: f64) -> f64 {
    if !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if k >= n {
        return 0.0;
    }
    if ((k + 1) as f64) >= n as f64 * p {
        upper_tail(n, k + 1, p)
    } else {
        1.0 - lower_tail(n, k, p)
    }
}

/// Relative size below which the rest of a tail cannot change the sum in double precision.
const TAIL_EPS: f64 = 1e-17;

/// P(X <= k), summed from k downward. Below the mean the term ratio
/// `P(j-1)/P(j) = j (1-p) / ((n-j+1) p)` is below 1 and shrinks as j falls, so once a term's
/// geometric bound on everything after it is negligible the sum is complete.
fn lower_tail(n: u64, k: u64, p: f64) -> f64 {
    let head = pmf(n, k, p);
    if head == 0.0 {
        return 0.0;
    }
    let odds = (1.0 - p) / p;
    let (mut sum, mut term) = (1.0, 1.0);
    let mut j = k;
    while j > 0 {
        let ratio = j as f64 / (n - j + 1) as f64 * odds;
        term *= ratio;
        sum += term;
        j -= 1;
        if ratio < 1.0 && term * ratio / (1.0 - ratio) < TAIL_EPS * sum {
            break;
        }
    }
    head * sum
}

/// P(X >= k), summed from k upward; the mirror image of [`lower_tail`].
fn upper_tail(n: u64, k: u64, p: f64) -> f64 {
    if k > n {
        return 0.0;
    }
    let head = pmf(n, k, p);
    if head == 0.0 {
        return 0.0;
    }
    let odds = p / (1.0 - p);
    let (mut sum, mut term) = (1.0, 1.0);
    let mut j = k;
    while j < n {
        // P(j+1)/P(j) = (n-j) p / ((j+1) (1-p)).
        let ratio = (n - j) as f64 / (j + 1) as f64 * odds;
        term *= ratio;
        sum += term;
        j += 1;
        if ratio < 1.0 && term * ratio / (1.0 - ratio) < TAIL_EPS * sum {
            break;
        }
    }
    head * sum
}

#[cfg(test)]
mod tests {
    use super::*;

    /// C(n, k) exactly, for n small enough that it fits in u128.
    fn choose_exact(n: u64, k: u64) -> u128 {
        let k = k.min(n - k);
        let mut c: u128 = 1;
        for i in 0..k {
            c = c * u128::from(n - i) / u128::from(i + 1);
        }
        c
    }

    /// P(X = k) by the textbook formula: fine for small n.
    fn pmf_brute(n: u64, k: u64, p: f64) -> f64 {
        choose_exact(n, k) as f64 * p.powi(k as i32) * (1.0 - p).powi((n - k) as i32)
    }

    fn close(a: f64, b: f64, rel: f64) -> bool {
        (a - b).abs() <= rel * a.abs().max(b.abs()) || (a - b).abs() < 1e-300
    }

    #[test]
    fn ln_choose_matches_exact_coefficients() {
        for n in 0..=100u64 {
            for k in 0..=n {
                let exact = (choose_exact(n, k) as f64).ln();
                let got = ln_choose(n, k);
                assert!(
                    (got - exact).abs() <= 1e-13 * exact.abs().max(1.0),
                    "ln C({n},{k}) = {got}, want {exact}"
                );
            }
        }
        assert_eq!(ln_choose(3, 4), f64::NEG_INFINITY);
    }

    #[test]
    fn ln_choose_large_n_agrees_with_recurrence() {
        // ln C(n, k+1) - ln C(n, k) = ln((n-k)/(k+1)) exactly; the two evaluation branches
        // (short sum below 30, Stirling form above) must agree with it at and past the seam.
        let n = 40_000u64;
        for k in [28u64, 29, 30, 31, 500, 19_999] {
            let step = ln_choose(n, k + 1) - ln_choose(n, k);
            let want = ((n - k) as f64 / (k + 1) as f64).ln();
            assert!((step - want).abs() < 1e-9, "k={k}: {step} vs {want}");
        }
    }

    #[test]
    fn pmf_matches_textbook_formula_for_small_n() {
        for n in [1u64, 2, 5, 10, 33, 60] {
            for &p in &[0.001, 0.1, 0.3, 0.5, 0.7, 0.95, 0.999] {
                for k in 0..=n {
                    let want = pmf_brute(n, k, p);
                    let got = pmf(n, k, p);
                    assert!(close(got, want, 1e-12), "pmf({n},{k},{p}) {got} vs {want}");
                }
            }
        }
    }

    #[test]
    fn cdf_and_sf_match_brute_sums_and_are_complementary() {
        for n in [1u64, 3, 10, 33, 66, 120] {
            for &p in &[0.001, 0.05, 0.3, 0.5, 0.9, 0.995] {
                let mut acc = 0.0;
                for k in 0..=n {
                    acc += pmf_brute(n, k, p);
                    let c = cdf(n, k, p);
                    assert!(
                        close(c, acc.min(1.0), 1e-11),
                        "cdf({n},{k},{p}) {c} vs {acc}"
                    );
                    let s = sf(n, k, p);
                    assert!((c + s - 1.0).abs() < 1e-14, "cdf+sf at ({n},{k},{p})");
                }
            }
        }
    }

    #[test]
    fn tails_keep_relative_precision() {
        // P(X = 0) for Bin(100, 0.5) is 2^-100, and the cdf at 0 is that mass alone.
        assert!(close(cdf(100, 0, 0.5), 0.5f64.powi(100), 1e-13));
        assert!(close(sf(100, 99, 0.5), 0.5f64.powi(100), 1e-13));
        // A deep lower tail: P(X <= 1) = (1-p)^n + n p (1-p)^(n-1).
        let (n, p) = (2000u64, 0.3f64);
        let want = (1.0 - p).powi(2000) + 2000.0 * p * (1.0 - p).powi(1999);
        assert!(close(cdf(n, 1, p), want, 1e-11));
    }

    #[test]
    fn large_n_sums_to_one_and_is_monotone() {
        let (n, p) = (50_000u64, 0.37);
        let total: f64 = (0..=n).map(|k| pmf(n, k, p)).sum();
        assert!((total - 1.0).abs() < 1e-12, "total mass {total}");
        let mut prev = 0.0;
        for k in (17_000..20_000).step_by(97) {
            let c = cdf(n, k, p);
            assert!(c >= prev);
            prev = c;
        }
    }

    #[test]
    fn edges_do_not_panic() {
        assert_eq!(pmf(0, 0, 0.5), 1.0);
        assert_eq!(cdf(0, 0, 0.5), 1.0);
        assert_eq!(sf(0, 0, 0.5), 0.0);
        assert_eq!(pmf(5, 0, 0.0), 1.0);
        assert_eq!(pmf(5, 5, 1.0), 1.0);
        assert_eq!(cdf(5, 2, 1.0), 0.0);
        assert_eq!(cdf(5, 2, 0.0), 1.0);
        assert!(pmf(5, 2, f64::NAN).is_nan());
        assert!(cdf(5, 2, 1.5).is_nan());
        assert!(sf(5, 2, -0.1).is_nan());
        assert_eq!(pmf(5, 6, 0.5), 0.0);
    }
}
