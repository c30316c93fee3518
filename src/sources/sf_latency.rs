//! Reader of `adb shell dumpsys SurfaceFlinger --latency <layer>` captures (one dump or many back to back) into
//! one [`FrameSeries`] (format: `shared/docs/frame-sources.md` §1; AOSP `FrameTracker::dumpStats`).

use super::for_each_line;
use crate::error::{Error, Result};
use crate::model::{CaptureDiagnostics, FrameSeries, SeriesFrame, SeriesFrames, Source};
use serde::Serialize;
use std::io::BufRead;
use std::ops::ControlFlow;
use std::path::Path;

/// What SurfaceFlinger prints for a fence still pending when the dump was taken.
const PENDING_FENCE: i64 = i64::MAX;
/// Rows a FrameTracker-backed dump prints: its ring of 128 records minus one.
const FRAME_TRACKER_ROWS: u64 = 127;
/// Plausible refresh periods (line 1), ns: 1 ms (1000 Hz) to 1 s.
const PERIOD_RANGE_NS: std::ops::RangeInclusive<i64> = 1_000_000..=1_000_000_000;
/// The warning line older SurfaceFlinger prints before a dump when its lock is busy (Catapult skips it).
const UNRESPONSIVE: &str = "SurfaceFlinger appears to be unresponsive";

/// Diagnostic keys (counted with line numbers).
pub mod note {
    /// `0 0 0` rows: unused slots of the ring buffer.
    pub const EMPTY_SLOT: &str = "empty slots (0 0 0) skipped";
    /// Rows whose actual present is INT64_MAX.
    pub const PENDING: &str = "rows with a pending present fence (INT64_MAX) skipped";
    /// Rows with actual present 0 (other times set) or negative.
    pub const NO_PRESENT: &str = "rows without a valid actual present time (0 or negative) skipped";
    /// Lines that are not `desired actual ready`.
    pub const NOT_A_ROW: &str = "lines that are not three integers skipped";
    /// A row whose actual present is not after the previous row's in the same dump.
    pub const BACKWARDS: &str = "rows going backwards in time inside one dump skipped";
    /// Rows of a later dump already seen in an earlier one (Chromium's `timestamp > last_timestamp` rule).
    pub const SEEN: &str = "frames already seen in an earlier dump (counted once)";
    /// SurfaceFlinger's "appears to be unresponsive" warning.
    pub const UNRESPONSIVE: &str = "SurfaceFlinger 'unresponsive' warnings skipped";
    /// Dumps that look answered from FrameTimeline.
    pub const FRAME_TIMELINE_BACKED: &str = "dumps that look FrameTimeline-backed (not 127 rows): line 1 may be \
                                             the layer's frame interval rather than the display's vsync period";
    /// A later dump's line 1 differs from the first dump's.
    pub const PERIOD_CHANGED: &str =
        "dumps whose refresh period differs from the first dump's (the first is used)";
}

/// A `--latency` capture read into one series.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct SfLatencyCapture {
    /// The layer's frames, each once, in actual-present order; `period_ns` is the first dump's line 1.
    pub series: FrameSeries,
    /// Dumps in the file (refresh-period lines).
    pub dumps: u64,
    /// Frame rows read (before skipping).
    pub rows: u64,
    /// Skipped and adjusted lines.
    pub diagnostics: CaptureDiagnostics,
}

/// True if the decoded text head looks like `--latency` output: its first meaningful line is one integer, and at
/// least half of the following non-empty lines of the head (up to 200, bar the last, possibly cut) are one or
/// three integers (a stray line is counted when read, not a reason to refuse the file).
pub fn looks_like(head: &str) -> bool {
    let mut lines = head
        .lines()
        .map(|l| l.trim_start_matches('\u{feff}').trim())
        .filter(|l| !l.is_empty() && !l.starts_with(UNRESPONSIVE) && !l.starts_with('#'));
    let first_is_period = lines
        .next()
        .is_some_and(|l| fields(l.as_bytes()).is_some_and(|(_, n)| n == 1));
    let rest: Vec<&str> = lines.take(201).collect();
    // The head may end inside its last line: leave that out, unless it is the only one.
    let sample = match rest.split_last() {
        Some((_, init)) if !init.is_empty() => init,
        _ => &rest[..],
    };
    let rows = sample
        .iter()
        .filter(|l| fields(l.as_bytes()).is_some_and(|(_, n)| n == 1 || n == 3))
        .count();
    first_is_period && 2 * rows >= sample.len()
}

