//! Command-line types (clap derive) and nothing else.
//!
//! Only this module imports clap. `main.rs` parses [`Cli`] and hands each subcommand's
//! arguments to the library; no logic lives here beyond the shape of the flags.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::init::ProjectKind;
use crate::stats::SequentialKind;
use crate::units::parse_rate;

/// Acceptance sampling for CI gates on nondeterministic software (AI agents first of all).
#[derive(Debug, Parser)]
#[command(
    name = "gate",
    version,
    about = "Acceptance sampling for CI gates on nondeterministic software",
    long_about = "Acceptance sampling for CI gates on nondeterministic software.\n\n\
        `gate` runs each critical agent task n times with retries disabled, keeps an append-only \
        ledger of every attempt, and decides PASS / FAIL / INCONCLUSIVE with an acceptance \
        sampling plan whose risks are shown exactly.",
    after_help = crate::exit::HELP_TABLE,
)]
pub struct Cli {
    /// The subcommand to run.
    #[command(subcommand)]
    pub command: Command,
    /// Output conventions shared by every subcommand.
    #[command(flatten)]
    pub output: OutputArgs,
}

/// Parse the command line, or print clap's error (with a "did you mean" that clap's own
/// similarity misses for short typos such as `gate rn`) and exit 2.
pub fn parse() -> Cli {
    use clap::CommandFactory;
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    Cli::try_parse().unwrap_or_else(|mut e| {
        if e.kind() == ErrorKind::InvalidSubcommand
            && e.get(ContextKind::SuggestedSubcommand).is_none()
            && let Some(ContextValue::String(given)) = e.get(ContextKind::InvalidSubcommand)
        {
            let cmd = Cli::command();
            let names = cmd.get_subcommands().map(|c| c.get_name());
            if let Some(near) = crate::suggest::closest(given, names) {
                let near = near.to_string();
                e.insert(
                    ContextKind::SuggestedSubcommand,
                    ContextValue::Strings(vec![near]),
                );
            }
        }
        e.exit()
    })
}

