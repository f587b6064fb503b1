//! Integration tests of the `gate` binary: one test binary, one module per area.

mod explain;
mod plan;
mod report;
mod verify;
