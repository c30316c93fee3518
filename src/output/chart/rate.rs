//! The over-time panel: janky SurfaceFrames per bin (bars) and present-based FPS (line, right axis) over the whole
//! FrameTimeline span, with the timeline's window shaded.

use super::data::{JankClass, Rates, NS_PER_S};
use super::histogram::{CAPTION_PX, LABEL_PX};
use super::legend::colour;
use super::{cause, DrawResult, FAMILY};
use plotters::coord::Shift;
use plotters::prelude::*;

/// FPS line colour (Material Blue 700).
const FPS: RGBColor = RGBColor(0x19, 0x76, 0xD2);
/// Window shading (Material Blue 50).
const WINDOW: RGBColor = RGBColor(0xE3, 0xF2, 0xFD);

/// Draws the rates on `area`.
pub fn draw<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, r: &Rates) -> DrawResult {
    let s = |ns: i64| ns as f64 / NS_PER_S as f64;
    let span = s(r.span_ns);
    let janky_max = r.janky.iter().copied().max().unwrap_or(0).max(1);
    let janky_top = janky_max + janky_max * 3 / 5 + 1;
    let fps_top = r.fps.iter().copied().fold(1.0, f64::max) * 1.6;
    // Whole numbers repeat on a short axis (0.5 and 1.4 both print as 1).
    let fps_decimals = if fps_top < 10.0 { 1 } else { 0 };
    let s_decimals = if span < 10.0 { 1 } else { 0 };
    let bin = match r.bin_ns {
        NS_PER_S => "s".to_string(),
        b if b > NS_PER_S => format!("{} s", b / NS_PER_S),
        b => format!("{} ms", b / 1_000_000),
    };
    let mut chart = ChartBuilder::on(&area.margin(8, 4, 8, 8))
        .caption(
            format!("Janky frames per {bin} and FPS (whole trace)"),
            (FAMILY, CAPTION_PX),
        )
        .x_label_area_size(36)
        .y_label_area_size(44)
        .right_y_label_area_size(44)
        .build_cartesian_2d(0f64..span, 0u32..janky_top)
        .map_err(cause)?
        .set_secondary_coord(0f64..span, 0f64..fps_top);
    if let Some((w0, w1)) = r.window_ns {
        let (w0, w1) = (s(w0).max(0.0), s(w1).min(span));
        chart
            .draw_series([Rectangle::new([(w0, 0), (w1, janky_top)], WINDOW.filled())])
            .map_err(cause)?
            .label("timeline window")
            .legend(|(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], WINDOW.filled()));
    }
    chart
        .configure_mesh()
        .disable_x_mesh()
        .light_line_style(TRANSPARENT)
        .y_labels(10.min(janky_top as usize + 1))
        .x_label_formatter(&|v| format!("{v:.s_decimals$}"))
        .x_desc("s since the first FrameTimeline slice")
        .y_desc(format!("janky frames per {bin}"))
        .label_style((FAMILY, LABEL_PX))
        .axis_desc_style((FAMILY, LABEL_PX))
        .draw()
        .map_err(cause)?;
    chart
        .configure_secondary_axes()
        .y_label_formatter(&|v| format!("{v:.fps_decimals$}"))
        .y_desc("FPS (presents/s)")
        .label_style((FAMILY, LABEL_PX))
        .axis_desc_style((FAMILY, LABEL_PX))
        .draw()
        .map_err(cause)?;
    let red = colour(JankClass::SelfJank.rgb("Full"));
    let width = s(r.bin_ns);
    chart
        .draw_series((0..).zip(&r.janky).filter(|(_, n)| **n > 0).map(|(i, n)| {
            let x0 = f64::from(i) * width;
            Rectangle::new(
                [(x0 + width * 0.1, 0), (x0 + width * 0.9, *n)],
                red.filled(),
            )
        }))
        .map_err(cause)?
        .label("janky frames (Self / Other Jank, Dropped)")
        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], red.filled()));
    chart
        .draw_secondary_series(LineSeries::new(
            (0..)
                .zip(&r.fps)
                .map(|(i, f)| ((f64::from(i) + 0.5) * width, *f)),
            FPS.stroke_width(2),
        ))
        .map_err(cause)?
        .label("FPS: distinct presents of app frames per s")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 14, y)], FPS.stroke_width(2)));
    super::legend::series_labels(&mut chart, SeriesLabelPosition::UpperLeft)
}
