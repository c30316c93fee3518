//! The header band: the title line and the colour legend of the timeline, in words.

use super::data::{JankClass, Rgb, Timeline, EXPECTED_RGB};
use super::{cause, DrawResult, FAMILY};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Height of the header band, px.
pub const HEIGHT: i32 = 84;
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
}

/// The legend items: the five Perfetto colours always, the rarer classes when the timeline shows them, expected
/// slices, present markers and (when drawn) the vsync grid.
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
    items
}

/// Draws the title and the legend rows (wrapped to the width) on `area`.
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    title: &str,
    timeline: &Timeline,
) -> DrawResult {
    let (width, _) = area.dim_in_pixel();
    let title_style = TextStyle::from((FAMILY, TITLE_PX).into_font()).color(&BLACK);
    area.draw_text(title, &title_style, (12, 8))
        .map_err(cause)?;
    let style = TextStyle::from((FAMILY, LEGEND_PX).into_font())
        .color(&INK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    let (mut x, mut y) = (12, 8 + TITLE_PX as i32 + 16);
    for (symbol, text) in items(timeline) {
        let (text_w, _) = area.estimate_text_size(&text, &style).map_err(cause)?;
        let item_w = 22 + text_w as i32 + 22;
        if x + item_w > width as i32 && x > 12 {
            (x, y) = (12, y + ROW_PX);
        }
        match symbol {
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
        }
        area.draw_text(&text, &style, (x + 22, y)).map_err(cause)?;
        x += item_w;
    }
    Ok(())
}