/// Flags every subcommand takes.
#[derive(Debug, Args, Clone, Copy)]
pub struct OutputArgs {
    /// `run`, `report`, `ingest`: print the verdict lines only, no per-trial progress.
    #[arg(long, short = 'q', global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// `run`: also print each task's resolved rule before it runs; `run`, `report`: list
    /// every test case of a large suite in the terminal and Markdown summary, not only the
    /// ones that are not PASS.
    #[arg(long, short = 'v', global = true)]
    pub verbose: bool,
    /// Colour the verdicts of the summary (`auto`: when it goes to a terminal and NO_COLOR is
    /// unset).
    #[arg(long, value_enum, global = true, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Colour when the output is a terminal and NO_COLOR is not set.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// The subcommands of `gate`.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Design a single and a sequential plan that tell a healthy from a regressed rate.
    #[command(
        after_help = "Examples:\n  gate plan --healthy 0.90 --regressed 0.70 --alpha 0.05 --beta 0.10\n  \
        gate plan --compare --base 0.90 --regressed 0.80 --at 0.9,0.9 --at 0.9,0.8"
    )]
    Plan(PlanArgs),
    /// Print what a CI retry setting actually measures.
    #[command(after_help = "Example:\n  gate explain --retries 2 --healthy 0.90 --regressed 0.70")]
    Explain(ExplainArgs),
    /// Run the tasks of a plan file and decide PASS / FAIL / INCONCLUSIVE.
    #[command(
        after_help = "Example:\n  gate run plans/demo.yaml --jobs 4 --junit gate-out/junit.xml\n\n\
        Exit codes:\n  0    PASS\n  1    FAIL\n  2    invalid plan or usage; no plan file (run `gate init`)\n  \
        3    INCONCLUSIVE (0 under `on_inconclusive: pass`)\n  4    harness error: no verdict\n  \
        130  interrupted (143 on SIGTERM); the ledger is resumable"
    )]
    Run(RunArgs),
    /// Judge JUnit XML files that a test runner wrote: first attempts only, same verdicts and
    /// reports as `gate run`.
    #[command(
        after_help = "Example:\n  gate ingest runs/run-*.xml --single 20,3 --junit gate-out/junit.xml\n\n\
        Each file is one run of the suite, in the order given; a retry that passed never counts \
        as a first attempt.\n\n\
        Exit codes:\n  0    PASS\n  1    FAIL\n  2    invalid input (a file that is not JUnit, retries \
        that cannot be told apart)\n  3    INCONCLUSIVE (0 under `on_inconclusive: pass`)"
    )]
    Ingest(IngestArgs),
    /// Run a whole test suite once per trial and judge every test case in its JUnit file: a
    /// plan file's `suite:` task, from the command line, run by `gate run`.
    #[command(
        // The refused `--plan` is hidden, but clap would still list it in the usage line's
        // required group.
        override_usage = "gate suite [OPTIONS] <--single <N,C>|--healthy <HEALTHY>> <COMMAND>",
        after_help = "Example:\n  gate suite --healthy 90% --regressed 70% -- \\\n    \
        'python3 -m pytest -p no:randomly -p no:rerunfailures --junitxml=\"$GATE_JUNIT\"'\n\n\
        Each trial runs COMMAND with `sh -c`, GATE_TRIAL set to the trial's ordinal and GATE_JUNIT to \
        the file it must write; it stops once every test case's rule has decided. A run that \
        writes no readable JUnit, runs no test case, drops or adds a test case, runs past 6 hours \
        or exits with one of --harness-exit-codes is a harness error: no verdict. The plan it \
        runs is written beside the ledger (suite-plan.yaml); for --jobs, --shard or --resume, \
        put that task in your own plan file and `gate run` it.\n\n\
        Exit codes:\n  0    PASS\n  1    FAIL\n  2    invalid flags or plan\n  \
        3    INCONCLUSIVE (0 under `on_inconclusive: pass`)\n  4    harness error: the suite could not run; no verdict"
    )]
    Suite(SuiteArgs),
    /// Recompute the reports (and merge shards) from one or more ledgers.
    #[command(
        after_help = "Example:\n  gate report shard-*/ledger.jsonl --junit junit.xml --summary summary.md"
    )]
    Report(ReportArgs),
    /// Check ledgers: every row parses, the hash chain holds, the decisions recompute.
    #[command(after_help = "Example:\n  gate verify gate-out/ledger.jsonl")]
    Verify(VerifyArgs),
    /// Write a commented starter plan (gate.yaml) for the project in this directory.
    #[command(after_help = "Example:\n  gate init && gate check gate.yaml")]
    Init(InitArgs),
    /// Validate a plan file without running anything: each task's rule, risks, expected trials.
    #[command(after_help = "Example:\n  gate check plans/demo.yaml --format json")]
    Check(CheckArgs),
    /// Print the JSON Schema of the plan file or of the JSON report.
    #[command(after_help = "Example:\n  gate schema plan > schemas/plan.schema.json")]
    Schema(SchemaArgs),
    /// Print a shell completion script.
    #[command(
        after_help = "Example:\n  gate completions bash > ~/.local/share/bash-completion/completions/gate"
    )]
    Completions(CompletionsArgs),
    /// Print a manual page (roff) on stdout: gate(1), or gate-COMMAND(1) for a subcommand.
    #[command(
        after_help = "Examples:\n  gate man > gate.1 && man ./gate.1\n  gate man run | man -l -\n  \
        gate man --out-dir /usr/local/share/man/man1"
    )]
    Man(ManArgs),
    /// Print this binary's build identity: the SHA-256 over the Cargo.toml, Cargo.lock and
    /// src/ it was built from (the GitHub Action compares it with its own source).
    #[command(hide = true)]
    BuildId,
}

