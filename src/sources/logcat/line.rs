//! One logcat line → its fields, in every `adb logcat -v` format (AOSP liblog `logprint.cpp`,
//! `android_log_formatLogLine`) and Android Studio's two copy/export formats. Allocation-free: the fields are
//! slices of the line.

use super::stamp::{digits, parse_stamp, Stamp};
use super::LogFormat;

/// A log line's fields; what the format does not print is `None`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Entry<'a> {
    pub format: LogFormat,
    pub stamp: Option<Stamp>,
    pub pid: Option<i32>,
    /// Android Studio's package column (`?` and `pid-N` mean unknown and are `None`).
    pub package: Option<&'a str>,
    pub tag: Option<&'a str>,
    pub message: &'a str,
}

/// What a line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Parsed<'a> {
    /// A whole entry.
    Entry(Entry<'a>),
    /// A `-v long` header `[ time pid:tid P/tag ]`: the message is on the lines after it.
    LongHeader(Entry<'a>),
}

fn is_priority(c: u8) -> bool {
    matches!(
        c,
        b'V' | b'D' | b'I' | b'W' | b'E' | b'F' | b'S' | b'A' | b'?'
    )
}

/// The line without `-v color`'s ANSI escapes around it (`ESC[38;5;Nm` … `ESC[0m`).
pub(super) fn strip_color(s: &str) -> &str {
    let s = match s.strip_prefix("\u{1b}[") {
        Some(rest) => match rest.find('m') {
            Some(i) if rest[..i].bytes().all(|b| b.is_ascii_digit() || b == b';') => &rest[i + 1..],
            _ => s,
        },
        None => s,
    };
    s.strip_suffix("\u{1b}[0m").unwrap_or(s)
}

fn pid_of(v: u64) -> Option<i32> {
    i32::try_from(v).ok()
}

/// All of `d` as a number.
fn whole_number(d: &str) -> Option<u64> {
    match digits(d, 10)? {
        (v, n, _) if n == d.len() => Some(v),
        _ => None,
    }
}

/// A `-v uid` field: a user name of at most 5 characters or a number (logprint.cpp prints `%5s:`).
fn is_uid(u: &str) -> bool {
    !u.is_empty() && u.len() <= 10 && u.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// `[uid:]pid` after optional spaces: (pid, rest). A numeric uid is a number followed by `:`; a named one is
/// tried only when the field does not start with a digit (the common case stays one scan of the digits).
fn uid_pid(s: &str) -> Option<(i32, &str)> {
    let s = s.trim_start_matches(' ');
    match digits(s, 10) {
        Some((v, _, rest)) => {
            let after_uid = rest
                .strip_prefix(':')
                .and_then(|a| digits(a.trim_start_matches(' '), 10));
            match after_uid {
                Some((pid, _, rest)) => Some((pid_of(pid)?, rest)),
                None => Some((pid_of(v)?, rest)),
            }
        }
        None => {
            let (uid, rest) = s.split_once(':')?;
            if !is_uid(uid) {
                return None;
            }
            let (pid, _, rest) = digits(rest.trim_start_matches(' '), 10)?;
            Some((pid_of(pid)?, rest))
        }
    }
}

/// `P/` at the start: the rest.
fn priority_slash(s: &str) -> Option<&str> {
    let b = s.as_bytes();
    (b.len() > 2 && is_priority(b[0]) && b[1] == b'/').then(|| &s[2..])
}

/// `P/tag(  [uid:]pid): message` (brief, and time after its timestamp): (pid, tag, message).
fn brief_body(s: &str) -> Option<(i32, &str, &str)> {
    let body = priority_slash(s)?;
    // The first `(<spaces>[uid:]<digits>):` closes the tag.
    for (i, _) in body.match_indices('(') {
        let (tag, after) = body.split_at(i);
        if let Some((pid, rest)) = uid_pid(&after[1..]) {
            if let Some(rest) = rest.strip_prefix("):") {
                let message = rest.strip_prefix(' ').unwrap_or(rest);
                return Some((pid, tag.trim(), message));
            }
        }
    }
    None
}

/// `tag: message` split at the first `": "`, or a line that ends in `:` after its tag (an empty message):
/// (tag, message). A tag rarely holds a colon, so this is a byte search for `:` checked for the space after it.
fn split_tag(s: &str) -> Option<(&str, &str)> {
    let b = s.as_bytes();
    for i in memchr::memchr_iter(b':', b) {
        match b.get(i + 1) {
            Some(b' ') => return Some((s.get(..i)?, s.get(i + 2..)?)),
            None => return Some((s.get(..i)?, "")),
            Some(_) => {}
        }
    }
    None
}

/// `P/tag: message` (`-v tag`, Android Studio's older format): (tag, message).
fn tag_body(s: &str) -> Option<(&str, &str)> {
    let body = priority_slash(s)?;
    let (tag, message) = split_tag(body)?;
    (!tag.trim().is_empty()).then_some((tag.trim(), message))
}

/// `[uid:]pid  tid P tag: message` (threadtime after its timestamp): (pid, tag, message).
fn threadtime_body(s: &str) -> Option<(i32, &str, &str)> {
    let (pid, rest) = uid_pid(s)?;
    let rest = rest.strip_prefix(' ')?.trim_start_matches(' ');
    let (_tid, _, rest) = digits(rest, 10)?;
    let rest = rest.strip_prefix(' ')?.trim_start_matches(' ');
    let b = rest.as_bytes();
    if !(b.len() > 2 && is_priority(b[0]) && b[1] == b' ') {
        return None;
    }
    let rest = &rest[2..];
    let (tag, message) = split_tag(rest)?;
    Some((pid, tag.trim(), message))
}

/// `pid-tid/package P/tag: message` (Android Studio before Dolphin; `package` is `?` when unknown):
/// (pid, package, tag, message).
fn studio_legacy_body(s: &str) -> Option<(i32, Option<&str>, &str, &str)> {
    let (ids, rest) = s.split_once(' ')?;
    let (ids, package) = ids.split_once('/')?;
    let (pid, tid) = ids.split_once('-')?;
    let pid = whole_number(pid)?;
    whole_number(tid)?;
    let (tag, message) = tag_body(rest.trim_start_matches(' '))?;
    Some((pid_of(pid)?, known_package(package), tag, message))
}

/// A package column's value, `None` when Android Studio says it does not know it (`?`, empty, `pid-N`).
fn known_package(p: &str) -> Option<&str> {
    (!p.is_empty() && p != "?" && !p.starts_with("pid-")).then_some(p)
}

/// (pid, tag, package, message) of an Android Studio line.
type StudioFields<'a> = (Option<i32>, Option<&'a str>, Option<&'a str>, &'a str);

/// Android Studio's current format after its timestamp: `[pid[-tid]] [tag] [package] P  message`, each column
/// optional (the Logcat window's "Modify view"; `ProcessThreadFormat.kt` prints `%5d-%-5d` or `%-5d`), the level
/// printed as ` P ` and a space (`LevelFormat.kt`). One name column is taken for the tag.
/// (pid, tag, package, message).
fn studio_body(s: &str) -> Option<StudioFields<'_>> {
    let s = s.trim_start_matches(' ');
    let pid = s.split_once(' ').and_then(|(ids, rest)| {
        let (pid, tid) = ids.split_once('-').unwrap_or((ids, "0"));
        whole_number(tid)?;
        Some((pid_of(whole_number(pid)?)?, rest))
    });
    let cols = pid.map_or(s, |(_, rest)| rest);
    let b = cols.as_bytes();
    let at = (0..b.len().saturating_sub(2)).find(|&i| {
        is_priority(b[i]) && b[i + 1] == b' ' && b[i + 2] == b' ' && (i == 0 || b[i - 1] == b' ')
    })?;
    let mut names = cols[..at].split_whitespace();
    let tag = names.next();
    let package = names.next().and_then(known_package);
    Some((pid.map(|p| p.0), tag, package, &cols[at + 3..]))
}

