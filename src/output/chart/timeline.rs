//! The timeline panel: per layer an Expected and an Actual lane (and SurfaceFlinger's DisplayFrames), a UI thread
//! and a RenderThread lane under layers with app sections, overlapping bars stacked in sub-rows, vsync grid, present
//! markers and a time axis in ms from the window start.

use super::app_lanes::stage_words;
use super::data::{Bar, LaneGroup, Timeline, XScale, JANKY_MIN_PX, MIN_PX, NS_PER_MS};
use super::legend::{colour, GRID, INK};
use super::room::Room;
use super::stack::rows_used;
use super::{cause, fit, DrawResult, FAMILY};
use crate::analysis::app::blame::LateStage;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Space above the lanes, px.
const TOP_PX: i32 = 6;
/// Space below the lanes for the time axis, px.
const AXIS_PX: i32 = 44;
/// Right margin, px.
const RIGHT_PX: i32 = 20;
/// Smallest lane height, px (sets how many layers fit).
const MIN_LANE_PX: i32 = 9;
/// Largest lane height, px.
const MAX_LANE_PX: i32 = 30;
/// Gap between two layers' lane groups, px.
const GROUP_GAP_PX: i32 = 6;
/// Height of the present-marker strip at the bottom of an actual lane, px.
const PRESENT_PX: i32 = 4;
/// Label font size, px.
const LABEL_PX: f64 = 14.0;
/// Small text (lane kinds, counts, tick labels), px.
const SMALL_PX: f64 = 12.0;

/// The timeline band's geometry in px (relative to the band).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Geometry {
    /// Width of the label column = left edge of the plot.
    pub plot_x: i32,
    /// Right edge of the plot.
    pub plot_right: i32,
    /// Bottom of the lanes.
    pub plot_bottom: i32,
}

impl Geometry {
    /// The geometry of a timeline band `width × height` px.
    pub fn new(width: u32, height: i32) -> Geometry {
        let width = i32::try_from(width).unwrap_or(i32::MAX);
        Geometry {
            plot_x: (width * 22 / 100).clamp(180, 360),
            plot_right: width - RIGHT_PX,
            plot_bottom: height - AXIS_PX,
        }
    }

    /// Plot width, px.
    pub fn plot_width(&self) -> i32 {
        (self.plot_right - self.plot_x).max(1)
    }

    /// The room for lanes at the smallest lane height (9 px), with a gap per group.
    pub fn room(&self) -> Room {
        Room {
            height: self.plot_bottom - TOP_PX,
            lane: MIN_LANE_PX,
            gap: GROUP_GAP_PX,
        }
    }
}

/// Height of a timeline band that draws `lanes` lanes in `groups` groups at the largest lane height (30 px), px.
pub fn band_height(lanes: usize, groups: usize) -> i32 {
    let n = |v: usize| i32::try_from(v).unwrap_or(i32::MAX / 100).max(1);
    TOP_PX
        .saturating_add(n(lanes).saturating_mul(MAX_LANE_PX))
        .saturating_add(n(groups).saturating_mul(GROUP_GAP_PX))
        .saturating_add(AXIS_PX)
}

/// Lane height for `timeline`'s groups in a plot `height` px tall: at most [`MAX_LANE_PX`], at least 1.
fn lane_height(timeline: &Timeline, height: i32) -> i32 {
    let lanes: usize = timeline.groups.iter().map(LaneGroup::lanes).sum();
    let lanes = i32::try_from(lanes).unwrap_or(i32::MAX).max(1);
    let groups = i32::try_from(timeline.groups.len()).unwrap_or(i32::MAX);
    ((height - groups.saturating_mul(GROUP_GAP_PX)) / lanes).clamp(1, MAX_LANE_PX)
}

/// A "nice" tick step (1, 2 or 5 × 10^k) giving at most about 12 ticks over `len` (same unit).
fn tick_step(len: f64) -> f64 {
    let raw = (len / 12.0).max(1e-3);
    let base = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * base)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * base)
}

/// Smallest sub-row height, px: a lane splits into at most as many sub-rows as fit.
const MIN_SUB_ROW_PX: i32 = 3;

