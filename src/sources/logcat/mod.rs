//! `adb logcat` text → per process, Choreographer "Skipped N frames!" events (the input of Tencent GT's SM,
//! [`crate::analysis::gt`]) and HWUI `Davey!` frames ([`DaveyFrame`]), with process names where the log gives them.
//!
//! `Choreographer.doFrame` (frameworks/base `core/java/android/view/Choreographer.java`) logs, at priority `I`
//! with tag `Choreographer`, `Skipped <N> frames!  The application may be doing too much work on its main
//! thread.` when a frame starts `N ≥ debug.choreographer.skipwarning` (default 30) vsync periods late. GT records
//! it with `adb logcat -v time -s Choreographer:I`.
//!
//! Accepted line formats (`logcat`'s `logprint.cpp`, `android_log_formatLogLine`; Android Studio's Logcat
//! window when its lines are copied or exported):
//!
//! ```text
//! -v brief        I/Choreographer( 1234): Skipped 31 frames!  The application may be ...
//! -v process      I( 1234) Skipped 31 frames!  The application may be ...  (Choreographer)
//! -v tag          I/Choreographer: Skipped 31 frames!  ...                       (no pid)
//! -v thread       I( 1234: 1250) Skipped 31 frames!  ...                          (no tag)
//! -v time         11-23 11:20:03.123 I/Choreographer( 1234): Skipped 31 frames!  ...
//! -v threadtime   11-23 11:20:03.123  1234  1250 I Choreographer: Skipped 31 frames!  ...
//! -v long         [ 11-23 11:20:03.123  1234: 1250 I/Choreographer ]   (message on the next lines)
//! Studio          2026-02-03 16:04:55.322 18439-18439 Choreographer   com.app.ralaunch   I  Skipped 57 frames! ...
//! Studio (older)  01-29 11:32:58.193 1868-1868/com.app I/Choreographer: Skipped 151 frames!  ...
//! ```
//!
//! with logcat's modifiers: `year` (`2026-11-23 …`), `usec`/`nsec` (1–9 fraction digits), `zone`
//! (`11:20:03.123 +0800`), `epoch` (`1700000000.123`, read as UTC), `monotonic` (`  1234.567`, seconds since
//! boot), `uid` (`10123:` or a short user name before the pid), `printable` (escapes inside the message only)
//! and `color` (ANSI escapes around the line, removed); Android Studio's views without some columns (time of day
//! only, no pid, no tag, no package). `--------- beginning of main` separators, blank lines, a leading U+FEFF and
//! `\r` line ends are accepted. Other lines are counted in the diagnostics, never fatal: indented continuation
//! lines of multi-line messages, a first line cut by a paste, wrapped text, adb messages (`-v raw` lines, which
//! hold only the message, are among them). Lines of every tag are read (they give the capture's span and
//! process names).
//!
//! What becomes what:
//! - a `Choreographer` line whose message starts with `Skipped <N> frames!` is a [`SkipEvent`] (GT filters on the
//!   text `uch work on its main t` after `-s Choreographer:I`, which selects the same lines); in a format without
//!   a tag, a message `Skipped <N> frames!  The application may be doing too much work…` counts;
//! - a message starting with `Davey! duration=` (HWUI, tag `OpenGLRenderer`) is a [`DaveyFrame`];
//! - process names ([`ChoreographerLog::process_names`]): Android Studio's package column, and ActivityManager's
//!   `Start proc <pid>:<name>/<uid> for …` (Android 7+, `ProcessList.java`) or `Start proc <name> for …: pid=<pid>
//!   uid=…` (before);
//! - lines without a pid (`-v tag`, Studio views without the pid column) still count: their events are kept
//!   apart, under an unknown pid, and a diagnostic says how many lines had no pid.

mod davey;
mod line;
mod stamp;

pub use davey::DaveyFrame;

