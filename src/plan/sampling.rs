//! Sampling rules: a `sampling:` entry validated and resolved into a [`Sampling`].
//!
//! `single:` is checked as written; `sequential:` and `design:` are designed here exactly as
//! `gate plan` designs them (calibrated or Wald, whole or staged), with the policy's
//! unavailable budget and `policy.suite_alpha`'s Šidák share applied; `compare:` rules go to
//! [`super::compare_rule`].

use serde_saphyr::{Location, Spanned};

use super::schema::{self, Rule, SamplingSpec, TaskFile};
use super::{DEFAULT_ALPHA, DEFAULT_BETA, PlanError, ResolvedRule, Validator};
use crate::model::{Rates, Sampling, SequentialRule};
use crate::stats;
use crate::stats::SequentialKind;

/// `policy.suite_alpha` and what it means per task (Šidák): with k tasks each at
/// `1 - (1 - suite_alpha)^(1/k)`, a healthy suite whose every rule is designed this way fails
/// somewhere with probability at most `suite_alpha` (independent tasks).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SuiteAlpha {
    /// The suite-wide producer's risk asked for.
    pub suite_alpha: f64,
    /// Tasks in the plan.
    pub tasks: u64,
    /// Each designed task's alpha.
    pub per_task: f64,
}

impl SuiteAlpha {
    /// Šidák's per-task alpha for `tasks` tasks. `1 - (1 - a)^(1/k)` is computed as
    /// `-expm1(ln_1p(-a) / k)` so a small suite_alpha keeps its precision.
    pub fn new(suite_alpha: f64, tasks: u64) -> Self {
        let k = tasks.max(1) as f64;
        SuiteAlpha {
            suite_alpha,
            tasks,
            per_task: -((-suite_alpha).ln_1p() / k).exp_m1(),
        }
    }
}

