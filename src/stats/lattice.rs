//! A sequential rule as a boundary lattice on (graded trials, failures), and its exact
//! operating characteristic by dynamic programming.
//!
//! Every rule `gate` runs — the curtailed single plan, Wald's SPRT and the calibrated design —
//! is, in the end, a table: after t graded trials (t = 1..=max_trials) the rule PASSes when the
//! failures are at most `pass_max_failures`, FAILs when they are at least
//! `fail_min_failures`, and otherwise goes on; after `max_trials` an undecided state is
//! INCONCLUSIVE. [`Boundaries`] is that table, and it is the one thing the runtime decision
//! ([`Boundaries::decide`]), the exact OC and ASN ([`Boundaries::oc`]), the terminal-state
//! distribution ([`Boundaries::terminals`], for stopping-aware estimates) and the published
//! `lattice[]` of `gate plan --format json` are computed from.
//!
//! This is the one OC engine, and it has one DP (`Boundaries::walk`, in `lattice/many.rs`,
//! at one rate or several at once): it moves the probability mass of the undecided states
//! one trial at a time (success with p, failure with 1 - p) and absorbs whatever lands on a
//! boundary; undecided states form one contiguous window of failure counts per t, so the
//! cost is O(max_trials × window width). Sums are compensated (Neumaier). A lattice that is a
//! curtailed single plan takes a fast path for [`Boundaries::oc`]: its P(PASS) is a binomial
//! tail and its ASN has a closed form (`single_oc`), so a plan of a million trials costs a
//! few binomial sums instead of a walk over n × c states.
//!
//! Unavailable trials (declared faults) do not move the lattice; they only spend a budget.
//! Because they occur independently of the graded outcomes, the number of unavailable trials
//! before the t-th graded one is negative-binomial, and [`Boundaries::oc_unavailable`] folds
//! that distribution into the graded stopping distribution exactly.

use serde::{Deserialize, Serialize};

use super::StatsError;
use super::{binomial, check_trials};

/// Rows between two sums of the undecided mass in a walk, which ends when that sum is below
/// the smallest normal double: often enough that a walk spends few rows in subnormal
/// arithmetic, rarely enough that the sum (a serial chain of additions) costs little.
pub(crate) const MASS_CHECK: u64 = 32;

/// One row of a boundary lattice: the decision after `trials` graded trials.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LatticeRow {
    /// Graded trials so far.
    pub trials: u64,
    /// PASS once failures are at most this (None: no failure count passes yet).
    pub pass_max_failures: Option<u64>,
    /// FAIL once failures are at least this (None: no failure count fails yet).
    pub fail_min_failures: Option<u64>,
}

/// Where a rule stands after some graded trials.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum State {
    /// Neither boundary reached and trials remain.
    Continue,
    /// On or below the PASS boundary.
    Pass,
    /// On or above the FAIL boundary.
    Fail,
    /// `max_trials` spent without reaching a boundary: INCONCLUSIVE.
    Truncated,
}

impl State {
    /// 0, 1, 2 for a stop with PASS, FAIL, INCONCLUSIVE (a stop is never `Continue`).
    fn stop_index(self) -> usize {
        match self {
            State::Pass => 0,
            State::Fail => 1,
            _ => 2,
        }
    }
}

/// Exact P(PASS), P(FAIL), P(INCONCLUSIVE) and expected graded trials at one success rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Oc {
    /// P(PASS).
    pub p_pass: f64,
    /// P(FAIL).
    pub p_fail: f64,
    /// P(INCONCLUSIVE): `max_trials` spent without reaching a boundary.
    pub p_inconclusive: f64,
    /// Expected graded trials (ASN).
    pub asn: f64,
}

impl Oc {
    /// Every field NaN: the OC at a rate outside [0, 1].
    pub const NAN: Oc = Oc {
        p_pass: f64::NAN,
        p_fail: f64::NAN,
        p_inconclusive: f64::NAN,
        asn: f64::NAN,
    };

    /// The OC from the compensated sums of a rule's stops: [P(PASS), P(FAIL),
    /// P(INCONCLUSIVE), ASN].
    fn of_sums(s: [Sum; 4]) -> Oc {
        Oc {
            p_pass: s[0].value().clamp(0.0, 1.0),
            p_fail: s[1].value().clamp(0.0, 1.0),
            p_inconclusive: s[2].value().clamp(0.0, 1.0),
            asn: s[3].value(),
        }
    }
}

