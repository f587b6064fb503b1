//! Integration tests of the `gate` binary: one test binary, one module per area.

mod report;
mod verify;
