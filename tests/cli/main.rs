//! Integration tests of the `gate` binary: one test binary, one module per area.

mod action;
mod explain;
mod plan;