/// A state where the rule stops, with its exact probability at the rate asked for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Terminal {
    /// Graded trials at the stop.
    pub trials: u64,
    /// Failures among them.
    pub failures: u64,
    /// `Pass`, `Fail` or `Truncated`.
    pub state: State,
    /// Probability of stopping exactly here.
    pub prob: f64,
}

/// The OC when each trial is, independently, unavailable with some probability and more
/// than `budget` unavailable trials make the task INCONCLUSIVE.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OcUnavailable {
    /// P(PASS).
    pub p_pass: f64,
    /// P(FAIL).
    pub p_fail: f64,
    /// P(INCONCLUSIVE because `max_trials` graded trials decided nothing).
    pub p_truncated: f64,
    /// P(INCONCLUSIVE because the unavailable budget ran out first).
    pub p_budget: f64,
    /// Expected graded trials.
    pub asn_graded: f64,
    /// Expected trials consumed, graded and unavailable (trials run one at a time).
    pub asn_trials: f64,
}

impl OcUnavailable {
    /// P(INCONCLUSIVE), for either reason.
    pub fn p_inconclusive(&self) -> f64 {
        self.p_truncated + self.p_budget
    }
}

/// A decision rule on the (graded trials, failures) lattice; see the module doc.
///
/// Invariants (checked by [`Boundaries::new`]): rows for t = 1..=max_trials in order,
/// `max_trials` in 1..=[`MAX_TRIALS_LIMIT`](super::MAX_TRIALS_LIMIT), and `pass_max_failures < fail_min_failures`
/// where both exist, so no state both passes and fails.
///
/// Serialised compactly (ledger headers, JSON reports) as the rows where either boundary
/// changes: `{"max_trials": M, "changes": [[t, pass_max_failures, fail_min_failures], …]}`,
/// each entry holding from trial t until the next entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "CompactBoundaries", into = "CompactBoundaries")]
pub struct Boundaries {
    /// Shared, never changed after validation: every test case of a suite is judged by its
    /// family's one rule, and a copy of the rows per case was 8 kB a case (issue 30).
    rows: std::sync::Arc<[LatticeRow]>,
    /// (n, c) when the rows are exactly the curtailed single plan's: its OC has a closed
    /// form. A function of `rows`, found once by [`Boundaries::new`].
    single: Option<(u64, u64)>,
}

/// The serialised form of [`Boundaries`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CompactBoundaries {
    /// Truncation.
    pub max_trials: u64,
    /// `[t, pass_max_failures, fail_min_failures]` where either changes, from t = 1.
    pub changes: Vec<(u64, Option<u64>, Option<u64>)>,
}

/// The schema of a lattice is the schema of its serialised form.
impl schemars::JsonSchema for Boundaries {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Boundaries".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        CompactBoundaries::json_schema(generator)
    }
}

impl From<Boundaries> for CompactBoundaries {
    fn from(b: Boundaries) -> Self {
        let mut changes: Vec<(u64, Option<u64>, Option<u64>)> = Vec::new();
        for r in b.rows.iter() {
            let entry = (r.trials, r.pass_max_failures, r.fail_min_failures);
            if changes
                .last()
                .is_none_or(|&(_, a, f)| (a, f) != (entry.1, entry.2))
            {
                changes.push(entry);
            }
        }
        CompactBoundaries {
            max_trials: b.max_trials(),
            changes,
        }
    }
}

impl TryFrom<CompactBoundaries> for Boundaries {
    type Error = StatsError;

    fn try_from(c: CompactBoundaries) -> Result<Self, StatsError> {
        check_trials("max_trials", c.max_trials)?;
        let starts_at_one = c.changes.first().is_some_and(|e| e.0 == 1);
        let increasing = c.changes.windows(2).all(|w| w[0].0 < w[1].0);
        let within = c.changes.last().is_some_and(|e| e.0 <= c.max_trials);
        if !(starts_at_one && increasing && within) {
            return Err(StatsError::BadLattice {
                reason: "`changes` must start at trial 1 and increase up to `max_trials`",
            });
        }
        let mut rows = Vec::with_capacity(c.max_trials as usize);
        let mut next = c.changes.iter().peekable();
        let mut current = (None, None);
        for t in 1..=c.max_trials {
            if let Some(&(_, a, f)) = next.next_if(|e| e.0 == t) {
                current = (a, f);
            }
            rows.push(LatticeRow {
                trials: t,
                pass_max_failures: current.0,
                fail_min_failures: current.1,
            });
        }
        Boundaries::new(rows)
    }
}

