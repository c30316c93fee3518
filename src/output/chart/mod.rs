//! PNG / SVG timeline reports drawn with plotters from the [`Report`]'s per-frame rows, with an embedded font.
//!
//! Layout, top to bottom: title, colour legend, the timeline of the window (expected / actual lanes per layer, UI
//! thread / RenderThread lanes under layers with app sections, SurfaceFlinger's DisplayFrames, vsync grid,
//! presents), then three overview panels of the whole trace: the
//! frame-time histogram, janky frames and FPS over time, and the per-layer breakdown. Text captures get their own
//! picture ([`capture`]): frame times and FPS per layer, or GT's SM per pid for Choreographer logs.

pub mod app_lanes;
pub mod breakdown;
pub mod capture;
pub mod data;
pub mod diff;
pub mod histogram;
pub mod legend;
pub mod rate;
pub mod room;
pub mod stack;
pub mod timeline;

use crate::analysis::{Analysis, Report};
use crate::error::{Error, Result};
use data::{Histogram, LayerBreakdown, Rates, Timeline, Window, WindowSpec, NS_PER_S};
use image::codecs::png::PngEncoder;
use image::{ColorType, ImageEncoder};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;
use std::sync::OnceLock;

/// DejaVu Sans 2.37 (Bitstream Vera licence with public-domain DejaVu changes; `assets/fonts/LICENSE-DejaVu.txt`).
static FONT: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");
/// The font family every chart text uses (the embedded DejaVu Sans is registered under it).
pub const FAMILY: &str = "sans-serif";

/// Chart options.
#[derive(Debug, Clone)]
pub struct ChartOptions {
    /// Image width, px.
    pub width: u32,
    /// Image height, px.
    pub height: u32,
    /// The time range of the timeline panel.
    pub window: WindowSpec,
}

/// Largest image side, px (a 16 384² RGB image is 768 MiB before encoding).
pub const MAX_SIDE_PX: u32 = 16_384;

/// Default length of the automatic window on long traces, s (`--window-secs`).
pub const DEFAULT_WINDOW_SECS: f64 = 5.0;

impl Default for ChartOptions {
    fn default() -> Self {
        ChartOptions {
            width: 1600,
            height: 900,
            window: WindowSpec::Auto {
                len_ns: (DEFAULT_WINDOW_SECS * NS_PER_S as f64) as i64,
            },
        }
    }
}

/// What a drawing step returns: plotters' error as text.
pub type DrawResult = std::result::Result<(), String>;

/// Plotters' error as text.
pub fn cause(e: impl std::fmt::Display) -> String {
    e.to_string()
}

/// `text` cut in the middle with `…` to fit `max_px` in `style` (the end of a layer name, e.g. `#123`, tells layers
/// apart).
pub fn fit<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    style: &TextStyle,
    max_px: i32,
) -> std::result::Result<String, String> {
    let mut chars: Vec<char> = text.chars().collect();
    let mut candidate = text.to_string();
    while chars.len() > 2
        && area.estimate_text_size(&candidate, style).map_err(cause)?.0 as i32 > max_px
    {
        chars.remove(chars.len() * 2 / 3);
        let cut = chars.len() * 2 / 3;
        candidate = chars
            .iter()
            .take(cut)
            .chain(['…'].iter())
            .chain(chars.iter().skip(cut))
            .collect();
    }
    Ok(candidate)
}

/// Registers the embedded font as `sans-serif` (once per process), so text renders without system fonts.
fn register_font() -> std::result::Result<(), String> {
    static REGISTERED: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            plotters::style::register_font(FAMILY, FontStyle::Normal, FONT)
                .map_err(|_| "the embedded font does not parse".to_string())
        })
        .clone()
}

/// Everything drawn, computed from the report for an image of the given size.
#[derive(Debug, Clone)]
pub struct Chart {
    /// Title line.
    pub title: String,
    /// The timeline panel.
    pub timeline: Timeline,
    /// The frame-time histogram.
    pub histogram: Histogram,
    /// Janky frames and FPS over time.
    pub rates: Rates,
    /// Per-layer breakdown.
    pub breakdown: Vec<LayerBreakdown>,
    /// Pixel layout.
    pub layout: Layout,
}

/// Pixel layout of the image: the bands top to bottom.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Layout {
    /// Image size, px.
    pub size: (u32, u32),
    /// Bottom of the title + legend band, px.
    pub header_bottom: i32,
    /// Bottom of the timeline band, px (at most 3/5 of the height below the header; less when few lanes).
    pub timeline_bottom: i32,
}