use super::for_each_line;
use crate::error::{Error, Result};
use crate::model::CaptureDiagnostics;
use line::{parse_line, Entry, Parsed};
use serde::Serialize;
use stamp::{Clock, Stamp};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::BufRead;
use std::ops::ControlFlow;
use std::path::Path;

/// Diagnostics key: lines in none of the accepted formats.
const GARBAGE: &str = "lines in no known logcat format (skipped)";
/// Diagnostics key: an unrecognised first line (the file starts in the middle of a line).
const CUT_FIRST: &str = "first line not a whole log line (the file starts mid-line?) (skipped)";
/// Diagnostics key: indented lines that are not entries.
const CONTINUATION: &str = "indented lines: continuations of multi-line messages (skipped)";
/// Diagnostics key: entries in another format than the file's first entry.
const MIXED: &str = "lines in another logcat format than the first line (read anyway)";
/// Diagnostics key: timestamps earlier than the line before.
const BACKWARDS: &str = "timestamps going backwards";
/// Diagnostics key: December → January without a year in the timestamp.
const ROLLOVER: &str = "year rollovers assumed (December → January, no year in the timestamps)";
/// Diagnostics key: a time of day far below the one before, without a date.
const DAY_ROLLOVER: &str = "day rollovers assumed (time of day only, back by more than 12 h)";
/// Diagnostics key: a Choreographer `Skipped` line whose N could not be read.
const BAD_SKIP: &str =
    "Choreographer \"Skipped\" lines whose frame count could not be read (skipped)";
/// Diagnostics key: a `Davey!` line whose duration or times could not be read.
const BAD_DAVEY: &str = "HWUI \"Davey!\" lines whose duration or times could not be read (skipped)";
/// Diagnostics key: log lines without a pid.
const NO_PID: &str =
    "lines without a pid (-v tag, or a view without the pid column): their skipped frames and \
     Davey frames cannot be assigned to a process and are reported under an unknown pid";
/// Diagnostics key: a pid named twice differently.
const RENAMED: &str =
    "pids given a second, different process name (pid reused? the first name is kept)";
/// Diagnostics key: bytes that are not UTF-8.
const NOT_UTF8: &str = "lines with invalid UTF-8 (decoded lossily)";
/// Diagnostics key: lines longer than [`MAX_LINE_BYTES`](super::MAX_LINE_BYTES).
const OVERLONG: &str = "overlong lines (only their first 64 KiB read)";
/// A file with no logcat line among its first this many lines is rejected without reading on.
const GIVE_UP_AFTER: u64 = 10_000;
/// At most this many year (or day) rollovers are assumed (keeps the arithmetic bounded); later ones are
/// "backwards".
const MAX_ROLLOVERS: u32 = 100;
/// Half a day: a time of day that goes back by more is taken for the next day.
const HALF_DAY_NS: u64 = 43_200_000_000_000;

/// Which format the file is in (that of its first log line), serialised in snake case.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LogFormat {
    /// `-v brief` (logcat's old default): `I/Choreographer( 1234): …`, no timestamp.
    #[default]
    Brief,
    /// `-v process`: `I( 1234) …  (Choreographer)`, no timestamp.
    Process,
    /// `-v tag`: `I/Choreographer: …`, no timestamp, no pid.
    Tag,
    /// `-v thread`: `I( 1234: 1250) …`, no timestamp, no tag.
    Thread,
    /// `-v time` (what GT records): `11-23 11:20:03.123 I/Choreographer( 1234): …`.
    Time,
    /// `-v threadtime` (logcat's default since Android 7): `11-23 11:20:03.123  1234  1250 I Choreographer: …`.
    ThreadTime,
    /// `-v long`: `[ 11-23 11:20:03.123  1234: 1250 I/Choreographer ]`, the message on the lines after.
    Long,
    /// Android Studio's Logcat window (Dolphin and later): `2026-02-03 16:04:55.322 18439-18439 TAG  PACKAGE  I  …`.
    Studio,
    /// Android Studio's older Logcat window: `01-29 11:32:58.193 1868-1868/PACKAGE I/TAG: …`.
    StudioLegacy,
}

