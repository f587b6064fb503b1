//! `gate plan --svg`: the OC curves of both plans and their expected-trials curves as an
//! SVG chart, drawn with plotters from the published lattices.

use crate::design::OneSampleReport;
use crate::format::rate;

use super::curve::curve_range;

/// Points per curve in the SVG chart.
const SVG_POINTS: u32 = 200;

/// The OC curves of both plans and their ASN curves as an SVG document.
pub fn render_svg(r: &OneSampleReport) -> Result<String, SvgError> {
    use plotters::prelude::*;

    let (lo, hi) = curve_range(r);
    let (s, q) = (&r.single, &r.sequential);
    let points: Vec<Point> = (0..=SVG_POINTS)
        .map(|i| {
            let p = lo + (hi - lo) * f64::from(i) / f64::from(SVG_POINTS);
            let (one, seq) = (r.lattices().0.oc(p), r.lattices().1.oc(p));
            (p, one.p_pass, seq.p_pass, one.asn, seq.asn)
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

        let caption = format!(
            "Operating characteristic: healthy {} vs regressed {}",
            rate(r.healthy),
            rate(r.regressed)
        );
        let line = |y: fn(&Point) -> f64| points.iter().map(|x| (x.0, y(x))).collect::<Vec<_>>();
        let oc = Panel {
            caption: &caption,
            y_desc: "P(PASS)",
            y_max: 1.0,
            y_percent: true,
            lines: [
                (
                    line(|x| x.1),
                    format!("single plan (n = {}, c = {})", s.n, s.c),
                    single_style,
                ),
                (
                    line(|x| x.2),
                    format!("sequential plan (max {} trials)", q.max_trials),
                    seq_style,
                ),
            ],
        };
        oc.draw(&top, r, (lo, hi), &x_fmt, mark_style)?;
        let asn = Panel {
            caption: "Average sample number (expected trials)",
            y_desc: "expected trials",
            y_max: max_asn,
            y_percent: false,
            lines: [
                (
                    line(|x| x.3),
                    format!("single plan, curtailed (at most {})", s.n),
                    single_style,
                ),
                (line(|x| x.4), "sequential plan".to_string(), seq_style),
            ],
        };
        asn.draw(&bottom, r, (lo, hi), &x_fmt, mark_style)?;
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

/// p, then the single and the sequential plan's P(PASS), then their expected trials.
type Point = (f64, f64, f64, f64, f64);

/// A curve's points, legend and colour.
type Curve = (Vec<(f64, f64)>, String, plotters::style::RGBColor);

/// One chart of the two: a curve per plan against p, the rate marks and the legend.
struct Panel<'a> {
    caption: &'a str,
    y_desc: &'a str,
    /// The top of the y-axis (from 0).
    y_max: f64,
    /// Whether the y-axis reads as percentages.
    y_percent: bool,
    /// The single and the sequential plan's curve.
    lines: [Curve; 2],
}

impl Panel<'_> {
    fn draw(
        self,
        area: &plotters::drawing::DrawingArea<
            plotters::backend::SVGBackend<'_>,
            plotters::coord::Shift,
        >,
        r: &OneSampleReport,
        (lo, hi): (f64, f64),
        x_fmt: &dyn Fn(&f64) -> String,
        mark_style: plotters::style::RGBColor,
    ) -> Result<(), SvgError> {
        use plotters::prelude::*;
        let mut chart = ChartBuilder::on(area)
            .caption(self.caption, ("sans-serif", 20))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(lo..hi, 0.0..self.y_max)
            .map_err(svg_error)?;
        let y_percent = |y: &f64| format!("{:.0}%", y * 100.0);
        let mut mesh = chart.configure_mesh();
        mesh.x_desc("true per-trial success rate p")
            .y_desc(self.y_desc)
            .x_label_formatter(&x_fmt)
            .label_style(("sans-serif", 15))
            .axis_desc_style(("sans-serif", 17));
        if self.y_percent {
            mesh.y_label_formatter(&y_percent);
        }
        mesh.draw().map_err(svg_error)?;
        for (points, label, style) in self.lines {
            chart
                .draw_series(LineSeries::new(points, style.stroke_width(2)))
                .map_err(svg_error)?
                .label(label)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
        }
        draw_rate_marks(&mut chart, r, self.y_max, mark_style)?;
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 15))
            .draw()
            .map_err(svg_error)?;
        Ok(())
    }
}

/// Dashed vertical lines at the regressed and healthy rates, labelled at the top.
fn draw_rate_marks(
    chart: &mut SvgChart<'_, '_>,
    r: &OneSampleReport,
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
    use crate::design::OneSampleOptions;

    #[test]
    fn svg_has_axes_legend_and_rate_marks() {
        let r = OneSampleReport::build(&OneSampleOptions::new(0.9, 0.7, 0.05, 0.10)).expect("plan");
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