impl Validator<'_> {
    /// The task's own `sampling:`, else the plan's top-level one; neither is an error at the
    /// task.
    pub(super) fn sampling_entry<'a>(
        &self,
        entry: &'a Spanned<TaskFile>,
        default_sampling: Option<&'a Spanned<SamplingSpec>>,
        id: &str,
    ) -> Result<&'a Spanned<SamplingSpec>, PlanError> {
        entry.value.sampling.as_ref().or(default_sampling).ok_or_else(|| {
            self.invalid(
                &entry.referenced,
                format!("task `{id}` has no `sampling` and the plan sets none at the top level; add e.g. `sampling: {{single: {{n: 20, c: 3}}}}`"),
            )
        })
    }

    /// A resolved rule with the policy's unavailable budget.
    pub(super) fn rule(
        &self,
        spec: &Spanned<SamplingSpec>,
        id: &str,
        policy: &schema::PolicyFile,
    ) -> Result<ResolvedRule, PlanError> {
        if let SamplingSpec::Compare { .. } = spec.value {
            return self.compare_rule(spec, id, policy);
        }
        let (sampling, rates, designed) = self.sampling(spec, id)?;
        let max_unavailable = policy
            .max_unavailable
            .unwrap_or_else(|| sampling.max_graded().div_ceil(10));
        Ok(ResolvedRule {
            sampling,
            rates,
            designed,
            max_unavailable,
            compare: None,
        })
    }

    /// A sequential rule's truncation: as given (bounded), or twice the equal-risk single
    /// plan's n.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn max_trials(
        &self,
        at: &Location,
        id: &str,
        given: Option<u64>,
        healthy: f64,
        regressed: f64,
        alpha: f64,
        beta: f64,
    ) -> Result<u64, PlanError> {
        // Rates and risks first, with the same messages as `gate plan`.
        stats::check_rates(healthy, regressed, alpha, beta)
            .map_err(|e| self.stats_error(at, id, e))?;
        match given {
            Some(m) => stats::check_trials("max_trials", m)
                .map(|()| m)
                .map_err(|e| self.stats_error(at, id, e)),
            None => stats::sprt::default_max_trials(healthy, regressed, alpha, beta).map_err(|e| {
                self.invalid(
                    at,
                    format!(
                        "task `{id}`: cannot choose a default `max_trials` (twice the single plan's n): {e}; set `max_trials`"
                    ),
                )
            }),
        }
    }

    /// Resolve a sequential rule: validate, then design the calibrated lattice or take
    /// Wald's thresholds. Returns the rule and a sentence on what was designed.
    pub(super) fn sequential(
        &self,
        at: &Location,
        id: &str,
        rates: Rates,
        max_trials: Option<u64>,
        kind: SequentialKind,
    ) -> Result<(Sampling, String), PlanError> {
        let Rates {
            healthy,
            regressed,
            alpha,
            beta,
        } = rates;
        let max_trials = self.max_trials(at, id, max_trials, healthy, regressed, alpha, beta)?;
        let (rule, risks) = match kind {
            SequentialKind::Wald => {
                // Refuses a truncation too short to ever reach PASS or FAIL.
                stats::sprt::Sprt::new(healthy, regressed, alpha, beta, max_trials)
                    .and_then(|sprt| sprt.check_reachable())
                    .map_err(|e| self.stats_error(at, id, e))?;
                (SequentialRule::Wald, None)
            }
            SequentialKind::Calibrated => {
                let d = stats::calibrated::design_calibrated(
                    healthy,
                    regressed,
                    alpha,
                    beta,
                    Some(max_trials),
                )
                .map_err(|e| self.stats_error(at, id, e))?;
                (
                    SequentialRule::Calibrated {
                        lattice: d.boundaries,
                    },
                    Some((d.at_healthy, d.at_regressed)),
                )
            }
        };
        let sampling = Sampling::Sequential {
            healthy,
            regressed,
            alpha,
            beta,
            max_trials,
            rule,
        };
        // The one constructor checks the spec once more as a whole and builds the lattice
        // the run will decide with; its OC is what the sentence below promises.
        let lattice = sampling
            .lattice()
            .map_err(|e| self.stats_error(at, id, e))?;
        let (h, r) = risks.unwrap_or_else(|| (lattice.oc(healthy), lattice.oc(regressed)));
        let words = format!(
            "designed {} (P(pass | {healthy}) = {:.4}, P(pass | {regressed}) = {:.4}, ASN {:.1} / {:.1})",
            sampling.describe(),
            h.p_pass,
            r.p_pass,
            h.asn,
            r.asn
        );
        Ok((sampling, words))
    }

    /// Resolve a staged rule (`stage:` in a `sequential:` block): the calibrated staged
    /// design, or Wald's thresholds consulted only at stage ends. `limits` is
    /// (stage, max_stages, max_trials) as written.
    pub(super) fn staged(
        &self,
        at: &Location,
        id: &str,
        rates: Rates,
        limits: (u64, Option<u64>, Option<u64>),
        kind: SequentialKind,
    ) -> Result<(Sampling, String), PlanError> {
        let (stage, max_stages, given) = limits;
        let Rates {
            healthy,
            regressed,
            alpha,
            beta,
        } = rates;
        stats::staged::check_stage(stage).map_err(|e| self.stats_error(at, id, e))?;
        if max_stages == Some(0) {
            return Err(self.invalid(at, format!("task `{id}`: `max_stages` must be at least 1")));
        }
        // Rates and risks first; then the default truncation in whole stages.
        stats::check_rates(healthy, regressed, alpha, beta)
            .map_err(|e| self.stats_error(at, id, e))?;
        let single_n = stats::design::design_single(healthy, regressed, alpha, beta)
            .ok()
            .map(|d| d.n);
        let max_trials = stats::staged::staged_max_trials(single_n, stage, given, max_stages)
            .ok_or_else(|| {
                self.invalid(
                    at,
                    format!("task `{id}`: cannot choose a default `max_trials`; set `max_stages`"),
                )
            })?;
        let max_trials =
            self.max_trials(at, id, Some(max_trials), healthy, regressed, alpha, beta)?;
        let (wald, lattice, h, r) = match kind {
            SequentialKind::Wald => {
                let sprt = stats::sprt::Sprt::new(healthy, regressed, alpha, beta, max_trials)
                    .and_then(|sprt| sprt.check_reachable().map(|()| sprt))
                    .map_err(|e| self.stats_error(at, id, e))?;
                let b = stats::staged::wald_staged(&sprt, stage);
                let (h, r) = (b.oc(healthy), b.oc(regressed));
                (true, b, h, r)
            }
            SequentialKind::Calibrated => {
                let d = stats::staged::design_staged(
                    healthy,
                    regressed,
                    alpha,
                    beta,
                    stage,
                    Some(max_trials),
                )
                .map_err(|e| self.stats_error(at, id, e))?;
                (false, d.boundaries, d.at_healthy, d.at_regressed)
            }
        };
        // The design may stop sooner than asked (the single plan at stage ends it falls back
        // on ends at its n): the recorded truncation is the lattice's own.
        let max_trials = lattice.max_trials();
        let stages = |p: f64| stats::staged::expected_stages(&lattice, stage, p);
        let (sh, sr) = (stages(healthy), stages(regressed));
        let sampling = Sampling::Sequential {
            healthy,
            regressed,
            alpha,
            beta,
            max_trials,
            rule: SequentialRule::Staged {
                stage,
                wald,
                lattice,
            },
        };
        let words = format!(
            "designed {} (P(pass | {healthy}) = {:.4}, P(pass | {regressed}) = {:.4}, ASN {:.1} / {:.1}, stages {:.2} / {:.2})",
            sampling.describe(),
            h.p_pass,
            r.p_pass,
            h.asn,
            r.asn,
            sh,
            sr
        );
        Ok((sampling, words))
    }

    /// `policy.suite_alpha` holds only if each task's EXACT alpha (P(not PASS | healthy),
    /// which bounds P(FAIL | healthy) too) is within its Šidák share. The calibrated rule
    /// meets it by design; Wald's thresholds do not bound the exact risk (the audit: five
    /// `rule: wald` tasks failed a healthy suite with probability 0.0576 against 0.05), so a
    /// rule whose realised alpha is above the share is refused, with the numbers.
    pub(super) fn suite_share(
        &self,
        at: &Location,
        id: &str,
        sampling: &Sampling,
        healthy: f64,
    ) -> Result<(), PlanError> {
        let (Some(s), Ok(lattice)) = (self.suite, sampling.lattice()) else {
            return Ok(());
        };
        let realised = 1.0 - lattice.oc(healthy).p_pass;
        if realised <= s.per_task {
            return Ok(());
        }
        Err(self.invalid(
            at,
            format!(
                "task `{id}`: `policy.suite_alpha` {} gives each of {} tasks an alpha of {:.6}, \
                 but this rule's exact P(not PASS | healthy) is {realised:.6}, so the suite's \
                 alpha would not hold; use `rule: calibrated` (the default, exact within the \
                 request) or remove `policy.suite_alpha`",
                s.suite_alpha, s.tasks, s.per_task
            ),
        ))
    }

    /// A designed rule's alpha: as written, else from `policy.suite_alpha`, else the default.
    /// Both at once is refused: which one holds would be a guess.
    pub(super) fn alpha(
        &self,
        at: &Location,
        id: &str,
        given: Option<f64>,
    ) -> Result<f64, PlanError> {
        match (given, self.suite) {
            (Some(_), Some(_)) => Err(self.invalid(
                at,
                format!(
                    "task `{id}`: `alpha` and `policy.suite_alpha` both set the producer's risk; \
                     remove one"
                ),
            )),
            (Some(a), None) => Ok(a),
            // Name the setting the user wrote: a per-task alpha below the design minimum
            // comes from suite_alpha and the task count, not from an `alpha` they never set.
            (None, Some(s)) if s.per_task < stats::MIN_RISK => Err(self.invalid(
                at,
                format!(
                    "task `{id}`: `policy.suite_alpha` {} over {} tasks gives each task an \
                     alpha of {:.2e}, below the minimum of 0.000001 (one in a million); raise \
                     `policy.suite_alpha` or split the suite",
                    s.suite_alpha, s.tasks, s.per_task
                ),
            )),
            (None, Some(s)) => Ok(s.per_task),
            (None, None) => Ok(DEFAULT_ALPHA),
        }
    }

    pub(super) fn sampling(
        &self,
        spec: &Spanned<SamplingSpec>,
        id: &str,
    ) -> Result<(Sampling, Option<Rates>, Option<String>), PlanError> {
        let at = &spec.referenced;
        match spec.value {
            SamplingSpec::Compare { .. } => {
                let r = self.compare_rule(spec, id, &schema::PolicyFile::default())?;
                Ok((r.sampling, None, r.designed))
            }
            SamplingSpec::Single { n, c } => {
                if self.suite.is_some() {
                    // Its alpha depends on a healthy rate the plan does not state.
                    return Err(self.invalid(
                        at,
                        format!(
                            "task `{id}`: `policy.suite_alpha` cannot hold with a fixed \
                             `single: {{n: {n}, c: {c}}}` rule, whose alpha depends on a healthy \
                             rate the plan does not give; design it (`design: {{healthy, \
                             regressed}}`) or remove `policy.suite_alpha`"
                        ),
                    ));
                }
                let sampling = Sampling::Single { n, c };
                sampling.rule().map_err(|e| self.stats_error(at, id, e))?;
                Ok((sampling, None, None))
            }
            SamplingSpec::Sequential {
                healthy,
                regressed,
                alpha,
                beta,
                max_trials,
                rule,
                stage,
                max_stages,
            } => {
                let (healthy, regressed) = (healthy.0, regressed.0);
                let from_suite = alpha.is_none();
                let alpha = self.alpha(at, id, alpha.map(|r| r.0))?;
                let beta = beta.map_or(DEFAULT_BETA, |r| r.0);
                let rates = Rates {
                    healthy,
                    regressed,
                    alpha,
                    beta,
                };
                let (sampling, words) = match (stage, max_stages) {
                    (None, Some(_)) => {
                        return Err(self.invalid(
                            at,
                            format!("task `{id}`: `max_stages` needs `stage` (trials per stage)"),
                        ));
                    }
                    (None, None) => {
                        self.sequential(at, id, rates, max_trials, rule.unwrap_or_default())?
                    }
                    (Some(stage), max_stages) => self.staged(
                        at,
                        id,
                        rates,
                        (stage, max_stages, max_trials),
                        rule.unwrap_or_default(),
                    )?,
                };
                if from_suite {
                    self.suite_share(at, id, &sampling, healthy)?;
                }
                let note = self
                    .suite
                    .filter(|_| from_suite)
                    .map(|s| suite_words(&words, s));
                Ok((sampling, Some(rates), note))
            }
            SamplingSpec::Design {
                healthy,
                regressed,
                alpha,
                beta,
                rule,
                max_trials,
            } => {
                let (healthy, regressed) = (healthy.0, regressed.0);
                let from_suite = alpha.is_none() && self.suite.is_some();
                let alpha = self.alpha(at, id, alpha.map(|r| r.0))?;
                let beta = beta.map_or(DEFAULT_BETA, |r| r.0);
                // The user's floor: the designs below accept smaller (per-case) risks.
                stats::check_rates(healthy, regressed, alpha, beta)
                    .map_err(|e| self.stats_error(at, id, e))?;
                let rates = Rates {
                    healthy,
                    regressed,
                    alpha,
                    beta,
                };
                match rule {
                    Rule::Single if max_trials.is_some() => Err(self.invalid(
                        at,
                        format!("task `{id}`: `max_trials` applies to `rule: sequential` only; a single plan's n is designed"),
                    )),
                    Rule::Single => {
                        let d = stats::design::design_single(healthy, regressed, alpha, beta)
                            .map_err(|e| self.stats_error(at, id, e))?;
                        let words = format!(
                            "designed single plan: {} (P(pass | {healthy}) = {:.4}, P(pass | {regressed}) = {:.4})",
                            Sampling::Single { n: d.n, c: d.c }.describe(),
                            d.p_pass_healthy,
                            d.p_pass_regressed
                        );
                        let words = match self.suite.filter(|_| from_suite) {
                            Some(suite) => suite_words(&words, suite),
                            None => words,
                        };
                        Ok((
                            Sampling::Single { n: d.n, c: d.c },
                            Some(rates),
                            Some(words),
                        ))
                    }
                    Rule::Sequential | Rule::Calibrated | Rule::Wald => {
                        let kind = if rule == Rule::Wald {
                            SequentialKind::Wald
                        } else {
                            SequentialKind::Calibrated
                        };
                        let (sampling, words) =
                            self.sequential(at, id, rates, max_trials, kind)?;
                        if from_suite {
                            self.suite_share(at, id, &sampling, healthy)?;
                        }
                        let words = match self.suite.filter(|_| from_suite) {
                            Some(suite) => suite_words(&words, suite),
                            None => words,
                        };
                        Ok((sampling, Some(rates), Some(words)))
                    }
                }
            }
        }
    }
}

