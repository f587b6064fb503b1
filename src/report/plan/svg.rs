//! `gate plan --svg`: the OC curves of both plans and their expected-trials curves as an
//! SVG chart, drawn with plotters from the published lattices.

use crate::design::PlanReport;
use crate::format::rate;
use crate::stats::lattice::single_oc;

use super::curve::curve_range;

/// Points per curve in the SVG chart.
const SVG_POINTS: u32 = 200;

/// The OC curves of both plans and their ASN curves as an SVG document.
pub fn render_svg(r: &PlanReport) -> Result<String, SvgError> {
    use plotters::prelude::*;

    let (lo, hi) = curve_range(r);
    let (s, q) = (&r.single, &r.sequential);
    let points: Vec<(f64, f64, f64, f64, f64)> = (0..=SVG_POINTS)
        .map(|i| {
            let p = lo + (hi - lo) * f64::from(i) / f64::from(SVG_POINTS);
            let seq = r.boundaries().oc(p);
            (
                p,
                single_oc(s.n, s.c, p).p_pass,
                seq.p_pass,
                single_oc(s.n, s.c, p).asn,
                seq.asn,
            )
        })
        .collect();
    let max_asn = points.iter().fold(s.n as f64, |m, x| m.max(x.3).max(x.4)) * 1.05;
    // Enough decimals on the x-axis to tell the ticks apart on narrow ranges.
    let decimals = if hi - lo >= 0.2 {
        0
    } else if hi - lo >= 0.02 {
        1
    } else {
        2
    };
    let x_fmt = move |x: &f64| format!("{:.*}%", decimals, x * 100.0);
    let single_style = RGBColor(31, 119, 180);
    let seq_style = RGBColor(214, 39, 40);
    let mark_style = RGBColor(90, 90, 90);

    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (900, 860)).into_drawing_area();
        root.fill(&WHITE).map_err(svg_error)?;
        let (top, bottom) = root.split_vertically(430);

        let mut chart = ChartBuilder::on(&top)
            .caption(
                format!(
                    "Operating characteristic: healthy {} vs regressed {}",
                    rate(r.healthy),
                    rate(r.regressed)
                ),
                ("sans-serif", 20),
            )
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(lo..hi, 0.0..1.0)
            .map_err(svg_error)?;
        chart
            .configure_mesh()
            .x_desc("true per-trial success rate p")
            .y_desc("P(PASS)")
            .x_label_formatter(&x_fmt)
            .label_style(("sans-serif", 15))
            .axis_desc_style(("sans-serif", 17))
            .y_label_formatter(&|y| format!("{:.0}%", y * 100.0))
            .draw()
            .map_err(svg_error)?;
        chart
            .draw_series(LineSeries::new(
                points.iter().map(|x| (x.0, x.1)),
                single_style.stroke_width(2),
            ))
            .map_err(svg_error)?
            .label(format!("single plan (n = {}, c = {})", s.n, s.c))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], single_style));
        chart
            .draw_series(LineSeries::new(
                points.iter().map(|x| (x.0, x.2)),
                seq_style.stroke_width(2),
            ))
            .map_err(svg_error)?
            .label(format!("sequential plan (max {} trials)", q.max_trials))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], seq_style));
        draw_rate_marks(&mut chart, r, 1.0, mark_style)?;
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 15))
            .draw()
            .map_err(svg_error)?;

        let mut chart = ChartBuilder::on(&bottom)
            .caption(
                "Average sample number (expected trials)",
                ("sans-serif", 20),
            )
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(lo..hi, 0.0..max_asn)
            .map_err(svg_error)?;
        chart
            .configure_mesh()
            .x_desc("true per-trial success rate p")
            .y_desc("expected trials")
            .x_label_formatter(&x_fmt)
            .label_style(("sans-serif", 15))
            .axis_desc_style(("sans-serif", 17))
            .draw()
            .map_err(svg_error)?;
        chart
            .draw_series(LineSeries::new(
                points.iter().map(|x| (x.0, x.3)),
                single_style.stroke_width(2),
            ))
            .map_err(svg_error)?
            .label(format!("single plan, curtailed (at most {})", s.n))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], single_style));
        chart
            .draw_series(LineSeries::new(
                points.iter().map(|x| (x.0, x.4)),
                seq_style.stroke_width(2),
            ))
            .map_err(svg_error)?
            .label("sequential plan")
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], seq_style));
        draw_rate_marks(&mut chart, r, max_asn, mark_style)?;
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 15))
            .draw()
            .map_err(svg_error)?;
        root.present().map_err(svg_error)?;
    }
    Ok(buf)
}

type SvgChart<'a, 'b> = plotters::chart::ChartContext<
    'a,
    plotters::backend::SVGBackend<'b>,
    plotters::coord::cartesian::Cartesian2d<
        plotters::coord::types::RangedCoordf64,
        plotters::coord::types::RangedCoordf64,
    >,
>;

/// Dashed vertical lines at the regressed and healthy rates, labelled at the top.
fn draw_rate_marks(
    chart: &mut SvgChart<'_, '_>,
    r: &PlanReport,
    top: f64,
    color: plotters::style::RGBColor,
) -> Result<(), SvgError> {
    use plotters::prelude::*;
    for (p, name) in [(r.regressed, "regressed"), (r.healthy, "healthy")] {
        chart
            .draw_series(DashedLineSeries::new(
                vec![(p, 0.0), (p, top)],
                6,
                4,
                color.stroke_width(1),
            ))
            .map_err(svg_error)?;
        chart
            .draw_series(std::iter::once(Text::new(
                format!("{name} {}", rate(p)),
                (p, top * 0.97),
                ("sans-serif", 15).into_font().color(&color),
            )))
            .map_err(svg_error)?;
    }
    Ok(())
}

/// plotters could not draw the chart. Its errors carry a backend type parameter; only the
/// message is kept.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct SvgError(String);

fn svg_error<E: std::fmt::Display>(e: E) -> SvgError {
    SvgError(e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::design::PlanOptions;

    #[test]
    fn svg_has_axes_legend_and_rate_marks() {
        let r = PlanReport::build(&PlanOptions::new(0.9, 0.7, 0.05, 0.10)).expect("plan");
        let svg = render_svg(&r).expect("svg");
        assert!(svg.starts_with("<svg"));
        for needle in [
            "P(PASS)",
            "expected trials",
            "true per-trial success rate p",
            "single plan (n = 33, c = 6)",
            "sequential plan (max 66 trials)",
            "regressed 70%",
            "healthy 90%",
        ] {
            assert!(svg.contains(needle), "SVG lacks {needle:?}");
        }
        assert!(svg.trim_end().ends_with("</svg>"));
    }
}
