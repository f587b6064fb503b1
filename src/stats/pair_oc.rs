//! The exact OC of a compare rule over pairs: the distribution of one pair's four outcomes
//! ([`PairModel`]) and the fold of the lattice's stopping distribution over discordant pairs
//! into `max_pairs` pairs (`truncate`, giving [`PairOc`]). The formulas and why they are
//! exact are in [`super::compare`]'s module doc; the design of the rule is there too.

use super::lattice::{Boundaries, State, Sum};
use super::{StatsError, binomial};

/// The distribution of one pair's four outcomes (probabilities summing to 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairModel {
    /// Both sides pass.
    pub both_pass: f64,
    /// Both sides fail.
    pub both_fail: f64,
    /// Head fails, base passes: a head loss.
    pub head_only_fail: f64,
    /// Base fails, head passes: a head win.
    pub base_only_fail: f64,
}

impl PairModel {
    /// Independent sides with pass rates `base` and `head`, each in [0, 1].
    pub fn independent(base: f64, head: f64) -> Result<Self, StatsError> {
        for (name, v) in [("base", base), ("head", head)] {
            if !(0.0..=1.0).contains(&v) {
                return Err(StatsError::OutOfRange {
                    name,
                    range: "between 0 and 1",
                    value: v,
                });
            }
        }
        Ok(PairModel {
            both_pass: base * head,
            both_fail: (1.0 - base) * (1.0 - head),
            head_only_fail: base * (1.0 - head),
            base_only_fail: (1.0 - base) * head,
        })
    }

    /// Any joint distribution of the four cells (correlated sides): non-negative, summing
    /// to 1 within 1e-9.
    pub fn from_cells(
        both_pass: f64,
        both_fail: f64,
        head_only_fail: f64,
        base_only_fail: f64,
    ) -> Result<Self, StatsError> {
        let cells = [both_pass, both_fail, head_only_fail, base_only_fail];
        if cells.iter().any(|c| !(c.is_finite() && *c >= 0.0)) {
            return Err(StatsError::BadPairModel {
                reason: "every cell must be a probability (at least 0)",
            });
        }
        if (cells.iter().sum::<f64>() - 1.0).abs() > 1e-9 {
            return Err(StatsError::BadPairModel {
                reason: "the four cells must sum to 1",
            });
        }
        Ok(PairModel {
            both_pass,
            both_fail,
            head_only_fail,
            base_only_fail,
        })
    }

    /// P(discordant) = P(head-only fail) + P(base-only fail).
    pub fn discordance(&self) -> f64 {
        self.head_only_fail + self.base_only_fail
    }

    /// θ = P(head loses | discordant); None when no pair is ever discordant.
    pub fn theta(&self) -> Option<f64> {
        let d = self.discordance();
        (d > 0.0).then(|| (self.head_only_fail / d).clamp(0.0, 1.0))
    }

    /// Base's pass rate.
    pub fn base_rate(&self) -> f64 {
        self.both_pass + self.head_only_fail
    }

    /// Head's pass rate.
    pub fn head_rate(&self) -> f64 {
        self.both_pass + self.base_only_fail
    }
}

/// The exact OC of a compare rule for one pair distribution, with the `max_pairs` truncation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairOc {
    /// P(PASS).
    pub p_pass: f64,
    /// P(FAIL).
    pub p_fail: f64,
    /// P(INCONCLUSIVE), for either reason (the lattice's truncation or `max_pairs`).
    pub p_inconclusive: f64,
    /// P(INCONCLUSIVE because `max_pairs` pairs ran out before the lattice stopped).
    pub p_out_of_pairs: f64,
    /// Expected pairs run.
    pub expected_pairs: f64,
}

