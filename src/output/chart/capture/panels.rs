//! Drawing a [`CaptureChart`]: title band, then per row the plots beside the headline numbers.

use super::{Body, CaptureChart, Mark, Row, HEADER_PX};
use crate::output::chart::breakdown::wrap;
use crate::output::chart::histogram::{CAPTION_PX, LABEL_PX};
use crate::output::chart::legend::{GRID, INK};
use crate::output::chart::{cause, fit, DrawResult, FAMILY};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Frame times (Material Blue 700).
const BLUE: RGBColor = RGBColor(0x19, 0x76, 0xD2);
/// FPS bars (Material Blue 200).
const BAR: RGBColor = RGBColor(0x90, 0xCA, 0xF9);
/// PerfDog Jank (Perfetto's Self Jank red).
pub(super) const JANK: RGBColor = RGBColor(0xFF, 0x57, 0x22);
/// PerfDog BigJank (Material Red 900).
pub(super) const BIG_JANK: RGBColor = RGBColor(0xB7, 0x1C, 0x1C);
/// A frame's own duration (gfxinfo: JankTracker's), beside its present interval.
const DURATION: RGBColor = RGBColor(0x8E, 0x24, 0xAA);
/// An idle gap's band.
pub(super) const IDLE: RGBColor = RGBColor(0xEE, 0xEE, 0xEE);
/// Smoothness: `sm`, GT SM, and intervals that are no jank (Material Green 700).
pub(super) const SMOOTH: RGBColor = RGBColor(0x38, 0x8E, 0x3C);

/// A text style of `px` in `colour`.
fn style(px: f64, colour: RGBColor) -> TextStyle<'static> {
    TextStyle {
        color: colour.to_backend_color(),
        ..TextStyle::from((FAMILY, px).into_font())
    }
}

/// `(x, value)` corners of a step line over per-second `values` from `offset` s, cut to `x`.
fn steps(offset: f64, values: &[f64], x: (f64, f64)) -> Vec<(f64, f64)> {
    let seconds = (0..).zip(values).map(|(k, v)| (offset + f64::from(k), *v));
    seconds
        .filter(|(t, _)| *t < x.1 && t + 1.0 > x.0)
        .flat_map(|(t, v)| [(t.max(x.0), v), ((t + 1.0).min(x.1), v)])
        .collect()
}

/// The 1-2-5 ticks of a log axis `lo..hi`.
fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let decades = (-1..6).map(|e| 10f64.powi(e));
    let all = decades.flat_map(|d| [d, 2.0 * d, 5.0 * d]);
    all.filter(|t| (lo..=hi).contains(t)).collect()
}

/// Decimals of the time axis labels: whole seconds repeat on a short axis.
fn decimals(x: (f64, f64)) -> usize {
    match x.1 - x.0 {
        d if d >= 10.0 => 0,
        d if d >= 0.5 => 1,
        d if d >= 0.05 => 2,
        _ => 3,
    }
}

/// How many time-axis labels fit in `area` without touching.
fn x_labels<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>) -> usize {
    ((area.dim_in_pixel().0 as usize).saturating_sub(120) / 60).clamp(2, 12)
}

