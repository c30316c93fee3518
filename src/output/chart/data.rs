//! The chart model: window, lanes, rectangles, colours, vsync grid, bins and breakdowns, computed from the
//! [`Report`]'s per-frame rows without any pixels or plotters types.

use super::app_lanes::{self, AppLanes};
use super::room::{GroupShape, Room};
use super::stack::stack;
use crate::analysis::frames::FrameRow;
use crate::analysis::Report;
use crate::model::JankTag;
use crate::output::label::{self, layer_label};
use std::collections::BTreeMap;

/// Nanoseconds per millisecond.
pub const NS_PER_MS: i64 = 1_000_000;
/// Nanoseconds per second.
pub const NS_PER_S: i64 = 1_000_000_000;
/// FrameTimeline spans up to this long are drawn whole by default (a 10 s recording plus slack), ns.
pub const WHOLE_SPAN_MAX_NS: i64 = 12 * NS_PER_S;
/// Vsync grid lines closer than this are not drawn, px.
pub const MIN_GRID_SPACING_PX: f64 = 3.0;
/// Minimum width of a janky frame's rectangle, px (a janky frame is never hidden).
pub const JANKY_MIN_PX: i32 = 2;
/// Minimum width of any other rectangle, px.
pub const MIN_PX: i32 = 1;

/// An sRGB colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rgb(pub u8, pub u8, pub u8);

/// Colour of expected slices: Material Blue Grey 200. (The Perfetto UI draws them green, which here would read as
/// "no jank" next to the actual lane.)
pub const EXPECTED_RGB: Rgb = Rgb(0xB0, 0xBE, 0xC5);

/// The Perfetto UI's colour classes of actual frames, one per jank tag group (`getColorSchemeForJank` in
/// `ui/src/plugins/dev.perfetto.Frames/`; semantics doc §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum JankClass {
    /// `No Jank`: green.
    NoJank,
    /// `Buffer Stuffing` / `SurfaceFlinger Stuffing`: light green (high latency, smooth).
    HighLatency,
    /// `Non-perceivable Jank`: white.
    NonPerceivable,
    /// `Unspecified` or anything else: pink.
    Unspecified,
    /// `Other Jank`: yellow (janky, SurfaceFlinger or the display is to blame).
    OtherJank,
    /// `Dropped Frame`: blue.
    Dropped,
    /// `Self Jank`: red (janky, this process is to blame).
    SelfJank,
}

impl JankClass {
    /// Every class, in legend order.
    pub const ALL: [JankClass; 7] = [
        JankClass::NoJank,
        JankClass::HighLatency,
        JankClass::SelfJank,
        JankClass::OtherJank,
        JankClass::Dropped,
        JankClass::NonPerceivable,
        JankClass::Unspecified,
    ];

    /// The class of a Perfetto `jank_tag`.
    pub fn of(tag: JankTag) -> Self {
        match tag {
            JankTag::NoJank => JankClass::NoJank,
            JankTag::BufferStuffing | JankTag::SurfaceFlingerStuffing => JankClass::HighLatency,
            JankTag::SelfJank => JankClass::SelfJank,
            JankTag::OtherJank => JankClass::OtherJank,
            JankTag::DroppedFrame => JankClass::Dropped,
            JankTag::NonPerceivable => JankClass::NonPerceivable,
            JankTag::Unspecified => JankClass::Unspecified,
        }
    }

    /// The Perfetto UI colour for a `jank_severity_type`: the lighter shade when it is `Partial`.
    pub fn rgb(self, severity: &str) -> Rgb {
        let partial = severity == "Partial";
        match (self, partial) {
            (JankClass::NoJank, false) => Rgb(0x4C, 0xAF, 0x50),
            (JankClass::NoJank, true) => Rgb(0xA5, 0xD6, 0xA7),
            (JankClass::HighLatency, false) => Rgb(0xC0, 0xD5, 0x88),
            (JankClass::HighLatency, true) => Rgb(0xDC, 0xED, 0xC8),
            (JankClass::SelfJank, false) => Rgb(0xFF, 0x57, 0x22),
            (JankClass::SelfJank, true) => Rgb(0xEF, 0x9A, 0x9A),
            (JankClass::OtherJank, false) => Rgb(0xFF, 0xEB, 0x3B),
            (JankClass::OtherJank, true) => Rgb(0xFF, 0xF9, 0xC4),
            (JankClass::Dropped, false) => Rgb(0x03, 0xA9, 0xF4),
            (JankClass::Dropped, true) => Rgb(0x90, 0xCA, 0xF9),
            (JankClass::NonPerceivable, _) => Rgb(0xF5, 0xF5, 0xF5),
            (JankClass::Unspecified, false) => Rgb(0xF5, 0x15, 0xE0),
            (JankClass::Unspecified, true) => Rgb(0xF4, 0x8F, 0xB1),
        }
    }

    /// True for visible jank (Self Jank, Other Jank, Dropped Frame), as [`JankTag::is_janky`].
    pub fn is_janky(self) -> bool {
        matches!(
            self,
            JankClass::SelfJank | JankClass::OtherJank | JankClass::Dropped
        )
    }

    /// What the colour means, in words (the Perfetto docs' legend).
    pub fn legend(self) -> &'static str {
        match self {
            JankClass::NoJank => "no jank",
            JankClass::HighLatency => "high latency: buffer stuffing, smooth",
            JankClass::SelfJank => "janky, this process is to blame",
            JankClass::OtherJank => "janky, SurfaceFlinger is to blame",
            JankClass::Dropped => "dropped: never shown",
            JankClass::NonPerceivable => "jank nobody can see",
            JankClass::Unspecified => "unlabelled",
        }
    }
}