impl LogFormat {
    /// The format's name: logcat's `-v` name (`brief`, `process`, `tag`, `thread`, `time`, `threadtime`,
    /// `long`), or `studio`, `studio_legacy`.
    pub fn name(self) -> &'static str {
        match self {
            LogFormat::Brief => "brief",
            LogFormat::Process => "process",
            LogFormat::Tag => "tag",
            LogFormat::Thread => "thread",
            LogFormat::Time => "time",
            LogFormat::ThreadTime => "threadtime",
            LogFormat::Long => "long",
            LogFormat::Studio => "studio",
            LogFormat::StudioLegacy => "studio_legacy",
        }
    }
}

/// One Choreographer `Skipped N frames!` line (Choreographer.java `doFrame`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct SkipEvent {
    /// When it was logged, ns from an origin fixed within the file (only differences are meaningful): a dated
    /// wall-clock time as nanoseconds since 2000-01-01 (`MM-DD` without a year: since January 1 of an assumed
    /// year; `-v epoch`: UTC); a time of day alone: since midnight of the first day; `-v monotonic`: since boot.
    /// `None` in formats without a timestamp.
    pub ts_ns: Option<i64>,
    /// `N`, the vsync periods the frame started late (frames skipped).
    pub skipped: u64,
    /// 1-based line number in the file.
    pub line: u64,
}

/// The Choreographer skipped-frame events of one process, in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SkippedFrames {
    /// Process id of the logging process (logcat's pid column).
    pub pid: i32,
    /// Its `Skipped N frames!` lines, in file order.
    pub events: Vec<SkipEvent>,
}

/// What an `adb logcat` capture says about frames.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ChoreographerLog {
    /// The format of the file's first log line.
    pub format: LogFormat,
    /// Earliest timestamp of any log line (every tag), ns on the same origin as [`SkipEvent::ts_ns`]: the start
    /// of the capture's span. `None` when no line has a timestamp.
    pub first_ts_ns: Option<i64>,
    /// Latest timestamp of any log line, ns; `None` without timestamps.
    pub last_ts_ns: Option<i64>,
    /// One entry per pid that logged Choreographer skipped frames, sorted by pid; empty when none did.
    pub pids: Vec<SkippedFrames>,
    /// Lines read (every line, blank and unrecognised ones included).
    pub lines: u64,
    /// Recoverable oddities: unrecognised lines, timestamps going backwards, assumed year rollovers, mixed
    /// formats, unreadable frame counts, lines without a pid, invalid UTF-8.
    pub diagnostics: CaptureDiagnostics,
    /// `Skipped N frames!` lines without a pid (formats that print none), in file order.
    pub skips_without_pid: Vec<SkipEvent>,
    /// HWUI `Davey!` lines, in file order, each with the pid that logged it (`None` without a pid column). HWUI
    /// logs one only for a frame of 700 ms or more: these are not all slow frames.
    pub daveys: Vec<(Option<i32>, DaveyFrame)>,
    /// Process names by pid, from Android Studio's package column and ActivityManager `Start proc` lines (the
    /// first name given to a pid).
    pub process_names: BTreeMap<i32, String>,
}

/// True if the decoded text head (first ≤ 64 KiB of the file) holds at least one line in an accepted format (or
/// a `--------- beginning of` separator), a last line cut by the head's end aside: a logcat is known by the lines
/// it holds, wherever they are in the head. Callers try the stricter formats (`--latency`, gfxinfo) first.
pub fn looks_like(head: &str) -> bool {
    let head = head.strip_prefix('\u{feff}').unwrap_or(head);
    let mut segments: Vec<&str> = head.split('\n').collect();
    if !head.ends_with('\n') && segments.len() > 1 {
        segments.pop();
    }
    segments.into_iter().any(|s| {
        let s = s.trim_end_matches('\r');
        is_separator(s) || parse_line(s).is_some()
    })
}