/// A designed rule's words with the per-task alpha that `policy.suite_alpha` gave it.
fn suite_words(words: &str, s: SuiteAlpha) -> String {
    format!(
        "{words}; alpha {:.6} per task from `policy.suite_alpha` {} over {} tasks (Šidák: \
         1 - (1 - {})^(1/{}))",
        s.per_task, s.suite_alpha, s.tasks, s.suite_alpha, s.tasks
    )
}

#[cfg(test)]
mod tests {
    use super::SuiteAlpha;
    use crate::model::Sampling;
    use crate::plan::{PlanError, validate_text};

    /// The plan with one task `a` under `sampling` (and `policy`), validated.
    fn load(policy: &str, sampling: &str) -> Result<crate::plan::Plan, PlanError> {
        validate_text(&format!(
            "version: 1\n{policy}sampling:\n  {sampling}\ntasks:\n  - {{id: a, run: 'true'}}\n  - {{id: b, run: 'true'}}\n"
        ))
    }

    fn refusal(policy: &str, sampling: &str) -> String {
        match load(policy, sampling) {
            Err(e) => e.to_string(),
            Ok(p) => panic!("expected a refusal, got {:?}", p.tasks[0].sampling),
        }
    }

    #[test]
    fn sidak_share_recomputes_by_the_textbook_formula() {
        for (a, k) in [(0.05, 1), (0.05, 5), (0.001, 40), (0.3, 3)] {
            let s = SuiteAlpha::new(a, k);
            let textbook = 1.0 - (1.0 - a).powf(1.0 / k as f64);
            assert!((s.per_task - textbook).abs() < 1e-12, "{a} {k}");
        }
        // No tasks counts as one: the share is the suite's alpha.
        assert!((SuiteAlpha::new(0.05, 0).per_task - 0.05).abs() < 1e-15);
    }