/// Which part of the FrameTimeline span the timeline shows, as asked for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WindowSpec {
    /// The whole span if it is at most [`WHOLE_SPAN_MAX_NS`], else the `len_ns` window with the most janky
    /// SurfaceFrames.
    Auto {
        /// Window length, ns.
        len_ns: i64,
    },
    /// The whole span.
    All,
    /// Given bounds, ns after the first FrameTimeline slice.
    Range {
        /// Start, ns after the first FrameTimeline slice.
        start_ns: i64,
        /// End, ns after the first FrameTimeline slice.
        end_ns: i64,
    },
}

impl WindowSpec {
    /// Parses `START..END` (each `<number>ms`, `<number>s` or a bare number of seconds; times after the first
    /// FrameTimeline slice), e.g. `1500ms..4s` or `1.5..4`.
    pub fn parse_range(text: &str) -> Result<WindowSpec, String> {
        let (start_ns, end_ns) = crate::model::window::parse_range(text)?;
        Ok(WindowSpec::Range { start_ns, end_ns })
    }
}

/// How the window was chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowChoice {
    /// The whole span, because it is short.
    WholeSpan,
    /// The whole span, as asked (`--all`).
    All,
    /// The fixed-length window with the most janky SurfaceFrames.
    MostJanky {
        /// Janky SurfaceFrames starting in it.
        janky: usize,
    },
    /// The bounds given (`--window`).
    Given,
}

/// The time range the timeline shows. Times in ns on the trace clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// The first FrameTimeline slice start: the origin of `--window`.
    pub origin_ns: i64,
    /// Window start, ns.
    pub start_ns: i64,
    /// Window end, ns.
    pub end_ns: i64,
    /// How it was chosen.
    pub choice: WindowChoice,
}

impl Window {
    /// Chooses the window for `spec` over the FrameTimeline span `first_ns..last_ns`, counting janky
    /// SurfaceFrames of `frames` by their actual start.
    pub fn choose(spec: WindowSpec, frames: &[FrameRow], first_ns: i64, last_ns: i64) -> Window {
        let last_ns = last_ns.max(first_ns + 1);
        let window = |start_ns, end_ns, choice| Window {
            origin_ns: first_ns,
            start_ns,
            end_ns,
            choice,
        };
        match spec {
            WindowSpec::All => window(first_ns, last_ns, WindowChoice::All),
            WindowSpec::Range { start_ns, end_ns } => window(
                first_ns.saturating_add(start_ns),
                first_ns.saturating_add(end_ns),
                WindowChoice::Given,
            ),
            WindowSpec::Auto { len_ns } if last_ns - first_ns <= WHOLE_SPAN_MAX_NS.max(len_ns) => {
                window(first_ns, last_ns, WindowChoice::WholeSpan)
            }
            WindowSpec::Auto { len_ns } => {
                let mut janky: Vec<i64> = frames
                    .iter()
                    .filter(|f| f.jank_tag.is_janky())
                    .map(|f| f.actual_start_ns)
                    .collect();
                janky.sort_unstable();
                let count = |start: i64| {
                    janky.partition_point(|t| *t < start + len_ns)
                        - janky.partition_point(|t| *t < start)
                };
                // Start a tenth of the window before a janky frame, kept inside the span; earliest best wins.
                let best = janky
                    .iter()
                    .map(|t| (t - len_ns / 10).clamp(first_ns, last_ns - len_ns))
                    .map(|start| (count(start), start))
                    .fold((0, first_ns), |best, c| if c.0 > best.0 { c } else { best });
                window(
                    best.1,
                    best.1 + len_ns,
                    WindowChoice::MostJanky { janky: best.0 },
                )
            }
        }
    }

    /// Window length, ns.
    pub fn len_ns(&self) -> i64 {
        self.end_ns - self.start_ns
    }

    /// True if `start_ns..end_ns` overlaps the window (a zero-length interval inside it counts).
    pub fn overlaps(&self, start_ns: i64, end_ns: i64) -> bool {
        start_ns < self.end_ns && end_ns >= self.start_ns
    }

    /// The window in words for the title, times in s after the first FrameTimeline slice.
    pub fn describe(&self) -> String {
        let s = |ns: i64| (ns - self.origin_ns) as f64 / NS_PER_S as f64;
        let range = format!("{:.2}–{:.2} s", s(self.start_ns), s(self.end_ns));
        match self.choice {
            WindowChoice::WholeSpan | WindowChoice::All => format!("whole span {range}"),
            WindowChoice::Given => format!("window {range}"),
            WindowChoice::MostJanky { janky } => format!(
                "window {range}: the {:.0} s with the most janky frames ({janky})",
                self.len_ns() as f64 / NS_PER_S as f64
            ),
        }
    }
}

/// Maps trace times onto a plot `width_px` wide showing `start_ns..end_ns`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct XScale {
    /// Time at x = 0, ns.
    pub start_ns: i64,
    /// Time at x = width, ns.
    pub end_ns: i64,
    /// Plot width, px.
    pub width_px: i32,
}

impl XScale {
    /// The x of `ns`, px (unclamped).
    pub fn x(&self, ns: i64) -> f64 {
        (ns - self.start_ns) as f64 * f64::from(self.width_px)
            / (self.end_ns - self.start_ns).max(1) as f64
    }

    /// The pixel columns `[x0, x1)` of `start_ns..end_ns` clipped to the plot and at least `min_px` wide (kept
    /// inside the plot); `None` when it lies outside the plot.
    pub fn span(&self, start_ns: i64, end_ns: i64, min_px: i32) -> Option<(i32, i32)> {
        if start_ns > self.end_ns || end_ns < self.start_ns {
            return None;
        }
        let x0 = (self.x(start_ns).floor() as i32).max(0);
        let x1 = (self.x(end_ns).ceil() as i32).min(self.width_px);
        let x1 = x1.max(x0 + min_px).min(self.width_px);
        Some(((x1 - min_px).min(x0).max(0), x1))
    }
}

