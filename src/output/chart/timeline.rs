//! The timeline panel: per layer an Expected and an Actual lane (and SurfaceFlinger's DisplayFrames), vsync grid,
//! present markers and a time axis in ms from the window start.

use super::data::{Bar, Timeline, XScale, JANKY_MIN_PX, MIN_PX, NS_PER_MS};
use super::legend::{colour, GRID, INK};
use super::{cause, fit, DrawResult, FAMILY};
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
/// Gap between two layers' lane pairs, px.
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

    /// How many lane pairs fit at the smallest lane height (9 px; at least one).
    pub fn max_groups(&self) -> usize {
        let per_group = 2 * MIN_LANE_PX + GROUP_GAP_PX;
        usize::try_from((self.plot_bottom - TOP_PX) / per_group)
            .unwrap_or(1)
            .max(1)
    }
}

/// Height of a timeline band that draws `groups` lane pairs at the largest lane height (30 px), px.
pub fn band_height(groups: usize) -> i32 {
    let groups = i32::try_from(groups).unwrap_or(i32::MAX / 100).max(1);
    TOP_PX + groups * (2 * MAX_LANE_PX + GROUP_GAP_PX) + AXIS_PX
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

/// Draws `bars` between rows `y0..=y1`, in their order, at least [`MIN_PX`] (janky: [`JANKY_MIN_PX`]) wide, with a
/// 1 px gap after bars wide enough to show it.
fn draw_bars<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    scale: &XScale,
    plot_x: i32,
    bars: &[Bar],
    (y0, y1): (i32, i32),
) -> DrawResult {
    for bar in bars {
        let min = if bar.janky { JANKY_MIN_PX } else { MIN_PX };
        if let Some((x0, x1)) = scale.span(bar.start_ns, bar.end_ns, min) {
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
    let groups = i32::try_from(timeline.groups.len()).unwrap_or(1).max(1);
    let group_px = ((plot_bottom - TOP_PX) / groups).min(2 * MAX_LANE_PX + GROUP_GAP_PX);
    // The plot ends below the last lane pair; the axis follows it.
    let plot_bottom = plot_bottom.min(TOP_PX + groups * group_px);
    let lane_px = (group_px - GROUP_GAP_PX) / 2;
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
    for (i, group) in (0..).zip(&timeline.groups) {
        let top = TOP_PX + i * group_px + GROUP_GAP_PX / 2;
        let (exp, act) = (
            (top, top + lane_px - 1),
            (top + lane_px, top + 2 * lane_px - 1),
        );
        if i % 2 == 1 {
            area.draw(&Rectangle::new(
                [
                    (0, top - GROUP_GAP_PX / 2),
                    (plot_right, top + 2 * lane_px + GROUP_GAP_PX / 2 - 1),
                ],
                RGBColor(0xF6, 0xF6, 0xF6).filled(),
            ))
            .map_err(cause)?;
            for t in &timeline.vsync_ns {
                let x = x_of(*t);
                area.draw(&PathElement::new(
                    vec![(x, top - GROUP_GAP_PX / 2), (x, act.1)],
                    GRID,
                ))
                .map_err(cause)?;
            }
        }
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
        let name = fit(area, &group.label, &label, plot_x - 74)?;
        area.draw_text(&name, &label, (8, (exp.0 + exp.1) / 2))
            .map_err(cause)?;
        let detail = format!("pid {} · {} janky", group.pid, group.janky);
        area.draw_text(&detail, &small, (8, (act.0 + act.1) / 2))
            .map_err(cause)?;
        if lane_px >= 11 {
            area.draw_text("expected", &kind, (plot_x - 6, (exp.0 + exp.1) / 2))
                .map_err(cause)?;
            area.draw_text("actual", &kind, (plot_x - 6, (act.0 + act.1) / 2))
                .map_err(cause)?;
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
        assert_eq!(g(500).max_groups(), (500 - AXIS_PX - TOP_PX) as usize / 24);
        assert!(g(1000).max_groups() > g(500).max_groups());
        assert_eq!(g(500).plot_width(), 1600 - 352 - RIGHT_PX);
        // A band of band_height(n) fits n lane pairs at the largest lane height.
        assert_eq!(
            g(band_height(3)).max_groups(),
            3 * (2 * MAX_LANE_PX + GROUP_GAP_PX) as usize / 24
        );
    }
}
