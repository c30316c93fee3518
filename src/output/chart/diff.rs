//! The picture of `ftl diff`: base vs new frame-duration CDFs overlaid (left) and the change of janky % per
//! matched layer (right), drawn with the embedded font like every ftl chart.

use super::histogram::{CAPTION_PX, LABEL_PX};
use super::legend::INK;
use super::{cause, prepare, write, ChartOptions, DrawResult, Picture, FAMILY};
use crate::analysis::percentile::percentile;
use crate::error::Result;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// Base colour (Material Blue 700).
const BASE: RGBColor = RGBColor(0x19, 0x76, 0xD2);
/// New colour (Material Deep Orange 500).
const NEW: RGBColor = RGBColor(0xFF, 0x57, 0x22);
/// Regressed bar (Material Red 700).
const REGRESSED: RGBColor = RGBColor(0xD3, 0x2F, 0x2F);
/// Improved bar (Material Green 600).
const IMPROVED: RGBColor = RGBColor(0x43, 0xA0, 0x47);
/// Bar without a significant change (Material Blue Grey 200).
const UNCHANGED: RGBColor = RGBColor(0xB0, 0xBE, 0xC5);
/// Layers shown, largest |change| first.
const MAX_LAYERS: usize = 14;

/// One matched layer's janky %.
#[derive(Debug, Clone, PartialEq)]
pub struct LayerDelta {
    /// Normalised layer name.
    pub layer: String,
    /// BASE janky %.
    pub base_pct: f64,
    /// NEW janky %.
    pub new_pct: f64,
    /// The row's verdict (`regressed`, `improved`, ...).
    pub verdict: String,
}

/// What the diff picture shows.
#[derive(Debug, Clone, PartialEq)]
pub struct DiffChart {
    /// Title line.
    pub title: String,
    /// BASE frame durations, ms, ascending (every layer, every run).
    pub base_ms: Vec<f64>,
    /// NEW frame durations, ms, ascending.
    pub new_ms: Vec<f64>,
    /// Matched layers.
    pub layers: Vec<LayerDelta>,
}

impl DiffChart {
    /// Draws the picture to `path` (1600 × 800; SVG when the name ends in `.svg`, else PNG).
    ///
    /// Errors: [`crate::Error::Output`] naming `path` (unwritable file, drawing failure).
    pub fn render(&self, path: &Path) -> Result<()> {
        prepare(path, &ChartOptions::default())?;
        write(self, path)
    }
}

impl Picture for DiffChart {
    fn size(&self) -> (u32, u32) {
        (1600, 800)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult {
        root.fill(&WHITE).map_err(cause)?;
        let (title, body) = root.split_vertically(40);
        title
            .draw(&Text::new(
                self.title.clone(),
                (12, 10),
                (FAMILY, 17.0).into_font().color(&INK),
            ))
            .map_err(cause)?;
        let (left, right) = body.split_horizontally(760);
        draw_cdfs(&left, self)?;
        draw_deltas(&right, &self.layers)
    }
}

/// Overlaid empirical CDFs of the two sides' frame durations, x up to the larger 99.5th percentile.
fn draw_cdfs<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, c: &DiffChart) -> DrawResult {
    let top = [&c.base_ms, &c.new_ms]
        .iter()
        .filter_map(|v| percentile(v, 99.5))
        .fold(1.0f64, f64::max)
        * 1.1;
    let mut chart = ChartBuilder::on(&area.margin(8, 8, 8, 12))
        .caption(
            "Frame duration CDF: base vs new (all layers)",
            (FAMILY, CAPTION_PX),
        )
        .x_label_area_size(36)
        .y_label_area_size(48)
        .build_cartesian_2d(0f64..top, 0f64..1.0)
        .map_err(cause)?;
    chart
        .configure_mesh()
        .x_desc("frame duration, ms")
        .y_desc("share of frames at or below")
        .label_style((FAMILY, LABEL_PX))
        .axis_desc_style((FAMILY, LABEL_PX))
        .draw()
        .map_err(cause)?;
    for (name, values, colour) in [("base", &c.base_ms, BASE), ("new", &c.new_ms, NEW)] {
        let n = values.len().max(1) as f64;
        // A step per frame, thinned to ~2000 points.
        let step = (values.len() / 2000).max(1);
        let points = values
            .iter()
            .enumerate()
            .filter(|(i, _)| i % step == 0 || *i + 1 == values.len())
            .map(|(i, v)| (v.min(top), (i + 1) as f64 / n));
        chart
            .draw_series(LineSeries::new(points, colour.stroke_width(2)))
            .map_err(cause)?
            .label(format!(
                "{name}: {} frames, p50 {:.1} ms, p90 {:.1} ms",
                values.len(),
                percentile(values, 50.0).unwrap_or(f64::NAN),
                percentile(values, 90.0).unwrap_or(f64::NAN)
            ))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 14, y)], colour.stroke_width(2))
            });
    }
    super::legend::series_labels(&mut chart, SeriesLabelPosition::LowerRight)
}

/// Horizontal bars of new − base janky % per matched layer, coloured by verdict.
fn draw_deltas<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    layers: &[LayerDelta],
) -> DrawResult {
    let mut shown: Vec<&LayerDelta> = layers.iter().collect();
    shown.sort_by(|a, b| {
        (b.new_pct - b.base_pct)
            .abs()
            .total_cmp(&(a.new_pct - a.base_pct).abs())
            .then(a.layer.cmp(&b.layer))
    });
    shown.truncate(MAX_LAYERS);
    let n = shown.len().max(1) as f64;
    let extent = shown
        .iter()
        .map(|l| (l.new_pct - l.base_pct).abs())
        .fold(1.0f64, f64::max)
        * 1.15;
    let mut chart = ChartBuilder::on(&area.margin(8, 8, 8, 12))
        .caption(
            "Janky frames: change per layer (new - base, points)",
            (FAMILY, CAPTION_PX),
        )
        .x_label_area_size(36)
        .y_label_area_size(8)
        .build_cartesian_2d(-extent..extent, 0.0..n)
        .map_err(cause)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(1)
        .y_label_formatter(&|_| String::new())
        .x_desc("janky % change (red: regressed, green: improved, grey: no significant change)")
        .label_style((FAMILY, LABEL_PX))
        .axis_desc_style((FAMILY, LABEL_PX))
        .draw()
        .map_err(cause)?;
    let bars = shown.iter().enumerate().map(|(i, l)| {
        let colour = match l.verdict.as_str() {
            "regressed" => REGRESSED,
            "improved" => IMPROVED,
            _ => UNCHANGED,
        };
        let y = n - 1.0 - i as f64;
        Rectangle::new(
            [(0.0, y + 0.2), (l.new_pct - l.base_pct, y + 0.8)],
            colour.filled(),
        )
    });
    chart.draw_series(bars).map_err(cause)?;
    chart
        .draw_series(LineSeries::new([(0.0, 0.0), (0.0, n)], INK.stroke_width(1)))
        .map_err(cause)?;
    let style = (FAMILY, LABEL_PX).into_font().color(&INK);
    for (i, l) in shown.iter().enumerate() {
        let y = n - 1.0 - i as f64;
        let label = format!(
            "{}  {:.1} → {:.1} %",
            super::super::label::elide(&l.layer, 70),
            l.base_pct,
            l.new_pct
        );
        // On the side of zero without the bar.
        let x = if l.new_pct >= l.base_pct {
            -extent * 0.98
        } else {
            extent * 0.02
        };
        chart
            .draw_series([Text::new(label, (x, y + 0.8), style.clone())])
            .map_err(cause)?;
    }
    Ok(())
}