/// Arguments of `gate man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// The subcommand whose page to print (gate-COMMAND(1)); none for gate(1).
    #[arg(value_name = "COMMAND", conflicts_with = "out_dir")]
    pub command: Option<String>,
    /// Instead: write every page (gate.1, gate-run.1, …) into this directory.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
}

/// Arguments of `gate init`.
#[derive(Debug, Args)]
pub struct InitArgs {
    /// Where to write the plan (refuses to overwrite an existing file).
    #[arg(long, short = 'o', default_value = "gate.yaml")]
    pub output: PathBuf,
    /// The project directory to inspect (default: the current directory).
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
    /// The kind of project, instead of detecting it.
    #[arg(long, value_enum)]
    pub kind: Option<ProjectKind>,
}

/// Arguments of `gate check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The plan file (YAML); default `gate.yaml`, then `.config/gate.yaml`.
    pub plan: Option<PathBuf>,
    /// For `compare:` tasks: also state P(not PASS | head = base) at this base pass rate
    /// (head at the same rate, independent sides), with the `max_pairs` it would need
    /// (repeatable: `--at 0.97 --at 99%`). Default: the rule's own `base:` rate when it
    /// names one, else 90%, 97% and 99%.
    #[arg(long, value_name = "RATE", value_parser = parse_rate)]
    pub at: Vec<f64>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// Arguments of `gate schema`.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// Which document.
    #[arg(value_enum)]
    pub which: SchemaKind,
}

/// The documents `gate schema` describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SchemaKind {
    /// The plan file (YAML), as `gate run` and `gate check` read it.
    Plan,
    /// The JSON report written by `--json`.
    Report,
}

/// Arguments of `gate completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Output format of `plan` and `explain`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Human-readable text.
    Text,
    /// The documented JSON contract.
    Json,
}

/// `--on-inconclusive`: what an INCONCLUSIVE gate exits with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum InconclusivePolicy {
    /// Exit 3: the step goes red.
    Fail,
    /// Exit 0: the step stays green (the verdict is still INCONCLUSIVE).
    Pass,
}