/// One rectangle of a lane. Times in ns on the trace clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bar {
    /// Start, ns.
    pub start_ns: i64,
    /// End, ns.
    pub end_ns: i64,
    /// Fill colour.
    pub rgb: Rgb,
    /// Visible jank (app-thread lanes: a late frame): drawn at least [`JANKY_MIN_PX`] wide and after the others.
    pub janky: bool,
    /// Sub-row within the lane where bars overlap ([`super::stack`]; 0 = top).
    pub row: u8,
}

/// The lanes of one layer (or of SurfaceFlinger's DisplayFrames): expected and actual, and the app-thread pair
/// when the layer's frames have app sections.
#[derive(Debug, Clone, PartialEq)]
pub struct LaneGroup {
    /// Short, readable name of the process / layer.
    pub label: String,
    /// Process id.
    pub pid: i32,
    /// Expected timeline rectangles, in drawing order.
    pub expected: Vec<Bar>,
    /// Actual timeline rectangles, in drawing order: good frames first, janky ones last.
    pub actual: Vec<Bar>,
    /// Distinct present times of the frames shown (not dropped), ns, sorted.
    pub presents_ns: Vec<i64>,
    /// Janky actual frames in the window.
    pub janky: usize,
    /// UI thread and RenderThread lanes (layers with a frame that has app sections only).
    pub app: Option<AppLanes>,
}

impl LaneGroup {
    /// Number of lanes: 2, or 4 with the app-thread pair.
    pub fn lanes(&self) -> usize {
        if self.app.is_some() {
            4
        } else {
            2
        }
    }
}

/// The timeline panel: lanes of the window and the vsync grid.
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    /// The time range shown.
    pub window: Window,
    /// App layers (by pid, then layer name), then SurfaceFlinger's DisplayFrames.
    pub groups: Vec<LaneGroup>,
    /// Layers with frames in the window that did not fit.
    pub hidden_groups: usize,
    /// Vsync times in the window, ns (empty when the lines would be closer than [`MIN_GRID_SPACING_PX`]).
    pub vsync_ns: Vec<i64>,
}

/// Actual bars in drawing order: good frames first, janky frames last (stable within each).
fn good_then_janky(mut bars: Vec<Bar>) -> Vec<Bar> {
    bars.sort_by_key(|b| b.janky);
    bars
}

/// Vsync times inside the window: each vsync window's grid `end + k·period` (its last expected present, measured
/// period) from its start (from the window start for the first) to the next one's start; empty when lines would
/// be closer than [`MIN_GRID_SPACING_PX`] on a plot `width_px` wide.
pub fn vsync_grid(
    vsync: &crate::analysis::vsync::VsyncModel,
    window: &Window,
    width_px: i32,
) -> Vec<i64> {
    let px_per_ns = f64::from(width_px) / window.len_ns().max(1) as f64;
    let mut lines = Vec::new();
    for (i, w) in vsync.windows.iter().enumerate() {
        let period = w.measured_period_ns;
        if period <= 0 || (period as f64 * px_per_ns) < MIN_GRID_SPACING_PX {
            return Vec::new();
        }
        let from = if i == 0 {
            window.start_ns
        } else {
            w.start_ns.max(window.start_ns)
        };
        let to = vsync
            .windows
            .get(i + 1)
            .map_or(window.end_ns, |next| next.start_ns.min(window.end_ns));
        // `end_ns` is an expected present (on the grid); the grid extends it backwards to the window start.
        let mut t = w.end_ns + (from - w.end_ns).div_euclid(period) * period;
        while t <= to {
            if t >= from {
                lines.push(t);
            }
            t += period;
        }
    }
    lines
}

impl Timeline {
    /// The lanes of `window`: a group per (pid, layer) with frames in it (2 lanes, 4 with app sections), those
    /// with most janky then most frames kept while they fit in `room` next to SurfaceFlinger's DisplayFrames
    /// (always drawn); vsync grid for a plot `width_px` wide.
    pub fn build(report: &Report, window: Window, room: Room, width_px: i32) -> Timeline {
        let mut layers: BTreeMap<(i32, &str), Vec<&FrameRow>> = BTreeMap::new();
        for f in &report.frames {
            let end = f
                .actual_end_ns
                .or(f.present_ns)
                .unwrap_or(f.actual_start_ns);
            let expected = f.expected_start_ns.zip(f.expected_end_ns);
            if window.overlaps(f.actual_start_ns, end)
                || expected.is_some_and(|(s, e)| window.overlaps(s, e))
            {
                layers
                    .entry((f.pid, f.layer_name.as_str()))
                    .or_default()
                    .push(f);
            }
        }
        let mut groups: Vec<LaneGroup> = layers
            .into_iter()
            .map(|((pid, layer), rows)| layer_group(pid, layer, &rows))
            .collect();
        let total = groups.len();
        let shapes: Vec<GroupShape> = groups
            .iter()
            .map(|g| GroupShape {
                janky: g.janky,
                frames: g.actual.len(),
                lanes: g.lanes(),
            })
            .collect();
        let kept = room.keep(&shapes);
        groups = groups
            .into_iter()
            .zip(kept)
            .filter_map(|(g, keep)| keep.then_some(g))
            .collect();
        let hidden_groups = total - groups.len();
        groups.push(display_group(report, &window));
        Timeline {
            window,
            groups,
            hidden_groups,
            vsync_ns: vsync_grid(&report.vsync, &window, width_px),
        }
    }
}