impl Layout {
    /// The layout of a `width × height` image with the least header ([`legend::HEIGHT`]).
    pub fn new(width: u32, height: u32) -> Layout {
        Layout::with_header(width, height, legend::HEIGHT)
    }

    /// The layout of a `width × height` image whose header band is `header_bottom` px tall.
    pub fn with_header(width: u32, height: u32, header_bottom: i32) -> Layout {
        let h = i32::try_from(height).unwrap_or(i32::MAX);
        Layout {
            size: (width, height),
            header_bottom,
            timeline_bottom: header_bottom + (h - header_bottom) * 3 / 5,
        }
    }
}

impl Chart {
    /// The chart model of `report` for `options`.
    pub fn build(report: &Report, options: &ChartOptions) -> Chart {
        // The legend's height is measured in the embedded font; without it, estimated.
        let _ = register_font();
        let window = given_window(report, options.window).unwrap_or_else(|| {
            Window::choose(
                options.window,
                &report.frames,
                report.trace.first_ts_ns,
                report.trace.last_ts_ns,
            )
        });
        let lanes = |layout: &Layout| {
            let band = layout.timeline_bottom - layout.header_bottom;
            let geometry = timeline::Geometry::new(options.width, band);
            Timeline::build(report, window, geometry.room(), geometry.plot_width())
        };
        let mut layout = Layout::new(options.width, options.height);
        let mut timeline = lanes(&layout);
        // A legend of more than two rows (app-thread colours, narrow images) takes room from the timeline.
        let header = legend::height(&timeline, options.width)
            .min(i32::try_from(options.height / 2).unwrap_or(i32::MAX));
        if header > layout.header_bottom {
            layout = Layout::with_header(options.width, options.height, header);
            timeline = lanes(&layout);
        }
        // Few lanes: the timeline band shrinks to them and the overview panels get the rest.
        let band = layout.timeline_bottom - layout.header_bottom;
        let lane_count = timeline.groups.iter().map(data::LaneGroup::lanes).sum();
        layout.timeline_bottom = layout.header_bottom
            + band.min(timeline::band_height(lane_count, timeline.groups.len()));
        Chart {
            title: data::title(report, &window),
            timeline,
            histogram: Histogram::build(report),
            rates: Rates::build(report, &window),
            breakdown: data::breakdown(report),
            layout,
        }
    }
}

/// The window `--window` gave when it is also the report's analysis window: its bounds on the trace clock as the
/// analysis resolved them (from the trace's first FrameTimeline slice; the report's own first frame is inside the
/// window, so counting from it would shift the picture).
fn given_window(report: &Report, spec: WindowSpec) -> Option<Window> {
    let WindowSpec::Range { start_ns, end_ns } = spec else {
        return None;
    };
    match report.windows.as_slice() {
        [span] if span.label == "window" && span.end_ns - span.start_ns == end_ns - start_ns => {
            Some(Window {
                origin_ns: span.start_ns - start_ns,
                start_ns: span.start_ns,
                end_ns: span.end_ns,
                choice: data::WindowChoice::Given,
            })
        }
        _ => None,
    }
}

/// A picture that can be drawn on any plotters backend: what [`write`] and [`rasterize`] output.
pub trait Picture {
    /// Image size, px.
    fn size(&self) -> (u32, u32);
    /// Draws the whole picture on `root`.
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult;
}

impl Picture for Chart {
    fn size(&self) -> (u32, u32) {
        self.layout.size
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult {
        draw(root, self)
    }
}

/// Draws the whole chart on `root`.
pub fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, chart: &Chart) -> DrawResult {
    let layout = &chart.layout;
    root.fill(&WHITE).map_err(cause)?;
    let (w, h) = (
        i32::try_from(layout.size.0).unwrap_or(i32::MAX),
        i32::try_from(layout.size.1).unwrap_or(i32::MAX),
    );
    let header = root
        .clone()
        .shrink((0, 0), (layout.size.0, layout.header_bottom.max(1) as u32));
    legend::draw(&header, &chart.title, &chart.timeline)?;
    let band = root.clone().shrink(
        (0, layout.header_bottom),
        (
            layout.size.0,
            (layout.timeline_bottom - layout.header_bottom).max(1) as u32,
        ),
    );
    timeline::draw(&band, &chart.timeline)?;
    let overview = root.clone().shrink(
        (0, layout.timeline_bottom),
        (layout.size.0, (h - layout.timeline_bottom).max(1) as u32),
    );
    let widths = [w * 3 / 10, w * 33 / 100];
    let (left, rest) = overview.split_horizontally(widths[0]);
    let (middle, right) = rest.split_horizontally(widths[1]);
    histogram::draw(&left, &chart.histogram)?;
    rate::draw(&middle, &chart.rates)?;
    breakdown::draw(&right, &chart.breakdown)
}

