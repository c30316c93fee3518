//! `adb logcat` text → Choreographer "Skipped N frames!" events per process, the input of Tencent GT's SM
//! ([`crate::analysis::gt`]).
//!
//! `Choreographer.doFrame` (frameworks/base `core/java/android/view/Choreographer.java`) logs, at priority `I`
//! with tag `Choreographer`, `Skipped <N> frames!  The application may be doing too much work on its main
//! thread.` when a frame starts `N ≥ debug.choreographer.skipwarning` (default 30) vsync periods late. GT records
//! it with `adb logcat -v time -s Choreographer:I`.
//!
//! Accepted line formats (as `logcat`'s `logprint.cpp` prints them; the tag may be padded to 8 characters):
//!
//! ```text
//! -v brief        I/Choreographer( 1234): Skipped 31 frames!  The application may be ...
//! -v time         11-23 11:20:03.123 I/Choreographer( 1234): Skipped 31 frames!  ...
//! -v threadtime   11-23 11:20:03.123  1234  1250 I Choreographer: Skipped 31 frames!  ...
//! ```
//!
//! `time` and `threadtime` also with a leading year (`-v year`: `2026-11-23 11:20:03.123`), 1–9 fraction digits
//! (`-v usec`, `-v nsec`) and a zone (`-v zone`: `11:20:03.123 +0800`). `--------- beginning of main` separator
//! lines, blank lines, a leading U+FEFF and `\r` line ends are accepted; other lines (wrapped text, adb messages)
//! are counted in the diagnostics, never fatal. Lines of every tag are read (they give the capture's span); only
//! `Choreographer` lines whose message starts with `Skipped <N> frames!` become events — GT filters on the text
//! `uch work on its main t` after `-s Choreographer:I`, which selects the same lines.

use super::for_each_line;
use crate::error::{Error, Result};
use crate::model::CaptureDiagnostics;
use serde::Serialize;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::BufRead;
use std::ops::ControlFlow;
use std::path::Path;

/// Diagnostics key: lines in none of the accepted formats.
const GARBAGE: &str = "lines in no known logcat format (skipped)";
/// Diagnostics key: entries in another format than the file's first entry.
const MIXED: &str = "lines in another logcat format than the first line (read anyway)";
/// Diagnostics key: timestamps earlier than the line before.
const BACKWARDS: &str = "timestamps going backwards";
/// Diagnostics key: December → January without a year in the timestamp.
const ROLLOVER: &str = "year rollovers assumed (December → January, no year in the timestamps)";
/// Diagnostics key: a Choreographer `Skipped` line whose N could not be read.
const BAD_SKIP: &str =
    "Choreographer \"Skipped\" lines whose frame count could not be read (skipped)";
/// Diagnostics key: bytes that are not UTF-8.
const NOT_UTF8: &str = "lines with invalid UTF-8 (decoded lossily)";
/// Diagnostics key: lines longer than [`MAX_LINE_BYTES`](super::MAX_LINE_BYTES).
const OVERLONG: &str = "overlong lines (only their first 64 KiB read)";
/// A file with no logcat line among its first this many lines is rejected without reading on.
const GIVE_UP_AFTER: u64 = 10_000;
/// At most this many year rollovers are assumed (keeps the arithmetic bounded); later ones are "backwards".
const MAX_ROLLOVERS: u32 = 100;
/// Years accepted in `-v year` timestamps: any two of them (and the 100 assumed rollovers after 2001) are less
/// than 131 years apart, so differences of their nanoseconds stay within `i64` (±292 years).
const YEARS: std::ops::RangeInclusive<u64> = 1970..=2100;
const NS_PER_DAY: i64 = 86_400_000_000_000;

/// Which `adb logcat -v` format the file is in (that of its first log line), serialised lowercase.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// `-v brief` (logcat's old default): `I/Choreographer( 1234): …`, no timestamp.
    #[default]
    Brief,
    /// `-v time` (what GT records): `11-23 11:20:03.123 I/Choreographer( 1234): …`.
    Time,
    /// `-v threadtime` (logcat's default since Android 7): `11-23 11:20:03.123  1234  1250 I Choreographer: …`.
    ThreadTime,
}

