//! `compare:` rules and `base:` sides: validate and resolve them, with file:line:col errors.
//!
//! A `compare:` rule is designed at load time by [`crate::stats::compare::CompareDesign`],
//! exactly as `gate plan --compare` designs it; the task's `sampling` becomes the rule on the
//! discordant stream (success rate 1/2 against 1/(1+R), on the design's lattice), and the
//! rest (R, `max_pairs`, the base side) goes into [`CompareTask`]. Where the base side runs
//! comes from the plan's top-level `base:` (`cwd`, `env`) and the task's own `base:` (`run`,
//! `check`, `cwd`, `env`), the task's winning; head is the task as written.

use std::path::PathBuf;

use serde_saphyr::Spanned;

use super::schema::{BaseFile, SamplingSpec};
use super::{CommandLine, DEFAULT_BETA, PlanError, ResolvedRule, Task, Validator};
use crate::model::{OnInconclusive, Sampling, SequentialRule};
use crate::pair_sampler::{CompareRates, discordant_rates};
use crate::stats::SequentialKind;
use crate::stats::compare::{CompareDesign, CompareSpec, Effect};

/// A resolved `compare:` rule (beside the discordant rule in [`ResolvedRule::sampling`]).
#[derive(Debug, Clone, PartialEq)]
pub struct CompareRule {
    /// R, as given or translated from `base` and `regressed`.
    pub odds_ratio: f64,
    /// Producer's risk asked for.
    pub alpha: f64,
    /// Consumer's risk asked for.
    pub beta: f64,
    /// Pairs after which the task stops INCONCLUSIVE.
    pub max_pairs: u64,
    /// The rates the rule was written with, if it was.
    pub rates: Option<CompareRates>,
    /// The size of a regression in points of pass rate (the loss route's D).
    pub drop: f64,
    /// The loss route beside the discordant rule (None when `max_pairs` is too few for it).
    pub loss_route: Option<crate::stats::loss_route::LossRoute>,
}

/// The base side of a compare task: what runs there, where, with what environment.
#[derive(Debug, Clone)]
pub struct BaseSide {
    /// The base side's `run`.
    pub run: CommandLine,
    /// The base side's `check`.
    pub check: Option<CommandLine>,
    /// Line and column of the `check:` value base runs (its own, or the task's).
    pub check_at: Option<(u64, u64)>,
    /// Its working directory.
    pub cwd: PathBuf,
    /// The `cwd` as the plan wrote it, if it set one.
    pub cwd_as_written: Option<String>,
    /// Its environment: the task's, then the base's over it.
    pub env: Vec<(String, String)>,
}

/// A compare task's rule and base side.
#[derive(Debug, Clone)]
pub struct CompareTask {
    /// The rule.
    pub rule: CompareRule,
    /// Where base runs.
    pub base: BaseSide,
}