impl Boundaries {
    /// Validate a full table of rows (t = 1..=max_trials in order, PASS below FAIL).
    pub fn new(rows: Vec<LatticeRow>) -> Result<Self, StatsError> {
        check_trials("max_trials", rows.len() as u64)?;
        for (i, r) in rows.iter().enumerate() {
            if r.trials != i as u64 + 1 {
                return Err(StatsError::BadLattice {
                    reason: "rows must be for trials 1, 2, 3, … in order",
                });
            }
            if let (Some(a), Some(b)) = (r.pass_max_failures, r.fail_min_failures)
                && a >= b
            {
                return Err(StatsError::BadLattice {
                    reason: "a row's `pass_max_failures` must be below its `fail_min_failures`",
                });
            }
        }
        let single = single_shape(&rows);
        Ok(Boundaries {
            rows: rows.into(),
            single,
        })
    }

    /// Build from a function of t giving (pass_max_failures, fail_min_failures).
    pub fn from_fn(
        max_trials: u64,
        mut row: impl FnMut(u64) -> (Option<u64>, Option<u64>),
    ) -> Result<Self, StatsError> {
        Boundaries::new(
            (1..=max_trials)
                .map(|t| {
                    let (pass_max_failures, fail_min_failures) = row(t);
                    LatticeRow {
                        trials: t,
                        pass_max_failures,
                        fail_min_failures,
                    }
                })
                .collect(),
        )
    }

    /// The curtailed single plan (n, c): PASS at the (n-c)-th success, FAIL at the (c+1)-th
    /// failure. Needs c < n.
    pub fn single(n: u64, c: u64) -> Result<Self, StatsError> {
        if c >= n {
            return Err(StatsError::BadLattice {
                reason: "a single plan needs c < n",
            });
        }
        let need = n - c;
        Boundaries::from_fn(n, |t| {
            // PASS: successes t - f >= n - c, i.e. f <= t - (n - c).
            let pass = t.checked_sub(need);
            let fail = (t > c).then_some(c + 1);
            (pass, fail)
        })
    }

    /// Rows a rule builds valid by construction (t = 1..=max_trials in order, PASS below
    /// FAIL), without [`Boundaries::new`]'s checks: for the rule modules, which build on this
    /// one (Wald's lattice is [`Boundaries::wald`], in [`super::sprt`], so that this module
    /// stays a leaf of the statistics).
    pub(super) fn from_valid_rows(rows: Vec<LatticeRow>) -> Self {
        debug_assert!(Boundaries::new(rows.clone()).is_ok());
        Boundaries {
            single: single_shape(&rows),
            rows: rows.into(),
        }
    }

    /// The truncation: after this many graded trials an undecided rule is INCONCLUSIVE.
    pub fn max_trials(&self) -> u64 {
        self.rows.len() as u64
    }

    /// All rows, t = 1..=max_trials.
    pub fn rows(&self) -> &[LatticeRow] {
        &self.rows
    }

    /// The row after `trials` graded trials (None for 0 or beyond max_trials).
    pub fn row(&self, trials: u64) -> Option<&LatticeRow> {
        trials
            .checked_sub(1)
            .and_then(|i| self.rows.get(usize::try_from(i).ok()?))
    }

    /// The state after `trials` graded trials of which `failures` failed.
    pub fn decide(&self, trials: u64, failures: u64) -> State {
        let Some(row) = self.row(trials) else {
            return if trials == 0 {
                State::Continue
            } else {
                State::Truncated
            };
        };
        if row.pass_max_failures.is_some_and(|a| failures <= a) {
            State::Pass
        } else if row.fail_min_failures.is_some_and(|b| failures >= b) {
            State::Fail
        } else if trials >= self.max_trials() {
            State::Truncated
        } else {
            State::Continue
        }
    }

    /// Fewest graded trials to a PASS (all successes) and to a FAIL (all failures), if any.
    pub fn earliest(&self) -> (Option<u64>, Option<u64>) {
        let pass = self
            .rows
            .iter()
            .find(|r| r.pass_max_failures.is_some())
            .map(|r| r.trials);
        let fail = self
            .rows
            .iter()
            .find(|r| r.fail_min_failures.is_some_and(|b| b <= r.trials))
            .map(|r| r.trials);
        (pass, fail)
    }

