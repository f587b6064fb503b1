//! `gate init`: glue between the clap arguments and [`crate::init`], which detects the project
//! and renders its plan. This file reads the project within a time bound, writes the plan
//! (and, for Jest and Cargo, the runner's config file beside it; never over an existing file,
//! exit 2), prints what it wrote and what to run next, and maps failures to exit codes.

use std::path::Path;

use crate::cli::InitArgs;
use crate::error::Error;
use crate::exit;
use crate::init::evals::EvalKind;
use crate::init::files::{self, create_new, relative_to, zone_note};
use crate::init::suites::{
    self, JEST_PROPERTIES, JEST_PROPERTIES_FILE, NEXTEST_PROFILE, SuiteRunner,
};
use crate::init::{self, OneTest, ProjectKind, detect, example_test, render};

/// The smallest useful plan, shown when `gate init` finds no project it knows: a user with
/// only the binary has neither the repository's `plans/examples/` nor its docs.
const MINIMAL_PLAN: &str = "\
version: 1
sampling:
  design: {healthy: 90%, regressed: 70%}   # the pass rates to tell apart
tasks:
  - id: my-task
    run: ./my-task.sh                      # one trial; exit 0 means pass
";

/// Execute `gate init`; returns the exit code.
pub fn execute(args: &InitArgs) -> Result<u8, Error> {
    // Everything gate init reads of the project, read within a time bound (a FIFO, a hung
    // network filesystem): the reading thread is left behind if it blocks.
    let (dir, given) = (args.dir.clone(), args.kind);
    let scan = within(SCAN_TIME, &args.dir, move || {
        let eval = given.is_none().then(|| init::evals::detect(&dir)).flatten();
        let kind = given.or_else(|| detect(&dir));
        let suites = init::suites::detect(&dir);
        let example = kind
            .and_then(OneTest::of)
            .and_then(|one| example_test(&dir, one));
        (eval, kind, suites, example)
    })?;
    let (eval, kind, suites, example) = scan;
    // An eval tool's project is judged with `gate ingest` on the tool's own output.
    if let Some(eval) = eval {
        return execute_eval(args, &eval);
    }
    let kind = kind.ok_or_else(|| {
        Error::Usage(format!(
            "`{}` holds no pytest, Cargo, Jest, Vitest, mocha, Playwright, node or Go project that gate init \
             recognises; pass `--kind pytest|cargo|jest|vitest|mocha|playwright|node|go`, or write a \
             plan by hand, e.g. this gate.yaml (`gate schema plan` prints every key):\n\n{MINIMAL_PLAN}",
            args.dir.display()
        ))
    })?;
    let Some(one) = OneTest::of(kind) else {
        let r = init::suites::runner(kind).ok_or_else(|| {
            Error::Usage(format!(
                "gate init has no plan for a {} project",
                kind.label()
            ))
        })?;
        let others: Vec<_> = suites
            .into_iter()
            .filter(|o| o.kind != kind && o.kind != ProjectKind::Go)
            .collect();
        let code = execute_suite(args, r, &others)?;
        if let Some(cmd) = super::suite::offer(kind) {
            println!("or, for the whole suite without a plan file:\n  {cmd}");
        }
        if kind == ProjectKind::Pytest && !pytest_importable() {
            // The plan's guard makes every run a harness error (exit 4) without pytest; say
            // so now rather than after the first run.
            eprintln!(
                "warning: `python3 -I -c 'import pytest'` fails here, so `gate run` would stop with a harness error; install pytest (`pip install pytest`) first"
            );
        }
        return Ok(code);
    };
    let cwd = relative_to(args.output.parent().unwrap_or(Path::new(".")), &args.dir);
    let text = render(
        one,
        example.as_ref(),
        &cwd,
        &args.output.display().to_string(),
    );
    create_new(&args.output, &text)?;
    let what = match &example {
        Some(t) => format!("gates `{}`", t.name),
        None => "runs the whole suite (no single test found to narrow it to)".to_string(),
    };
    println!(
        "wrote {} for a {} project: {what}",
        args.output.display(),
        kind.label()
    );
    zone_note(&args.output);
    println!(
        "next: gate check {0}   # what the plan will do\n      gate run {0}     # run it",
        args.output.display()
    );
    Ok(exit::SUCCESS)
}

/// Write the plan for `kind` to `args.output` (never over an existing file) and print the
/// commands that feed it; returns the exit code.
fn execute_eval(args: &InitArgs, kind: &EvalKind) -> Result<u8, Error> {
    let (text, commands) = init::evals::render(kind, &args.dir, &args.output);
    files::create_new(&args.output, &text)?;
    println!(
        "wrote {} for {} project: a plan for `gate ingest`. Run the eval, then judge it:\n{commands}",
        args.output.display(),
        kind.article()
    );
    Ok(crate::exit::SUCCESS)
}