/// Renders the picture of an analysis to `path`: SVG when the name ends in `.svg` (any case), else PNG. A trace
/// gets its timeline report, a text capture its frame-time / FPS picture ([`capture`]).
///
/// Errors: [`Error::Output`] naming `path` (image size out of range, unwritable file, drawing failure).
pub fn render(analysis: &Analysis, path: &Path, options: &ChartOptions) -> Result<()> {
    prepare(path, options)?;
    match analysis {
        Analysis::Trace(report) => write(&Chart::build(report, options), path),
        Analysis::Capture(c) => write(&capture::CaptureChart::build(c, options), path),
    }
}

/// The error of writing `path`.
fn output_error(path: &Path, cause: String) -> Error {
    Error::Output {
        path: path.to_path_buf(),
        cause,
    }
}

/// Checks the image size against the limits and registers the font: what every picture needs before drawing.
fn prepare(path: &Path, options: &ChartOptions) -> Result<()> {
    if !(400..=MAX_SIDE_PX).contains(&options.width)
        || !(300..=MAX_SIDE_PX).contains(&options.height)
    {
        return Err(output_error(
            path,
            format!(
                "image size {}×{} is out of range (400×300 to {MAX_SIDE_PX}×{MAX_SIDE_PX})",
                options.width, options.height
            ),
        ));
    }
    register_font().map_err(|e| output_error(path, e))
}

/// Writes `picture` to `path`: SVG when the name ends in `.svg` (any case), else PNG. Call [`prepare`] first.
fn write(picture: &impl Picture, path: &Path) -> Result<()> {
    let fail = |cause: String| output_error(path, cause);
    let size = picture.size();
    let svg = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("svg"));
    if svg {
        let mut text = String::new();
        {
            let root = SVGBackend::with_string(&mut text, size).into_drawing_area();
            picture.draw(&root).map_err(fail)?;
            root.present().map_err(|e| fail(cause(e)))?;
        }
        std::fs::write(path, text).map_err(|e| fail(e.to_string()))
    } else {
        // Encoded here rather than by plotters, which picks the format from the extension: any name but .svg
        // gets a PNG.
        let rgb = rasterize(picture).map_err(fail)?;
        let file = std::fs::File::create(path).map_err(|e| fail(e.to_string()))?;
        PngEncoder::new(std::io::BufWriter::new(file))
            .write_image(&rgb, size.0, size.1, ColorType::Rgb8)
            .map_err(|e| fail(e.to_string()))
    }
}

/// Draws the picture into an RGB8 buffer (rows top to bottom) of its size.
pub fn rasterize(picture: &impl Picture) -> std::result::Result<Vec<u8>, String> {
    let (w, h) = picture.size();
    let mut rgb = vec![0u8; w as usize * h as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
        picture.draw(&root)?;
        root.present().map_err(cause)?;
    }
    Ok(rgb)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn synthetic_report() -> Report {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/synthetic_60hz.pftrace");
        let trace = crate::load_path(&path).unwrap();
        crate::analysis::analyze(trace, "", &Default::default())
    }

    #[test]
    fn chart_bitmap_has_the_jank_colours_and_text_without_system_fonts() {
        register_font().unwrap();
        let report = synthetic_report();
        let options = ChartOptions::default();
        let chart = Chart::build(&report, &options);
        let rgb = rasterize(&chart).unwrap();
        let pixels: Vec<[u8; 3]> = rgb.chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect();
        let distinct: HashSet<&[u8; 3]> = pixels.iter().collect();
        // Flat fills alone give a dozen colours; anti-aliased text gives hundreds.
        assert!(distinct.len() > 100, "{} colours", distinct.len());
        for colour in [[0xFF, 0x57, 0x22], [0x4C, 0xAF, 0x50], [0xB0, 0xBE, 0xC5]] {
            let n = pixels.iter().filter(|p| **p == colour).count();
            assert!(n > 20, "{colour:02X?}: {n} px");
        }
    }
}