impl Validator<'_> {
    /// Resolve a `compare:` rule: design it, and return the discordant rule as the
    /// task's sampling, with the compare settings beside it.
    pub(super) fn compare_rule(
        &self,
        spec: &Spanned<SamplingSpec>,
        id: &str,
        policy: &super::schema::PolicyFile,
    ) -> Result<ResolvedRule, PlanError> {
        let at = &spec.referenced;
        let SamplingSpec::Compare {
            odds_ratio,
            base,
            regressed,
            alpha,
            beta,
            max_pairs,
            rule,
            drop,
        } = &spec.value
        else {
            unreachable!("compare_rule() is called for `compare:` rules only")
        };
        let effect = match (odds_ratio, base, regressed) {
            (Some(r), None, None) => Effect::OddsRatio(*r),
            (None, Some(b), Some(h)) => Effect::Rates {
                base: b.0,
                regressed: h.0,
            },
            (Some(_), _, _) => {
                return Err(self.invalid(
                    at,
                    format!("task `{id}`: `compare:` takes `odds_ratio` or `base` + `regressed`, not both"),
                ));
            }
            _ => {
                return Err(self.invalid(
                    at,
                    format!(
                        "task `{id}`: `compare:` needs `odds_ratio: R` (R > 1: head loses R discordant pairs for each it wins) \
                         or both `base: RATE` and `regressed: RATE`"
                    ),
                ));
            }
        };
        let rates = match effect {
            Effect::Rates { base, regressed } => Some(CompareRates { base, regressed }),
            Effect::OddsRatio(_) => None,
        };
        let alpha = self.alpha(at, id, alpha.map(|r| r.0))?;
        let beta = beta.map_or(DEFAULT_BETA, |r| r.0);
        let kind = rule.unwrap_or_default();
        let design = CompareDesign::new(&CompareSpec {
            alpha,
            beta,
            max_pairs: *max_pairs,
            rule: kind,
            drop: drop.map(|r| r.0),
            ..CompareSpec::new(effect)
        })
        .map_err(|e| self.stats_error(at, id, e))?;
        let (healthy, win) = discordant_rates(design.odds_ratio);
        let max_trials = design.boundaries.max_trials();
        let sequential_rule = match kind {
            SequentialKind::Calibrated => SequentialRule::Calibrated {
                lattice: design.boundaries.clone(),
            },
            SequentialKind::Wald => SequentialRule::Wald,
        };
        let sampling = Sampling::Sequential {
            healthy,
            regressed: win,
            alpha: design.lattice_alpha,
            beta,
            max_trials,
            rule: sequential_rule,
        };
        let translated = rates.map_or(String::new(), |r| {
            format!(
                " (base {} against head {}, under independent pairs)",
                r.base, r.regressed
            )
        });
        // The producer's risk by the plan's own `on_inconclusive`: under `fail` the pairs
        // running out (INCONCLUSIVE) turn the gate red too, so it is P(not PASS) with the
        // `max_pairs` truncation at the discordance floor; under `pass` only a FAIL does, and
        // the truncation only removes verdicts, so it is the lattice's P(FAIL).
        let (risk_words, realised_alpha) = match policy.on_inconclusive {
            OnInconclusive::Fail => (
                format!(
                    "P(not PASS | head = base) = {:.4} (with max_pairs {}, at least {}% of pairs discordant)",
                    design.realised_alpha(),
                    design.max_pairs,
                    design.min_discordance * 100.0
                ),
                design.realised_alpha(),
            ),
            OnInconclusive::Pass => (
                format!(
                    "P(FAIL | head = base) = {:.4} (an INCONCLUSIVE passes; for every base rate)",
                    design.realised_fail_alpha()
                ),
                design.realised_fail_alpha(),
            ),
        };
        if let Some(s) = self.suite
            && realised_alpha > s.per_task
        {
            return Err(self.invalid(
                at,
                format!(
                    "task `{id}`: `policy.suite_alpha` {} gives each of {} tasks an alpha of {:.6}, \
                     but this compare rule's exact {risk_words}, so the suite's alpha would not \
                     hold: with so few pairs they run out before a verdict; raise `max_pairs` \
                     (or leave it out: the default keeps alpha) or remove `policy.suite_alpha`",
                    s.suite_alpha, s.tasks, s.per_task
                ),
            ));
        }
        // Beta said with what it covers: with the loss route, the sum of the two routes'
        // shares bounds P(PASS) only for a regression that is also a fall of `drop` points.
        let beta_words = match design.loss_route {
            Some(_) => format!(
                "beta = P(PASS | θ >= {:.4} and a fall of at least {} points) <= {:.4} (the discordant rule alone: {:.4} at θ = {:.4}, for every base rate)",
                design.theta1(),
                crate::format::short_ratio(design.drop * 100.0),
                design.realised_beta(),
                design.lattice_realised_beta(),
                design.theta1()
            ),
            None => format!(
                "beta = P(PASS | θ = {:.4}) = {:.4}",
                design.theta1(),
                design.realised_beta()
            ),
        };
        let words = format!(
            "designed compare rule: odds ratio {:.4}{translated}, {} rule on the discordant pairs, at most {} pairs; \
             realised alpha = {risk_words}, {beta_words}",
            design.odds_ratio,
            kind.as_str(),
            design.max_pairs,
        );
        let max_unavailable = policy
            .max_unavailable
            .unwrap_or_else(|| design.max_pairs.div_ceil(10));
        Ok(ResolvedRule {
            sampling,
            rates: None,
            designed: Some(words),
            max_unavailable,
            compare: Some(Box::new(CompareRule {
                odds_ratio: design.odds_ratio,
                alpha,
                beta,
                max_pairs: design.max_pairs,
                rates,
                drop: design.drop,
                loss_route: design.loss_route,
            })),
        })
    }

    /// Attach the base side to a task whose rule is `compare:`, or refuse a `base:` on a
    /// task that is not one; a compare rule with no `base:` anywhere is an error at the rule.
    pub(super) fn compare_side(
        &self,
        task: &mut Task,
        rule: Option<Box<CompareRule>>,
        rule_at: &serde_saphyr::Location,
        own: Option<&Spanned<BaseFile>>,
        top: Option<&Spanned<BaseFile>>,
    ) -> Result<(), PlanError> {
        let id = task.id.clone();
        let Some(rule) = rule else {
            if let Some(b) = own {
                return Err(self.invalid(
                    &b.referenced,
                    format!("task `{id}`: `base:` applies to `compare:` tasks only; this task's rule is `{}`", task.sampling.rule_name()),
                ));
            }
            return Ok(());
        };
        if own.is_none() && top.is_none() {
            return Err(self.invalid(
                rule_at,
                format!(
                    "task `{id}`: a `compare:` rule needs a `base:` saying where base runs: at the top level \
                     (`base: {{cwd: base}}`, a checkout of the base revision, and/or `env:`) or in the task \
                     (`base: {{run: ..., cwd: ..., env: ...}}`)"
                ),
            ));
        }
        if let Some(t) = top {
            for (key, at) in [
                ("run", t.value.run.as_ref().map(|s| &s.referenced)),
                ("check", t.value.check.as_ref().map(|s| &s.referenced)),
            ] {
                if let Some(at) = at {
                    return Err(self.invalid(
                        at,
                        format!("the top-level `base:` takes `cwd` and `env`; `{key}` belongs in a task's own `base:`"),
                    ));
                }
            }
        }
        let own_v = own.map(|b| &b.value);
        let run = match own_v.and_then(|b| b.run.as_ref()) {
            Some(r) => self.command(r, "base.run", &id)?,
            None => task.run.clone(),
        };
        let (check, check_at) = match own_v.and_then(|b| b.check.as_ref()) {
            Some(c) => (
                Some(self.command(c, "base.check", &id)?),
                Some((c.referenced.line().max(1), c.referenced.column().max(1))),
            ),
            None => (task.check.clone(), task.check_at),
        };
        let cwd_spec = own_v
            .and_then(|b| b.cwd.as_ref())
            .or_else(|| top.and_then(|b| b.value.cwd.as_ref()));
        let cwd = match cwd_spec {
            Some(c) => {
                let dir = self.dir.join(&c.value);
                if !dir.is_dir() {
                    return Err(self.invalid(
                        &c.referenced,
                        format!(
                            "task `{id}`: `base.cwd` `{}` is not a directory (relative to `{}`); check the base revision out there first",
                            c.value,
                            self.dir.display()
                        ),
                    ));
                }
                if let Some(why) = nested(&task.cwd, &dir) {
                    return Err(self.invalid(
                        &c.referenced,
                        format!(
                            "task `{id}`: `base.cwd` `{}` {why}, so the trials of one side could rewrite the \
                             other's scripts and data (a head that breaks base's agent passes); check base out \
                             beside head instead, e.g. head in `head/` and base in `base/` of the workspace, with \
                             `base: {{cwd: ../../base/PLAN-FOLDER}}` (docs/github-action.md)",
                            c.value
                        ),
                    ));
                }
                // Base's trials run in the folder as resolved now: head's trials re-pointing
                // a linked `base` afterwards change nothing (break c1 of issue 29's review).
                std::fs::canonicalize(&dir).unwrap_or(dir)
            }
            None => task.cwd.clone(),
        };
        let mut env = task.env.clone();
        for (k, v) in top
            .map(|b| &b.value.env)
            .into_iter()
            .chain(own_v.map(|b| &b.env))
            .flatten()
        {
            env.retain(|(key, _)| key != k);
            env.push((k.clone(), v.clone()));
        }
        if own.is_none() && top.is_some_and(|t| t.value.cwd.is_none() && t.value.env.is_empty())
            || own.is_some_and(|o| {
                o.value.run.is_none()
                    && o.value.check.is_none()
                    && o.value.cwd.is_none()
                    && o.value.env.is_empty()
                    && top.is_none_or(|t| t.value.cwd.is_none() && t.value.env.is_empty())
            })
        {
            let at = own.or(top).map_or(*rule_at, |b| b.referenced);
            return Err(self.invalid(
                &at,
                format!("task `{id}`: `base:` is empty, so base would run exactly as head; give `cwd` (a checkout of the base revision), `env`, or `run`"),
            ));
        }
        let kind = std::mem::replace(&mut task.kind, super::TaskKind::Trials);
        task.kind = kind.with_compare(CompareTask {
            rule: *rule,
            base: BaseSide {
                run,
                check,
                check_at,
                cwd,
                cwd_as_written: cwd_spec.map(|c| c.value.clone()),
                env,
            },
        });
        Ok(())
    }
}

