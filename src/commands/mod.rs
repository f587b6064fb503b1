//! One module per subcommand: each turns its parsed arguments into library calls and returns
//! the exit code. Errors propagate to `main`, which prints them and maps them to a code.

pub mod explain;
pub mod plan;
pub mod report;
pub mod run;
pub mod verify;