/// Arguments of `gate plan`.
#[derive(Debug, Args)]
pub struct PlanArgs {
    /// Per-trial success rate of a healthy agent (p0), in (0, 1): `0.9` or `90%`.
    #[arg(long, allow_negative_numbers = true, value_parser = parse_rate,
          required_unless_present = "compare", conflicts_with = "compare")]
    pub healthy: Option<f64>,
    /// Per-trial success rate of a regressed agent (p1), in (0, 1) and below --healthy (with
    /// --compare: head's regressed rate, below --base).
    #[arg(long, allow_negative_numbers = true, value_parser = parse_rate,
          required_unless_present = "compare")]
    pub regressed: Option<f64>,
    /// Design the paired head-against-base rule instead (`compare:`): no healthy rate needed.
    #[arg(long, conflicts_with_all = ["evaluate", "max_trials", "jobs", "unavailable_rate", "svg", "on_inconclusive"])]
    pub compare: bool,
    /// With --compare: the odds ratio to detect (head loses R discordant pairs for each it
    /// wins), above 1.
    #[arg(long, value_name = "R", allow_negative_numbers = true, requires = "compare",
          conflicts_with_all = ["base", "regressed"])]
    pub odds_ratio: Option<f64>,
    /// With --compare: base's pass rate, with --regressed the regressed rate of head to catch
    /// (translated to an odds ratio under independent pairs).
    #[arg(long, allow_negative_numbers = true, value_parser = parse_rate, requires_all = ["compare", "regressed"])]
    pub base: Option<f64>,
    /// With --compare: pairs after which an undecided run is INCONCLUSIVE (default: the
    /// fewest that keep alpha when one pair in ten is discordant).
    #[arg(long, value_name = "M", requires = "compare")]
    pub max_pairs: Option<u64>,
    /// With --compare: the size of a regression in points of pass rate, in (0, 1) (default
    /// base − regressed, or 0.10 with --odds-ratio): the rule also PASSes once head's losses
    /// are too rare for a fall this large, so a task both sides always pass can PASS.
    #[arg(long, value_name = "D", allow_negative_numbers = true, value_parser = parse_rate, requires = "compare")]
    pub drop: Option<f64>,
    /// With --compare: also give the exact P(PASS), P(FAIL), P(INCONCLUSIVE) and expected
    /// pairs for independent pairs with these pass rates (repeatable): `0.9,0.8`.
    #[arg(long, value_name = "BASE,HEAD", requires = "compare")]
    pub at: Vec<String>,
    /// Producer's risk: P(gate fails | healthy) tolerated, in (0, 0.5).
    #[arg(long, allow_negative_numbers = true, default_value = "0.05", value_parser = parse_rate)]
    pub alpha: f64,
    /// Consumer's risk: P(gate passes | regressed) tolerated, in (0, 0.5).
    #[arg(long, allow_negative_numbers = true, default_value = "0.10", value_parser = parse_rate)]
    pub beta: f64,
    /// Truncation of the sequential plan (default: twice the single plan's n).
    #[arg(long)]
    pub max_trials: Option<u64>,
    /// The sequential rule: `calibrated` (exact risks within the request, near the
    /// information limit) or Wald's textbook `wald`.
    #[arg(long, value_enum, default_value_t = SequentialKind::Calibrated)]
    pub rule: SequentialKind,
    /// What an INCONCLUSIVE does to the gate; it defines the realised alpha.
    #[arg(long, value_enum, default_value_t = InconclusivePolicy::Fail)]
    pub on_inconclusive: InconclusivePolicy,
    /// Also show the expected trials LAUNCHED with this many parallel trials (graded plus
    /// those cancelled in flight at the decision).
    #[arg(long, short = 'j', value_name = "J", value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub jobs: Option<u64>,
    /// Also show the exact risks when each trial is unavailable (a declared fault) with this
    /// probability: `0.1` or `10%`.
    #[arg(long, value_name = "U", value_parser = parse_rate)]
    pub unavailable_rate: Option<f64>,
    /// The unavailable budget for `--unavailable-rate` (default: 10% of n or max_trials,
    /// rounded up, as in `gate run`).
    #[arg(long, value_name = "B", requires = "unavailable_rate")]
    pub max_unavailable: Option<u64>,
    /// Also design the staged rule that decides only after every B trials (each stage a
    /// matrix of parallel shards): its OC, expected trials and expected stages.
    #[arg(long, value_name = "B", value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub stage: Option<u64>,
    /// Stages at most for `--stage` (default: twice the single plan's n, in whole stages).
    #[arg(long, value_name = "S", requires = "stage", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_stages: Option<u64>,
    /// Judge an existing single plan instead of designing one: its exact OC, risks and
    /// curtailed expected trials.
    #[arg(long, value_name = "N,C")]
    pub evaluate: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Also draw the OC and ASN curves as an SVG chart into this file.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
}