    #[test]
    fn a_single_rule_with_c_at_least_n_is_refused() {
        let e = refusal("", "single: {n: 3, c: 3}");
        assert!(e.starts_with("plan.yaml:3:"), "{e}");
        // A top-level rule is the plan's, not the first task's (issue 32).
        assert!(e.contains("the top-level `sampling`"), "{e}");
    }

    #[test]
    fn max_stages_needs_stage() {
        let e = refusal(
            "",
            "sequential: {healthy: 0.9, regressed: 0.7, max_stages: 3}",
        );
        assert!(e.contains("`max_stages` needs `stage`"), "{e}");
    }

    #[test]
    fn max_trials_applies_to_sequential_designs_only() {
        let e = refusal(
            "",
            "design: {healthy: 0.9, regressed: 0.7, rule: single, max_trials: 50}",
        );
        assert!(
            e.contains("`max_trials` applies to `rule: sequential` only"),
            "{e}"
        );
    }

    #[test]
    fn impossible_rates_are_refused_with_the_plan_commands_words() {
        let e = refusal("", "sequential: {healthy: 0.7, regressed: 0.9}");
        assert!(e.contains("the top-level `sampling`: `healthy`"), "{e}");
    }

    #[test]
    fn suite_alpha_is_bounded_and_excludes_a_task_alpha() {
        let e = refusal(
            "policy: {suite_alpha: 0.5}\n",
            "design: {healthy: 0.9, regressed: 0.7}",
        );
        assert!(e.contains("strictly between 0 and 0.5, got 0.5"), "{e}");
        let e = refusal(
            "policy: {suite_alpha: 0.05}\n",
            "design: {healthy: 0.9, regressed: 0.7, alpha: 0.01}",
        );
        assert!(e.contains("both set the producer's risk"), "{e}");
        let e = refusal("policy: {suite_alpha: 0.05}\n", "single: {n: 3, c: 0}");
        assert!(e.contains("cannot hold with a fixed"), "{e}");
    }