/// `P(...) message[  (tag)]`: `-v process` (`P([uid:]pid) message  (tag)`) and `-v thread`
/// (`P([uid:]pid:tid) message`), told apart by the `  (tag)` that only `process` prints.
/// (format, pid, tag, message).
fn paren_body(s: &str) -> Option<(LogFormat, i32, Option<&str>, &str)> {
    let b = s.as_bytes();
    if !(b.len() > 2 && is_priority(b[0]) && b[1] == b'(') {
        return None;
    }
    let (inside, message) = s[2..].split_once(") ")?;
    let mut numbers = [0u64; 3];
    let mut n = 0;
    for (i, f) in inside.split(':').map(|f| f.trim_matches(' ')).enumerate() {
        match whole_number(f) {
            Some(v) if n < 3 => {
                numbers[n] = v;
                n += 1;
            }
            None if i == 0 && is_uid(f) => {}
            _ => return None,
        }
    }
    let process = message
        .strip_suffix(')')
        .and_then(|m| m.rsplit_once("  ("))
        .filter(|(_, tag)| !tag.is_empty());
    match (process, n) {
        // [uid:]pid: the pid is the last number.
        (Some((message, tag)), 1 | 2) => Some((
            LogFormat::Process,
            pid_of(numbers[n - 1])?,
            Some(tag),
            message,
        )),
        // [uid:]pid:tid: the pid is the one before the tid.
        (None, 2 | 3) => Some((LogFormat::Thread, pid_of(numbers[n - 2])?, None, message)),
        _ => None,
    }
}

