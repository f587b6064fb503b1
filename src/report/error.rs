//! Why ledgers could not be turned into a report, and where a row was read.
//!
//! A leaf: it names only paths, rows and the statistics' error, so [`crate::error`] can map a
//! [`ReportError`] to its exit code without depending on the report library.

use std::path::PathBuf;

/// Where a row was read: a ledger and a 1-based line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// The ledger file: shared (a thin pointer), as every trial record of a ledger names the same one (a copy
    /// per row was 900,000 small allocations for a suite of 100,000 cases: issue 30).
    pub path: std::sync::Arc<PathBuf>,
    /// 1-based line in that file (`seq + 1` for an intact ledger).
    pub line: u64,
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.path.display(), self.line)
    }
}

/// Why ledgers could not be turned into a report.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// No ledger was given.
    #[error("no ledger given")]
    NoLedgers,
    /// Ledgers of different plans.
    #[error(
        "`{}` and `{}` are ledgers of different plans (plan hash `{first_hash}` vs `{other_hash}`); shards merge only within one plan",
        first.display(), other.display()
    )]
    MixedPlan {
        /// First ledger.
        first: PathBuf,
        /// Its plan hash.
        first_hash: String,
        /// The ledger that differs.
        other: PathBuf,
        /// Its plan hash.
        other_hash: String,
    },
    /// Ledgers of different fixtures.
    #[error(
        "`{}` and `{}` ran against different fixtures (fixture hash `{first_hash}` vs `{other_hash}`); shards merge only within one fixture set",
        first.display(), other.display()
    )]
    MixedFixture {
        /// First ledger.
        first: PathBuf,
        /// Its fixture hash.
        first_hash: String,
        /// The ledger that differs.
        other: PathBuf,
        /// Its fixture hash.
        other_hash: String,
    },
    /// Shards of different splits.
    #[error(
        "`{}` is a shard of {first_m} but `{}` is a shard of {other_m}",
        first.display(), other.display()
    )]
    MixedShards {
        /// First sharded ledger.
        first: PathBuf,
        /// Its shard count.
        first_m: u64,
        /// The ledger that differs.
        other: PathBuf,
        /// Its shard count.
        other_m: u64,
    },
    /// A whole run given together with a shard.
    #[error(
        "`{}` is a whole run but `{}` is shard {k}/{m}: give one run's ledger, or the ledgers of all shards of one run",
        whole.display(), shard_path.display()
    )]
    WholeAndShard {
        /// The unsharded ledger.
        whole: PathBuf,
        /// The sharded one.
        shard_path: PathBuf,
        /// Its shard.
        k: u64,
        /// Its shard count.
        m: u64,
    },
    /// Shards written in different CI runs, or different attempts of one (a shard re-run
    /// alone, as "Re-run failed jobs" does).
    #[error(
        "`{}` {first_ran} but `{}` {other_ran}: a shard re-run on its own (GitHub's \"Re-run failed jobs\") is a retry, and its merge would count only the attempt that passed; re-run all jobs of the workflow run and merge the ledgers of that one attempt (or give the ledgers of the first attempt of every shard)",
        first.display(), other.display()
    )]
    MixedCiRuns {
        /// First sharded ledger.
        first: PathBuf,
        /// Its shard and where it ran, in words: `(shard 1/3) ran in attempt 1 of CI run 7`.
        first_ran: String,
        /// The ledger that differs.
        other: PathBuf,
        /// Its shard and where it ran, in words.
        other_ran: String,
    },
    /// Stages of a staged run written in different CI runs, or different attempts of one:
    /// another run's evidence, or a stage re-run until it passed.
    #[error(
        "`{}` {first_ran} but `{}` {other_ran}: the stages of one staged run are merged only from one attempt of one CI run (the run id is in each ledger's header); a stage ledger of another run is not this run's evidence, and a stage re-run on its own is a retry: re-run all jobs of the workflow run and merge the ledgers of that one attempt",
        first.display(), other.display()
    )]
    StageCiRuns {
        /// First staged ledger.
        first: PathBuf,
        /// Its stage and where it ran, in words: `(stage 1) ran in attempt 1 of CI run 7`.
        first_ran: String,
        /// The ledger that differs.
        other: PathBuf,
        /// Its stage and where it ran, in words.
        other_ran: String,
    },
    /// An earlier stage's ledger given with a later stage that did not follow it: the later
    /// stage's header names, by run id and head hash, the earlier ledgers it ran `--after`,
    /// and this one is not among them (another execution of the stage, or the same ledger
    /// changed since). Review 47, c16.
    #[error(
        "`{}` (stage {stage}) ran after {followed}, not after `{}` (stage {earlier_stage}, {earlier_is}): a stage is merged only with the earlier-stage ledgers whose CONTINUE it ran after (their run ids and head hashes are in its header); another execution of an earlier stage is not this run's evidence. Give the ledgers the stage was run `--after`, as they were then",
        later.display(), earlier.display()
    )]
    StageNotFollowed {
        /// The later stage's ledger.
        later: PathBuf,
        /// Its stage.
        stage: u64,
        /// The earlier ledgers it followed, in words (run ids and head hashes).
        followed: String,
        /// The earlier-stage ledger given that it did not follow.
        earlier: PathBuf,
        /// That ledger's stage.
        earlier_stage: u64,
        /// That ledger in words: its run id and head hash.
        earlier_is: String,
    },
    /// Ledgers of a staged run that do not make up its stages: a stage with missing or
    /// duplicated ordinals or shards, a missing earlier stage, a stage run after the
    /// decision, or staged and unstaged ledgers mixed.
    #[error("{problem}")]
    Stage {
        /// What is wrong, naming the ledgers.
        problem: String,
    },
    /// A header names an impossible shard.
    #[error("`{}`: shard `{k}/{m}` is not a shard (need 1 <= k <= m)", path.display())]
    BadShard {
        /// The ledger.
        path: PathBuf,
        /// k.
        k: u64,
        /// m.
        m: u64,
    },
    /// The same task resolved differently in two headers.
    #[error(
        "task `{task}` is resolved differently in `{}` and `{}` (sampling, rates or commands differ)",
        first.display(), other.display()
    )]
    MixedTask {
        /// The task.
        task: String,
        /// First ledger.
        first: PathBuf,
        /// The ledger that differs.
        other: PathBuf,
    },
    /// Ledgers (shards) in which a suite task's runs recorded different test cases, and so
    /// designed different family rules: no one rule judged every case (review 9, a12).
    #[error(
        "suite task `{task}`: `{}` {first_ran}, but `{}` {other_ran}: the shards of one suite must record the same test cases, or a merged report would judge every case by a rule no shard ran and state a family risk that is neither shard's; run every shard on machines that collect the same tests, or report each shard on its own",
        first.display(), other.display()
    )]
    MixedFamily {
        /// The suite task.
        task: String,
        /// A ledger with a recorded family design.
        first: PathBuf,
        /// What its runs recorded, in words.
        first_ran: String,
        /// The ledger that differs.
        other: PathBuf,
        /// What its runs recorded, in words.
        other_ran: String,
    },
    /// An attempt row for a task the header does not name.
    #[error("{at}: attempt row for task `{task}`, which no ledger header names")]
    UnknownTask {
        /// The task.
        task: String,
        /// The row.
        at: Source,
    },
    /// Trial or attempt 0.
    #[error("{at}: trial and attempt numbers start at 1")]
    ZeroOrdinal {
        /// The row.
        at: Source,
    },
    /// A ledger header records a task the plan loader would have refused.
    #[error("{at}: header row: task `{task}`: {what}")]
    BadHeader {
        /// The task.
        task: String,
        /// What is wrong.
        what: String,
        /// The header row.
        at: Source,
    },
    /// A shard ledger records an ordinal its shard does not own.
    #[error(
        "{at}: task `{task}` trial #{trial} does not belong to shard {k}/{m}, which runs ordinals {k}, {k} + {m}, {k} + 2×{m}, …"
    )]
    ForeignOrdinal {
        /// The task.
        task: String,
        /// The ordinal.
        trial: u64,
        /// The row.
        at: Source,
        /// The shard.
        k: u64,
        /// Shard count.
        m: u64,
    },
    /// An ordinal the runner cannot have reached in this ledger.
    #[error(
        "{at}: task `{task}` trial #{trial} cannot have been run: the runner assigns ordinals in order without skipping, and with {rows} attempt row{} of the task this ledger ends by trial #{limit}",
        if *rows == 1 { "" } else { "s" }
    )]
    ImpossibleOrdinal {
        /// The task.
        task: String,
        /// The ordinal.
        trial: u64,
        /// The row.
        at: Source,
        /// Attempt rows of the task in that ledger.
        rows: u64,
        /// The highest ordinal those rows (and the trials a crash may have lost) can reach.
        limit: u64,
    },
    /// Two different rows for one attempt.
    #[error(
        "task `{task}` trial #{trial} attempt {attempt} is recorded twice with different contents: {first} and {other}"
    )]
    Conflict {
        /// The task.
        task: String,
        /// Ordinal.
        trial: u64,
        /// Attempt.
        attempt: u32,
        /// The first row.
        first: Source,
        /// The row that differs.
        other: Source,
    },
    /// A recorded sampling rule the statistics refuse.
    #[error("task `{task}`: the recorded sampling rule is invalid")]
    Sampling {
        /// The task.
        task: String,
        /// Why.
        #[source]
        source: crate::stats::StatsError,
    },
}