impl LogFormat {
    /// The `-v` name of the format: `brief`, `time`, `threadtime`.
    pub fn name(self) -> &'static str {
        match self {
            LogFormat::Brief => "brief",
            LogFormat::Time => "time",
            LogFormat::ThreadTime => "threadtime",
        }
    }
}

/// One Choreographer `Skipped N frames!` line (Choreographer.java `doFrame`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct SkipEvent {
    /// When it was logged, ns from an origin fixed within the file (only differences are meaningful: the
    /// wall-clock `MM-DD HH:MM:SS.mmm` as nanoseconds since 2000-01-01, or, without a year in the log, since
    /// January 1 of an assumed year); `None` in `-v brief` logs.
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

/// What an `adb logcat` capture says about skipped frames.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ChoreographerLog {
    /// The format of the file's first log line.
    pub format: LogFormat,
    /// Earliest timestamp of any log line (every tag), ns on the same origin as [`SkipEvent::ts_ns`]: the start
    /// of the capture's span. `None` when no line has a timestamp (`-v brief`).
    pub first_ts_ns: Option<i64>,
    /// Latest timestamp of any log line, ns; `None` without timestamps.
    pub last_ts_ns: Option<i64>,
    /// One entry per pid that logged Choreographer skipped frames, sorted by pid; empty when none did.
    pub pids: Vec<SkippedFrames>,
    /// Lines read (every line, blank and unrecognised ones included).
    pub lines: u64,
    /// Recoverable oddities: unrecognised lines, timestamps going backwards, assumed year rollovers, mixed
    /// formats, unreadable frame counts, invalid UTF-8.
    pub diagnostics: CaptureDiagnostics,
}

/// True if the decoded text head (first ≤ 64 KiB of the file) looks like `adb logcat` output: at least one line
/// in an accepted format (or a `--------- beginning of` separator), and at least half of its non-blank lines
/// (up to the first 200, ignoring a last line cut by the head's end) are such lines.
pub fn looks_like(head: &str) -> bool {
    let head = head.strip_prefix('\u{feff}').unwrap_or(head);
    let mut segments: Vec<&str> = head.split('\n').collect();
    if !head.ends_with('\n') && segments.len() > 1 {
        segments.pop();
    }
    let (mut known, mut total) = (0u32, 0u32);
    for s in segments {
        let s = s.trim_end_matches('\r');
        if s.trim().is_empty() {
            continue;
        }
        total += 1;
        if is_separator(s) || parse_entry(s).is_some() {
            known += 1;
        }
        if total >= 200 {
            break;
        }
    }
    known > 0 && known * 2 >= total
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
        state.line(&text, line.no);
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

/// A wall-clock timestamp as printed, before it becomes nanoseconds. The derived order (rollovers, year, month,
/// day, time) is time order among stamps of one kind (all with, or all without, a year).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Stamp {
    /// Year rollovers assumed before this line (logs without a year only).
    rollovers: u32,
    /// The year, with `-v year`.
    year: Option<u16>,
    month: u8,
    day: u8,
    /// Nanoseconds since midnight.
    nanos: u64,
}