    #[test]
    fn suite_alpha_designs_each_task_at_its_sidak_share() {
        let plan = load(
            "policy: {suite_alpha: 0.05}\n",
            "design: {healthy: 0.9, regressed: 0.7, rule: single}",
        )
        .unwrap();
        let share = SuiteAlpha::new(0.05, 2).per_task;
        let rates = plan.tasks[0].rates.unwrap();
        assert_eq!(rates.alpha, share);
        let words = plan.tasks[0].designed.as_deref().unwrap();
        assert!(
            words.contains("from `policy.suite_alpha` 0.05 over 2 tasks"),
            "{words}"
        );
        // The designed single plan meets the share exactly (P(not PASS | healthy) <= share).
        let Sampling::Single { n, c } = plan.tasks[0].sampling else {
            panic!("rule: single designs a single plan");
        };
        let pass = crate::stats::binomial::cdf(n, c, 0.1);
        assert!(1.0 - pass <= share + 1e-12, "{n} {c} {pass}");
    }

    #[test]
    fn a_sequential_rule_records_its_rates_and_defaults() {
        let plan = load("", "sequential: {healthy: 0.9, regressed: 0.7}").unwrap();
        let rates = plan.tasks[0].rates.unwrap();
        assert_eq!((rates.alpha, rates.beta), (0.05, 0.10));
        assert!(matches!(
            plan.tasks[0].sampling,
            Sampling::Sequential { .. }
        ));
        // Undesigned `sequential:` without suite_alpha prints nothing extra.
        assert!(plan.tasks[0].designed.is_none());
    }

    #[test]
    fn a_staged_rule_knows_its_stage_length() {
        let plan = load("", "sequential: {healthy: 0.9, regressed: 0.7, stage: 5}").unwrap();
        assert_eq!(plan.tasks[0].sampling.stage_length(), Some(5));
        let e = refusal(
            "",
            "sequential: {healthy: 0.9, regressed: 0.7, stage: 5, max_stages: 0}",
        );
        assert!(e.contains("`max_stages` must be at least 1"), "{e}");
    }
}