/// One frame as a lane pair draws it.
struct LaneFrame<'a> {
    /// Expected (start, end), ns, if SurfaceFlinger's prediction is known.
    expected: Option<(i64, i64)>,
    /// Actual (start, end), ns.
    actual: (i64, i64),
    /// When it reached the screen, ns; `None` if never (dropped, or the slice never ended).
    present_ns: Option<i64>,
    jank_tag: JankTag,
    severity: &'a str,
}

impl LaneGroup {
    /// The lane pair of `frames`: grey expected bars, coloured actual bars (good first, janky last), presents;
    /// overlapping bars stacked in sub-rows.
    fn new<'a>(
        label: String,
        pid: i32,
        frames: impl Iterator<Item = LaneFrame<'a>> + Clone,
    ) -> LaneGroup {
        let mut expected = frames
            .clone()
            .filter_map(|f| f.expected)
            .map(|(start_ns, end_ns)| Bar {
                start_ns,
                end_ns,
                rgb: EXPECTED_RGB,
                janky: false,
                row: 0,
            })
            .collect::<Vec<Bar>>();
        stack(&mut expected);
        let mut actual: Vec<Bar> = frames
            .clone()
            .map(|f| {
                let class = JankClass::of(f.jank_tag);
                Bar {
                    start_ns: f.actual.0,
                    end_ns: f.actual.1,
                    rgb: class.rgb(f.severity),
                    janky: class.is_janky(),
                    row: 0,
                }
            })
            .collect();
        stack(&mut actual);
        let mut presents_ns: Vec<i64> = frames.filter_map(|f| f.present_ns).collect();
        presents_ns.sort_unstable();
        presents_ns.dedup();
        LaneGroup {
            label,
            pid,
            expected,
            janky: actual.iter().filter(|b| b.janky).count(),
            actual: good_then_janky(actual),
            presents_ns,
            app: None,
        }
    }
}

fn layer_group(pid: i32, layer: &str, rows: &[&FrameRow]) -> LaneGroup {
    let frames = rows.iter().map(|f| LaneFrame {
        expected: f.expected_start_ns.zip(f.expected_end_ns),
        actual: (
            f.actual_start_ns,
            f.actual_end_ns
                .or(f.present_ns)
                .unwrap_or(f.actual_start_ns),
        ),
        present_ns: f.present_ns.filter(|_| !f.dropped),
        jank_tag: f.jank_tag,
        severity: f.jank_severity_type,
    });
    LaneGroup {
        app: app_lanes::build(rows),
        ..LaneGroup::new(layer_label(layer), pid, frames)
    }
}

fn display_group(report: &Report, window: &Window) -> LaneGroup {
    let rows: Vec<_> = report
        .display_frames
        .iter()
        .filter(|d| {
            window.overlaps(d.actual_start_ns, d.present_ns.unwrap_or(d.actual_start_ns))
                || d.expected_start_ns
                    .zip(d.expected_end_ns)
                    .is_some_and(|(s, e)| window.overlaps(s, e))
        })
        .collect();
    let frames = rows.iter().map(|d| LaneFrame {
        expected: d.expected_start_ns.zip(d.expected_end_ns),
        actual: (d.actual_start_ns, d.present_ns.unwrap_or(d.actual_start_ns)),
        present_ns: d.present_ns,
        jank_tag: d.jank_tag,
        severity: d.jank_severity_type,
    });
    let pid = rows.first().map_or(0, |d| d.pid);
    LaneGroup::new("SurfaceFlinger / DisplayFrames".into(), pid, frames)
}

/// Frame-time distribution of actual SurfaceFrame durations (whole trace).
#[derive(Debug, Clone, PartialEq)]
pub struct Histogram {
    /// Bin width, ns.
    pub bin_ns: i64,
    /// Per bin: (frames without visible jank, janky frames); the last bin also holds every longer frame.
    pub counts: Vec<(u32, u32)>,
    /// App deadline: the expected SurfaceFrame duration (app work duration) of the main vsync window, ns.
    pub deadline_ns: Option<i64>,
    /// Vsync period, ns.
    pub period_ns: Option<i64>,
}

/// Bin widths the histogram chooses from, ns.
const HISTOGRAM_BINS_NS: [i64; 9] = [
    250_000,
    500_000,
    1_000_000,
    2_000_000,
    5_000_000,
    10_000_000,
    20_000_000,
    50_000_000,
    100_000_000,
];

impl Histogram {
    /// Bins the durations of finished SurfaceFrames in about 40–80 bins up to the 99th percentile (at least
    /// two vsync periods and the deadline).
    pub fn build(report: &Report) -> Histogram {
        let mut durs: Vec<(i64, bool)> = report
            .frames
            .iter()
            .filter(|f| f.dur_ns >= 0)
            .map(|f| (f.dur_ns, f.jank_tag.is_janky()))
            .collect();
        durs.sort_unstable();
        let main = report.vsync.windows.iter().max_by_key(|w| w.display_frames);
        let deadline_ns = main.and_then(|w| w.app_work_duration_ns);
        let period_ns = report.vsync.period_ns;
        let p99 = durs
            .get(durs.len().saturating_sub(1) * 99 / 100)
            .map_or(0, |d| d.0);
        let upper = [
            p99 + p99 / 10,
            2 * period_ns.unwrap_or(0),
            deadline_ns.unwrap_or(0) + 1,
            NS_PER_MS,
        ]
        .into_iter()
        .max()
        .unwrap_or(NS_PER_MS);
        let bin_ns = HISTOGRAM_BINS_NS
            .into_iter()
            .find(|b| upper / b <= 80)
            .unwrap_or(upper / 80 + 1);
        let bins = ((upper + bin_ns - 1) / bin_ns).max(1) as usize;
        let mut counts = vec![(0u32, 0u32); bins];
        for (dur, janky) in durs {
            let i = ((dur / bin_ns) as usize).min(bins - 1);
            if let Some(c) = counts.get_mut(i) {
                if janky {
                    c.1 += 1;
                } else {
                    c.0 += 1;
                }
            }
        }
        Histogram {
            bin_ns,
            counts,
            deadline_ns,
            period_ns,
        }
    }
}