impl Stamp {
    /// Nanoseconds since 2000-01-01 00:00; a log without a year is placed in `base_year + rollovers`.
    fn to_ns(self, base_year: i64) -> i64 {
        let year = self
            .year
            .map_or(base_year + i64::from(self.rollovers), i64::from);
        let days =
            days_from_civil(year, self.month.into(), self.day.into()) - days_from_civil(2000, 1, 1);
        // Years are limited (YEARS, MAX_ROLLOVERS): any two times are < 131 years apart, inside i64 nanoseconds.
        days * NS_PER_DAY + self.nanos as i64
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn is_leap(y: u64) -> bool {
    (y.is_multiple_of(4) && !y.is_multiple_of(100)) || y.is_multiple_of(400)
}

fn days_in_month(year: Option<u64>, month: u64) -> u64 {
    match month {
        2 => match year {
            Some(y) if !is_leap(y) => 28,
            _ => 29,
        },
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// One log line in an accepted format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry<'a> {
    format: LogFormat,
    stamp: Option<Stamp>,
    pid: i32,
    tag: &'a str,
    message: &'a str,
}

fn is_separator(s: &str) -> bool {
    s.starts_with("--------- ")
}

/// Leading ASCII digits of `s`: (value, digit count, rest); `None` without a digit or with more than `max`.
fn digits(s: &str, max: usize) -> Option<(u64, usize, &str)> {
    let n = s.bytes().take_while(u8::is_ascii_digit).count();
    if n == 0 || n > max {
        return None;
    }
    let (d, rest) = s.split_at_checked(n)?;
    let v = d.bytes().try_fold(0u64, |v, b| {
        v.checked_mul(10)?.checked_add(u64::from(b - b'0'))
    })?;
    Some((v, n, rest))
}

/// Exactly `n` digits.
fn digits_n(s: &str, n: usize) -> Option<(u64, &str)> {
    match digits(s, n)? {
        (v, len, rest) if len == n => Some((v, rest)),
        _ => None,
    }
}

/// `[YYYY-]MM-DD HH:MM:SS[.f{1,9}][ ±zzzz]` at the start of `s`.
fn parse_stamp(s: &str) -> Option<(Stamp, &str)> {
    let (first, len, rest) = digits(s, 4)?;
    let (year, month, rest) = match len {
        4 => {
            let (m, rest) = digits_n(rest.strip_prefix('-')?, 2)?;
            (Some(first), m, rest)
        }
        2 => (None, first, rest),
        _ => return None,
    };
    let (day, rest) = digits_n(rest.strip_prefix('-')?, 2)?;
    let (hour, rest) = digits_n(rest.strip_prefix(' ')?, 2)?;
    let (minute, rest) = digits_n(rest.strip_prefix(':')?, 2)?;
    let (second, mut rest) = digits_n(rest.strip_prefix(':')?, 2)?;
    if year.is_some_and(|y| !YEARS.contains(&y))
        || !(1..=12).contains(&month)
        || day == 0
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    let mut nanos = ((hour * 60 + minute) * 60 + second) * 1_000_000_000;
    if let Some(f) = rest.strip_prefix('.') {
        let (frac, n, r) = digits(f, 9)?;
        nanos += frac * 10u64.pow(9 - n as u32);
        rest = r;
    }
    // `-v zone`: ` +0800`.
    if let Some(z) = rest.strip_prefix(" +").or_else(|| rest.strip_prefix(" -")) {
        if let Some((_, r)) = digits_n(z, 4) {
            if r.is_empty() || r.starts_with(char::is_whitespace) {
                rest = r;
            }
        }
    }
    let stamp = Stamp {
        rollovers: 0,
        year: year.and_then(|y| u16::try_from(y).ok()),
        month: u8::try_from(month).ok()?,
        day: u8::try_from(day).ok()?,
        nanos,
    };
    Some((stamp, rest))
}

fn is_priority(c: char) -> bool {
    matches!(c, 'V' | 'D' | 'I' | 'W' | 'E' | 'F' | 'S' | 'A' | '?')
}

fn parse_pid(s: &str) -> Option<(i32, &str)> {
    let (v, _, rest) = digits(s, 10)?;
    Some((i32::try_from(v).ok()?, rest))
}

/// `P/tag(  pid): message` (brief, and time after its timestamp).
fn parse_brief_body(s: &str) -> Option<(i32, &str, &str)> {
    let mut chars = s.chars();
    if !chars.next().is_some_and(is_priority) {
        return None;
    }
    let body = chars.as_str().strip_prefix('/')?;
    // The first `(<spaces><digits>):` closes the tag.
    for (i, _) in body.match_indices('(') {
        let (tag, after) = body.split_at_checked(i)?;
        let after = after.get(1..)?.trim_start_matches(' ');
        if let Some((pid, rest)) = parse_pid(after) {
            if let Some(rest) = rest.strip_prefix("):") {
                let message = rest.strip_prefix(' ').unwrap_or(rest);
                return Some((pid, tag.trim(), message));
            }
        }
    }
    None
}

/// `pid  tid P tag: message` (threadtime after its timestamp).
fn parse_threadtime_body(s: &str) -> Option<(i32, &str, &str)> {
    let (pid, rest) = parse_pid(s)?;
    let rest = rest.strip_prefix(char::is_whitespace)?.trim_start();
    let (_tid, _, rest) = digits(rest, 10)?;
    let rest = rest.strip_prefix(char::is_whitespace)?.trim_start();
    let mut chars = rest.chars();
    if !chars.next().is_some_and(is_priority) {
        return None;
    }
    let rest = chars.as_str().strip_prefix(' ')?;
    let (tag, message) = match rest.find(": ") {
        Some(i) => (rest.get(..i)?, rest.get(i + 2..)?),
        None => (rest.strip_suffix(':')?, ""),
    };
    Some((pid, tag.trim(), message))
}

/// The line as a log entry, if it is one.
fn parse_entry(line: &str) -> Option<Entry<'_>> {
    let line = line.trim_start();
    let entry = |format, stamp, (pid, tag, message)| Entry {
        format,
        stamp,
        pid,
        tag,
        message,
    };
    match parse_stamp(line) {
        Some((stamp, rest)) => {
            if !rest.starts_with(char::is_whitespace) {
                return None;
            }
            let rest = rest.trim_start();
            if let Some(b) = parse_threadtime_body(rest) {
                Some(entry(LogFormat::ThreadTime, Some(stamp), b))
            } else {
                parse_brief_body(rest).map(|b| entry(LogFormat::Time, Some(stamp), b))
            }
        }
        None => parse_brief_body(line).map(|b| entry(LogFormat::Brief, None, b)),
    }
}

/// What the message of a `Choreographer` line says: not a skip line, a skip of N, or a skip with an unreadable N.
fn parse_skipped(message: &str) -> Option<Option<u64>> {
    let rest = message.trim_start().strip_prefix("Skipped ")?;
    let n = digits(rest, 20).and_then(|(n, _, rest)| rest.starts_with(" frames!").then_some(n));
    Some(n)
}

#[derive(Debug, Clone, Copy)]
struct RawEvent {
    stamp: Option<Stamp>,
    skipped: u64,
    line: u64,
}

#[derive(Debug, Default)]
struct State {
    lines: u64,
    entries: u64,
    separators: u64,
    /// Format (and whether a year is given) of the first entry.
    first_format: Option<(LogFormat, bool)>,
    prev: Option<Stamp>,
    rollovers: u32,
    /// Earliest and latest stamps, without a year and with one (kept apart: their orders differ).
    range_no_year: Option<(Stamp, Stamp)>,
    range_year: Option<(Stamp, Stamp)>,
    /// Rollover count at which a February 29 without a year was seen (that year is a leap year).
    feb29_at: Option<u32>,
    events: BTreeMap<i32, Vec<RawEvent>>,
    diagnostics: CaptureDiagnostics,
}

impl State {
    fn line(&mut self, s: &str, line_no: u64) {
        if s.trim().is_empty() {
            return;
        }
        if is_separator(s) {
            self.separators += 1;
            return;
        }
        let Some(entry) = parse_entry(s) else {
            self.diagnostics.note(GARBAGE, line_no);
            return;
        };
        self.entries += 1;
        let kind = (entry.format, entry.stamp.is_some_and(|t| t.year.is_some()));
        match self.first_format {
            None => self.first_format = Some(kind),
            Some(first) if first != kind => self.diagnostics.note(MIXED, line_no),
            Some(_) => {}
        }
        let stamp = entry.stamp.map(|t| self.place(t, line_no));
        if entry.tag != "Choreographer" {
            return;
        }
        match parse_skipped(entry.message) {
            None => {}
            Some(None) => self.diagnostics.note(BAD_SKIP, line_no),
            Some(Some(skipped)) => self.events.entry(entry.pid).or_default().push(RawEvent {
                stamp,
                skipped,
                line: line_no,
            }),
        }
    }

    /// Assigns the stamp its year rollovers, notes backwards steps, and widens the span.
    fn place(&mut self, mut t: Stamp, line_no: u64) -> Stamp {
        if t.year.is_none() {
            t.rollovers = self.rollovers;
        }
        if let Some(prev) = self.prev {
            if t < prev {
                let rollover = t.year.is_none()
                    && prev.year.is_none()
                    && prev.month == 12
                    && t.month == 1
                    && self.rollovers < MAX_ROLLOVERS;
                if rollover {
                    self.rollovers += 1;
                    t.rollovers = self.rollovers;
                    self.diagnostics.note(ROLLOVER, line_no);
                } else {
                    self.diagnostics.note(BACKWARDS, line_no);
                }
            }
        }
        self.prev = Some(t);
        if t.year.is_none() && t.month == 2 && t.day == 29 && self.feb29_at.is_none() {
            self.feb29_at = Some(t.rollovers);
        }
        let range = if t.year.is_some() {
            &mut self.range_year
        } else {
            &mut self.range_no_year
        };
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
                    "not adb logcat output ({what}): expected `adb logcat -v threadtime`, `-v time` or `-v brief` \
                     lines such as `11-23 11:20:03.123  1234  1250 I Choreographer: Skipped 31 frames!  The \
                     application may be doing too much work on its main thread.`"
                ),
            });
        };
        // Without a year: a non-leap year (2001), unless a February 29 says the year was a leap year (2000).
        let base_year = self.feb29_at.map_or(2001, |r| 2000 - i64::from(r));
        let ns = |t: Stamp| t.to_ns(base_year);
        let ends: Vec<(i64, i64)> = [self.range_no_year, self.range_year]
            .into_iter()
            .flatten()
            .map(|(lo, hi)| (ns(lo), ns(hi)))
            .collect();
        let first_ts_ns = ends.iter().map(|e| e.0).min();
        let last_ts_ns = ends.iter().map(|e| e.1).max();
        let pids = self
            .events
            .into_iter()
            .map(|(pid, events)| SkippedFrames {
                pid,
                events: events
                    .into_iter()
                    .map(|e| SkipEvent {
                        ts_ns: e.stamp.map(ns),
                        skipped: e.skipped,
                        line: e.line,
                    })
                    .collect(),
            })
            .collect();
        Ok(ChoreographerLog {
            format,
            first_ts_ns,
            last_ts_ns,
            pids,
            lines: self.lines,
            diagnostics: self.diagnostics,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TAIL: &str = "  The application may be doing too much work on its main thread.";
    const S: i64 = 1_000_000_000;

    fn parse(text: &str) -> Result<ChoreographerLog> {
        read(text.as_bytes(), Path::new("log.txt"))
    }

    fn ok(text: &str) -> ChoreographerLog {
        match parse(text) {
            Ok(log) => log,
            Err(e) => panic!("{e}"),
        }
    }

    fn ts(log: &ChoreographerLog, pid_index: usize, event: usize) -> Option<i64> {
        log.pids[pid_index].events[event].ts_ns
    }

    #[test]
    fn brief() {
        let text = format!(
            "--------- beginning of main\nI/Choreographer( 1234): Skipped 31 frames!{TAIL}\n\
             D/dalvikvm(  987): GC_CONCURRENT freed 1K\nI/Zygote  (  321): Skipped 99 frames!{TAIL}\n"
        );
        let log = ok(&text);
        assert_eq!(log.format, LogFormat::Brief);
        assert_eq!((log.first_ts_ns, log.last_ts_ns), (None, None));
        assert_eq!(log.lines, 4);
        assert_eq!(log.pids.len(), 1);
        assert_eq!(log.pids[0].pid, 1234);
        assert_eq!(
            log.pids[0].events,
            vec![SkipEvent {
                ts_ns: None,
                skipped: 31,
                line: 2
            }]
        );
        assert_eq!(log.diagnostics.total(), 0);
    }

    #[test]
    fn time_format() {
        let text = format!(
            "11-23 11:20:03.123 I/ActivityManager(  500): Start proc\n\
             11-23 11:20:04.500 I/Choreographer( 1234): Skipped 45 frames!{TAIL}\n\
             11-23 11:20:05.000 D/foo     ( 1234): bar\n"
        );
        let log = ok(&text);
        assert_eq!(log.format, LogFormat::Time);
        let first = log.first_ts_ns.unwrap_or_default();
        assert_eq!(log.last_ts_ns.map(|l| l - first), Some(1_877_000_000));
        assert_eq!(ts(&log, 0, 0).map(|t| t - first), Some(1_377_000_000));
        assert_eq!(log.pids[0].pid, 1234);
        assert_eq!(log.pids[0].events[0].skipped, 45);
        assert_eq!(log.pids[0].events[0].line, 2);
    }

    #[test]
    fn threadtime_format() {
        let text = format!(
            "--------- beginning of system\n\
             11-23 11:20:03.123  1234  1250 I Choreographer: Skipped 31 frames!{TAIL}\n\
             11-23 11:20:03.200   500   510 W Zygote  : something: else\n\
             11-23 11:20:04.123  1234  1234 I Choreographer: Skipped 1 frames!{TAIL}\n"
        );
        let log = ok(&text);
        assert_eq!(log.format, LogFormat::ThreadTime);
        assert_eq!(log.pids.len(), 1);
        let e = &log.pids[0].events;
        assert_eq!((log.pids[0].pid, e[0].skipped, e[1].skipped), (1234, 31, 1));
        assert_eq!(e[0].ts_ns, log.first_ts_ns);
        assert_eq!(e[1].ts_ns, log.last_ts_ns);
        assert_eq!(
            ts(&log, 0, 1).zip(ts(&log, 0, 0)).map(|(b, a)| b - a),
            Some(S)
        );
    }

    #[test]
    fn year_usec_and_zone() {
        let text = format!(
            "2026-11-23 11:20:03.123456  1234  1250 I Choreographer: Skipped 31 frames!{TAIL}\n\
             2026-11-23 11:20:05.000000 +0800 I/Choreographer(  77): Skipped 60 frames!{TAIL}\n"
        );
        let log = ok(&text);
        assert_eq!(log.format, LogFormat::ThreadTime);
        assert_eq!(log.diagnostics.count(MIXED), 1);
        assert_eq!(
            log.pids.iter().map(|p| p.pid).collect::<Vec<_>>(),
            vec![77, 1234]
        );
        let span = log.last_ts_ns.zip(log.first_ts_ns).map(|(l, f)| l - f);
        assert_eq!(span, Some(2 * S - 123_456_000));
        // 2026-11-23 is 9823 days after 2000-01-01.
        assert_eq!(
            log.first_ts_ns,
            Some(9823 * NS_PER_DAY + (11 * 3600 + 20 * 60 + 3) * S + 123_456_000)
        );
    }

    #[test]
    fn crlf_bom_and_garbage() {
        let text = format!(
            "\u{feff}11-23 11:20:03.123  1234  1250 I Choreographer: Skipped 31 frames!{TAIL}\r\n\
             - waiting for device -\r\n\r\n\
             11-23 11:20:03.500  1234  1250 I Choreographer: Skipped lots of frames!{TAIL}\r\n\
             11-23 11:20:04.000  1234  1250 I Choreographer: Skipped 30 frames!\r\n"
        );
        let log = ok(&text);
        assert_eq!(log.format, LogFormat::ThreadTime);
        assert_eq!(log.lines, 5);
        assert_eq!(log.pids[0].events.len(), 2);
        assert_eq!(log.pids[0].events[1].line, 5);
        assert_eq!(log.diagnostics.count(GARBAGE), 1);
        assert_eq!(log.diagnostics.counts[GARBAGE].lines, vec![2]);
        assert_eq!(log.diagnostics.count(BAD_SKIP), 1);
    }

    #[test]
    fn no_choreographer_lines_is_valid() {
        let log = ok("11-23 11:20:03.123   500   510 I ActivityManager: Start proc\n");
        assert!(log.pids.is_empty());
        assert_eq!(log.first_ts_ns, log.last_ts_ns);
        assert!(log.first_ts_ns.is_some());
    }

    #[test]
    fn not_logcat_is_an_error() {
        for text in [
            "",
            "Applications Graphics Acceleration Info:\nUptime: 1 Realtime: 2\n",
            "16666666\n1 2 3\n",
            "--------- beginning of main\n",
        ] {
            match parse(text) {
                Err(Error::Capture { line: 0, cause, .. }) => {
                    assert!(cause.contains("logcat"), "{cause}")
                }
                other => panic!("{text:?}: {other:?}"),
            }
        }
        assert!(!looks_like(
            "Applications Graphics Acceleration Info:\nUptime: 1 Realtime: 2\n"
        ));
        assert!(!looks_like("16666666\n1 2 3\n"));
        assert!(!looks_like(""));
    }

    #[test]
    fn looks_like_each_format() {
        assert!(looks_like(
            "\u{feff}I/Choreographer( 1234): Skipped 31 frames!\r\n"
        ));
        assert!(looks_like(
            "--------- beginning of main\n11-23 11:20:03.123 I/x( 1): y\n"
        ));
        assert!(looks_like(
            "11-23 11:20:03.123  1234  1250 I Choreographer: Skipped 31 fra"
        ));
        assert!(looks_like(
            "2026-11-23 11:20:03.123  1234  1250 D x: y\njunk\n"
        ));
        assert!(!looks_like(
            "junk\njunk\n11-23 11:20:03.123  1234  1250 D x: y\n"
        ));
    }

    #[test]
    fn two_pids_kept_apart_and_sorted() {
        let text = format!(
            "11-23 11:20:03.000  900  900 I Choreographer: Skipped 40 frames!{TAIL}\n\
             11-23 11:20:03.100  100  100 I Choreographer: Skipped 35 frames!{TAIL}\n\
             11-23 11:20:03.200  900  900 I Choreographer: Skipped 50 frames!{TAIL}\n"
        );
        let log = ok(&text);
        let got: Vec<(i32, Vec<u64>)> = log
            .pids
            .iter()
            .map(|p| (p.pid, p.events.iter().map(|e| e.skipped).collect()))
            .collect();
        assert_eq!(got, vec![(100, vec![35]), (900, vec![40, 50])]);
    }

    #[test]
    fn year_rollover_and_backwards() {
        let text = "12-31 23:59:59.500  1 1 I x: a\n01-01 00:00:00.500  1 1 I x: b\n\
                    01-01 00:00:00.400  1 1 I x: c\n";
        let log = ok(text);
        assert_eq!(log.diagnostics.count(ROLLOVER), 1);
        assert_eq!(log.diagnostics.counts[BACKWARDS].lines, vec![3]);
        assert_eq!(
            log.last_ts_ns.zip(log.first_ts_ns).map(|(l, f)| l - f),
            Some(S)
        );
    }

    #[test]
    fn february_29_without_year() {
        let log = ok("02-28 23:59:59.000  1 1 I x: a\n02-29 00:00:01.000  1 1 I x: b\n");
        assert_eq!(
            log.last_ts_ns.zip(log.first_ts_ns).map(|(l, f)| l - f),
            Some(2 * S)
        );
        let log = ok("02-28 23:59:59.000  1 1 I x: a\n03-01 00:00:01.000  1 1 I x: b\n");
        assert_eq!(
            log.last_ts_ns.zip(log.first_ts_ns).map(|(l, f)| l - f),
            Some(2 * S)
        );
    }

    #[test]
    fn never_panics_on_odd_input() {
        let odd = [
            "I/(",
            "I/x(): ",
            "I/x(99999999999): y",
            "99-99 99:99:99.999 I/x( 1): y",
            "11-23 11:20:03.1234567890 I/x( 1): y",
            "2026-02-29 11:20:03.123 I/x( 1): y",
            "11-23 11:20:03.123  1 1 I Choreographer: Skipped 99999999999999999999999 frames!",
            "11-23 11:20:03.123 é/x( 1): y",
            "11-23 11:20:03.123  1 1 I",
            "\u{feff}",
            "11-23 11:20:03.123 +",
        ];
        for line in odd {
            let _ = parse(line);
            let _ = looks_like(line);
        }
        let log = read(&b"I/x( 1): y\n\xff\xfe\n"[..], Path::new("x"));
        assert!(matches!(log, Ok(l) if l.diagnostics.count(NOT_UTF8) == 1));
    }

    #[test]
    fn overlong_line_is_cut() {
        let text = format!(
            "I/x( 1): {}\nI/Choreographer( 2): Skipped 33 frames!\n",
            "a".repeat(100_000)
        );
        let log = ok(&text);
        assert_eq!(log.lines, 2);
        assert_eq!(log.diagnostics.count(OVERLONG), 1);
        assert_eq!(log.pids[0].events[0].line, 2);
    }
}