/// The frame-time panel of a layer: intervals on a log axis (the line broken at idle gaps, drawn as bands), the
/// frames' own durations, vsync guides, PerfDog Jank / BigJank marked.
fn frame_times<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    row: &Row,
    x: (f64, f64),
) -> DrawResult {
    let frames = row.intervals.iter().filter(|i| i.mark != Mark::Idle);
    let values = frames
        .map(|i| i.ms)
        .chain(row.durations.iter().map(|d| d.1));
    let lo = values
        .clone()
        .chain(row.period_ms)
        .fold(f64::INFINITY, f64::min);
    let lo = if lo.is_finite() {
        (lo * 0.7).max(0.1)
    } else {
        1.0
    };
    let top = values
        .chain(row.period_ms.map(|p| p * 3.0))
        .fold(lo * 10.0, f64::max);
    let hi = top * 1.4;
    let caption = format!("{}: frame time", row.label);
    let guides_px = if row.period_ms.is_some() { 92 } else { 8 };
    // The caption is centred left of the guides' margin.
    let width = area.dim_in_pixel().0 as i32 - guides_px - 16;
    let caption = fit(area, &caption, &style(CAPTION_PX, BLACK), width)?;
    let mut chart = ChartBuilder::on(&area.margin(4, 4, 8, 0))
        .caption(caption, (FAMILY, CAPTION_PX))
        .margin_right(guides_px)
        .x_label_area_size(32)
        .y_label_area_size(48)
        .build_cartesian_2d(
            x.0..x.1,
            (lo..hi).log_scale().with_key_points(ticks(lo, hi)),
        )
        .map_err(cause)?;
    let d = decimals(x);
    chart
        .configure_mesh()
        .disable_x_mesh()
        .bold_line_style(GRID)
        .x_labels(x_labels(area))
        .x_label_formatter(&|v| format!("{v:.d$}"))
        .y_label_formatter(&|v| format!("{v}"))
        .x_desc("s")
        .y_desc("ms (log scale)")
        .label_style((FAMILY, LABEL_PX))
        .axis_desc_style((FAMILY, LABEL_PX))
        .draw()
        .map_err(cause)?;
    // The guides' labels sit in the right margin, clear of the points.
    let label = style(LABEL_PX, INK).pos(Pos::new(HPos::Left, VPos::Center));
    let guides = row
        .period_ms
        .iter()
        .flat_map(|p| (1..4).map(move |k| (k, p * f64::from(k))));
    for (k, y) in guides {
        let dashes = INK.mix(0.7).stroke_width(1);
        chart
            .draw_series(DashedLineSeries::new([(x.0, y), (x.1, y)], 6, 4, dashes))
            .map_err(cause)?;
        let text = match k {
            1 => format!("1 vsync {y:.1} ms"),
            _ => format!("{k} vsync"),
        };
        let at = EmptyElement::at((x.1, y)) + Text::new(text, (6, 0), label.clone());
        chart.draw_series([at]).map_err(cause)?;
    }
    let point = |i: &super::Interval| (i.t_s, i.ms.max(lo));
    let idle = row.intervals.iter().filter(|i| i.mark == Mark::Idle);
    let bands = idle.map(|i| {
        let from = (i.t_s - i.ms / 1e3).max(x.0);
        Rectangle::new([(from, lo), (i.t_s, hi)], IDLE.filled())
    });
    chart.draw_series(bands).map_err(cause)?;
    for run in row.intervals.split(|i| i.mark == Mark::Idle) {
        let line = LineSeries::new(run.iter().map(point), BLUE.mix(0.5));
        chart.draw_series(line).map_err(cause)?;
    }
    let own = row
        .durations
        .iter()
        .map(|(t, ms)| Cross::new((*t, ms.max(lo)), 3, DURATION.stroke_width(1)));
    chart.draw_series(own).map_err(cause)?;
    let marks = [
        (Mark::Normal, BLUE, 2),
        (Mark::Jank, JANK, 5),
        (Mark::BigJank, BIG_JANK, 6),
    ];
    for (mark, colour, px) in marks {
        let of_mark = row.intervals.iter().filter(|i| i.mark == mark);
        let dots = of_mark.map(|i| Circle::new(point(i), px, colour.filled()));
        chart.draw_series(dots).map_err(cause)?;
    }
    Ok(())
}

/// The per-second panel: FPS bars with their mean and the `sm` line (layers), or GT SM with its mean and the
/// skipped-frame events on the right axis (pids).
fn per_second<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    row: &Row,
    x: (f64, f64),
    gt: bool,
) -> DrawResult {
    let highest = row
        .per_second
        .iter()
        .chain(&row.sm)
        .fold(10f64, |a, b| a.max(*b));
    let top = if gt { 65.0 } else { highest * 1.15 };
    let skip_top = row.skips.iter().map(|s| s.1).max().unwrap_or(1) as f64 * 1.15;
    let caption = match (gt, row.sm.is_empty()) {
        (true, _) => format!("{}: GT SM per second and skipped frames", row.label),
        (false, true) => "FPS per second".to_string(),
        (false, false) => "FPS and sm per second".to_string(),
    };
    let mut chart = ChartBuilder::on(&area.margin(4, 4, 8, 8))
        .caption(caption, (FAMILY, CAPTION_PX))
        .x_label_area_size(32)
        .y_label_area_size(40)
        .right_y_label_area_size(if gt { 48 } else { 0 })
        .build_cartesian_2d(x.0..x.1, 0f64..top)
        .map_err(cause)?
        .set_secondary_coord(x.0..x.1, 0f64..skip_top);
    let d = decimals(x);
    chart
        .configure_mesh()
        .disable_x_mesh()
        .bold_line_style(GRID)
        .light_line_style(TRANSPARENT)
        .x_labels(x_labels(area))
        .x_label_formatter(&|v| format!("{v:.d$}"))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .x_desc("s")
        .y_desc(if gt { "GT SM (0–60)" } else { "frames/s" })
        .label_style((FAMILY, LABEL_PX))
        .axis_desc_style((FAMILY, LABEL_PX))
        .draw()
        .map_err(cause)?;
    if row.per_second.is_empty() {
        let centre = style(LABEL_PX, INK).pos(Pos::new(HPos::Center, VPos::Center));
        let text = "no whole second of presents";
        let at = ((x.0 + x.1) / 2.0, top / 2.0);
        chart
            .draw_series([Text::new(text, at, centre)])
            .map_err(cause)?;
    }
    let smooth = SMOOTH.stroke_width(2);
    if gt {
        let sm = LineSeries::new(steps(row.offset_s, &row.per_second, x), smooth);
        chart.draw_series(sm).map_err(cause)?;
        chart
            .configure_secondary_axes()
            .y_label_formatter(&|v| format!("{v:.0}"))
            .y_desc("frames skipped")
            .label_style((FAMILY, LABEL_PX))
            .axis_desc_style((FAMILY, LABEL_PX))
            .draw()
            .map_err(cause)?;
        let shown = row.skips.iter().filter(|s| (x.0..=x.1).contains(&s.0));
        let shown = shown.map(|&(t, n)| (t, n as f64));
        let stems = shown
            .clone()
            .map(|(t, n)| PathElement::new([(t, 0.0), (t, n)], JANK.stroke_width(2)));
        chart.draw_secondary_series(stems).map_err(cause)?;
        let heads = shown.map(|p| Circle::new(p, 3, JANK.filled()));
        chart.draw_secondary_series(heads).map_err(cause)?;
    } else {
        let bars = steps(row.offset_s, &row.per_second, x);
        let bars = bars.chunks_exact(2).map(|c| {
            let pad = (c[1].0 - c[0].0) * 0.1;
            Rectangle::new([(c[0].0 + pad, 0.0), (c[1].0 - pad, c[0].1)], BAR.filled())
        });
        chart.draw_series(bars).map_err(cause)?;
        let sm = LineSeries::new(steps(row.offset_s, &row.sm, x), smooth);
        chart.draw_series(sm).map_err(cause)?;
    }
    if let Some(m) = row.mean {
        let mean = DashedLineSeries::new([(x.0, m), (x.1, m)], 6, 4, INK.stroke_width(1));
        chart.draw_series(mean).map_err(cause)?;
    }
    Ok(())
}