/// Whether one side's working folder lies inside the other's (each side's trials may write
/// beneath their own working folder): why, in words. The same folder is not nesting: both
/// sides then run the same files, which the box keeps read-only
/// ([`super::state::named_files`]).
fn nested(head: &std::path::Path, base: &std::path::Path) -> Option<&'static str> {
    let real = |p: &std::path::Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let (head, base) = (real(head), real(base));
    if head == base {
        None
    } else if base.starts_with(&head) {
        Some("lies inside head's working folder")
    } else if head.starts_with(&base) {
        Some("holds head's working folder")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use crate::plan::validate_text;

    /// A plan of two compare tasks under `policy` and `compare`, validated; the first task's
    /// load-time words, or the refusal.
    fn words(policy: &str, compare: &str) -> Result<String, String> {
        validate_text(&format!(
            "version: 1\n{policy}base: {{env: {{SIDE: base}}}}\nsampling: {{compare: {compare}}}\n\
             tasks:\n  - {{id: a, run: 'true'}}\n  - {{id: b, run: 'true'}}\n"
        ))
        .map(|p| p.tasks[0].designed.clone().expect("a designed rule"))
        .map_err(|e| e.to_string())
    }

    /// The load-time words name the producer's risk the plan's `on_inconclusive` makes
    /// true: P(not PASS), with the truncation, under `fail`; P(FAIL) under `pass`.
    #[test]
    fn the_words_follow_on_inconclusive() {
        let fail = words("", "{odds_ratio: 3}").unwrap();
        assert!(
            fail.contains("realised alpha = P(not PASS | head = base) = 0.0")
                && fail.contains("with max_pairs"),
            "{fail}"
        );
        let pass = words("policy: {on_inconclusive: pass}\n", "{odds_ratio: 3}").unwrap();
        assert!(
            pass.contains("realised alpha = P(FAIL | head = base) = 0.0")
                && pass.contains("an INCONCLUSIVE passes")
                && !pass.contains("not PASS"),
            "{pass}"
        );
    }

    /// `policy.suite_alpha` holds for compare tasks with their truncation: a `max_pairs` so
    /// small that the pairs run out before a verdict is refused, with the numbers; the
    /// default `max_pairs` keeps the share, and so does `on_inconclusive: pass` (the
    /// truncation is then no risk to a healthy head).
    #[test]
    fn suite_alpha_refuses_a_truncation_that_breaks_the_share() {
        let suite = "policy: {suite_alpha: 0.05}\n";
        let e = words(suite, "{odds_ratio: 3, max_pairs: 80}").unwrap_err();
        assert!(
            e.contains("`policy.suite_alpha` 0.05 gives each of 2 tasks an alpha of 0.025321")
                && e.contains("P(not PASS | head = base) = 0.")
                && e.contains("raise `max_pairs`"),
            "{e}"
        );
        let ok = words(suite, "{odds_ratio: 3}").unwrap();
        let alpha: f64 = ok
            .split("P(not PASS | head = base) = ")
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .and_then(|s| s.parse().ok())
            .unwrap();
        assert!(alpha <= 0.025321, "{ok}");
        words(
            "policy: {suite_alpha: 0.05, on_inconclusive: pass}\n",
            "{odds_ratio: 3, max_pairs: 80}",
        )
        .unwrap();
    }
}