/// Janky frames and present-based FPS over the whole FrameTimeline span.
#[derive(Debug, Clone, PartialEq)]
pub struct Rates {
    /// Time of the first bin's start (the first FrameTimeline slice), ns.
    pub origin_ns: i64,
    /// The FrameTimeline span, ns.
    pub span_ns: i64,
    /// Bin width, ns (the last bin also holds the rest of the span).
    pub bin_ns: i64,
    /// Janky SurfaceFrames (visible jank) starting in each bin.
    pub janky: Vec<u32>,
    /// Distinct present times of shown SurfaceFrames per second in each bin, frames/s.
    pub fps: Vec<f64>,
    /// The timeline window, ns after `origin_ns` (shaded); `None` when it covers the whole span.
    pub window_ns: Option<(i64, i64)>,
}

/// Bin widths the rate panel chooses from, ns: 1 s, else the widest shorter one giving at least 8 bins on short
/// spans, or the narrowest longer one giving at most [`MAX_RATE_BINS`] on long spans.
const RATE_BINS_NS: [i64; 9] = [
    50_000_000,
    100_000_000,
    250_000_000,
    500_000_000,
    NS_PER_S,
    5 * NS_PER_S,
    10 * NS_PER_S,
    30 * NS_PER_S,
    60 * NS_PER_S,
];
/// Most bins the rate panel draws.
const MAX_RATE_BINS: i64 = 300;

impl Rates {
    /// Bins the span `first_ns..last_ns` of `report.trace`.
    pub fn build(report: &Report, window: &Window) -> Rates {
        let (first, last) = (
            report.trace.first_ts_ns,
            report.trace.last_ts_ns.max(report.trace.first_ts_ns + 1),
        );
        let span = last - first;
        let bin_ns = if span / NS_PER_S < 8 {
            RATE_BINS_NS.into_iter().rev().find(|b| span / b >= 8)
        } else {
            RATE_BINS_NS
                .into_iter()
                .find(|b| *b >= NS_PER_S && span / b <= MAX_RATE_BINS)
        }
        .unwrap_or(if span < NS_PER_S {
            50_000_000
        } else {
            60 * NS_PER_S
        });
        // Whole bins; the remainder of the span joins the last one.
        let bins = usize::try_from(span / bin_ns).unwrap_or(0).max(1);
        let index = |t: i64| {
            (first..=last).contains(&t).then(|| {
                usize::try_from((t - first) / bin_ns)
                    .unwrap_or(0)
                    .min(bins - 1)
            })
        };
        let mut janky = vec![0u32; bins];
        let mut presents: Vec<i64> = Vec::new();
        for f in &report.frames {
            if f.jank_tag.is_janky() {
                if let Some(c) = index(f.actual_start_ns).and_then(|i| janky.get_mut(i)) {
                    *c += 1;
                }
            }
            if let (false, Some(p)) = (f.dropped, f.present_ns) {
                presents.push(p);
            }
        }
        presents.sort_unstable();
        presents.dedup();
        let mut counts = vec![0u32; bins];
        for p in presents {
            if let Some(c) = index(p).and_then(|i| counts.get_mut(i)) {
                *c += 1;
            }
        }
        let last_bin = bins as i64 - 1;
        let fps = counts
            .iter()
            .zip(0..)
            .map(|(n, i)| {
                let covered = if i == last_bin {
                    span - i * bin_ns
                } else {
                    bin_ns
                };
                f64::from(*n) * NS_PER_S as f64 / covered.max(1) as f64
            })
            .collect();
        Rates {
            origin_ns: first,
            span_ns: span,
            bin_ns,
            janky,
            fps,
            window_ns: (window.start_ns > first || window.end_ns < last)
                .then_some((window.start_ns - first, window.end_ns - first)),
        }
    }
}

/// One layer's frames by colour class, with its most common jank types.
#[derive(Debug, Clone, PartialEq)]
pub struct LayerBreakdown {
    /// Short layer label.
    pub label: String,
    /// Actual SurfaceFrames.
    pub frames: u64,
    /// Frames per colour class, in [`JankClass::ALL`] order, classes without frames left out.
    pub classes: Vec<(JankClass, u64)>,
    /// The most frequent jank-type components other than `None` (the layer table's `top_jank_types`).
    pub top_jank_types: Vec<(String, u64)>,
    /// The layer's headline pacing numbers in words (`avg_surface_fps`, PerfDog Jank / BigJank), empty when it
    /// has too few presents for them.
    pub pacing: String,
}

/// A layer's headline pacing numbers for the breakdown: `88 fps · PerfDog jank 5, big 3`.
fn pacing_words(p: &crate::analysis::pacing::Pacing) -> String {
    let mut words = Vec::new();
    if let Some(fps) = p.avg_surface_fps {
        words.push(format!("{fps} fps"));
    }
    if let (Some(jank), Some(big)) = (p.perfdog_jank, p.perfdog_big_jank) {
        if jank > 0 {
            words.push(format!("PerfDog jank {jank}, big {big}"));
        }
    }
    words.join(" · ")
}