/// Reads an `adb logcat` capture. Errors: [`Error::Io`] when reading fails; [`Error::Capture`] (line 0) when no
/// line is in a logcat format (empty file, or not logcat: given up after 10 000 lines without one). Everything
/// else — unrecognised lines, timestamps going backwards, overlong lines — is counted in
/// [`ChoreographerLog::diagnostics`].
pub fn read<R: BufRead>(reader: R, path: &Path) -> Result<ChoreographerLog> {
    let mut state = State::default();
    for_each_line(reader, path, |line| {
        state.lines = line.no;
        if line.cut {
            state.diagnostics.note(OVERLONG, line.no);
        }
        let text = match std::str::from_utf8(line.bytes) {
            Ok(s) => Cow::Borrowed(s),
            Err(_) => {
                state.diagnostics.note(NOT_UTF8, line.no);
                String::from_utf8_lossy(line.bytes)
            }
        };
        // A recorded capture's header comes before any entry.
        let header =
            state.entries == 0 && state.separators == 0 && super::is_header_line(line.bytes);
        if !header {
            state.line(&text, line.no);
        }
        Ok(
            if state.entries == 0 && state.separators == 0 && line.no >= GIVE_UP_AFTER {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            },
        )
    })?;
    state.finish(path)
}

fn is_separator(s: &str) -> bool {
    s.starts_with("--------- ")
}

/// What the message of a `Choreographer` line says: not a skip line, a skip of N, or a skip with an unreadable N.
fn parse_skipped(message: &str) -> Option<Option<u64>> {
    let rest = message.trim_start().strip_prefix("Skipped ")?;
    let n =
        stamp::digits(rest, 20).and_then(|(n, _, rest)| rest.starts_with(" frames!").then_some(n));
    Some(n)
}

/// ActivityManager's `Start proc` message: (pid, process name). Android 7+ (`ProcessList.java`):
/// `Start proc 1234:com.app/u0a61 for activity …`; before: `Start proc com.app for activity …: pid=1234 uid=…`.
fn parse_start_proc(message: &str) -> Option<(i32, &str)> {
    let rest = message.strip_prefix("Start proc ")?;
    let (pid, name) = match stamp::digits(rest, 10) {
        Some((pid, _, after)) => (pid, after.strip_prefix(':')?.split_once('/')?.0),
        None => {
            let (name, after) = rest.split_once(' ')?;
            let (_, pid) = after.split_once(": pid=")?;
            (stamp::digits(pid, 10)?.0, name)
        }
    };
    let name_ok = !name.is_empty() && !name.contains(char::is_whitespace);
    name_ok.then_some((i32::try_from(pid).ok()?, name))
}

#[derive(Debug, Clone, Copy)]
struct RawEvent {
    stamp: Option<Stamp>,
    skipped: u64,
    line: u64,
}

/// A `-v long` header waiting for its message line.
#[derive(Debug, Clone, Copy)]
struct Pending {
    stamp: Option<Stamp>,
    pid: Option<i32>,
    choreographer: bool,
}

#[derive(Debug, Default)]
struct State {
    lines: u64,
    entries: u64,
    separators: u64,
    /// Format (and its clock, and whether a year is given) of the first entry.
    first_format: Option<(LogFormat, Option<(Clock, bool)>)>,
    prev: Option<Stamp>,
    rollovers: u32,
    /// Earliest and latest stamps per kind (wall clock without and with a year, time of day, monotonic: their
    /// orders differ).
    ranges: [Option<(Stamp, Stamp)>; 4],
    /// Rollover count at which a February 29 without a year was seen (that year is a leap year).
    feb29_at: Option<u32>,
    events: BTreeMap<Option<i32>, Vec<RawEvent>>,
    daveys: Vec<(Option<i32>, Option<Stamp>, DaveyFrame)>,
    names: BTreeMap<i32, String>,
    /// A `-v long` header read, its message line next.
    pending: Option<Pending>,
    /// Inside a `-v long` message (until a blank line).
    in_long_message: bool,
    diagnostics: CaptureDiagnostics,
}

