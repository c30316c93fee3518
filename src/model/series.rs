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

/// The times of a frame in [`SeriesFrames`]' column order.
const TIMES: usize = 7;
/// How [`SeriesFrames`] marks a frame without a time in a column it stores (not a time any source writes).
const ABSENT: i64 = i64::MIN;

impl SeriesFrame {
    fn times(&self) -> [Option<i64>; TIMES] {
        [
            self.expected_start_ns,
            self.expected_end_ns,
            self.actual_start_ns,
            self.actual_end_ns,
            self.ready_ns,
            self.desired_present_ns,
            self.present_ns,
        ]
    }

    fn from_times(t: [Option<i64>; TIMES]) -> SeriesFrame {
        let [expected_start_ns, expected_end_ns, actual_start_ns, actual_end_ns, ready_ns, desired_present_ns, present_ns] =
            t;
        SeriesFrame {
            expected_start_ns,
            expected_end_ns,
            actual_start_ns,
            actual_end_ns,
            ready_ns,
            desired_present_ns,
            present_ns,
        }
    }
}

/// The frames of a series, in order, stored by column: a kind of time no frame has takes no memory, so a
/// `--latency` frame (3 times) costs 24 bytes instead of a [`SeriesFrame`]'s 112 — a capture of millions of
/// frames stays small. Rows go in with [`SeriesFrames::push`] and come out as [`SeriesFrame`]s. `i64::MIN` is not a
/// time: pushed, it reads back as `None`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SeriesFrames {
    len: usize,
    /// Per kind of time (`SeriesFrame` field order): empty while no frame has it, else one value per frame.
    columns: [Vec<i64>; TIMES],
}

impl SeriesFrames {
    /// Appends a frame.
    #[inline]
    pub fn push(&mut self, frame: SeriesFrame) {
        for (column, time) in self.columns.iter_mut().zip(frame.times()) {
            match time {
                Some(t) => {
                    if column.is_empty() && self.len > 0 {
                        column.resize(self.len, ABSENT);
                    }
                    column.push(t);
                }
                None if !column.is_empty() => column.push(ABSENT),
                None => {}
            }
        }
        self.len += 1;
    }

    /// Appends `later`'s frames, as [`SeriesFrames::push`] would one by one.
    pub fn append(&mut self, later: SeriesFrames) {
        for (column, theirs) in self.columns.iter_mut().zip(later.columns) {
            match (column.is_empty(), theirs.is_empty()) {
                (true, true) => {}
                (false, true) => column.resize(self.len + later.len, ABSENT),
                (_, false) => {
                    column.resize(self.len, ABSENT);
                    column.extend(theirs);
                }
            }
        }
        self.len += later.len;
    }

    /// Number of frames.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True without frames.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Frame `i`, if there is one.
    pub fn get(&self, i: usize) -> Option<SeriesFrame> {
        (i < self.len).then(|| {
            let mut times = [None; TIMES];
            for (time, column) in times.iter_mut().zip(&self.columns) {
                *time = column.get(i).copied().filter(|t| *t != ABSENT);
            }
            SeriesFrame::from_times(times)
        })
    }

    /// `(desired_present_ns, present_ns)` of the frames that have both, in order (read from the two columns).
    pub fn desired_and_present(&self) -> impl Iterator<Item = (i64, i64)> + '_ {
        self.with_present(TIMES - 2)
    }

    /// `(expected_start_ns, present_ns)` of the frames that have both, in order: when each presented frame was
    /// asked for (FrameTimeline expected start, gfxinfo `IntendedVsync`) and when it was shown.
    pub fn requested_and_present(&self) -> impl Iterator<Item = (i64, i64)> + '_ {
        self.with_present(0)
    }

    /// `(time of column i, present_ns)` of the frames that have both, in order.
    fn with_present(&self, i: usize) -> impl Iterator<Item = (i64, i64)> + '_ {
        let column = |i: usize| self.columns.get(i).map_or(&[][..], Vec::as_slice);
        column(i)
            .iter()
            .zip(column(TIMES - 1))
            .filter(|(t, p)| **t != ABSENT && **p != ABSENT)
            .map(|(t, p)| (*t, *p))
    }

    /// The frames in order.
    pub fn iter(&self) -> impl Iterator<Item = SeriesFrame> + '_ {
        (0..self.len).filter_map(|i| self.get(i))
    }
}

