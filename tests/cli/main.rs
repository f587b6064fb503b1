//! Integration tests of the `gate` binary: one test binary, one module per area.

mod action;
mod common;
mod compare;
mod compare_contract;
mod compare_interval;
mod docs;
mod engine;
mod evals;
mod explain;
mod firsthour;
mod hostile;
mod ingest;
mod init;
mod js_json;
mod old_ledgers;
mod onramp;
mod plan;
mod plan_compare;
mod report;
mod run;
mod sandbox;
mod stages;
mod suite;
mod suite_plan;
mod tamper;
mod verify;