/// Arguments of `gate explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The CI retry setting: extra attempts after a failure.
    #[arg(long, allow_negative_numbers = true, required_unless_present = "junit")]
    pub retries: Option<u64>,
    /// Instead: what the retry setting measured on these result files (one run each: JUnit,
    /// or any format `gate ingest` reads, detected from the content).
    #[arg(long, num_args = 1.., value_name = "RESULT", conflicts_with_all = ["retries", "healthy"])]
    pub junit: Vec<PathBuf>,
    /// With `--junit`: read Playwright, jest-junit (without `invocations`) and other files
    /// whose retries are invisible, on your word that the suite ran with retries off.
    #[arg(long, requires = "junit")]
    pub assume_retries_off: bool,
    /// With `--junit` on an Inspect log: the scorer that grades a sample.
    #[arg(long, requires = "junit", value_name = "NAME")]
    pub scorer: Option<String>,
    /// With `--junit` on an Inspect log: read one whose status is not `success`.
    #[arg(long, requires = "junit")]
    pub allow_incomplete: bool,
    /// Per-trial success rate of a healthy agent, to compare against a designed plan.
    #[arg(long, allow_negative_numbers = true, requires = "regressed", value_parser = parse_rate)]
    pub healthy: Option<f64>,
    /// Per-trial success rate of a regressed agent, to compare against a designed plan.
    #[arg(long, allow_negative_numbers = true, requires = "healthy", value_parser = parse_rate)]
    pub regressed: Option<f64>,
    /// Producer's risk for the comparison plan.
    #[arg(long, allow_negative_numbers = true, default_value = "0.05", value_parser = parse_rate)]
    pub alpha: f64,
    /// Consumer's risk for the comparison plan.
    #[arg(long, allow_negative_numbers = true, default_value = "0.10", value_parser = parse_rate)]
    pub beta: f64,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// Report files shared by `run` and `report`. One of them may be `-`: it then goes to stdout,
/// and the human summary to stderr.
#[derive(Debug, Args, Clone, Default)]
pub struct ReportFiles {
    /// Write a JUnit XML report (one testsuite per task); `-` for stdout.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write a Markdown summary (default: appended to $GITHUB_STEP_SUMMARY when set); `-`
    /// for stdout.
    #[arg(long, value_name = "FILE")]
    pub summary: Option<PathBuf>,
    /// Do not append the Markdown summary to $GITHUB_STEP_SUMMARY.
    #[arg(long)]
    pub no_step_summary: bool,
    /// Write the JSON report (documented contract, versioned); `-` for stdout.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
}

/// Arguments of `gate run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The plan file (YAML); default `gate.yaml`, then `.config/gate.yaml`.
    pub plan: Option<PathBuf>,
    /// Where to write the attempt ledger (JSON Lines).
    #[arg(long, default_value = "gate-out/ledger.jsonl")]
    pub ledger: PathBuf,
    /// Trials to run in parallel (overrides the plan's `policy.jobs`).
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    /// Run only the trials whose ordinal is K modulo M (single plans), as shard K of M.
    #[arg(long, value_name = "K/M")]
    pub shard: Option<String>,
    /// Run only stage S of the plan's staged run: each task's ordinals (S-1)B+1 to SB (a
    /// single plan whole in stage 1), or the shard's share of them with `--shard`;
    /// `gate report` over every stage's ledgers so far decides, or says CONTINUE with the
    /// next stage.
    #[arg(long, value_name = "S", value_parser = clap::value_parser!(u64).range(1..))]
    pub stage: Option<u64>,
    /// With `--stage S` from stage 2 on: the ledgers of stages 1 to S-1 (repeatable). The
    /// run starts only if they say CONTINUE with stage S, and runs only the tasks still
    /// undecided.
    #[arg(long, value_name = "LEDGER", requires = "stage")]
    pub after: Vec<PathBuf>,
    /// Continue an interrupted ledger of the same plan and fixtures.
    #[arg(long)]
    pub resume: bool,
    /// Override the plan's `policy.on_inconclusive`.
    #[arg(long, value_enum)]
    pub on_inconclusive: Option<InconclusivePolicy>,
    /// Only run the tasks with these ids (repeatable).
    #[arg(long = "task", value_name = "ID")]
    pub tasks: Vec<String>,
    /// Report files.
    #[command(flatten)]
    pub reports: ReportFiles,
}

/// `--sampling` of `gate ingest`'s design flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DesignRule {
    /// A single (n, c) plan: the first n runs by ordinal decide.
    Single,
    /// A sequential test (as `design: {rule: sequential}`): runs are consumed in ordinal
    /// order until a bound is reached.
    Sequential,
}