/// The whitespace-separated integers of a line: up to three values and how many there were; `None` if a field
/// is not a decimal integer (optional sign), overflows i64, or there are more than three. One pass over the
/// bytes, digits summed as they come: this is the inner loop of a capture of millions of rows.
fn fields(line: &[u8]) -> Option<([i64; 3], usize)> {
    let mut values = [0i64; 3];
    let mut count = 0;
    let mut bytes = line.iter().copied().peekable();
    while let Some(&b) = bytes.peek() {
        if b.is_ascii_whitespace() {
            bytes.next();
            continue;
        }
        let negative = b == b'-';
        if negative || b == b'+' {
            bytes.next();
        }
        // Up to 18 digits cannot overflow an i64: summed unchecked; a 19th (INT64_MAX has 19) is checked.
        let (mut v, mut digits) = (0i64, 0u32);
        while let Some(d) = bytes
            .peek()
            .map(|b| b.wrapping_sub(b'0'))
            .filter(|d| *d <= 9)
        {
            v = if digits < 18 {
                v * 10 + i64::from(d)
            } else {
                v.checked_mul(10)?.checked_add(i64::from(d))?
            };
            digits += 1;
            bytes.next();
        }
        if digits == 0 || bytes.peek().is_some_and(|b| !b.is_ascii_whitespace()) {
            return None;
        }
        *values.get_mut(count)? = if negative { -v } else { v };
        count += 1;
    }
    Some((values, count))
}

/// The dump being read.
#[derive(Default)]
struct Dump {
    /// Line of its refresh-period line.
    line: u64,
    /// Rows it printed (all kinds).
    rows: u64,
    /// Whether it printed `0 0 0` rows.
    empty_slots: bool,
    /// Actual present of its previous kept row.
    last_present: Option<i64>,
}

/// The state of a capture being read, line by line.
#[derive(Default)]
struct Reader {
    capture: SfLatencyCapture,
    frames: SeriesFrames,
    period: Option<i64>,
    /// Line of the first refresh-period line.
    period_line: u64,
    dump: Option<Dump>,
    /// Actual present of the last frame kept (Chromium's `last_timestamp`).
    last_kept: Option<i64>,
    /// Written by `ftl record` / `ftl watch` (its header line): each dump holds only the frames new since the
    /// previous one, so a short dump says nothing about FrameTimeline.
    recorded: bool,
    /// The layer the recorded header names.
    recorded_layer: Option<String>,
}

impl Reader {
    /// Ends the current dump, flagging it if it looks answered from FrameTimeline.
    fn close_dump(&mut self) {
        if let Some(done) = self.dump.take() {
            if !self.recorded
                && done.rows != FRAME_TRACKER_ROWS
                && !done.empty_slots
                && done.rows > 0
            {
                self.capture
                    .diagnostics
                    .note(note::FRAME_TIMELINE_BACKED, done.line);
            }
        }
    }

