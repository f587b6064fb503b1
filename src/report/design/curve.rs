//! `gate plan`'s OC curve as characters, for the terminal: `*` single, `o` sequential.

use std::fmt::Write as _;

use crate::design::OneSampleReport;
use crate::format::rate;

/// Columns of the terminal OC curve.
const CURVE_WIDTH: usize = 61;
/// Rows above the 0% row: one per 10% of P(PASS).
const CURVE_STEPS: usize = 10;

/// The x-range of the curves: the OC grid's ends.
pub(super) fn curve_range(r: &OneSampleReport) -> (f64, f64) {
    let lo = r.oc.first().map_or(0.0, |x| x.p);
    let hi = r.oc.last().map_or(1.0, |x| x.p);
    (lo, hi)
}

/// The column of rate `p` in the terminal curve.
fn column(p: f64, lo: f64, hi: f64) -> usize {
    let x = ((p - lo) / (hi - lo) * (CURVE_WIDTH - 1) as f64).round();
    (x.max(0.0) as usize).min(CURVE_WIDTH - 1)
}

/// Both OC curves as a character plot: `*` single, `o` sequential, `#` where they share a
/// cell; `R` and `H` under the axis mark the regressed and healthy rates.
pub(super) fn terminal_curve(r: &OneSampleReport) -> String {
    let (lo, hi) = curve_range(r);
    let (single, sequential) = r.lattices();
    let row_of = |x: f64| {
        ((x * CURVE_STEPS as f64)
            .round()
            .clamp(0.0, CURVE_STEPS as f64)) as usize
    };
    // (row of the single plan, row of the sequential plan) for each column.
    let rows: Vec<(usize, usize)> = (0..CURVE_WIDTH)
        .map(|col| {
            let p = lo + (hi - lo) * col as f64 / (CURVE_WIDTH - 1) as f64;
            (row_of(single.oc(p).p_pass), row_of(sequential.oc(p).p_pass))
        })
        .collect();
    let grid: Vec<Vec<char>> = (0..=CURVE_STEPS)
        .map(|level| {
            rows.iter()
                .map(
                    |&(single, sequential)| match (single == level, sequential == level) {
                        (true, true) => '#',
                        (true, false) => '*',
                        (false, true) => 'o',
                        (false, false) => ' ',
                    },
                )
                .collect()
        })
        .collect();
    let mut out = String::from("OC curve: P(PASS) by true success rate\n");
    for (i, row) in grid.iter().enumerate().rev() {
        let label = match i {
            10 => "100% |",
            5 => " 50% |",
            0 => "  0% |",
            _ => "     |",
        };
        let line: String = row.iter().collect();
        let _ = writeln!(out, "{label}{}", line.trim_end());
    }
    let _ = writeln!(out, "     +{}", "-".repeat(CURVE_WIDTH));
    let mut marks = vec![' '; CURVE_WIDTH];
    marks[column(r.regressed, lo, hi)] = 'R';
    marks[column(r.healthy, lo, hi)] = 'H';
    let marks: String = marks.iter().collect();
    let _ = writeln!(out, "      {}", marks.trim_end());
    let (left, right) = (rate(lo), rate(hi));
    let gap = (CURVE_WIDTH + 6).saturating_sub(6 + left.len() + right.len());
    let _ = writeln!(out, "      {left}{}{right}", " ".repeat(gap));
    let _ = writeln!(
        out,
        "      * single plan  o sequential plan  # both  R regressed {}  H healthy {}",
        rate(r.regressed),
        rate(r.healthy)
    );
    out
}
