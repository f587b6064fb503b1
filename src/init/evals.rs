//! `gate init` for eval tools: an Inspect AI, promptfoo or DeepEval project gets a plan for
//! `gate ingest` and the commands that produce what it reads (the eval run N times, retries
//! and caches off), rather than a `gate run` plan around one test.
//!
//! Detection reads a bounded amount of the project's own files (no symlink followed, at most
//! [`MAX_READ`] bytes of each of at most [`MAX_FILES`] files) and runs nothing.

use std::fmt::Write as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use crate::plan::resolve_rule;
use crate::plan::schema::{Rate, Rule, SamplingSpec};

/// Bytes read of one file while detecting.
pub const MAX_READ: u64 = 256 << 10;
/// Files looked at while detecting.
pub const MAX_FILES: usize = 200;

/// The eval tools `gate init` recognises.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EvalKind {
    /// Inspect AI: the file with an `@task`, relative to the project.
    Inspect(Option<String>),
    /// promptfoo: its config file.
    Promptfoo(String),
    /// DeepEval: the test file that imports it.
    Deepeval(Option<String>),
}

impl EvalKind {
    /// The label with its article: `an Inspect AI`, `a promptfoo`.
    pub fn article(&self) -> String {
        let label = self.label();
        let an = matches!(label.chars().next(), Some('A' | 'E' | 'I' | 'O' | 'U'));
        format!("{} {label}", if an { "an" } else { "a" })
    }

    /// The name shown to people.
    pub fn label(&self) -> &'static str {
        match self {
            EvalKind::Inspect(_) => "Inspect AI",
            EvalKind::Promptfoo(_) => "promptfoo",
            EvalKind::Deepeval(_) => "DeepEval",
        }
    }
}

/// At most [`MAX_READ`] bytes of a regular file (not a symlink), lossily as text.
fn head(path: &Path) -> Option<String> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(MAX_READ)
        .read_to_end(&mut bytes)
        .ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// The project's Python files at its top level and one level down, sorted, bounded.
fn python_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    if let Ok(entries) = std::fs::read_dir(dir) {
        let mut subs: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| !n.starts_with('.') && n != "node_modules" && n != "target")
            })
            .collect();
        subs.sort();
        dirs.extend(subs);
    }
    for d in dirs {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "py"))
            .collect();
        files.sort();
        out.extend(files);
        if out.len() >= MAX_FILES {
            out.truncate(MAX_FILES);
            break;
        }
    }
    out
}

/// Which eval tool the project in `dir` uses, if any.
pub fn detect(dir: &Path) -> Option<EvalKind> {
    for name in ["promptfooconfig.yaml", "promptfooconfig.yml"] {
        if head(&dir.join(name)).is_some() {
            return Some(EvalKind::Promptfoo(name.to_string()));
        }
    }
    let deps: String = ["pyproject.toml", "requirements.txt", "setup.cfg"]
        .iter()
        .filter_map(|f| head(&dir.join(f)))
        .collect::<Vec<_>>()
        .join("\n");
    let rel = |p: &Path| {
        p.strip_prefix(dir)
            .unwrap_or(p)
            .to_string_lossy()
            .into_owned()
    };
    let files: Vec<(PathBuf, String)> = python_files(dir)
        .into_iter()
        .filter_map(|p| head(&p).map(|t| (p, t)))
        .collect();
    let task_file = files
        .iter()
        .find(|(_, t)| t.contains("inspect_ai") && t.contains("@task"))
        .map(|(p, _)| rel(p));
    if task_file.is_some() || deps.contains("inspect_ai") || deps.contains("inspect-ai") {
        return Some(EvalKind::Inspect(task_file));
    }
    let deepeval_file = files
        .iter()
        .find(|(p, t)| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("test_"))
                && t.contains("deepeval")
        })
        .map(|(p, _)| rel(p));
    if deepeval_file.is_some() || deps.contains("deepeval") {
        return Some(EvalKind::Deepeval(deepeval_file));
    }
    None
}

/// The plan file and the commands that feed it: (plan text, commands to print).
pub fn render(kind: &EvalKind, dir: &Path, plan: &Path) -> (String, String) {
    // The default design, as `gate init` writes it; its n is how many repeats to run.
    let spec = SamplingSpec::Design {
        healthy: Rate(0.9),
        regressed: Rate(0.7),
        alpha: Some(Rate(0.05)),
        beta: Some(Rate(0.10)),
        rule: Rule::Single,
        max_trials: None,
    };
    let n = resolve_rule(spec, "every test")
        .map(|r| r.sampling.max_graded())
        .unwrap_or(20);
    let out_dir = if dir == Path::new(".") {
        PathBuf::from("gate-evals")
    } else {
        dir.join("gate-evals")
    };
    let cd = if dir == Path::new(".") {
        String::new()
    } else {
        format!("cd {} && ", dir.display())
    };
    let plan = plan.display();
    let out = out_dir.display();
    let (run, ingest, why) = match kind {
        EvalKind::Inspect(file) => (
            format!(
                "{cd}inspect eval {} --epochs {n} --log-dir gate-evals",
                file.as_deref().unwrap_or("TASK_FILE.py")
            ),
            format!("gate ingest {out}/*.eval --plan {plan}"),
            "every epoch of every sample is a trial; no `--epochs-reducer` or `--retry-on-error` \
             is needed (gate ignores reductions and grades a retried epoch's first attempt); an \
             aborted eval exits 0 and gate refuses its log"
                .to_string(),
        ),
        EvalKind::Promptfoo(config) => (
            format!(
                "{cd}mkdir -p gate-evals && npx promptfoo eval -c {config} --repeat {n} --no-cache -o gate-evals/results.json"
            ),
            format!("gate ingest {out}/results.json --plan {plan}"),
            "`--no-cache`: without it a rerun replays the cache and never calls the agent (gate \
             refuses cached rows); do not use `--retry-errors`"
                .to_string(),
        ),
        EvalKind::Deepeval(file) => (
            format!(
                "{cd}deepeval test run {} --repeat {n} -- -p no:cacheprovider --junitxml=gate-evals/junit.xml",
                file.as_deref().unwrap_or("test_agent.py")
            ),
            format!("gate ingest {out}/junit.xml --plan {plan}"),
            "pytest's JUnit, not test_run_*.json: a test that raises before `assert_test` is only \
             in the JUnit; no `--reruns`"
                .to_string(),
        ),
    };
    let mut text = String::new();
    // `write!` to a String cannot fail.
    let _ = write!(
        text,
        "\
# gate plan file for `gate ingest`, written by `gate init` for {label} project.
# Run the eval {n} times with retries and caches off, then judge every test's runs:
#   {run}
#   {ingest}
# ({why}.)
# Every key is described in docs/plan-file.md; the formats in docs/ingest.md.

version: 1  # the plan-file format; 1 is the only version so far

# The rule for every test: rather than guessing n and c, state the rates gate must tell
# apart and let it design the smallest plan that does ({n} runs; `gate check` shows it).
{sampling}
tasks:
  # Every test the eval reports (an Inspect sample, a promptfoo test, a pytest test id),
  # each judged on its own by the rule above. To give one test its own rule, put a task
  # that selects it first:
  #   - id: refund
  #     junit: \"*::refund\"
  #     sampling:
  #       single: {{n: 20, c: 2}}
  - id: every-test
    junit: \"*\"
",
        label = kind.article(),
        sampling = super::files::DEFAULT_DESIGN,
    );
    let commands =
        format!("  {run}\n  {ingest}\n\nIn GitHub Actions:\n  - run: {run}\n  - run: {ingest}\n");
    (text, commands)
}
