//! The header band: the title line and the colour legend of the timeline, in words.

use super::app_lanes::{stage_rgb, stage_words, state_rgb, ON_TIME_RGB};
use super::data::{JankClass, Rgb, Timeline, EXPECTED_RGB};
use super::{cause, DrawResult, FAMILY};
use crate::analysis::app::blame::LateStage;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Height of the header band with two legend rows (its least), px.
pub const HEIGHT: i32 = 84;
/// Centre of the first legend row, px.
const FIRST_ROW_Y: i32 = 8 + TITLE_PX as i32 + 16;
/// Left margin, px.
const LEFT_PX: i32 = 12;
/// Title font size, px.
const TITLE_PX: f64 = 20.0;
/// Legend font size, px.
const LEGEND_PX: f64 = 14.0;
/// Legend row height, px.
const ROW_PX: i32 = 21;

/// Plotters colour of an [`Rgb`].
pub fn colour(rgb: Rgb) -> RGBColor {
    RGBColor(rgb.0, rgb.1, rgb.2)
}

/// Dark grey for secondary text and present markers.
pub const INK: RGBColor = RGBColor(0x42, 0x42, 0x42);
/// Light grey of the vsync grid.
pub const GRID: RGBColor = RGBColor(0xE4, 0xE4, 0xE4);

/// A legend item's symbol.
enum Symbol {
    /// A filled swatch.
    Swatch(Rgb),
    /// A short vertical tick (present marker, vsync line).
    Tick(RGBColor),
    /// No symbol: the text starts a new row and introduces the items after it.
    Heading,
}

/// The legend items: the five Perfetto colours always, the rarer classes when the timeline shows them, expected
/// slices, present markers and (when drawn) the vsync grid; with app-thread lanes, a row of their colours: on time
/// and each late stage the window shows.
fn items(timeline: &Timeline) -> Vec<(Symbol, String)> {
    let shown: Vec<Rgb> = timeline
        .groups
        .iter()
        .flat_map(|g| g.actual.iter().map(|b| b.rgb))
        .collect();
    let mut items: Vec<(Symbol, String)> = JankClass::ALL
        .iter()
        .filter(|c| {
            !matches!(c, JankClass::NonPerceivable | JankClass::Unspecified)
                || ["None", "Partial"]
                    .iter()
                    .any(|s| shown.contains(&c.rgb(s)))
        })
        .map(|c| (Symbol::Swatch(c.rgb("Full")), c.legend().to_string()))
        .collect();
    items.push((
        Symbol::Swatch(EXPECTED_RGB),
        "expected (SurfaceFlinger's prediction)".into(),
    ));
    items.push((Symbol::Tick(BLACK), "present (on screen)".into()));
    if !timeline.vsync_ns.is_empty() {
        items.push((Symbol::Tick(GRID), "vsync".into()));
    }
    items.push((
        Symbol::Swatch(JankClass::SelfJank.rgb("Partial")),
        "pale: partial jank".into(),
    ));
    let window = &timeline.window;
    let app: Vec<Rgb> = timeline
        .groups
        .iter()
        .filter_map(|g| g.app.as_ref())
        .flat_map(|a| a.ui.iter().chain(&a.render))
        .filter(|b| window.overlaps(b.start_ns, b.end_ns))
        .map(|b| b.rgb)
        .collect();
    if timeline.groups.iter().any(|g| g.app.is_some()) {
        items.push((
            Symbol::Heading,
            "UI thread / RenderThread (doFrame / DrawFrame), by the frame's late stage:".into(),
        ));
        items.push((Symbol::Swatch(ON_TIME_RGB), "on time".into()));
        items.extend(
            LateStage::ALL
                .iter()
                .filter(|s| app.contains(&stage_rgb(**s)))
                .map(|s| {
                    (
                        Symbol::Swatch(stage_rgb(*s)),
                        format!("late: {}", stage_words(*s)),
                    )
                }),
        );
    }
    let states: Vec<Rgb> = timeline
        .groups
        .iter()
        .filter_map(|g| g.app.as_ref())
        .flat_map(|a| a.ui_states.iter().chain(&a.rt_states))
        .map(|b| b.rgb)
        .collect();
    if !states.is_empty() {
        items.push((
            Symbol::Heading,
            "thread state (band under each thread lane; late frames labelled with their cause, `ftl explain causes`):"
                .into(),
        ));
        use crate::analysis::app::cause::StateKind::*;
        for (kind, words) in [
            (Running, "Running"),
            (Runnable, "Runnable (R, R+)"),
            (Sleeping, "Sleeping"),
            (UninterruptibleIo, "Uninterruptible (IO)"),
            (UninterruptibleNonIo, "Uninterruptible (non-IO)"),
            (Other, "other"),
        ] {
            if states.contains(&state_rgb(kind)) {
                items.push((Symbol::Swatch(state_rgb(kind)), words.into()));
            }
        }
    }
    items
}