/// The pixel rows `top..=bottom` of sub-row `row` of `rows` in a lane whose bars fill `y0..=y1`: equal shares, a
/// 1 px gap under each but the last when the shares are at least 5 px.
fn sub_row_span((y0, y1): (i32, i32), row: usize, rows: usize) -> (i32, i32) {
    let h = (y1 - y0 + 1).max(1);
    let rows = i32::try_from(rows)
        .unwrap_or(1)
        .clamp(1, (h / MIN_SUB_ROW_PX).max(1));
    let row = i32::try_from(row).unwrap_or(i32::MAX).min(rows - 1);
    let top = y0 + h * row / rows;
    let bottom = y0 + h * (row + 1) / rows - 1;
    let gap = i32::from(row < rows - 1 && h / rows >= 5);
    (top, (bottom - gap).max(top))
}

/// Draws `bars` between rows `y0..=y1` split into the sub-rows they use, in their order, at least [`MIN_PX`]
/// (janky: [`JANKY_MIN_PX`]) wide, with a 1 px gap after bars wide enough to show it.
fn draw_bars<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    scale: &XScale,
    plot_x: i32,
    bars: &[Bar],
    lane: (i32, i32),
) -> DrawResult {
    let rows = rows_used(bars);
    for bar in bars {
        let min = if bar.janky { JANKY_MIN_PX } else { MIN_PX };
        if let Some((x0, x1)) = scale.span(bar.start_ns, bar.end_ns, min) {
            let (y0, y1) = sub_row_span(lane, usize::from(bar.row), rows);
            // Rectangles cover [x0, x1) × [y0, y1) in both backends.
            let right = if x1 - x0 >= 4 { x1 - 1 } else { x1 };
            area.draw(&Rectangle::new(
                [(plot_x + x0, y0), (plot_x + right, y1 + 1)],
                colour(bar.rgb).filled(),
            ))
            .map_err(cause)?;
        }
    }
    Ok(())
}

/// Each late frame's cause written at the start of its late section, left to right, a label left out where it
/// would overlap the one before.
fn cause_labels<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    scale: &XScale,
    plot_x: i32,
    causes: &[(i64, String)],
    style: &TextStyle,
    y: i32,
) -> DrawResult {
    let mut sorted: Vec<&(i64, String)> = causes
        .iter()
        .filter(|(t, _)| *t >= scale.start_ns && *t <= scale.end_ns)
        .collect();
    sorted.sort();
    let mut free_from = i32::MIN;
    for (t, label) in sorted {
        let x = plot_x + scale.x(*t).round() as i32;
        if x < free_from {
            continue;
        }
        let width = area.estimate_text_size(label, style).map_err(cause)?.0 as i32;
        area.draw_text(label, style, (x + 1, y)).map_err(cause)?;
        free_from = x + width + 6;
    }
    Ok(())
}

/// The late-frame counts of an app-thread pair in words for its two label rows, `late: UI thread 1 · GPU 2`: as
/// many stages on the first row as fit in `max_px`, the rest on the second (cut to fit when drawn).
fn late_lines<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    late: &[(LateStage, usize)],
    style: &TextStyle,
    max_px: i32,
) -> std::result::Result<Vec<String>, String> {
    let mut lines: Vec<String> = Vec::new();
    for (stage, n) in late {
        let item = format!("{} {n}", stage_words(*stage));
        let rows = lines.len();
        match lines.last_mut() {
            None => lines.push(format!("late: {item}")),
            Some(line) => {
                let longer = format!("{line} · {item}");
                let width = area.estimate_text_size(&longer, style).map_err(cause)?.0;
                if rows == 1 && i64::from(width) > i64::from(max_px) {
                    lines.push(item);
                } else {
                    *line = longer;
                }
            }
        }
    }
    Ok(lines)
}

