//! `gate schema plan|report`: print the JSON Schema of the plan file or of the JSON report.
//!
//! Both are derived with schemars from the serde types gate itself reads and writes, so the
//! schema cannot drift from the code; `schemas/*.schema.json` are these outputs, committed (a
//! test keeps them equal).

use crate::cli::{SchemaArgs, SchemaKind};
use crate::error::Error;
use crate::exit;

/// Execute `gate schema`; returns the exit code.
pub fn execute(args: &SchemaArgs) -> Result<u8, Error> {
    let schema =
        render(args.which).map_err(|e| Error::output("cannot render the JSON Schema", e))?;
    print!("{schema}");
    Ok(exit::SUCCESS)
}

/// The schema as pretty JSON with a trailing newline.
pub fn render(which: SchemaKind) -> Result<String, serde_json::Error> {
    let schema = match which {
        SchemaKind::Plan => crate::plan::schema::json_schema(),
        SchemaKind::Report => crate::report::json::json_schema(),
    };
    let mut s = serde_json::to_string_pretty(&schema)?;
    s.push('\n');
    Ok(s)
}