impl State {
    fn line(&mut self, s: &str, line_no: u64) {
        if s.trim().is_empty() {
            self.in_long_message = false;
            return;
        }
        if let Some(p) = self.pending.take() {
            self.in_long_message = true;
            self.message(p.stamp, p.pid, Some(p.choreographer), s, line_no);
            return;
        }
        if is_separator(s) {
            self.separators += 1;
            return;
        }
        let parsed = parse_line(s);
        if self.in_long_message && !matches!(parsed, Some(Parsed::LongHeader(_))) {
            return;
        }
        let (entry, long) = match parsed {
            Some(Parsed::Entry(e)) => (e, false),
            Some(Parsed::LongHeader(e)) => (e, true),
            None => {
                let what = if line_no == 1 {
                    CUT_FIRST
                } else if s.starts_with([' ', '\t']) {
                    CONTINUATION
                } else {
                    GARBAGE
                };
                self.diagnostics.note(what, line_no);
                return;
            }
        };
        self.in_long_message = false;
        self.entries += 1;
        let kind = (entry.format, entry.stamp.map(|t| (t.clock, t.dated())));
        match self.first_format {
            None => self.first_format = Some(kind),
            Some(first) if first != kind => self.diagnostics.note(MIXED, line_no),
            Some(_) => {}
        }
        let stamp = entry.stamp.map(|t| self.place(t, line_no));
        if entry.pid.is_none() {
            self.diagnostics.note(NO_PID, line_no);
        }
        if let (Some(pid), Some(package)) = (entry.pid, entry.package) {
            self.name(pid, package, line_no);
        }
        let Entry { pid, tag, .. } = entry;
        let choreographer = tag.map(|t| t == "Choreographer");
        if long {
            self.pending = Some(Pending {
                stamp,
                pid,
                choreographer: choreographer == Some(true),
            });
            return;
        }
        self.message(stamp, pid, choreographer, entry.message, line_no);
    }

    /// The message of an entry: a skip, a Davey, a `Start proc`, or nothing of interest. `choreographer` is
    /// `None` when the format has no tag.
    fn message(
        &mut self,
        stamp: Option<Stamp>,
        pid: Option<i32>,
        choreographer: Option<bool>,
        message: &str,
        line_no: u64,
    ) {
        let skip_line = match choreographer {
            Some(c) => c,
            None => message.contains("The application may be doing too much work"),
        };
        if skip_line {
            match parse_skipped(message) {
                None => {}
                Some(None) => self.diagnostics.note(BAD_SKIP, line_no),
                Some(Some(skipped)) => self.events.entry(pid).or_default().push(RawEvent {
                    stamp,
                    skipped,
                    line: line_no,
                }),
            }
            return;
        }
        if let Some(d) = davey::parse(message, line_no) {
            match d {
                Some(d) => self.daveys.push((pid, stamp, d)),
                None => self.diagnostics.note(BAD_DAVEY, line_no),
            }
            return;
        }
        if let Some((pid, name)) = parse_start_proc(message) {
            self.name(pid, name, line_no);
        }
    }

    /// Names `pid` (the first name given is kept; allocates only the first time).
    fn name(&mut self, pid: i32, name: &str, line_no: u64) {
        match self.names.get(&pid) {
            Some(known) if known != name => self.diagnostics.note(RENAMED, line_no),
            Some(_) => {}
            None => {
                self.names.insert(pid, name.to_string());
            }
        }
    }