/// Per layer of `report.layers` (most frames first), its frames by colour class.
pub fn breakdown(report: &Report) -> Vec<LayerBreakdown> {
    let mut classes: BTreeMap<(i32, &str), BTreeMap<JankClass, u64>> = BTreeMap::new();
    for f in &report.frames {
        *classes
            .entry((f.pid, f.layer_name.as_str()))
            .or_default()
            .entry(JankClass::of(f.jank_tag))
            .or_default() += 1;
    }
    let mut rows: Vec<LayerBreakdown> = report
        .layers
        .iter()
        .map(|l| {
            let counts = classes.get(&(l.pid, l.layer_name.as_str()));
            LayerBreakdown {
                label: layer_label(&l.layer_name),
                frames: l.frames,
                classes: JankClass::ALL
                    .iter()
                    .filter_map(|c| Some((*c, *counts?.get(c)?)))
                    .collect(),
                top_jank_types: l.top_jank_types.clone(),
                pacing: pacing_words(&l.pacing),
            }
        })
        .collect();
    rows.sort_by_key(|r| std::cmp::Reverse(r.frames));
    rows
}

/// The device in words from the build fingerprint (`brand/product/device:release/...` → `product, Android
/// release`), or the SDK level.
fn device(report: &Report) -> Option<String> {
    let from_fingerprint = report
        .trace
        .device_fingerprint
        .as_deref()
        .map(label::device);
    from_fingerprint.or_else(|| report.trace.android_sdk_version.map(|v| format!("SDK {v}")))
}

