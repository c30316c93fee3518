//! The frame-time panel: histogram of actual SurfaceFrame durations (janky frames stacked on top) with the app
//! deadline and the vsync period marked.

use super::data::{Histogram, JankClass, NS_PER_MS};
use super::legend::colour;
use super::{cause, DrawResult, FAMILY};
use plotters::coord::Shift;
use plotters::prelude::*;

/// Caption font size, px.
pub const CAPTION_PX: f64 = 15.0;
/// Axis label font size, px.
pub const LABEL_PX: f64 = 12.0;

/// Deadline line colour (Material Deep Purple 500).
const DEADLINE: RGBColor = RGBColor(0x67, 0x3A, 0xB7);
/// Vsync period line colour (Material Blue Grey 700).
const PERIOD: RGBColor = RGBColor(0x45, 0x5A, 0x64);

/// Draws the histogram on `area`.
pub fn draw<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, h: &Histogram) -> DrawResult {
    let ms = |ns: i64| ns as f64 / NS_PER_MS as f64;
    let upper = ms(h.bin_ns * h.counts.len() as i64);
    let top = h.counts.iter().map(|c| c.0 + c.1).max().unwrap_or(0).max(1);
    let y_top = top + top / 5 + 1;
    let mut chart = ChartBuilder::on(&area.margin(8, 4, 8, 12))
        .caption(
            "Frame time: SurfaceFrame durations (whole trace)",
            (FAMILY, CAPTION_PX),
        )
        .x_label_area_size(36)
        .y_label_area_size(48)
        .build_cartesian_2d(0f64..upper, 0u32..y_top)
        .map_err(cause)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(TRANSPARENT)
        .y_labels(10.min(y_top as usize + 1))
        .x_desc("ms (last bar: this long or longer)")
        .y_desc("frames")
        .label_style((FAMILY, LABEL_PX))
        .axis_desc_style((FAMILY, LABEL_PX))
        .draw()
        .map_err(cause)?;
    let good = colour(JankClass::NoJank.rgb("None"));
    let janky = colour(JankClass::SelfJank.rgb("Full"));
    let bars = (0..)
        .zip(&h.counts)
        .flat_map(|(i, (g, j))| {
            let (x0, x1) = (ms(i * h.bin_ns), ms((i + 1) * h.bin_ns));
            [(x0, x1, 0, *g, good), (x0, x1, *g, g + j, janky)]
        })
        .filter(|(_, _, y0, y1, _)| y1 > y0)
        .map(|(x0, x1, y0, y1, c)| Rectangle::new([(x0, y0), (x1, y1)], c.filled()));
    chart
        .draw_series(bars)
        .map_err(cause)?
        .label("frames (red: janky)")
        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], janky.filled()));
    let lines = [
        (h.deadline_ns, DEADLINE, "app deadline (expected duration)"),
        (h.period_ns, PERIOD, "vsync period"),
    ];
    for (ns, c, name) in lines {
        let Some(ns) = ns else { continue };
        let x = ms(ns);
        chart
            .draw_series(LineSeries::new([(x, 0), (x, y_top)], c.stroke_width(2)))
            .map_err(cause)?
            .label(format!("{name} {x:.1} ms"))
            .legend(move |(lx, ly)| {
                PathElement::new(vec![(lx, ly), (lx + 14, ly)], c.stroke_width(2))
            });
    }
    super::legend::series_labels(&mut chart, SeriesLabelPosition::UpperRight)
}