    /// Assigns the stamp its year (or day) rollovers, notes backwards steps, and widens the span.
    fn place(&mut self, mut t: Stamp, line_no: u64) -> Stamp {
        if t.year.is_none() && t.clock != Clock::Monotonic {
            t.rollovers = self.rollovers;
        }
        if let Some(prev) = self.prev {
            if t < prev {
                let same = t.clock == prev.clock && t.year.is_none() && prev.year.is_none();
                let rollover = match t.clock {
                    Clock::Wall => same && prev.month == 12 && t.month == 1,
                    Clock::TimeOfDay => same && prev.nanos.saturating_sub(t.nanos) > HALF_DAY_NS,
                    Clock::Monotonic => false,
                } && self.rollovers < MAX_ROLLOVERS;
                if rollover {
                    self.rollovers += 1;
                    t.rollovers = self.rollovers;
                    let what = if t.clock == Clock::Wall {
                        ROLLOVER
                    } else {
                        DAY_ROLLOVER
                    };
                    self.diagnostics.note(what, line_no);
                } else {
                    self.diagnostics.note(BACKWARDS, line_no);
                }
            }
        }
        self.prev = Some(t);
        if t.clock == Clock::Wall
            && t.year.is_none()
            && t.month == 2
            && t.day == 29
            && self.feb29_at.is_none()
        {
            self.feb29_at = Some(t.rollovers);
        }
        let kind = match (t.clock, t.dated()) {
            (Clock::Wall, false) => 0,
            (Clock::Wall, true) => 1,
            (Clock::TimeOfDay, _) => 2,
            (Clock::Monotonic, _) => 3,
        };
        let range = &mut self.ranges[kind];
        *range = Some(match *range {
            None => (t, t),
            Some((lo, hi)) => (lo.min(t), hi.max(t)),
        });
        t
    }

    fn finish(self, path: &Path) -> Result<ChoreographerLog> {
        let Some((format, _)) = self.first_format else {
            let what = if self.lines == 0 {
                "empty file".to_string()
            } else if self.separators > 0 {
                format!(
                    "{} lines read, only logcat separator lines and no log line",
                    self.lines
                )
            } else {
                format!("{} lines read, none in a logcat format", self.lines)
            };
            return Err(Error::Capture {
                path: path.to_path_buf(),
                line: 0,
                cause: format!(
                    "not adb logcat output ({what}): expected `adb logcat` lines (any -v format) or Android \
                     Studio Logcat lines such as `11-23 11:20:03.123  1234  1250 I Choreographer: Skipped 31 \
                     frames!  The application may be doing too much work on its main thread.`"
                ),
            });
        };
        // Without a year: a non-leap year (2001), unless a February 29 says the year was a leap year (2000).
        let base_year = self.feb29_at.map_or(2001, |r| 2000 - i64::from(r));
        let ns = |t: Stamp| t.to_ns(base_year);
        let ends: Vec<(i64, i64)> = self
            .ranges
            .into_iter()
            .flatten()
            .map(|(lo, hi)| (ns(lo), ns(hi)))
            .collect();
        let first_ts_ns = ends.iter().map(|e| e.0).min();
        let last_ts_ns = ends.iter().map(|e| e.1).max();
        let events = |raw: Vec<RawEvent>| -> Vec<SkipEvent> {
            raw.into_iter()
                .map(|e| SkipEvent {
                    ts_ns: e.stamp.map(ns),
                    skipped: e.skipped,
                    line: e.line,
                })
                .collect()
        };
        let mut pids = Vec::new();
        let mut skips_without_pid = Vec::new();
        for (pid, raw) in self.events {
            match pid {
                Some(pid) => pids.push(SkippedFrames {
                    pid,
                    events: events(raw),
                }),
                None => skips_without_pid = events(raw),
            }
        }
        let daveys = self
            .daveys
            .into_iter()
            .map(|(pid, stamp, mut d)| {
                d.ts_ns = stamp.map(ns);
                (pid, d)
            })
            .collect();
        Ok(ChoreographerLog {
            format,
            first_ts_ns,
            last_ts_ns,
            pids,
            lines: self.lines,
            diagnostics: self.diagnostics,
            skips_without_pid,
            daveys,
            process_names: self.names,
        })
    }
}

#[cfg(test)]
mod tests;