/// `[ time [uid:]pid:tid P/tag ]` (`-v long`; the message follows on the next lines, then a blank line).
fn long_header(s: &str) -> Option<Entry<'_>> {
    let inner = s
        .strip_prefix("[ ")?
        .trim_end()
        .strip_suffix(']')?
        .trim_end();
    let (stamp, rest) = parse_stamp(inner)?;
    let (ids, pri_tag) = rest.trim().rsplit_once(' ')?;
    let tag = priority_slash(pri_tag)?;
    // `[uid:]pid:tid`: the pid is the number before the tid.
    let mut fields = ids.rsplit(':').map(|f| f.trim_matches(' '));
    whole_number(fields.next()?)?;
    let pid = whole_number(fields.next()?)?;
    Some(Entry {
        format: LogFormat::Long,
        stamp: Some(stamp),
        pid: pid_of(pid),
        package: None,
        tag: Some(tag),
        message: "",
    })
}

/// The line (`-v color` escapes removed) as a log entry or a `-v long` header, if it is one.
pub(super) fn parse_line(line: &str) -> Option<Parsed<'_>> {
    let line = strip_color(line);
    if line.starts_with("[ ") {
        return long_header(line).map(Parsed::LongHeader);
    }
    let entry = |format, stamp, pid, package, tag, message| {
        Parsed::Entry(Entry {
            format,
            stamp,
            pid,
            package,
            tag,
            message,
        })
    };
    let Some((stamp, rest)) = parse_stamp(line) else {
        if let Some((pid, tag, m)) = brief_body(line) {
            return Some(entry(LogFormat::Brief, None, Some(pid), None, Some(tag), m));
        }
        if let Some((format, pid, tag, m)) = paren_body(line) {
            return Some(entry(format, None, Some(pid), None, tag, m));
        }
        if let Some((pid, package, tag, m)) = studio_legacy_body(line) {
            return Some(entry(
                LogFormat::StudioLegacy,
                None,
                Some(pid),
                package,
                Some(tag),
                m,
            ));
        }
        if let Some((tag, m)) = tag_body(line) {
            return Some(entry(LogFormat::Tag, None, None, None, Some(tag), m));
        }
        // Android Studio without its timestamp column: only with a pid column, the level alone is too weak.
        return match studio_body(line)? {
            (Some(pid), tag, package, m) => {
                Some(entry(LogFormat::Studio, None, Some(pid), package, tag, m))
            }
            (None, ..) => None,
        };
    };
    let stamp = Some(stamp);
    let rest = rest.trim_start_matches([' ', '\t']);
    if let Some((pid, tag, m)) = threadtime_body(rest) {
        return Some(entry(
            LogFormat::ThreadTime,
            stamp,
            Some(pid),
            None,
            Some(tag),
            m,
        ));
    }
    if let Some((pid, tag, m)) = brief_body(rest) {
        return Some(entry(LogFormat::Time, stamp, Some(pid), None, Some(tag), m));
    }
    if let Some((pid, package, tag, m)) = studio_legacy_body(rest) {
        return Some(entry(
            LogFormat::StudioLegacy,
            stamp,
            Some(pid),
            package,
            Some(tag),
            m,
        ));
    }
    if let Some((tag, m)) = tag_body(rest) {
        return Some(entry(
            LogFormat::StudioLegacy,
            stamp,
            None,
            None,
            Some(tag),
            m,
        ));
    }
    let (pid, tag, package, m) = studio_body(rest)?;
    Some(entry(LogFormat::Studio, stamp, pid, package, tag, m))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSG: &str =
        "Skipped 31 frames!  The application may be doing too much work on its main thread.";

    /// (format, pid, package, tag, message, has a timestamp) of a line that must be an entry.
    fn fields(
        line: &str,
    ) -> (
        LogFormat,
        Option<i32>,
        Option<&str>,
        Option<&str>,
        &str,
        bool,
    ) {
        match parse_line(line) {
            Some(Parsed::Entry(e)) => (
                e.format,
                e.pid,
                e.package,
                e.tag,
                e.message,
                e.stamp.is_some(),
            ),
            other => panic!("{line:?}: {other:?}"),
        }
    }

    // Lines as logprint.cpp's formats print them (`%c/%-8s(%5d): ` etc.), pid 1234, tid 1250.
    #[test]
    fn brief() {
        let l = format!("I/Choreographer( 1234): {MSG}");
        assert_eq!(
            fields(&l),
            (
                LogFormat::Brief,
                Some(1234),
                None,
                Some("Choreographer"),
                MSG,
                false
            )
        );
    }

    #[test]
    fn process() {
        let l = format!("I( 1234) {MSG}  (Choreographer)");
        assert_eq!(
            fields(&l),
            (
                LogFormat::Process,
                Some(1234),
                None,
                Some("Choreographer"),
                MSG,
                false
            )
        );
    }

    #[test]
    fn tag() {
        let l = format!("I/Choreographer: {MSG}");
        assert_eq!(
            fields(&l),
            (
                LogFormat::Tag,
                None,
                None,
                Some("Choreographer"),
                MSG,
                false
            )
        );
    }

    #[test]
    fn thread() {
        let l = format!("I( 1234: 1250) {MSG}");
        assert_eq!(
            fields(&l),
            (LogFormat::Thread, Some(1234), None, None, MSG, false)
        );
    }

    #[test]
    fn time() {
        let l = format!("11-23 11:20:03.123 I/Choreographer( 1234): {MSG}");
        assert_eq!(
            fields(&l),
            (
                LogFormat::Time,
                Some(1234),
                None,
                Some("Choreographer"),
                MSG,
                true
            )
        );
    }

    #[test]
    fn threadtime() {
        let l = format!("11-23 11:20:03.123  1234  1250 I Choreographer: {MSG}");
        assert_eq!(
            fields(&l),
            (
                LogFormat::ThreadTime,
                Some(1234),
                None,
                Some("Choreographer"),
                MSG,
                true
            )
        );
    }

    #[test]
    fn long_header_then_message() {
        let Some(Parsed::LongHeader(e)) =
            parse_line("[ 11-23 11:20:03.123  1234: 1250 I/Choreographer ]")
        else {
            panic!()
        };
        assert_eq!(
            (e.format, e.pid, e.tag),
            (LogFormat::Long, Some(1234), Some("Choreographer"))
        );
    }

    #[test]
    fn modifiers() {
        let tt = |stamp: &str| format!("{stamp}  1234  1250 I Choreographer: {MSG}");
        // year, usec, nsec, zone, epoch, monotonic: the timestamp forms of logprint.cpp.
        for stamp in [
            "2026-11-23 11:20:03.123",
            "11-23 11:20:03.123456",
            "11-23 11:20:03.123456789",
            "11-23 11:20:03.123 +0800",
            "1700000000.123",
            "   123.456",
        ] {
            assert_eq!(fields(&tt(stamp)).1, Some(1234), "{stamp}");
        }
        // uid (`%5s:` before the pid): a number, or a user name of at most 5 characters.
        for l in [
            format!("11-23 11:20:03.123 10123: 1234  1250 I Choreographer: {MSG}"),
            format!("11-23 11:20:03.123  root: 1234  1250 I Choreographer: {MSG}"),
            format!("11-23 11:20:03.123 I/Choreographer(10123: 1234): {MSG}"),
            format!("I/Choreographer(10123: 1234): {MSG}"),
        ] {
            assert_eq!(fields(&l).1, Some(1234), "{l}");
        }
        assert_eq!(
            fields(&format!("I(10123: 1234) {MSG}  (Choreographer)")).1,
            Some(1234)
        );
        assert_eq!(fields(&format!("I(10123: 1234: 1250) {MSG}")).1, Some(1234));
        let Some(Parsed::LongHeader(e)) =
            parse_line("[ 11-23 11:20:03.123 10123: 1234: 1250 I/Choreographer ]")
        else {
            panic!()
        };
        assert_eq!(e.pid, Some(1234));
        // color: `ESC[38;5;Nm` before, `ESC[0m` after.
        let c = format!(
            "\u{1b}[38;5;40m11-23 11:20:03.123  1234  1250 I Choreographer: {MSG}\u{1b}[0m"
        );
        assert_eq!(fields(&c).4, MSG);
        // printable escapes non-printable bytes inside the message only: the fields are unchanged.
        let p = "11-23 11:20:03.123  1234  1250 I Choreographer: a\\x07b";
        assert_eq!(fields(p).4, "a\\x07b");
    }

    #[test]
    fn android_studio_current() {
        // TimestampFormat DATETIME, ProcessThreadFormat BOTH (`%5d-%-5d`), tag and package columns, ` I ` + ` `.
        let l = format!(
            "2026-02-03 16:04:55.322 18439-18439 Choreographer           com.app.ralaunch                     I  {MSG}"
        );
        assert_eq!(
            fields(&l),
            (
                LogFormat::Studio,
                Some(18439),
                Some("com.app.ralaunch"),
                Some("Choreographer"),
                MSG,
                true
            )
        );
        // Unknown package (`pid-N`), pid only, time only.
        let l = format!("16:04:55.322 18439 Choreographer           pid-18439                            I  {MSG}");
        assert_eq!(
            fields(&l),
            (
                LogFormat::Studio,
                Some(18439),
                None,
                Some("Choreographer"),
                MSG,
                true
            )
        );
        // Compact view: time and level only.
        let l = format!("16:04:55.322  I  {MSG}");
        assert_eq!(fields(&l), (LogFormat::Studio, None, None, None, MSG, true));
    }

    #[test]
    fn android_studio_legacy() {
        let l = "01-29 11:32:58.193 1868-1868/? I/Choreographer: Skipped 151 frames!";
        assert_eq!(
            fields(l),
            (
                LogFormat::StudioLegacy,
                Some(1868),
                None,
                Some("Choreographer"),
                "Skipped 151 frames!",
                true
            )
        );
        let l = "2019-01-29 11:32:58.193 1868-1870/com.pkg I/Choreographer: Skipped 151 frames!";
        assert_eq!(fields(l).2, Some("com.pkg"));
        // Without the date column.
        assert_eq!(fields("1868-1868/com.pkg I/Choreographer: x").1, Some(1868));
    }

    #[test]
    fn not_entries() {
        for l in [
            "",
            "junk",
            "    at Terraria.Program.RunGame()",
            "- waiting for device -",
            "Skipped 31 frames!",
            "11-23 11:20:03.123",
            "I  message without a timestamp or pid",
        ] {
            assert_eq!(parse_line(l), None, "{l:?}");
        }
    }
}