/// The flags that give `gate ingest` and `gate suite` one rule for every test case: a
/// single plan as written, or a design from rates (declared once, so the two commands accept
/// and refuse the same combinations).
#[derive(Debug, Args)]
pub struct DesignFlags {
    /// One single plan for every test case: N runs, pass if at most C fail.
    #[arg(long, value_name = "N,C")]
    pub single: Option<String>,
    /// Design the rule for every test case: per-run success rate of a healthy test (p0),
    /// `0.9` or `90%`.
    #[arg(long, allow_negative_numbers = true, requires = "regressed", value_parser = parse_rate)]
    pub healthy: Option<f64>,
    /// With `--healthy`: the regressed rate (p1) to tell apart.
    #[arg(long, allow_negative_numbers = true, requires = "healthy", value_parser = parse_rate)]
    pub regressed: Option<f64>,
    /// With `--healthy`: producer's risk (default 0.05).
    #[arg(long, allow_negative_numbers = true, requires = "healthy", value_parser = parse_rate)]
    pub alpha: Option<f64>,
    /// With `--healthy`: consumer's risk (default 0.10).
    #[arg(long, allow_negative_numbers = true, requires = "healthy", value_parser = parse_rate)]
    pub beta: Option<f64>,
    /// With `--healthy`: which kind of plan to design (`--rule` means the sequential rule,
    /// `calibrated|wald`, in `gate plan`).
    #[arg(long, value_enum, default_value_t = DesignRule::Single, requires = "healthy")]
    pub sampling: DesignRule,
    /// With `--sampling sequential`: truncation.
    #[arg(long, requires = "healthy")]
    pub max_trials: Option<u64>,
}

/// Arguments of `gate ingest`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("judge_by").required(true).args(["plan", "single", "healthy", "odds_ratio"])))]
pub struct IngestArgs {
    /// JUnit XML files, each one run of the suite, in ordinal order (name them so that a
    /// shell glob sorts them: run-01.xml … run-20.xml).
    #[arg(required = true, value_name = "RESULT")]
    pub results: Vec<PathBuf>,
    /// A plan file whose tasks select test cases with `junit: GLOB` (the top-level
    /// `sampling:` applies to the test cases no task selects).
    #[arg(long, value_name = "PLAN")]
    pub plan: Option<PathBuf>,
    /// The rule for every test case, from flags.
    #[command(flatten)]
    pub design: DesignFlags,
    /// The old spelling of `--sampling`, still read (with a deprecation note).
    #[arg(
        long,
        value_enum,
        hide = true,
        requires = "healthy",
        conflicts_with = "sampling"
    )]
    pub rule: Option<DesignRule>,
    /// Compare: the base suite's JUnit files, in run order; the RESULT files are head's.
    /// Pair k of a test is its run in the k-th file of each side. End the list with `--`:
    /// `gate ingest --base base/*.xml -- head/*.xml --odds-ratio 3`.
    #[arg(long, num_args = 1.., value_name = "BASE_RESULT")]
    pub base: Vec<PathBuf>,
    /// With `--base`: the odds ratio R > 1 to detect (head loses R discordant pairs for each
    /// one it wins), instead of a plan's `compare:` rule.
    #[arg(long, requires = "base")]
    pub odds_ratio: Option<f64>,
    /// With `--odds-ratio`: the size of a regression in points of pass rate, in (0, 1)
    /// (default 0.10): the rule also PASSes once head's losses are too rare for a fall this
    /// large, so a test that passes every run on both sides can PASS.
    #[arg(long, value_name = "D", allow_negative_numbers = true, value_parser = parse_rate, requires = "odds_ratio")]
    pub drop: Option<f64>,
    /// Where to write the attempt ledger (JSON Lines).
    #[arg(long, default_value = "gate-out/ledger.jsonl")]
    pub ledger: PathBuf,
    /// What an INCONCLUSIVE verdict exits with (overrides the plan's policy).
    #[arg(long, value_enum)]
    pub on_inconclusive: Option<InconclusivePolicy>,
    /// Read Playwright, jest-junit (without `invocations`) and other files whose retries are
    /// invisible, on your word that the suite ran with retries off.
    #[arg(long)]
    pub assume_retries_off: bool,
    /// The result files' format (default: detected from the content, and said).
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<crate::ingest::Format>,
    /// Inspect: the scorer whose value grades a sample (required when a log has several).
    #[arg(long, value_name = "NAME")]
    pub scorer: Option<String>,
    /// Inspect: a numeric score at or above this passes (C = 1, P = 0.5, I = 0).
    #[arg(long, value_name = "X", default_value_t = 1.0)]
    pub pass_threshold: f64,
    /// Inspect and promptfoo: what an errored first attempt is (`unavailable`: a declared
    /// fault, limited by the unavailable budget).
    #[arg(long, value_enum, value_name = "POLICY", default_value_t = ErrorPolicy::Fail)]
    pub errors: ErrorPolicy,
    /// Inspect: judge a log whose status is not `success` (only the epochs that finished).
    #[arg(long)]
    pub allow_incomplete: bool,
    /// Report files.
    #[command(flatten)]
    pub reports: ReportFiles,
}

