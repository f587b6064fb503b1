//! The indifference-zone section of `gate plan`'s text.

use std::fmt::Write as _;

use crate::design::zone::ZoneReport;
use crate::format::{rate, zone_line};

/// The section of `gate plan`'s text: each plan's zone in one line, then the narrower design
/// and its cost against the healthy expected trials of the plans above (`single_h`: the
/// curtailed single plan's, `seq_h`: the sequential plan's).
pub fn render(out: &mut String, z: &ZoneReport, single_h: f64, seq_h: f64) {
    let _ = writeln!(out, "Between the two rates (the indifference zone)");
    for (name, zone) in [("single plan", z.single), ("sequential plan", z.sequential)] {
        if let Some(zone) = zone {
            let _ = writeln!(out, "  {name:<16} {}", zone_line(&zone, true));
        }
    }
    match &z.narrower {
        Some(n) => {
            let _ = writeln!(
                out,
                "  to narrow it to {}–{} at the same risks: a single plan of {} trials (pass if at \
                 most {} fail),\n  expected {:.1} when healthy ({:.1}x the single plan above) and {:.1} at {}",
                rate(n.regressed),
                rate(n.healthy),
                n.single_n,
                n.single_c,
                n.single_curtailed_asn_healthy,
                n.single_curtailed_asn_healthy / single_h,
                n.single_curtailed_asn_regressed,
                rate(n.regressed),
            );
            if let (Some(h), Some(r)) = (n.sequential_asn_healthy, n.sequential_asn_regressed) {
                let _ = writeln!(
                    out,
                    "  or a sequential plan expecting {h:.1} when healthy ({:.1}x the sequential plan above) and {r:.1} at {}",
                    h / seq_h,
                    rate(n.regressed)
                );
            }
        }
        None => {
            let _ = writeln!(
                out,
                "  no plan within gate's limits halves it at the same risks: state a lower \
                 regressed rate or larger risks"
            );
        }
    }
    out.push('\n');
}