/// The title line: trace file name, device, refresh rate, window.
pub fn title(report: &Report, window: &Window) -> String {
    let name = std::path::Path::new(&report.trace.path)
        .file_name()
        .map_or_else(
            || report.trace.path.clone(),
            |n| n.to_string_lossy().into_owned(),
        );
    let mut parts = vec![if name.is_empty() {
        "trace".to_string()
    } else {
        name
    }];
    parts.extend(device(report));
    parts.extend(
        report
            .vsync
            .refresh_rate_hz()
            .map(|hz| format!("{hz:.0} Hz")),
    );
    parts.push(window.describe());
    parts.join("  ·  ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::frames::DisplayFrameRow;

    fn frame(start: i64, end: i64, tag: JankTag, severity: &'static str) -> FrameRow {
        FrameRow {
            pid: 10,
            process_name: "com.app".into(),
            layer_name: "TX - com.app/com.app.Main#1".into(),
            actual_start_ns: start,
            actual_end_ns: Some(end),
            dur_ns: end - start,
            expected_start_ns: Some(start),
            expected_end_ns: Some(start + 10),
            present_ns: Some(end + 5),
            jank_tag: tag,
            jank_severity_type: severity,
            ..Default::default()
        }
    }

    fn report(frames: Vec<FrameRow>, display_frames: Vec<DisplayFrameRow>) -> Report {
        let mut r = crate::analysis::analyze_timeline(Default::default(), &Default::default());
        let first = frames.iter().map(|f| f.actual_start_ns).min().unwrap_or(0);
        let last = frames
            .iter()
            .filter_map(|f| f.present_ns)
            .max()
            .unwrap_or(0);
        r.trace.first_ts_ns = first;
        r.trace.last_ts_ns = last;
        r.layers = crate::analysis::metrics::layer_summaries(&frames, None);
        r.frames = frames;
        r.display_frames = display_frames;
        r
    }

    #[test]
    fn colours_follow_the_perfetto_ui() {
        assert_eq!(
            JankClass::of(JankTag::SelfJank).rgb("Full"),
            Rgb(0xFF, 0x57, 0x22)
        );
        assert_eq!(
            JankClass::of(JankTag::SelfJank).rgb("Partial"),
            Rgb(0xEF, 0x9A, 0x9A)
        );
        assert_eq!(
            JankClass::of(JankTag::OtherJank).rgb("Full"),
            Rgb(0xFF, 0xEB, 0x3B)
        );
        assert_eq!(
            JankClass::of(JankTag::DroppedFrame).rgb("None"),
            Rgb(0x03, 0xA9, 0xF4)
        );
        assert_eq!(
            JankClass::of(JankTag::SurfaceFlingerStuffing).rgb("Unknown"),
            Rgb(0xC0, 0xD5, 0x88)
        );
        assert_eq!(
            JankClass::of(JankTag::BufferStuffing),
            JankClass::HighLatency
        );
        assert_eq!(
            JankClass::of(JankTag::NoJank).rgb("None"),
            Rgb(0x4C, 0xAF, 0x50)
        );
        assert_eq!(
            JankClass::of(JankTag::Unspecified).rgb("None"),
            Rgb(0xF5, 0x15, 0xE0)
        );
        for tag in [
            JankTag::SelfJank,
            JankTag::OtherJank,
            JankTag::DroppedFrame,
            JankTag::NoJank,
        ] {
            assert_eq!(JankClass::of(tag).is_janky(), tag.is_janky(), "{tag:?}");
        }
    }

    #[test]
    fn window_ranges_parse_in_ms_and_seconds() {
        let range = |s: i64, e: i64| WindowSpec::Range {
            start_ns: s,
            end_ns: e,
        };
        assert_eq!(
            WindowSpec::parse_range("1500ms..4s"),
            Ok(range(1_500_000_000, 4 * NS_PER_S))
        );
        assert_eq!(
            WindowSpec::parse_range("1.5..4"),
            Ok(range(1_500_000_000, 4 * NS_PER_S))
        );
        assert_eq!(
            WindowSpec::parse_range(" 0 .. 250ms"),
            Ok(range(0, 250 * NS_PER_MS))
        );
        for bad in ["4..1", "1..1", "-1..2", "1-2", "a..b", "1..", "1s..2x"] {
            assert!(WindowSpec::parse_range(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn short_spans_are_shown_whole_and_long_ones_at_their_jankiest() {
        let s = NS_PER_S;
        let mut frames: Vec<FrameRow> = (0..30)
            .map(|i| frame(i * s, i * s + 10, JankTag::NoJank, "None"))
            .collect();
        for t in [21, 22, 23, 5] {
            frames.push(frame(t * s + 100, t * s + 200, JankTag::SelfJank, "Full"));
        }
        let auto = WindowSpec::Auto { len_ns: 5 * s };
        let w = Window::choose(auto, &frames, 0, 30 * s);
        assert_eq!(w.choice, WindowChoice::MostJanky { janky: 3 });
        assert!(
            w.start_ns <= 21 * s && w.end_ns > 23 * s && w.len_ns() == 5 * s,
            "{w:?}"
        );
        assert_eq!(
            Window::choose(auto, &frames, 0, 10 * s).choice,
            WindowChoice::WholeSpan
        );
        assert_eq!(
            Window::choose(WindowSpec::All, &frames, 7, 30 * s),
            Window {
                origin_ns: 7,
                start_ns: 7,
                end_ns: 30 * s,
                choice: WindowChoice::All
            }
        );
        let given = WindowSpec::Range {
            start_ns: s,
            end_ns: 2 * s,
        };
        assert_eq!((Window::choose(given, &frames, 7, 30 * s).start_ns), s + 7);
        // Near the end, the window stays inside the span.
        frames.push(frame(29 * s, 29 * s + 1, JankTag::DroppedFrame, "None"));
        frames.push(frame(29 * s + 5, 29 * s + 9, JankTag::OtherJank, "Full"));
        frames.push(frame(29 * s + 7, 29 * s + 9, JankTag::OtherJank, "Full"));
        frames.push(frame(28 * s, 28 * s + 9, JankTag::OtherJank, "Full"));
        let w = Window::choose(auto, &frames, 0, 30 * s);
        assert_eq!(
            (w.start_ns, w.end_ns, w.choice),
            (25 * s, 30 * s, WindowChoice::MostJanky { janky: 4 })
        );
    }

    #[test]
    fn janky_frames_are_never_narrower_than_two_pixels() {
        let scale = XScale {
            start_ns: 0,
            end_ns: 10 * NS_PER_S,
            width_px: 1000,
        };
        assert_eq!(scale.span(0, NS_PER_S, MIN_PX), Some((0, 100)));
        assert_eq!(
            scale.span(5_000_000_000, 5_000_000_001, JANKY_MIN_PX),
            Some((500, 502))
        );
        assert_eq!(
            scale.span(5_000_000_000, 5_000_000_001, MIN_PX),
            Some((500, 501))
        );
        // At the right edge the minimum width is kept inside the plot.
        assert_eq!(
            scale.span(10 * NS_PER_S, 10 * NS_PER_S, JANKY_MIN_PX),
            Some((998, 1000))
        );
        assert_eq!(scale.span(-5, 20 * NS_PER_S, MIN_PX), Some((0, 1000)));
        assert_eq!(scale.span(11 * NS_PER_S, 12 * NS_PER_S, MIN_PX), None);
    }

    #[test]
    fn lanes_draw_good_frames_first_and_janky_last_in_perfetto_colours() {
        let frames = vec![
            frame(0, 100, JankTag::SelfJank, "Full"),
            frame(50, 150, JankTag::NoJank, "None"),
            frame(120, 300, JankTag::BufferStuffing, "Partial"),
            frame(200, 260, JankTag::OtherJank, "Partial"),
        ];
        let display = vec![DisplayFrameRow {
            pid: 1,
            actual_start_ns: 90,
            present_ns: Some(160),
            expected_start_ns: Some(80),
            expected_end_ns: Some(150),
            jank_tag: JankTag::SelfJank,
            jank_severity_type: "Full",
            ..Default::default()
        }];
        let r = report(frames, display);
        let window = Window::choose(WindowSpec::All, &r.frames, 0, 400);
        let t = Timeline::build(&r, window, Room::pairs(8), 400);
        assert_eq!(t.groups.len(), 2);
        let app = &t.groups[0];
        assert_eq!(app.label, "com.app / Main#1");
        let colours: Vec<(i64, Rgb, bool)> = app
            .actual
            .iter()
            .map(|b| (b.start_ns, b.rgb, b.janky))
            .collect();
        assert_eq!(
            colours,
            vec![
                (50, Rgb(0x4C, 0xAF, 0x50), false),
                (120, Rgb(0xDC, 0xED, 0xC8), false),
                (0, Rgb(0xFF, 0x57, 0x22), true),
                (200, Rgb(0xFF, 0xF9, 0xC4), true),
            ]
        );
        assert_eq!(app.janky, 2);
        assert!(app.expected.iter().all(|b| b.rgb == EXPECTED_RGB) && app.expected.len() == 4);
        assert_eq!(app.presents_ns, vec![105, 155, 265, 305]);
        let sf = &t.groups[1];
        assert_eq!(sf.label, "SurfaceFlinger / DisplayFrames");
        assert_eq!(
            sf.actual,
            vec![Bar {
                start_ns: 90,
                end_ns: 160,
                rgb: Rgb(0xFF, 0x57, 0x22),
                janky: true,
                row: 0,
            }]
        );
        assert_eq!(sf.expected.len(), 1);
        // A window that excludes everything but the first frame.
        let narrow = Window {
            start_ns: 0,
            end_ns: 40,
            ..window
        };
        let t = Timeline::build(&r, narrow, Room::pairs(8), 400);
        assert_eq!(t.groups[0].actual.len(), 1);
        assert!(t.groups[1].actual.is_empty());
    }

    #[test]
    fn layers_that_do_not_fit_are_the_least_janky_and_counted() {
        let mut frames = Vec::new();
        for (i, janky) in [(0, false), (1, true), (2, false)] {
            let mut f = frame(
                i * 10,
                i * 10 + 5,
                if janky {
                    JankTag::SelfJank
                } else {
                    JankTag::NoJank
                },
                "Full",
            );
            f.layer_name = format!("layer{i}");
            frames.push(f);
        }
        frames.push(FrameRow {
            layer_name: "layer2".into(),
            ..frame(30, 35, JankTag::NoJank, "None")
        });
        let r = report(frames, Vec::new());
        let window = Window::choose(WindowSpec::All, &r.frames, 0, 100);
        let t = Timeline::build(&r, window, Room::pairs(3), 100);
        let labels: Vec<&str> = t.groups.iter().map(|g| g.label.as_str()).collect();
        assert_eq!(
            labels,
            vec!["layer1", "layer2", "SurfaceFlinger / DisplayFrames"]
        );
        assert_eq!(t.hidden_groups, 1);
    }

    #[test]
    fn vsync_grid_is_on_the_period_and_skipped_when_too_dense() {
        let mut vsync = crate::analysis::vsync::VsyncModel::default();
        vsync.windows.push(crate::analysis::vsync::VsyncWindow {
            start_ns: 2_000,
            end_ns: 5_000,
            measured_period_ns: 100,
            ..Default::default()
        });
        let window = Window {
            origin_ns: 0,
            start_ns: 850,
            end_ns: 1_300,
            choice: WindowChoice::All,
        };
        assert_eq!(
            vsync_grid(&vsync, &window, 450),
            vec![900, 1_000, 1_100, 1_200, 1_300]
        );
        // 100 ns is 2 px on 900 ns / 18 px: too dense.
        assert!(vsync_grid(
            &vsync,
            &Window {
                end_ns: 1_750,
                ..window
            },
            18
        )
        .is_empty());
    }

    #[test]
    fn histogram_counts_good_and_janky_durations_with_overflow_in_the_last_bin() {
        let ms = NS_PER_MS;
        let mut frames: Vec<FrameRow> = (0..100)
            .map(|i| frame(0, 3 * ms + i, JankTag::NoJank, "None"))
            .collect();
        frames.push(frame(0, 20 * ms, JankTag::SelfJank, "Full"));
        frames.push(frame(0, 900 * ms, JankTag::SelfJank, "Full"));
        let mut unfinished = frame(0, 1, JankTag::NoJank, "None");
        unfinished.dur_ns = -1;
        frames.push(unfinished);
        let h = Histogram::build(&report(frames, Vec::new()));
        assert_eq!(h.bin_ns, 250_000);
        let total: u32 = h.counts.iter().map(|c| c.0 + c.1).sum();
        assert_eq!(total, 102);
        assert_eq!(h.counts.get(12), Some(&(100, 0)));
        assert_eq!(h.counts.last().map(|c| c.1), Some(2));
    }

    #[test]
    fn rates_count_janky_frames_and_distinct_presents_per_second() {
        let s = NS_PER_S;
        let mut frames: Vec<FrameRow> = (0..100)
            .map(|i| frame(i * s / 10, i * s / 10 + 5, JankTag::NoJank, "None"))
            .collect();
        frames.push(frame(3 * s + 1, 3 * s + 9, JankTag::SelfJank, "Full"));
        let mut same_present = frame(3 * s + 2, 3 * s + 5, JankTag::NoJank, "None");
        same_present.present_ns = Some(3 * s + 10);
        frames.push(same_present);
        let r = report(frames, Vec::new());
        let window = Window {
            origin_ns: 0,
            start_ns: s,
            end_ns: 2 * s,
            choice: WindowChoice::Given,
        };
        let rates = Rates::build(&r, &window);
        assert_eq!(rates.bin_ns, s);
        // 9.9 s: nine bins, the last one 1.9 s long.
        assert_eq!(rates.janky.len(), 9);
        assert_eq!(rates.span_ns, 9_900_000_010);
        let last = rates.fps.last().copied().unwrap_or(0.0);
        assert!((last - 20.0 / 1.900_000_01).abs() < 1e-6, "{last}");
        assert_eq!(rates.janky.get(3), Some(&1));
        assert_eq!(rates.janky.iter().sum::<u32>(), 1);
        assert_eq!(rates.fps.first(), Some(&10.0));
        assert_eq!(rates.fps.get(3), Some(&11.0));
        assert_eq!(rates.window_ns, Some((s, 2 * s)));
        // Long spans get wider bins (at most 300), short ones narrower (at least 8).
        let long = report(
            vec![
                frame(0, 1, JankTag::NoJank, "None"),
                frame(1000 * s, 1000 * s + 1, JankTag::NoJank, "None"),
            ],
            Vec::new(),
        );
        assert_eq!(Rates::build(&long, &window).bin_ns, 5 * s);
        let short = report(
            vec![
                frame(0, 1, JankTag::NoJank, "None"),
                frame(s / 2, s / 2 + 1, JankTag::NoJank, "None"),
            ],
            Vec::new(),
        );
        assert_eq!(Rates::build(&short, &window).bin_ns, 50_000_000);
    }

    #[test]
    fn breakdown_counts_frames_per_colour_class_per_layer() {
        let mut frames = vec![
            frame(0, 1, JankTag::SelfJank, "Full"),
            frame(0, 1, JankTag::SelfJank, "Partial"),
            frame(0, 1, JankTag::NoJank, "None"),
        ];
        frames[0].jank_type = "App Deadline Missed".into();
        frames[0].jank_bits = crate::model::jank::bits::APP_DEADLINE_MISSED;
        let mut other = frame(0, 1, JankTag::BufferStuffing, "None");
        other.layer_name = "other".into();
        frames.push(other);
        let rows = breakdown(&report(frames, Vec::new()));
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].frames, 3);
        assert_eq!(
            rows[0].classes,
            vec![(JankClass::NoJank, 1), (JankClass::SelfJank, 2)]
        );
        assert_eq!(rows[1].classes, vec![(JankClass::HighLatency, 1)]);
    }
}