/// Arguments of `gate suite`: the suite command, then the rule flags of `gate ingest`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("judge_by").required(true).args(["plan", "single", "healthy"])))]
pub struct SuiteArgs {
    /// The suite command, run with `sh -c` once per trial, retries off; it must write a JUnit
    /// file to `$GATE_JUNIT`.
    #[arg(required = true, value_name = "COMMAND")]
    pub command: String,
    /// Exit codes of COMMAND that mean the suite could not run (pytest: 2 interrupted, 3
    /// internal error, 4 usage error, 5 no test collected): a harness error, never a FAIL.
    #[arg(long, value_delimiter = ',', value_name = "CODES")]
    pub harness_exit_codes: Vec<i32>,
    /// Refused, with what to do instead: a plan file runs a suite as a `suite:` task of its
    /// own (`gate run`). Hidden from the help, whose usage line would offer it.
    #[arg(long, value_name = "PLAN", hide = true)]
    pub plan: Option<PathBuf>,
    /// The rule for every test case, from flags.
    #[command(flatten)]
    pub design: DesignFlags,
    /// Where to write the attempt ledger (JSON Lines): each suite run's test cases, and its
    /// JUnit file's SHA-256 (the file itself is not kept).
    #[arg(long, default_value = "gate-out/ledger.jsonl")]
    pub ledger: PathBuf,
    /// What an INCONCLUSIVE verdict exits with (overrides the plan's policy).
    #[arg(long, value_enum)]
    pub on_inconclusive: Option<InconclusivePolicy>,
    /// Read JUnit writers whose retries are invisible (Playwright, jest-junit without
    /// `invocations`), on your word that COMMAND runs with retries off.
    #[arg(long)]
    pub assume_retries_off: bool,
    /// Report files.
    #[command(flatten)]
    pub reports: ReportFiles,
}

/// What an errored first attempt of an eval sample is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ErrorPolicy {
    /// A failure.
    Fail,
    /// A declared fault: neither a pass nor a failure.
    Unavailable,
}

/// Arguments of `gate report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// One ledger, or the ledgers of all shards of one run.
    #[arg(required = true)]
    pub ledgers: Vec<PathBuf>,
    /// Override the recorded `policy.on_inconclusive`.
    #[arg(long, value_enum)]
    pub on_inconclusive: Option<InconclusivePolicy>,
    /// Report files.
    #[command(flatten)]
    pub reports: ReportFiles,
}

/// Arguments of `gate verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Ledgers to check.
    #[arg(required = true)]
    pub ledgers: Vec<PathBuf>,
}
