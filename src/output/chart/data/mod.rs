//! The chart model: window, lanes, rectangles, colours, vsync grid, bins and breakdowns, computed from the
//! [`Report`]'s per-frame rows without any pixels or plotters types.
//!
//! Here: units, colours, the window and the x scale; the lanes in `lanes`, the histogram, rates, breakdown and
//! title in `summary`.

mod lanes;
mod summary;

pub use lanes::*;
pub use summary::*;

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
                    .filter(|f| f.labels.jank_tag.is_janky())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::frames::{DisplayFrameRow, TracedLabels};
    use crate::model::jank::Severity;

    pub(super) fn frame(start: i64, end: i64, tag: JankTag, severity: Severity) -> FrameRow {
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
            labels: TracedLabels {
                jank_tag: tag,
                jank_severity_type: severity,
                ..Default::default()
            },
            ..Default::default()
        }
    }

    pub(super) fn report(frames: Vec<FrameRow>, display_frames: Vec<DisplayFrameRow>) -> Report {
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
        r.display_frames = Some(display_frames);
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
            .map(|i| frame(i * s, i * s + 10, JankTag::NoJank, Severity::None))
            .collect();
        for t in [21, 22, 23, 5] {
            frames.push(frame(
                t * s + 100,
                t * s + 200,
                JankTag::SelfJank,
                Severity::Full,
            ));
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
        frames.push(frame(
            29 * s,
            29 * s + 1,
            JankTag::DroppedFrame,
            Severity::None,
        ));
        frames.push(frame(
            29 * s + 5,
            29 * s + 9,
            JankTag::OtherJank,
            Severity::Full,
        ));
        frames.push(frame(
            29 * s + 7,
            29 * s + 9,
            JankTag::OtherJank,
            Severity::Full,
        ));
        frames.push(frame(
            28 * s,
            28 * s + 9,
            JankTag::OtherJank,
            Severity::Full,
        ));
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
}