    /// Exact P(PASS), P(FAIL), P(INCONCLUSIVE) and ASN at success rate `p` (NaN outside
    /// [0, 1]).
    pub fn oc(&self, p: f64) -> Oc {
        if !(0.0..=1.0).contains(&p) {
            return Oc::NAN;
        }
        match self.single {
            Some((n, c)) => single_oc(n, c, p),
            None => self.oc_lanes::<1>([p])[0],
        }
    }

    /// Whether [`Boundaries::oc`] takes the single plan's closed form instead of a walk (so
    /// a batch of rates in [`Boundaries::oc_many`] saves nothing).
    pub fn has_closed_form(&self) -> bool {
        self.single.is_some()
    }

    /// Every state where the rule stops, with its exact probability at success rate `p`
    /// (empty outside [0, 1]). The probabilities sum to 1 up to rounding (and the mass below
    /// the smallest normal double, which the walk drops).
    pub fn terminals(&self, p: f64) -> Vec<Terminal> {
        let mut out = Vec::new();
        if (0.0..=1.0).contains(&p) {
            self.walk([p], |trials, failures, state, [prob]| {
                out.push(Terminal {
                    trials,
                    failures,
                    state,
                    prob,
                })
            });
        }
        out
    }

    /// P(stop at graded trial t with PASS / FAIL / INCONCLUSIVE), indexed by t (index 0 is
    /// unused and zero).
    fn stop_by_trial(&self, p: f64) -> Vec<[f64; 3]> {
        let mut by_t = vec![[0.0f64; 3]; self.rows.len() + 1];
        self.walk([p], |t, _, state, [m]| {
            by_t[t as usize][state.stop_index()] += m
        });
        by_t
    }

    /// The exact OC when each trial is independently unavailable with probability `u` and
    /// more than `budget` unavailable trials end the task INCONCLUSIVE (the sampler's rule).
    ///
    /// With U_t the unavailable trials before the t-th graded one (negative binomial:
    /// P(U_t <= k) = P(Binomial(t + k, u) <= k)), a graded stop at t stands iff U_t <= budget.
    /// Unavailable trials consumed are min(U_T, budget + 1) at the graded stop T. The table
    /// of P(U_t <= k) is built by the recurrence P_t(k) = (1-u) P_{t-1}(k) + u P_t(k-1).
    /// NaN fields for p or u outside [0, 1) (u = 1 would never grade a trial).
    pub fn oc_unavailable(&self, p: f64, u: f64, budget: u64) -> OcUnavailable {
        if !(0.0..=1.0).contains(&p) || !(0.0..1.0).contains(&u) {
            return OcUnavailable {
                p_pass: f64::NAN,
                p_fail: f64::NAN,
                p_truncated: f64::NAN,
                p_budget: f64::NAN,
                asn_graded: f64::NAN,
                asn_trials: f64::NAN,
            };
        }
        let by_t = self.stop_by_trial(p);
        let width = usize::try_from(budget).unwrap_or(usize::MAX).min(1 << 20) + 1;
        // cdf[k] = P(U_t <= k), k = 0..=budget, for the current t; U_0 = 0.
        let mut cdf = vec![1.0f64; width];
        let (mut pass, mut fail, mut trunc) = (Sum::default(), Sum::default(), Sum::default());
        let (mut graded, mut unavailable) = (Sum::default(), Sum::default());
        // P(T >= t): the graded walk is still undecided before trial t.
        let mut alive = 1.0f64;
        for stops in by_t.iter().skip(1) {
            // Advance the table from t - 1 to t.
            let mut prev = 0.0;
            for c in cdf.iter_mut() {
                *c = (1.0 - u) * *c + u * prev;
                prev = *c;
            }
            let ok = cdf[width - 1];
            // The t-th graded trial is consumed iff T >= t and the budget held until then.
            graded.add(alive * ok);
            let total = stops[0] + stops[1] + stops[2];
            pass.add(stops[0] * ok);
            fail.add(stops[1] * ok);
            trunc.add(stops[2] * ok);
            if total > 0.0 {
                // E[min(U_t, budget + 1)] = sum over k = 0..=budget of P(U_t > k).
                let expected: f64 = cdf.iter().map(|c| 1.0 - c).sum();
                unavailable.add(total * expected);
            }
            alive -= total;
            if alive <= 0.0 {
                break;
            }
        }
        let (p_pass, p_fail, p_truncated) = (pass.value(), fail.value(), trunc.value());
        let asn_graded = graded.value();
        OcUnavailable {
            p_pass,
            p_fail,
            p_truncated,
            p_budget: (1.0 - p_pass - p_fail - p_truncated).max(0.0),
            asn_graded,
            asn_trials: asn_graded + unavailable.value(),
        }
    }