fn legend_style() -> TextStyle<'static> {
    TextStyle::from((FAMILY, LEGEND_PX).into_font())
        .color(&INK)
        .pos(Pos::new(HPos::Left, VPos::Center))
}

/// Width of `text` in the legend font, px (an estimate when the font is not registered).
fn text_width(text: &str, style: &TextStyle) -> i32 {
    style.font.box_size(text).map_or_else(
        |_| (text.chars().count() as f64 * LEGEND_PX * 0.6) as i32,
        |(w, _)| i32::try_from(w).unwrap_or(i32::MAX),
    )
}

/// Where each item goes, (x, row centre y) in px, wrapped to `width`: a heading starts a new row.
fn place(items: &[(Symbol, String)], width: i32, style: &TextStyle) -> Vec<(i32, i32)> {
    let (mut x, mut y) = (LEFT_PX, FIRST_ROW_Y);
    let mut at = Vec::with_capacity(items.len());
    for (symbol, text) in items {
        let symbol_w = if matches!(symbol, Symbol::Heading) {
            0
        } else {
            22
        };
        let item_w = symbol_w + text_width(text, style) + 22;
        let heading = matches!(symbol, Symbol::Heading);
        if (heading || x + item_w > width) && x > LEFT_PX {
            (x, y) = (LEFT_PX, y + ROW_PX);
        }
        at.push((x, y));
        x += item_w;
    }
    at
}

/// Height of the header band for `timeline` on an image `width` px wide: [`HEIGHT`], or more when the legend
/// wraps to more than two rows.
pub fn height(timeline: &Timeline, width: u32) -> i32 {
    let width = i32::try_from(width).unwrap_or(i32::MAX);
    let last = place(&items(timeline), width, &legend_style())
        .last()
        .map_or(FIRST_ROW_Y, |p| p.1);
    HEIGHT.max(last + ROW_PX - 2)
}

/// Draws the title and the legend rows (wrapped to the width) on `area`.
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    timeline: &Timeline,
) -> DrawResult {
    let (width, _) = area.dim_in_pixel();
    let title_style = TextStyle::from((FAMILY, TITLE_PX).into_font()).color(&BLACK);
    area.draw_text(title, &title_style, (LEFT_PX, 8))
        .map_err(cause)?;
    let style = legend_style();
    let items = items(timeline);
    let width = i32::try_from(width).unwrap_or(i32::MAX);
    for ((symbol, text), (x, y)) in items.iter().zip(place(&items, width, &style)) {
        match *symbol {
            Symbol::Swatch(rgb) => {
                area.draw(&Rectangle::new(
                    [(x, y - 6), (x + 15, y + 6)],
                    colour(rgb).filled(),
                ))
                .map_err(cause)?;
                area.draw(&Rectangle::new(
                    [(x, y - 6), (x + 15, y + 6)],
                    INK.stroke_width(1),
                ))
                .map_err(cause)?;
            }
            Symbol::Tick(c) => {
                area.draw(&Rectangle::new(
                    [(x + 6, y - 7), (x + 8, y + 8)],
                    c.filled(),
                ))
                .map_err(cause)?;
            }
            Symbol::Heading => {
                area.draw_text(text, &style, (x, y)).map_err(cause)?;
                continue;
            }
        }
        area.draw_text(text, &style, (x + 22, y)).map_err(cause)?;
    }
    Ok(())
}

/// Draws the series labels of `chart` in a white, bordered box at `position` (every overview panel's legend).
pub fn series_labels<'a, DB: DrawingBackend + 'a, X: Ranged, Y: Ranged>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    position: SeriesLabelPosition,
) -> DrawResult {
    chart
        .configure_series_labels()
        .position(position)
        .label_font((FAMILY, super::histogram::LABEL_PX))
        .background_style(WHITE.mix(0.85))
        .border_style(INK)
        .draw()
        .map_err(cause)
}