impl FromIterator<SeriesFrame> for SeriesFrames {
    fn from_iter<I: IntoIterator<Item = SeriesFrame>>(iter: I) -> Self {
        let mut frames = SeriesFrames::default();
        for f in iter {
            frames.push(f);
        }
        frames
    }
}

impl Serialize for SeriesFrames {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
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
    pub frames: SeriesFrames,
}

impl FrameSeries {
    /// Distinct present times of the series, ascending, ns.
    pub fn presents(&self) -> Vec<i64> {
        let presents = self
            .frames
            .columns
            .get(TIMES - 1)
            .map_or(&[][..], Vec::as_slice);
        let mut p: Vec<i64> = presents.iter().copied().filter(|t| *t != ABSENT).collect();
        // Frames are in order and present in order but for a few (0.01 moves per frame on the FrameTimeline
        // replica's largest layer), where the standard sort sorted them whole.
        super::order::sort_nearly_sorted_by_key(&mut p, |t| t);
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
    fn appending_gives_what_pushing_one_by_one_gives() {
        // Each time present in some frames only, on either side of every split point.
        let frames: Vec<SeriesFrame> = (0..6i64)
            .map(|i| SeriesFrame {
                expected_start_ns: (i < 2).then_some(i),
                ready_ns: (i >= 4).then_some(10 + i),
                present_ns: (i % 2 == 0).then_some(20 + i),
                desired_present_ns: (i == 3).then_some(i64::MIN),
                ..Default::default()
            })
            .collect();
        let whole: SeriesFrames = frames.iter().copied().collect();
        for split in 0..=frames.len() {
            let mut first: SeriesFrames = frames[..split].iter().copied().collect();
            first.append(frames[split..].iter().copied().collect());
            assert_eq!(first, whole, "split at {split}");
        }
    }

    #[test]
    fn presents_are_sorted_and_distinct() {
        let f = |p| SeriesFrame {
            present_ns: p,
            ..Default::default()
        };
        let s = FrameSeries {
            frames: [f(Some(30)), f(None), f(Some(10)), f(Some(30))]
                .into_iter()
                .collect(),
            ..Default::default()
        };
        assert_eq!(s.presents(), vec![10, 30]);
    }

    #[test]
    fn frames_store_only_the_times_they_have_and_give_back_what_went_in() {
        let rows = [
            SeriesFrame {
                present_ns: Some(5),
                ..Default::default()
            },
            SeriesFrame {
                ready_ns: Some(0),
                present_ns: Some(-7),
                ..Default::default()
            },
            SeriesFrame::default(),
            SeriesFrame {
                expected_start_ns: Some(1),
                expected_end_ns: Some(2),
                actual_start_ns: Some(3),
                actual_end_ns: Some(4),
                ready_ns: Some(5),
                desired_present_ns: Some(6),
                present_ns: Some(7),
            },
        ];
        let frames: SeriesFrames = rows.into_iter().collect();
        assert_eq!(frames.len(), 4);
        assert_eq!(frames.iter().collect::<Vec<_>>(), rows);
        assert_eq!(frames.get(4), None);
        assert_eq!(frames.desired_and_present().collect::<Vec<_>>(), [(6, 7)]);
        let stored: Vec<usize> = frames.columns.iter().map(Vec::len).collect();
        assert_eq!(stored, [4, 4, 4, 4, 4, 4, 4]);
        let sparse: SeriesFrames = rows[..3].iter().copied().collect();
        let stored: Vec<usize> = sparse.columns.iter().map(Vec::len).collect();
        assert_eq!(
            stored,
            [0, 0, 0, 0, 3, 0, 3],
            "only ready and present are stored"
        );
        assert_eq!(
            serde_json::to_value(&sparse).unwrap()[1]["ready_ns"],
            serde_json::json!(0)
        );
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
