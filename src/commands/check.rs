//! `gate check PLAN`: load and validate a plan file without running anything, then print each
//! task's resolved rule, its exact risks and its expected trials (text or JSON). Glue: the
//! figures are [`PlanCheck`]'s, the text is [`crate::report::check`]'s; what this machine's
//! box would do is said here, on stderr.

use crate::cli::{CheckArgs, Format};
use crate::error::Error;
use crate::exit;
use crate::plan::Plan;
use crate::plan::check::PlanCheck;
use crate::report::check::render_text;

/// Execute `gate check`; returns the exit code (0, or an error that maps to 2).
pub fn execute(args: &CheckArgs) -> Result<u8, Error> {
    let path = crate::plan::discover::resolve(args.plan.as_deref(), std::path::Path::new("."))
        .map_err(Error::Usage)?;
    if let Some(bad) = args.at.iter().find(|r| !(0.0..=1.0).contains(*r)) {
        return Err(crate::error::usage!(
            "`--at` takes a base pass rate between 0 and 1 (e.g. `0.97` or `97%`), got {bad}"
        ));
    }
    let plan = Plan::load(&path)?;
    let check = PlanCheck::of_at(&plan, &args.at)?;
    super::warn_about(&plan);
    match args.format {
        // Task ids are printed at the start of a line: one that begins with `::` must not
        // act as a workflow command.
        Format::Text => print!("{}", crate::untrusted::log_text(&render_text(&check))),
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&check)
                .map_err(|e| Error::output("cannot render the check as JSON", e))?
        ),
    }
    // What this machine would enforce is a fact about the machine, not the plan: on stderr,
    // so the plan's own output stays the same on every kernel.
    eprintln!("{}", sandbox_line(&plan));
    for line in allow_list_lines(&plan, &path) {
        eprintln!("{line}");
    }
    Ok(exit::SUCCESS)
}

/// Without the box's mount layer, the folders where a task of this plan could create no
/// file (they hold gate's state: the plan, the default `gate-out/`), and why the layer is
/// not in force here.
fn allow_list_lines(plan: &Plan, plan_path: &std::path::Path) -> Vec<String> {
    let walls = walls(plan);
    let Some(why) = crate::runner::sandbox::mounts_unavailable(&walls) else {
        return Vec::new();
    };
    if walls.filesystem == crate::model::FilesystemWall::Unconfined {
        return Vec::new();
    }
    let real = |p: &std::path::Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let state: Vec<std::path::PathBuf> = [real(plan_path), real(std::path::Path::new("gate-out"))]
        .into_iter()
        .chain(std::env::current_exe().ok().map(|p| real(&p)))
        // The graders, scripts and fixtures the plan names are protected too.
        .chain(
            crate::plan::state::named_files(plan)
                .iter()
                .map(|p| real(p)),
        )
        .collect();
    let mut dirs: Vec<std::path::PathBuf> = plan
        .tasks
        .iter()
        .map(|t| real(&t.cwd))
        .filter(|cwd| state.iter().any(|s| s.starts_with(cwd)))
        .collect();
    dirs.sort();
    dirs.dedup();
    let mut lines = vec![format!(
        "sandbox: no mount layer on this machine ({why}): the filesystem wall is the Landlock allow-list"
    )];
    lines.extend(dirs.iter().map(|d| {
        format!(
            "filesystem: landlock allow-list — new files cannot be created in {}, which holds \
             gate's state; write to $TMPDIR or a subfolder, or put --out elsewhere",
            d.display()
        )
    }));
    lines
}

/// `sandbox: …` as this machine would box the plan's trials, or why it would refuse.
fn sandbox_line(plan: &Plan) -> String {
    let walls = walls(plan);
    let statement = crate::format::sandbox(&walls);
    if let Some(why) = crate::runner::sandbox::writes_refusal(&walls) {
        return format!("sandbox: `gate run` would refuse this plan here: {why}");
    }
    match crate::runner::sandbox::shortfall(&walls) {
        Some(why) if plan.policy.sandbox.mode == crate::model::SandboxMode::Required => format!(
            "sandbox: `gate run` would refuse this plan here (`policy.sandbox: required`): {why}"
        ),
        _ => format!("sandbox (what gate run would record on this machine): {statement}"),
    }
}

/// The walls `gate run` would raise around this plan's trials on this machine.
fn walls(plan: &Plan) -> crate::model::Walls {
    let policy = &plan.policy.sandbox;
    let compares = plan.tasks.iter().any(|t| t.compare().is_some());
    crate::runner::sandbox::for_plan(
        crate::runner::sandbox::walls(policy),
        compares,
        &policy.writable,
        plan.writes(),
    )
}