/// P(stop at discordant pair t with PASS / FAIL / INCONCLUSIVE), t = 1..=max_trials (index
/// 0 unused), from the lattice's terminal states at head-win rate `1 - theta`.
pub(super) fn stops_by_discordant(b: &Boundaries, theta: f64) -> Vec<[f64; 3]> {
    let mut by_t = vec![[0.0f64; 3]; b.max_trials() as usize + 1];
    for term in b.terminals(1.0 - theta) {
        let k = match term.state {
            State::Pass => 0,
            State::Fail => 1,
            _ => 2,
        };
        by_t[term.trials as usize][k] += term.prob;
    }
    by_t
}

/// P(Bin(n, d) >= t) for t = 0..=top + 1 (index t), each a sum of positive terms (the upper
/// tail above `top` from [`binomial::sf`], then the point masses downward), so small and
/// large tails both keep their precision.
fn upper_tails(n: u64, d: f64, top: u64) -> Vec<f64> {
    let mut out = vec![0.0f64; top as usize + 2];
    out[top as usize + 1] = binomial::sf(n, top, d);
    for t in (0..=top).rev() {
        out[t as usize] = out[t as usize + 1] + binomial::pmf(n, t, d);
    }
    out
}

/// P(Bin(n, d) < t) for t = 0..=top (index t), summed upward from the point masses.
fn lower_tails(n: u64, d: f64, top: u64) -> Vec<f64> {
    let mut out = vec![0.0f64; top as usize + 1];
    for t in 1..=top {
        out[t as usize] = out[t as usize - 1] + binomial::pmf(n, t - 1, d);
    }
    out
}

/// Fold the lattice's stopping distribution into `max_pairs` pairs at discordance `d`; see
/// [`super::compare`]'s module doc for the formulas.
pub(super) fn truncate(by_t: &[[f64; 3]], d: f64, max_pairs: u64) -> PairOc {
    let top = (by_t.len() - 1) as u64;
    let m = max_pairs as f64;
    if d <= 0.0 {
        return PairOc {
            p_pass: 0.0,
            p_fail: 0.0,
            p_inconclusive: 1.0,
            p_out_of_pairs: 1.0,
            expected_pairs: m,
        };
    }
    let reach = upper_tails(max_pairs, d, top);
    let reach_next = upper_tails(max_pairs + 1, d, top + 1);
    let short = lower_tails(max_pairs, d, top);
    let (mut pass, mut fail, mut inc, mut out, mut pairs) = (
        Sum::default(),
        Sum::default(),
        Sum::default(),
        Sum::default(),
        Sum::default(),
    );
    for (t, s) in by_t.iter().enumerate().skip(1) {
        let total = s[0] + s[1] + s[2];
        if total == 0.0 {
            continue;
        }
        let r = reach[t];
        pass.add(s[0] * r);
        fail.add(s[1] * r);
        inc.add(s[2] * r);
        out.add(total * short[t]);
        let waiting = t as f64 / d * reach_next[t + 1] + m * short[t];
        pairs.add(total * waiting);
    }
    let (p_pass, p_fail, p_out) = (pass.value(), fail.value(), out.value());
    PairOc {
        p_pass: p_pass.clamp(0.0, 1.0),
        p_fail: p_fail.clamp(0.0, 1.0),
        p_inconclusive: (inc.value() + p_out).clamp(0.0, 1.0),
        p_out_of_pairs: p_out.clamp(0.0, 1.0),
        expected_pairs: pairs.value(),
    }
}

