//! The frame series: per layer or window, the frames of one capture with whatever times its source records —
//! the one input of the present-based pacing metrics, whatever file format it came from.

use serde::Serialize;
use std::collections::BTreeMap;

/// The kind of capture a series (or a whole input file) came from; serialised as the `source` column.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// A Perfetto trace with SurfaceFlinger FrameTimeline.
    #[default]
    Perfetto,
    /// `adb shell dumpsys SurfaceFlinger --latency <layer>` output.
    SfLatency,
    /// `adb shell dumpsys gfxinfo <package> [framestats]` output.
    Gfxinfo,
    /// `adb logcat` output with Choreographer "Skipped N frames!" lines.
    Logcat,
}

impl Source {
    /// The `source` column value: `perfetto`, `sf_latency`, `gfxinfo`, `logcat`.
    pub fn name(self) -> &'static str {
        match self {
            Source::Perfetto => "perfetto",
            Source::SfLatency => "sf_latency",
            Source::Gfxinfo => "gfxinfo",
            Source::Logcat => "logcat",
        }
    }

    /// What a user ran to capture it (for messages and the text report).
    pub fn command(self) -> &'static str {
        match self {
            Source::Perfetto => "Perfetto trace",
            Source::SfLatency => "dumpsys SurfaceFlinger --latency",
            Source::Gfxinfo => "dumpsys gfxinfo",
            Source::Logcat => "logcat (Choreographer)",
        }
    }
}

/// One frame of a [`FrameSeries`]: the times its source records, ns. Text captures are on CLOCK_MONOTONIC,
/// Perfetto traces on the trace clock; a time the source does not record is `None`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct SeriesFrame {
    /// When the frame was meant to start: FrameTimeline expected start, gfxinfo `IntendedVsync`.
    pub expected_start_ns: Option<i64>,
    /// When the app was meant to be done: FrameTimeline expected end, gfxinfo `FrameDeadline`.
    pub expected_end_ns: Option<i64>,
    /// When the app started it: FrameTimeline actual start, gfxinfo `Vsync` (the UI thread's start).
    pub actual_start_ns: Option<i64>,
    /// When the app was done: FrameTimeline actual end, gfxinfo `FrameCompleted`.
    pub actual_end_ns: Option<i64>,
    /// When the buffer was ready (acquire fence): `--latency` frameReadyTime, gfxinfo `GpuCompleted`.
    pub ready_ns: Option<i64>,
    /// When it was meant to reach the screen: `--latency` desiredPresentTime, FrameTimeline expected present.
    pub desired_present_ns: Option<i64>,
    /// When it reached the screen (present fence): `--latency` actualPresentTime, FrameTimeline DisplayFrame
    /// end, gfxinfo `DisplayPresentTime` — or the stand-in named by [`FrameSeries::presents_from`].
    pub present_ns: Option<i64>,
}

/// The frames of one layer (or gfxinfo window) from one capture, in capture order.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FrameSeries {
    /// What the capture was.
    pub source: Source,
    /// Owning process id, when the source says.
    pub pid: Option<i32>,
    /// Owning process name, when the source says.
    pub process_name: Option<String>,
    /// Layer name (SurfaceFlinger layer, or the gfxinfo window name).
    pub layer_name: String,
    /// Refresh period used to normalise frame lengths (Chromium's `refresh_period`), ns; `None` when unknown.
    pub period_ns: Option<i64>,
    /// Where `period_ns` came from, e.g. `--latency line 1`, `vsync model`, `FrameInterval`.
    pub period_from: &'static str,
    /// Which time `present_ns` holds, e.g. `present fence`, `DisplayPresentTime`, `FrameCompleted (no present
    /// times in this capture)`.
    pub presents_from: &'static str,
    /// The frames.
    pub frames: Vec<SeriesFrame>,
}

impl FrameSeries {
    /// Distinct present times of the series, ascending, ns.
    pub fn presents(&self) -> Vec<i64> {
        let mut p: Vec<i64> = self.frames.iter().filter_map(|f| f.present_ns).collect();
        p.sort_unstable();
        p.dedup();
        p
    }
}

/// How many times a recoverable oddity was seen in a text capture, and where.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LineCount {
    /// Occurrences.
    pub count: u64,
    /// The first line numbers (1-based) where it was seen, at most [`CaptureDiagnostics::LINES_KEPT`].
    pub lines: Vec<u64>,
}

/// Recoverable oddities of a text capture (skipped rows, pending fences, duplicate frames...): counted with their
/// line numbers, never fatal. Keys are short sentences, e.g. `rows with a pending fence (INT64_MAX) skipped`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct CaptureDiagnostics {
    /// Per kind of oddity.
    pub counts: BTreeMap<String, LineCount>,
}

impl CaptureDiagnostics {
    /// How many line numbers are kept per kind.
    pub const LINES_KEPT: usize = 10;

    /// Records one occurrence of `what` at 1-based `line` (0 when the oddity has no line).
    pub fn note(&mut self, what: &str, line: u64) {
        let entry = match self.counts.get_mut(what) {
            Some(e) => e,
            None => self.counts.entry(what.to_string()).or_default(),
        };
        entry.count += 1;
        if line > 0 && entry.lines.len() < Self::LINES_KEPT {
            entry.lines.push(line);
        }
    }

    /// Occurrences of `what` (0 if never seen).
    pub fn count(&self, what: &str) -> u64 {
        self.counts.get(what).map_or(0, |c| c.count)
    }

    /// Total occurrences of every kind.
    pub fn total(&self) -> u64 {
        self.counts.values().map(|c| c.count).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presents_are_sorted_and_distinct() {
        let f = |p| SeriesFrame {
            present_ns: p,
            ..Default::default()
        };
        let s = FrameSeries {
            frames: vec![f(Some(30)), f(None), f(Some(10)), f(Some(30))],
            ..Default::default()
        };
        assert_eq!(s.presents(), vec![10, 30]);
    }

    #[test]
    fn diagnostics_count_and_keep_first_lines() {
        let mut d = CaptureDiagnostics::default();
        for line in 1..=12 {
            d.note("x", line);
        }
        d.note("y", 0);
        assert_eq!(d.count("x"), 12);
        assert_eq!(d.counts["x"].lines, (1..=10).collect::<Vec<_>>());
        assert_eq!(d.counts["y"].lines, Vec::<u64>::new());
        assert_eq!(d.total(), 13);
    }
}