/// Draws the timeline on its band.
pub fn draw<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, timeline: &Timeline) -> DrawResult {
    let (w, h) = area.dim_in_pixel();
    let geometry = Geometry::new(w, i32::try_from(h).unwrap_or(i32::MAX));
    let Geometry {
        plot_x,
        plot_right,
        plot_bottom,
    } = geometry;
    let window = &timeline.window;
    let scale = XScale {
        start_ns: window.start_ns,
        end_ns: window.end_ns,
        width_px: geometry.plot_width(),
    };
    let x_of = |ns: i64| plot_x + scale.x(ns).round() as i32;
    let lane_px = lane_height(timeline, plot_bottom - TOP_PX);
    // The plot ends below the last lane; the axis follows it.
    let total: i32 = timeline
        .groups
        .iter()
        .map(|g| i32::try_from(g.lanes()).unwrap_or(2) * lane_px + GROUP_GAP_PX)
        .sum();
    let plot_bottom = plot_bottom.min(TOP_PX + total.max(1));
    for t in &timeline.vsync_ns {
        let x = x_of(*t);
        area.draw(&PathElement::new(vec![(x, TOP_PX), (x, plot_bottom)], GRID))
            .map_err(cause)?;
    }
    let label = TextStyle::from((FAMILY, LABEL_PX).into_font())
        .color(&BLACK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    let small = TextStyle::from((FAMILY, SMALL_PX).into_font())
        .color(&INK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    let kind = small.pos(Pos::new(HPos::Right, VPos::Center));
    let mut y = TOP_PX;
    for (i, group) in (0..).zip(&timeline.groups) {
        let n = i32::try_from(group.lanes()).unwrap_or(2);
        let top = y + GROUP_GAP_PX / 2;
        y += n * lane_px + GROUP_GAP_PX;
        // Lane j covers rows lane(j).0..=lane(j).1; its label sits at mid(j).
        let lane = |j: i32| (top + j * lane_px, top + (j + 1) * lane_px - 1);
        let mid = |j: i32| top + j * lane_px + (lane_px - 1) / 2;
        let bottom = lane(n - 1).1;
        if i % 2 == 1 {
            area.draw(&Rectangle::new(
                [
                    (0, top - GROUP_GAP_PX / 2),
                    (plot_right, bottom + GROUP_GAP_PX / 2),
                ],
                RGBColor(0xF6, 0xF6, 0xF6).filled(),
            ))
            .map_err(cause)?;
            for t in &timeline.vsync_ns {
                let x = x_of(*t);
                area.draw(&PathElement::new(
                    vec![(x, top - GROUP_GAP_PX / 2), (x, bottom)],
                    GRID,
                ))
                .map_err(cause)?;
            }
        }
        let (exp, act) = (lane(0), lane(1));
        draw_bars(
            area,
            &scale,
            plot_x,
            &group.expected,
            (exp.0 + 1, exp.1 - 1),
        )?;
        draw_bars(
            area,
            &scale,
            plot_x,
            &group.actual,
            (act.0 + 1, act.1 - PRESENT_PX - 1),
        )?;
        for p in group
            .presents_ns
            .iter()
            .filter(|p| window.overlaps(**p, **p))
        {
            let x = x_of(*p);
            area.draw(&Rectangle::new(
                [(x, act.1 - PRESENT_PX + 1), (x + 1, act.1 + 1)],
                BLACK.filled(),
            ))
            .map_err(cause)?;
        }
        let mut kinds = vec!["expected", "actual"];
        if let Some(app) = &group.app {
            kinds.extend(["UI thread", "RenderThread"]);
            let (ui, rt) = (lane(2), lane(3));
            // A hairline between the frame lanes and the thread lanes.
            area.draw(&PathElement::new(
                vec![(plot_x, ui.0), (plot_right, ui.0)],
                GRID,
            ))
            .map_err(cause)?;
            draw_bars(area, &scale, plot_x, &app.ui, (ui.0 + 1, ui.1 - 1))?;
            draw_bars(area, &scale, plot_x, &app.render, (rt.0 + 1, rt.1 - 1))?;
            // Thread-state bands along the bottom of each thread lane, in Perfetto's colours.
            let band = (lane_px / 4).max(2);
            for (states, l) in [(&app.ui_states, ui), (&app.rt_states, rt)] {
                draw_bars(area, &scale, plot_x, states, (l.1 - band, l.1 - 1))?;
            }
            cause_labels(area, &scale, plot_x, &app.causes, &small, mid(2))?;
            let room = plot_x - 8 - 12 - if lane_px >= 11 { 84 } else { 0 };
            for (j, line) in (2..).zip(late_lines(area, &app.late, &small, room)?) {
                let line = fit(area, &line, &small, room)?;
                area.draw_text(&line, &small, (8, mid(j))).map_err(cause)?;
            }
        }
        let name = fit(area, &group.label, &label, plot_x - 74)?;
        area.draw_text(&name, &label, (8, mid(0))).map_err(cause)?;
        let detail = format!("pid {} · {} janky", group.pid, group.janky);
        area.draw_text(&detail, &small, (8, mid(1)))
            .map_err(cause)?;
        if lane_px >= 11 {
            for (j, k) in (0..).zip(kinds) {
                area.draw_text(k, &kind, (plot_x - 6, mid(j)))
                    .map_err(cause)?;
            }
        }
    }
    area.draw(&Rectangle::new(
        [(plot_x, TOP_PX), (plot_right, plot_bottom)],
        INK.stroke_width(1),
    ))
    .map_err(cause)?;
    // Ticks in ms, or in s beyond 20 s.
    let len_ms = window.len_ns() as f64 / NS_PER_MS as f64;
    let (unit, per_unit) = if len_ms > 20_000.0 {
        ("s", 1000.0)
    } else {
        ("ms", 1.0)
    };
    let len_ms = len_ms / per_unit;
    let step = tick_step(len_ms);
    let tick_label = small.pos(Pos::new(HPos::Center, VPos::Top));
    let mut k = 0.0;
    while k * step <= len_ms + 1e-9 {
        let v = k * step;
        let x = plot_x + (v / len_ms * f64::from(geometry.plot_width())).round() as i32;
        area.draw(&PathElement::new(
            vec![(x, plot_bottom), (x, plot_bottom + 5)],
            INK,
        ))
        .map_err(cause)?;
        let text = if step < 1.0 {
            format!("{v:.1}")
        } else {
            format!("{v:.0}")
        };
        area.draw_text(&text, &tick_label, (x, plot_bottom + 7))
            .map_err(cause)?;
        k += 1.0;
    }
    let axis = small.pos(Pos::new(HPos::Center, VPos::Top));
    let desc = format!("{unit} since the window start");
    area.draw_text(&desc, &axis, ((plot_x + plot_right) / 2, plot_bottom + 24))
        .map_err(cause)?;
    if timeline.hidden_groups > 0 {
        let note = format!(
            "+{} more layers not shown (pick with --layer / --process)",
            timeline.hidden_groups
        );
        area.draw_text(&note, &small, (8, plot_bottom + 30))
            .map_err(cause)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_one_two_five_steps() {
        assert_eq!(tick_step(5000.0), 500.0);
        assert_eq!(tick_step(2000.0), 200.0);
        assert_eq!(tick_step(10_100.0), 1000.0);
        assert_eq!(tick_step(100.0), 10.0);
    }

    #[test]
    fn more_layers_fit_on_taller_bands() {
        let g = |h| Geometry::new(1600, h);
        let pairs = |h| {
            let room = g(h).room();
            (1..100)
                .take_while(|n| room.fits(2 * n, *n))
                .last()
                .unwrap_or(0)
        };
        assert_eq!(pairs(500), (500 - AXIS_PX - TOP_PX) as usize / 24);
        assert!(pairs(1000) > pairs(500));
        assert_eq!(g(500).plot_width(), 1600 - 352 - RIGHT_PX);
        // A band of band_height(lanes, groups) fits them at the largest lane height.
        assert_eq!(
            pairs(band_height(6, 3)),
            3 * (2 * MAX_LANE_PX + GROUP_GAP_PX) as usize / 24
        );
        let room = g(band_height(10, 3)).room();
        assert!(room.fits(10, 3));
        assert_eq!(
            band_height(10, 3),
            TOP_PX + 10 * MAX_LANE_PX + 3 * GROUP_GAP_PX + AXIS_PX
        );
    }

    #[test]
    fn sub_rows_split_the_lane_with_gaps_and_fit_its_height() {
        // 20 px in two rows: 10 px each, the first with a 1 px gap under it.
        assert_eq!(sub_row_span((0, 19), 0, 2), (0, 8));
        assert_eq!(sub_row_span((0, 19), 1, 2), (10, 19));
        // One row: the whole lane.
        assert_eq!(sub_row_span((5, 24), 0, 1), (5, 24));
        // 7 px fit two 3 px rows at most: row 3 of 4 is drawn in the last one.
        assert_eq!(sub_row_span((0, 6), 3, 4), (3, 6));
        assert_eq!(sub_row_span((0, 6), 0, 4), (0, 2));
        // A 1 px lane still draws.
        assert_eq!(sub_row_span((4, 4), 2, 4), (4, 4));
    }
}