/// The exact OC of the two-route compare rule — the discordant lattice `b` and the loss
/// route `loss_route` beside it — with the `max_pairs` truncation, when a pair is a head
/// loss with probability `loss` and a head win with probability `win` (the rest concordant).
/// The rule depends on the pair distribution only through these two numbers, so this covers
/// every base rate and correlation. At each pair the lattice decides first (so a FAIL and a
/// loss-route PASS at the same pair is a FAIL), then the loss route, then `max_pairs`.
/// Exact: a DP over (discordant pairs, losses) after each pair, inside the lattice's
/// continuation band; it stops early once the undecided mass is below the smallest normal
/// double. NaN fields when `loss`, `win` or their sum is outside [0, 1].
pub(super) fn oc_two_routes(
    b: &Boundaries,
    loss_route: Option<super::loss_route::LossRoute>,
    max_pairs: u64,
    loss: f64,
    win: f64,
) -> PairOc {
    let concordant = 1.0 - loss - win;
    if !((0.0..=1.0).contains(&loss) && (0.0..=1.0).contains(&win) && concordant >= -1e-12) {
        return PairOc {
            p_pass: f64::NAN,
            p_fail: f64::NAN,
            p_inconclusive: f64::NAN,
            p_out_of_pairs: f64::NAN,
            expected_pairs: f64::NAN,
        };
    }
    let concordant = concordant.max(0.0);
    let k = b.max_trials() as usize;
    // The continuation band of each discordant count t < k: losses in lo[t]..=hi[t].
    let mut lo = vec![0usize; k + 1];
    let mut hi = vec![0usize; k + 1];
    for t in 1..k {
        let row = b.row(t as u64).expect("rows 1..max_trials exist");
        lo[t] = row.pass_max_failures.map_or(0, |a| a as usize + 1);
        hi[t] = row
            .fail_min_failures
            .map_or(t, |f| (f as usize).saturating_sub(1).min(t));
    }
    // alive[t][f - lo[t]]: P(t discordant pairs, f losses, undecided).
    let mut alive: Vec<Vec<f64>> = (0..k)
        .map(|t| vec![0.0; (hi[t] + 1).saturating_sub(lo[t])])
        .collect();
    if k == 0 {
        return PairOc {
            p_pass: 0.0,
            p_fail: 0.0,
            p_inconclusive: 1.0,
            p_out_of_pairs: 0.0,
            expected_pairs: 0.0,
        };
    }
    alive[0][0] = 1.0;
    let mut next = alive.clone();
    let (mut pass, mut fail, mut inc, mut pairs) = (
        Sum::default(),
        Sum::default(),
        Sum::default(),
        Sum::default(),
    );
    let mut mass = 1.0f64;
    let mut out = 0.0f64;
    for n in 1..=max_pairs {
        pairs.add(mass);
        for row in next.iter_mut() {
            row.fill(0.0);
        }
        let top = (n as usize).min(k);
        for t in 0..top {
            for (i, &p) in alive[t].iter().enumerate() {
                if p == 0.0 {
                    continue;
                }
                let f = lo[t] + i;
                next[t][i] += p * concordant;
                for (is_loss, q) in [(true, loss), (false, win)] {
                    if q == 0.0 {
                        continue;
                    }
                    let (t1, f1) = (t as u64 + 1, f as u64 + u64::from(is_loss));
                    match b.decide(t1, f1) {
                        State::Pass => pass.add(p * q),
                        State::Fail => fail.add(p * q),
                        State::Truncated => inc.add(p * q),
                        State::Continue => {
                            next[t1 as usize][f1 as usize - lo[t1 as usize]] += p * q;
                        }
                    }
                }
            }
        }
        std::mem::swap(&mut alive, &mut next);
        if let Some(a) = loss_route.and_then(|r| r.allowed(n)) {
            for (t, row) in alive.iter_mut().enumerate() {
                for (i, p) in row.iter_mut().enumerate() {
                    if (lo[t] + i) as u64 <= a && *p != 0.0 {
                        pass.add(*p);
                        *p = 0.0;
                    }
                }
            }
        }
        mass = alive.iter().flatten().sum();
        if n == max_pairs {
            out = mass;
        }
        if mass < f64::MIN_POSITIVE {
            break;
        }
    }
    let out = out.clamp(0.0, 1.0);
    PairOc {
        p_pass: pass.value().clamp(0.0, 1.0),
        p_fail: fail.value().clamp(0.0, 1.0),
        p_inconclusive: (inc.value() + out).clamp(0.0, 1.0),
        p_out_of_pairs: out,
        expected_pairs: pairs.value(),
    }
}