/// The headline numbers in a name and a value column, notes wrapped to the width.
fn numbers<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    pairs: &[(&'static str, String)],
) -> DrawResult {
    let caption = style(CAPTION_PX, BLACK);
    area.draw_text("Whole capture", &caption, (10, 6))
        .map_err(cause)?;
    let area = area.margin(30, 8, 4, 10);
    let (w, h) = area.dim_in_pixel();
    let (w, h) = (w as i32, h as i32);
    let px = (f64::from(h) / ((pairs.len() + 2) as f64 * 1.35)).clamp(9.0, 13.0);
    let (name, value) = (style(px, INK), style(px, BLACK));
    let mut column = 0;
    for (k, _) in pairs {
        column = column.max(area.estimate_text_size(k, &name).map_err(cause)?.0 as i32);
    }
    let step = (px * 1.35) as i32;
    let mut y = 8;
    'pairs: for (k, v) in pairs {
        let (x, text, lines) = if k.is_empty() {
            (8, &name, wrap(&area, v, &name, w - 16)?)
        } else {
            let v = fit(&area, v, &value, w - column - 26)?;
            (column + 18, &value, vec![v])
        };
        for line in lines {
            if y + step > h {
                break 'pairs;
            }
            area.draw_text(k, &name, (8, y)).map_err(cause)?;
            area.draw_text(&line, text, (x, y)).map_err(cause)?;
            y += step;
        }
    }
    let frame = Rectangle::new([(0, 0), (w - 1, (y + 4).min(h - 1))], GRID.stroke_width(1));
    area.draw(&frame).map_err(cause)
}

/// Lines of text from the top left, wrapped to the width (a capture with nothing to draw).
fn lines<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, lines: &[String]) -> DrawResult {
    let text = style(15.0, BLACK);
    let width = area.dim_in_pixel().0 as i32 - 48;
    let mut y = 24;
    for line in lines {
        for part in wrap(area, line, &text, width)? {
            area.draw_text(&part, &text, (24, y)).map_err(cause)?;
            y += 22;
        }
    }
    Ok(())
}

/// Draws the whole picture on `root`.
pub fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, chart: &CaptureChart) -> DrawResult {
    root.fill(&WHITE).map_err(cause)?;
    let (w, h) = chart.size;
    let (title, subtitle) = (style(18.0, BLACK), style(13.0, INK));
    let width = w as i32 - 24;
    let text = fit(root, &chart.title, &title, width)?;
    root.draw_text(&text, &title, (12, 8)).map_err(cause)?;
    let text = fit(root, &chart.subtitle, &subtitle, width)?;
    root.draw_text(&text, &subtitle, (12, 34)).map_err(cause)?;
    let below = (w, h.saturating_sub(HEADER_PX as u32).max(1));
    let body = root.clone().shrink((0, HEADER_PX), below);
    let (rows, gt) = match &chart.body {
        Body::Nothing(why) => return lines(&body, why),
        Body::Layers(rows) => (rows, false),
        Body::Pids(rows) => (rows, true),
    };
    for (row, area) in rows.iter().zip(body.split_evenly((rows.len(), 1))) {
        // The numbers get a fifth of the width, at least 260 px; below 600 px the plots are frame times only.
        let aw = area.dim_in_pixel().0 as i32;
        let side = (aw / 5).max(260).min(aw / 2);
        let (plots, right) = area.split_horizontally(aw - side);
        if gt {
            per_second(&plots, row, chart.x_s, true)?;
        } else if aw - side >= 600 {
            let (left, middle) = plots.split_horizontally((aw - side) * 13 / 20);
            frame_times(&left, row, chart.x_s)?;
            per_second(&middle, row, chart.x_s, false)?;
        } else {
            frame_times(&plots, row, chart.x_s)?;
        }
        numbers(&right, &row.numbers)?;
    }
    Ok(())
}