    /// Reads line `line_no` (trimmed, not empty); an unusable capture is `Err(cause)`.
    fn line(&mut self, line_no: u64, line: &[u8]) -> std::result::Result<(), String> {
        let d = &mut self.capture.diagnostics;
        let Some(values) = fields(line) else {
            if line.starts_with(UNRESPONSIVE.as_bytes()) {
                d.note(note::UNRESPONSIVE, line_no);
            } else {
                d.note(note::NOT_A_ROW, line_no);
            }
            return Ok(());
        };
        match values {
            ([p, ..], 1) => {
                if !PERIOD_RANGE_NS.contains(&p) {
                    return Err(format!(
                        "refresh period {p} ns is not a plausible vsync period (expected 1 ms to 1 s in ns, e.g. \
                         16666666 at 60 Hz): not `dumpsys SurfaceFlinger --latency` output"
                    ));
                }
                match self.period {
                    None => {
                        self.period = Some(p);
                        self.period_line = line_no;
                    }
                    Some(first) if first != p => d.note(note::PERIOD_CHANGED, line_no),
                    Some(_) => {}
                }
                self.close_dump();
                self.capture.dumps += 1;
                self.dump = Some(Dump {
                    line: line_no,
                    ..Dump::default()
                });
            }
            ([desired, actual, ready], 3) => {
                let Some(current) = self.dump.as_mut() else {
                    return Err("a frame row before any refresh-period line: a `--latency` dump starts with the \
                                refresh period in ns on a line of its own"
                        .into());
                };
                self.capture.rows += 1;
                current.rows += 1;
                let skipped = if desired == 0 && actual == 0 && ready == 0 {
                    current.empty_slots = true;
                    Some(note::EMPTY_SLOT)
                } else if actual == PENDING_FENCE {
                    Some(note::PENDING)
                } else if actual <= 0 {
                    Some(note::NO_PRESENT)
                } else if current.last_present.is_some_and(|last| actual <= last) {
                    Some(note::BACKWARDS)
                } else {
                    current.last_present = Some(actual);
                    self.last_kept
                        .is_some_and(|last| actual <= last)
                        .then_some(note::SEEN)
                };
                if let Some(why) = skipped {
                    d.note(why, line_no);
                    return Ok(());
                }
                self.last_kept = Some(actual);
                let known = |t: i64| (t != 0 && t != PENDING_FENCE).then_some(t);
                self.frames.push(SeriesFrame {
                    desired_present_ns: known(desired),
                    present_ns: Some(actual),
                    ready_ns: known(ready),
                    ..SeriesFrame::default()
                });
            }
            _ => d.note(note::NOT_A_ROW, line_no),
        }
        Ok(())
    }
}

/// How `ftl record` heads a `--latency` capture, before the quoted layer name.
pub const RECORDED_COMMAND: &str = "# ftl record: dumpsys SurfaceFlinger --latency ";

/// A name quoted for the device's shell (`'…'`, a `'` written `'\''`) as it was given.
fn unquote(quoted: &str) -> String {
    let inner = quoted.trim();
    let inner = inner
        .strip_prefix('\'')
        .and_then(|i| i.strip_suffix('\''))
        .unwrap_or(inner);
    inner.replace("'\\''", "'")
}