/// Write the plan for `r` (and, for Jest, the properties file) and print how to run it.
fn execute_suite(args: &InitArgs, r: &SuiteRunner, others: &[&SuiteRunner]) -> Result<u8, Error> {
    let cwd = files::relative_to(args.output.parent().unwrap_or(Path::new(".")), &args.dir);
    let text = suites::render(r, &cwd, &args.output.display().to_string());
    files::create_new(&args.output, &text)?;
    println!(
        "wrote {} for {} {} project: every test case of the suite, judged on its own",
        args.output.display(),
        suites::article(r.label),
        r.label
    );
    if r.kind == ProjectKind::Jest {
        jest_properties(&args.dir)?;
    }
    if r.kind == ProjectKind::Cargo {
        nextest_profile(&args.dir)?;
    }
    files::zone_note(&args.output);
    let plan = suites::sh_word(&args.output.display().to_string());
    println!(
        "next: gate check {plan}   # what the plan will do\n      gate run {plan}     # the suite once per trial, retries off, until every test case is decided\n\
         In GitHub Actions:\n  - run: gate run {plan}"
    );
    for o in others {
        println!(
            "also found: {} (`gate init --kind {} -o gate-{}.yaml`)",
            o.label,
            o.label.to_ascii_lowercase(),
            o.label.to_ascii_lowercase()
        );
    }
    Ok(crate::exit::SUCCESS)
}

/// Write junitTestCaseProperties.js into the project unless one is there; warn when the one
/// there does not record `invocations`.
fn jest_properties(dir: &Path) -> Result<(), Error> {
    let path = if dir == Path::new(".") {
        Path::new(JEST_PROPERTIES_FILE).to_path_buf()
    } else {
        dir.join(JEST_PROPERTIES_FILE)
    };
    match files::create_new(&path, JEST_PROPERTIES) {
        Ok(()) => {
            println!(
                "wrote {}: jest-junit records each test's `invocations`, so gate sees Jest's retries",
                path.display()
            );
            Ok(())
        }
        Err(_) if path.exists() => {
            let records = files::project_text(dir, Path::new(JEST_PROPERTIES_FILE))
                .is_some_and(|t| t.contains("invocations"));
            if !records {
                eprintln!(
                    "warning: {} does not record `invocations`, so gate will refuse the JUnit files; add `invocations: result.invocations` to what it returns",
                    path.display()
                );
            }
            Ok(())
        }
        Err(e) => Err(e),
    }
}

/// Write .config/nextest.toml into the project unless one is there; warn when the one there
/// has no `[profile.ci.junit]`.
fn nextest_profile(dir: &Path) -> Result<(), Error> {
    let rel = Path::new(".config/nextest.toml");
    let path = if dir == Path::new(".") {
        rel.to_path_buf()
    } else {
        dir.join(rel)
    };
    if path.exists() {
        let has = files::project_text(dir, rel).is_some_and(|t| t.contains("[profile.ci.junit]"));
        if !has {
            eprintln!(
                "warning: {} has no `[profile.ci.junit]` with a `path`, so nextest writes no JUnit file and every run is a harness error; add:\n{NEXTEST_PROFILE}",
                path.display()
            );
        }
        return Ok(());
    }
    let _ = std::fs::create_dir_all(dir.join(".config"));
    files::create_new(&path, NEXTEST_PROFILE)?;
    println!(
        "wrote {}: the `ci` profile writes the JUnit file gate reads",
        path.display()
    );
    Ok(())
}

/// Whether `python3` can import an installed pytest (false when python3 is missing too).
/// The project's own code never runs: isolated mode (`-I`: no script directory or current
/// directory on `sys.path`, no `PYTHON*` variables, no user site) from the system's temporary
/// directory, so a `pytest.py` in the checkout is not what is imported; and within a time
/// bound, after which the probe is killed and counts as "no".
fn pytest_importable() -> bool {
    let child = std::process::Command::new("python3")
        .args(["-I", "-c", "import pytest"])
        .current_dir(std::env::temp_dir())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    let Ok(mut child) = child else {
        return false;
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return status.success(),
            Ok(None) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return false;
            }
        }
    }
}

/// How long `gate init` may spend reading the project.
const SCAN_TIME: std::time::Duration = std::time::Duration::from_secs(10);

/// `scan()` on a thread of its own, or an input error naming `dir` when it takes over `time`.
fn within<T: Send + 'static>(
    time: std::time::Duration,
    dir: &Path,
    scan: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Error> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(scan());
    });
    rx.recv_timeout(time).map_err(|_| {
        Error::Usage(format!(
            "reading the project in `{}` took more than {} s (a FIFO, or a slow or hung \
             filesystem?); nothing was written",
            dir.display(),
            time.as_secs_f64()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_read_that_hangs_is_cut_off_by_the_time_bound() {
        let started = std::time::Instant::now();
        let err = within(
            std::time::Duration::from_millis(50),
            Path::new("proj"),
            || std::thread::sleep(std::time::Duration::from_secs(5)),
        )
        .unwrap_err()
        .to_string();
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
        assert!(
            err.contains("reading the project in `proj` took more than 0.05 s"),
            "{err}"
        );
        assert_eq!(within(SCAN_TIME, Path::new("."), || 7).unwrap(), 7);
    }
}