    /// Expected trials LAUNCHED with `jobs` parallel lanes at success rate `p`: the graded
    /// trials to the decision plus those still in flight when it is reached (cancelled).
    ///
    /// The run engine keeps `jobs` trials in flight, launches ordinals in order as lanes
    /// free, consumes outcomes in ordinal order, and never launches beyond `max_trials`
    /// graded trials. When trials finish in ordinal order (equal durations), a decision at
    /// graded trial T finds ordinals T+1 … T+jobs-1 in flight, so min(T + jobs - 1,
    /// max_trials) were launched; this returns the exact expectation of that. With uneven
    /// durations a lane freed by a later ordinal is refilled early, so more can launch.
    pub fn expected_launched(&self, p: f64, jobs: u64) -> f64 {
        if !(0.0..=1.0).contains(&p) {
            return f64::NAN;
        }
        let extra = jobs.saturating_sub(1);
        let max = self.max_trials();
        let mut sum = Sum::default();
        for (t, stops) in self.stop_by_trial(p).iter().enumerate().skip(1) {
            let launched = (t as u64).saturating_add(extra).min(max);
            sum.add((stops[0] + stops[1] + stops[2]) * launched as f64);
        }
        sum.value()
    }
}

/// (n, c) if `rows` are exactly [`Boundaries::single`]'s for some c < n = rows.len().
fn single_shape(rows: &[LatticeRow]) -> Option<(u64, u64)> {
    let n = rows.len() as u64;
    let c = rows.last()?.fail_min_failures?.checked_sub(1)?;
    if c >= n {
        return None;
    }
    let need = n - c;
    rows.iter()
        .all(|r| {
            r.pass_max_failures == r.trials.checked_sub(need)
                && r.fail_min_failures == (r.trials > c).then_some(c + 1)
        })
        .then_some((n, c))
}

/// The exact OC of the curtailed single plan (n, c) in closed form: what [`Boundaries::oc`]
/// returns for [`Boundaries::single`]`(n, c)`, which is how code outside the statistics asks
/// for it.
///
/// With per-trial success rate p the failures of n trials are Binomial(n, 1 - p), so
/// P(PASS) = P(F <= c) and P(FAIL) = P(F > c), each summed directly so that a small risk
/// keeps its relative precision. Curtailment stops at the (c+1)-th failure (FAIL) or the
/// (n-c)-th success (PASS): the OC is unchanged, and both stopping times are
/// negative-binomial, whose sums telescope into binomial tails on n + 1 trials:
///
/// ```text
/// ASN(p) = (c+1)/q · P(Bin(n+1, q) >= c+2) + (n-c)/p · P(Bin(n+1, q) <= c),   q = 1 - p
/// ```
///
/// A plan with c >= n passes before any trial (P(PASS) 1, ASN 0). NaN fields for p outside
/// [0, 1].
pub(super) fn single_oc(n: u64, c: u64, p: f64) -> Oc {
    if !(0.0..=1.0).contains(&p) {
        return Oc::NAN;
    }
    let q = 1.0 - p;
    let asn = if c >= n {
        0.0
    } else if q == 0.0 {
        // The closed form divides by p and q; at the ends the stopping time is certain.
        (n - c) as f64
    } else if p == 0.0 {
        (c + 1) as f64
    } else {
        let by_failures = (c + 1) as f64 / q * binomial::sf(n + 1, c + 1, q);
        let by_successes = (n - c) as f64 / p * binomial::cdf(n + 1, c, q);
        by_failures + by_successes
    };
    Oc {
        p_pass: binomial::cdf(n, c, q),
        p_fail: binomial::sf(n, c, q),
        // A single plan always decides: exactly 0, not 1 - pass - fail's rounding.
        p_inconclusive: 0.0,
        asn,
    }
}

/// Neumaier's compensated sum: the error stays at one rounding however many terms are added.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Sum {
    sum: f64,
    carry: f64,
}

impl Sum {
    /// Add one term.
    pub(crate) fn add(&mut self, x: f64) {
        let t = self.sum + x;
        if self.sum.abs() >= x.abs() {
            self.carry += (self.sum - t) + x;
        } else {
            self.carry += (x - t) + self.sum;
        }
        self.sum = t;
    }

    /// The sum.
    pub(crate) fn value(self) -> f64 {
        self.sum + self.carry
    }
}

mod many;

#[cfg(test)]
mod tests;