/// Reads a `--latency` capture from decoded text. `layer_name` names the series (the `--latency` argument);
/// `None`: the layer a recorded capture's header names, else the file name without its extension.
///
/// Errors ([`Error::Capture`], naming the line): no refresh-period line, a refresh period outside 1 ms – 1 s,
/// frame rows before any refresh-period line, and dumps holding only the refresh period (the layer name
/// matched no layer). Skipped rows are counted in the diagnostics with their lines (see [`note`]).
pub fn read<R: BufRead>(
    reader: R,
    path: &Path,
    layer_name: Option<&str>,
) -> Result<SfLatencyCapture> {
    let fail = |line: u64, cause: String| Error::Capture {
        path: path.to_path_buf(),
        line,
        cause,
    };
    let mut state = Reader::default();
    for_each_line(reader, path, |line| {
        let bytes = line.bytes.trim_ascii();
        if super::is_header_line(bytes) {
            state.recorded |= bytes.starts_with(super::RECORDED_HEADER.as_bytes());
            let layer = std::str::from_utf8(bytes)
                .ok()
                .and_then(|l| l.strip_prefix(RECORDED_COMMAND))
                .map(unquote);
            state.recorded_layer = state.recorded_layer.take().or(layer);
        } else if !bytes.is_empty() {
            state
                .line(line.no, bytes)
                .map_err(|cause| fail(line.no, cause))?;
        }
        Ok(ControlFlow::Continue(()))
    })?;
    state.close_dump();
    let Reader {
        mut capture,
        frames,
        period,
        period_line,
        recorded_layer,
        ..
    } = state;
    let layer_name = layer_name
        .map(str::to_string)
        .or(recorded_layer)
        .unwrap_or_else(|| {
            path.file_stem().map_or_else(
                || path.display().to_string(),
                |s| s.to_string_lossy().into_owned(),
            )
        });
    let Some(period) = period else {
        return Err(fail(
            0,
            "no refresh-period line: not `dumpsys SurfaceFlinger --latency` output (expected the vsync period \
             in ns on line 1, then rows of `desiredPresentTime actualPresentTime frameReadyTime`)"
                .into(),
        ));
    };
    if capture.rows == 0 {
        return Err(fail(
            period_line,
            format!(
                "the device printed only its refresh period (\"{period}\") and no frame rows: the layer name \
                 given to `dumpsys SurfaceFlinger --latency` matched no layer, or the layer drew nothing; list the \
                 names with `adb shell dumpsys SurfaceFlinger --list` (a game draws into \
                 `SurfaceView[<package>/<activity>](BLAST)#N` from Android 12, whose #N changes when the surface \
                 is recreated from Android 13; `SurfaceView - <package>/<activity>#N` before) and dump again \
                 while the app draws, or let `ftl record --source latency --app PKG` find the layer"
            ),
        ));
    }
    // Frames are kept in actual-present order already (each dump ascending, later dumps only newer frames).
    capture.series = FrameSeries {
        source: Source::SfLatency,
        pid: None,
        process_name: None,
        layer_name,
        period_ns: Some(period),
        period_from: "--latency line 1",
        presents_from: "actualPresentTime (present fence)",
        frames,
    };
    Ok(capture)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<SfLatencyCapture> {
        read(text.as_bytes(), Path::new("cap.txt"), Some("SurfaceView"))
    }

    fn presents(c: &SfLatencyCapture) -> Vec<i64> {
        c.series
            .frames
            .iter()
            .filter_map(|f| f.present_ns)
            .collect()
    }

    #[test]
    fn catapult_rows_with_and_without_the_warning() {
        // Catapult's ParseFrameData test input and expectations (refresh 16.954612 ms, three presents).
        let rows = "16954612\n7657467895508   7657482691352   7657493499756\n\
                    7657484466553   7657499645964   7657511077881\n\
                    7657500793457   7657516600576   7657527404785\n";
        for text in [
            rows.to_string(),
            format!("SurfaceFlinger appears to be unresponsive, dumping anyways\n{rows}"),
        ] {
            let c = parse(&text).unwrap();
            assert_eq!(c.series.period_ns, Some(16_954_612));
            assert_eq!(
                presents(&c),
                vec![7657482691352, 7657499645964, 7657516600576]
            );
            let first = c.series.frames.get(0).unwrap();
            assert_eq!(first.desired_present_ns, Some(7657467895508));
            assert_eq!(first.ready_ns, Some(7657493499756));
        }
        assert!(looks_like(rows));
    }

    #[test]
    fn skips_pending_fences_empty_slots_and_bad_lines_with_their_line_numbers() {
        let text =
            "16666666\r\n0 0 0\r\n100 200 150\r\n1 9223372036854775807 2\r\n5 0 6\r\nx y z\r\n\
                    1 2\r\n300\t400\t350\r\n7 -9000000000000000000 7\r\n";
        let c = parse(text).unwrap();
        assert_eq!(presents(&c), vec![200, 400]);
        assert_eq!(c.diagnostics.counts[note::EMPTY_SLOT].lines, vec![2]);
        assert_eq!(c.diagnostics.counts[note::PENDING].lines, vec![4]);
        assert_eq!(c.diagnostics.counts[note::NO_PRESENT].lines, vec![5, 9]);
        assert_eq!(c.diagnostics.counts[note::NOT_A_ROW].lines, vec![6, 7]);
        assert_eq!((c.dumps, c.rows), (1, 6));
        // Not 127 rows, but it has 0 0 0 slots: FrameTracker-backed, not flagged.
        assert_eq!(c.diagnostics.count(note::FRAME_TIMELINE_BACKED), 0);
    }

    #[test]
    fn several_dumps_count_each_frame_once() {
        // A collector polling twice: the second dump repeats two frames and adds one.
        let text = "16666666\n1 100 1\n2 200 2\n3 300 3\n16666666\n2 200 2\n3 300 3\n4 400 4\n";
        let c = parse(text).unwrap();
        assert_eq!(presents(&c), vec![100, 200, 300, 400]);
        assert_eq!(c.dumps, 2);
        assert_eq!(c.diagnostics.counts[note::SEEN].lines, vec![6, 7]);
        // Two short dumps without 0 0 0 slots look FrameTimeline-backed.
        assert_eq!(
            c.diagnostics.counts[note::FRAME_TIMELINE_BACKED].lines,
            vec![1, 5]
        );
    }

    #[test]
    fn backwards_rows_and_period_changes_are_counted() {
        let text = "16666666\n1 300 1\n1 200 1\n1 400 1\n8333333\n1 500 1\n";
        let c = parse(text).unwrap();
        assert_eq!(presents(&c), vec![300, 400, 500]);
        assert_eq!(c.diagnostics.counts[note::BACKWARDS].lines, vec![3]);
        assert_eq!(c.diagnostics.counts[note::PERIOD_CHANGED].lines, vec![5]);
        assert_eq!(c.series.period_ns, Some(16_666_666));
    }

    #[test]
    fn a_full_frame_tracker_dump_is_not_flagged() {
        let mut text = String::from("16666666\n");
        for i in 0..127 {
            text.push_str(&format!("{i} {} {i}\n", 1000 + i));
        }
        let c = parse(&text).unwrap();
        assert_eq!(c.series.frames.len(), 127);
        assert_eq!(c.diagnostics.count(note::FRAME_TIMELINE_BACKED), 0);
    }

    #[test]
    fn unusable_captures_are_errors_naming_the_line() {
        let err = |t: &str| parse(t).unwrap_err().to_string();
        assert!(err("0\n1 2 3\n").contains("cap.txt: line 1: refresh period 0 ns"));
        assert!(err("16666666000000\n").contains("line 1: refresh period"));
        assert!(err("1 2 3\n").contains("line 1: a frame row before any refresh-period line"));
        assert!(err("16666666\n\n").contains("matched no layer"));
        assert!(err("").contains("no refresh-period line"));
        assert!(err("hello\nworld\n").contains("cap.txt: no refresh-period line"));
    }

    #[test]
    fn lines_straddling_buffer_fills_read_as_whole_lines() {
        let text = "\u{feff}16666666\r\n1 100 1\n\n  2 200 2  \r\n3 300 3";
        for capacity in [1, 2, 5, 7, 64] {
            let reader = std::io::BufReader::with_capacity(capacity, text.as_bytes());
            let c = read(reader, Path::new("cap.txt"), Some("L")).unwrap();
            assert_eq!(
                presents(&c),
                vec![100, 200, 300],
                "buffer of {capacity} bytes"
            );
        }
    }

    #[test]
    fn an_endless_line_is_cut_not_kept_whole() {
        let mut text = String::from("16666666\n1 100 1\n");
        text.push_str(&"7".repeat(4 * super::super::MAX_LINE_BYTES));
        text.push_str("\n2 200 2\n");
        let c = parse(&text).unwrap();
        assert_eq!(presents(&c), vec![100, 200]);
        assert_eq!(c.diagnostics.counts[note::NOT_A_ROW].lines, vec![3]);
    }

    #[test]
    fn recognises_its_format() {
        assert!(looks_like("\u{feff}16666666\r\n1 2 3\r\n4 5 6\r\n7 8"));
        assert!(looks_like("16666666\nhello world\n1 2 3\n4 5 6\n"));
        assert!(!looks_like("42\nhello world\nthis is prose\n"));
        assert!(looks_like("16666666\n"));
        assert!(!looks_like("1 2 3\n"));
        assert!(!looks_like("** Graphics info for pid 1 [x] **\n"));
    }
}
