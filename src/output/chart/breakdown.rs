//! The per-layer panel: each layer's frames as a 100 % bar split by jank colour, with its most common jank types,
//! and the `ftl explain` text of the most common one.

use super::data::LayerBreakdown;
use super::histogram::{CAPTION_PX, LABEL_PX};
use super::legend::{colour, INK};
use super::{cause, fit, DrawResult, FAMILY};
use crate::analysis::explain::explain;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Height of one layer's row (text line + bar), px.
const ROW_PX: i32 = 38;
/// Height of the bar, px.
const BAR_PX: i32 = 13;
/// Lines reserved at the bottom for the explanation, px.
const EXPLAIN_PX: i32 = 36;

/// The most common jank type over the layers (by their top jank types), with its count.
fn most_common(rows: &[LayerBreakdown]) -> Option<(&str, u64)> {
    let mut totals: Vec<(&str, u64)> = Vec::new();
    for (name, n) in rows.iter().flat_map(|r| &r.top_jank_types) {
        match totals.iter_mut().find(|(t, _)| t == name) {
            Some(entry) => entry.1 += n,
            None => totals.push((name, *n)),
        }
    }
    totals.into_iter().max_by_key(|(_, n)| *n)
}

/// `text` broken into lines of at most `max_px`, at spaces.
pub fn wrap<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    style: &TextStyle,
    max_px: i32,
) -> Result<Vec<String>, String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let candidate = if line.is_empty() {
            word.to_string()
        } else {
            format!("{line} {word}")
        };
        if !line.is_empty()
            && area.estimate_text_size(&candidate, style).map_err(cause)?.0 as i32 > max_px
        {
            lines.push(std::mem::replace(&mut line, word.to_string()));
        } else {
            line = candidate;
        }
    }
    lines.push(line);
    Ok(lines)
}

/// Draws the breakdown on `area`.
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    rows: &[LayerBreakdown],
) -> DrawResult {
    let (w, h) = area.dim_in_pixel();
    let (w, h) = (
        i32::try_from(w).unwrap_or(i32::MAX),
        i32::try_from(h).unwrap_or(i32::MAX),
    );
    let (left, right) = (10, w - 16);
    let caption = TextStyle::from((FAMILY, CAPTION_PX).into_font())
        .color(&BLACK)
        .pos(Pos::new(HPos::Center, VPos::Top));
    area.draw_text(
        "Frames per layer by jank colour (whole trace)",
        &caption,
        (w / 2, 8),
    )
    .map_err(cause)?;
    let text = TextStyle::from((FAMILY, LABEL_PX).into_font())
        .color(&BLACK)
        .pos(Pos::new(HPos::Left, VPos::Top));
    let count = text.pos(Pos::new(HPos::Center, VPos::Center));
    let top = 8 + CAPTION_PX as i32 + 12;
    let fit_rows = usize::try_from((h - top - EXPLAIN_PX) / ROW_PX).unwrap_or(0);
    let shown = rows.len().min(fit_rows.max(1));
    for (i, row) in (0..).zip(rows.iter().take(shown)) {
        let y = top + i * ROW_PX;
        // The label gets at most half the width; counts and jank types follow it.
        let label = fit(area, &row.label, &text, (right - left) / 2)?;
        area.draw_text(&label, &text, (left, y)).map_err(cause)?;
        let label_w = area.estimate_text_size(&label, &text).map_err(cause)?.0 as i32;
        let mut rest = format!(" · {} frames", row.frames);
        if !row.pacing.is_empty() {
            rest.push_str(" · ");
            rest.push_str(&row.pacing);
        }
        for (k, (t, n)) in (0..).zip(&row.top_jank_types) {
            rest.push_str(if k == 0 { " · " } else { ", " });
            rest.push_str(&format!("{t} {n}"));
        }
        let rest = fit(area, &rest, &text, right - left - label_w)?;
        area.draw_text(&rest, &text, (left + label_w, y))
            .map_err(cause)?;
        let bar_y = y + LABEL_PX as i32 + 5;
        let total = row.frames.max(1) as f64;
        let mut x = f64::from(left);
        for (class, n) in &row.classes {
            let x1 = x + *n as f64 / total * f64::from(right - left);
            let (px0, px1) = (
                x.round() as i32,
                (x1.round() as i32).max(x.round() as i32 + 1),
            );
            area.draw(&Rectangle::new(
                [(px0, bar_y), (px1, bar_y + BAR_PX)],
                colour(class.rgb("Full")).filled(),
            ))
            .map_err(cause)?;
            let label = n.to_string();
            if area.estimate_text_size(&label, &count).map_err(cause)?.0 as i32 + 6 < px1 - px0 {
                area.draw_text(&label, &count, ((px0 + px1) / 2, bar_y + BAR_PX / 2 + 1))
                    .map_err(cause)?;
            }
            x = x1;
        }
        area.draw(&Rectangle::new(
            [(left, bar_y), (right, bar_y + BAR_PX)],
            INK.stroke_width(1),
        ))
        .map_err(cause)?;
    }
    let small = text.color(&INK);
    let mut y = top + i32::try_from(shown).unwrap_or(0) * ROW_PX;
    if rows.len() > shown {
        let note = format!(
            "+{} more layers (ftl analyze lists them all)",
            rows.len() - shown
        );
        area.draw_text(&note, &small, (left, y)).map_err(cause)?;
        y += LABEL_PX as i32 + 4;
    }
    if let Some((name, n)) = most_common(rows) {
        let why = explain(name).unwrap_or("");
        let lines = wrap(
            area,
            &format!("Most common: {name} ({n}). {why}"),
            &small,
            right - left,
        )?;
        for line in lines.iter().take(2) {
            area.draw_text(line, &small, (left, y)).map_err(cause)?;
            y += LABEL_PX as i32 + 3;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn most_common_jank_type_sums_over_layers() {
        let row = |types: &[(&str, u64)]| LayerBreakdown {
            label: String::new(),
            frames: 0,
            classes: Vec::new(),
            top_jank_types: types.iter().map(|(t, n)| (t.to_string(), *n)).collect(),
            pacing: String::new(),
        };
        let rows = [
            row(&[("Buffer Stuffing", 5), ("App Deadline Missed", 4)]),
            row(&[("App Deadline Missed", 3)]),
        ];
        assert_eq!(most_common(&rows), Some(("App Deadline Missed", 7)));
        assert_eq!(most_common(&[]), None);
    }
}
