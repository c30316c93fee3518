//! Unit tests of the logcat reader: one per format and modifier, detection, the traps of pasted captures.

use super::stamp::NS_PER_DAY;
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
    // Any recognised line makes a logcat, wherever it is in the head.
    assert!(looks_like(
        "junk\njunk\n11-23 11:20:03.123  1234  1250 D x: y\n"
    ));
    assert!(!looks_like("junk\njunk\nmore junk\n"));
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

#[test]
fn long_format_message_on_the_next_line() {
    let text = format!(
        "[ 11-23 11:20:03.123  1234: 1250 I/Choreographer ]\nSkipped 31 frames!{TAIL}\n\n\
         [ 11-23 11:20:04.123  1234: 1250 D/Other    ]\nline one\n    line two\n\n"
    );
    let log = ok(&text);
    assert_eq!(log.format, LogFormat::Long);
    assert_eq!(log.pids[0].events[0].line, 2);
    assert_eq!(log.pids[0].events[0].skipped, 31);
    assert_eq!(log.diagnostics.total(), 0);
}

#[test]
fn cut_first_line_and_mixed_line_ends() {
    let text = format!(
        "oreographer: Skipped 40 frames!{TAIL}\r\n\
         11-23 11:20:03.123  1234  1250 I Choreographer: Skipped 31 frames!{TAIL}\n\
         11-23 11:20:04.123  1234  1250 I Choreographer: Skipped 32 frames!{TAIL}\r\n"
    );
    let log = ok(&text);
    assert_eq!(log.diagnostics.counts[CUT_FIRST].lines, vec![1]);
    let n: Vec<u64> = log.pids[0].events.iter().map(|e| e.skipped).collect();
    assert_eq!(n, vec![31, 32]);
    assert_eq!(log.diagnostics.count(GARBAGE), 0);
}

#[test]
fn timestamps_stepping_back_are_counted_and_the_span_is_min_to_max() {
    let text = "11-23 11:20:05.000  1 1 I x: a\n11-23 11:20:03.000  1 1 I x: b\n11-23 11:20:04.000  1 1 I x: c\n";
    let log = ok(text);
    assert_eq!(log.diagnostics.counts[BACKWARDS].lines, vec![2]);
    assert_eq!(
        log.last_ts_ns.zip(log.first_ts_ns).map(|(l, f)| l - f),
        Some(2 * S)
    );
}

#[test]
fn time_of_day_rolls_over_midnight() {
    let text = "23:59:59.000  I  a\n00:00:01.000  I  b\n";
    let log = ok(text);
    assert_eq!(log.format, LogFormat::Studio);
    assert_eq!(log.diagnostics.count(DAY_ROLLOVER), 1);
    assert_eq!(
        log.last_ts_ns.zip(log.first_ts_ns).map(|(l, f)| l - f),
        Some(2 * S)
    );
}

#[test]
fn names_from_studio_column_and_start_proc() {
    let text = format!(
        "11-23 11:20:00.000   500   510 I ActivityManager: Start proc 4242:com.example.app/u0a61 for \
         activity {{com.example.app/com.example.app.Main}}\n\
         11-23 11:20:00.100   500   510 I ActivityManager: Start proc com.old.app for activity \
         com.old.app/.Main: pid=777 uid=10061 gids={{50061}}\n\
         11-23 11:20:01.000  4242  4242 I Choreographer: Skipped 31 frames!{TAIL}\n\
         11-23 11:20:02.000   500   510 I ActivityManager: Start proc 4242:com.other/u0a62 for service\n"
    );
    let log = ok(&text);
    assert_eq!(
        log.process_names.get(&4242).map(String::as_str),
        Some("com.example.app")
    );
    assert_eq!(
        log.process_names.get(&777).map(String::as_str),
        Some("com.old.app")
    );
    assert_eq!(log.diagnostics.counts[RENAMED].lines, vec![4]);
    let studio = ok(&format!(
        "2026-02-03 16:04:55.322 18439-18439 Choreographer           com.app.ralaunch                     I  \
         Skipped 57 frames!{TAIL}\n"
    ));
    assert_eq!(
        studio.process_names.get(&18439).map(String::as_str),
        Some("com.app.ralaunch")
    );
    assert_eq!(
        (studio.pids[0].pid, studio.pids[0].events[0].skipped),
        (18439, 57)
    );
}

#[test]
fn lines_without_a_pid_are_kept_apart_and_counted() {
    let text = format!(
        "I/Choreographer: Skipped 31 frames!{TAIL}\nI/OpenGLRenderer: Davey! duration=750ms; Flags=0, \
         IntendedVsync=1000000000, Vsync=1000000000, FrameCompleted=1750000000, \n"
    );
    let log = ok(&text);
    assert_eq!(log.format, LogFormat::Tag);
    assert!(log.pids.is_empty());
    assert_eq!(log.skips_without_pid.len(), 1);
    assert_eq!(log.daveys.len(), 1);
    assert_eq!(log.daveys[0].0, None);
    assert_eq!(log.diagnostics.count(NO_PID), 2);
    // A compact Studio view has no tag either: the skip is known by its whole message.
    let compact = ok(&format!(
        "16:04:55.322  I  Skipped 57 frames!{TAIL}\n16:04:55.400  I  Skipped 3 frames!\n"
    ));
    let n: Vec<u64> = compact
        .skips_without_pid
        .iter()
        .map(|e| e.skipped)
        .collect();
    assert_eq!(n, vec![57]);
}

#[test]
fn davey_lines_per_pid_with_their_time() {
    let text = "11-23 11:20:03.000  1234  1250 I OpenGLRenderer: Davey! duration=812ms; Flags=0, \
                IntendedVsync=1000000000, Vsync=1000000000, FrameCompleted=1812000000, \n\
                11-23 11:20:04.000  1234  1250 I OpenGLRenderer: Davey! duration=??ms; IntendedVsync=1\n";
    let log = ok(text);
    assert_eq!(log.daveys.len(), 1);
    let (pid, d) = &log.daveys[0];
    assert_eq!((*pid, d.duration_ms, d.line), (Some(1234), 812, 1));
    assert_eq!(d.ts_ns, log.first_ts_ns);
    assert_eq!(log.diagnostics.counts[BAD_DAVEY].lines, vec![2]);
}
