//! atrace lines (the `buf` of an ftrace `print` event) → [`Atrace`], with the grammar of Perfetto's
//! `ParseSystraceTracePoint` (`src/trace_processor/importers/systrace/systrace_parser.h`, google/perfetto @
//! ec5d16b1): trailing `\n` / `\0` trimmed, fields split on `|`, a missing or non-numeric tgid read as 0.

/// One parsed atrace line. `tgid` is 0 when the line does not name the process (the writer's thread then
/// decides it). Counters (`C|`) are recognised but not kept: ftl has no use for them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Atrace {
    /// `B|tgid|name`: begin a slice on the writing thread; the name is the rest of the line (`|` included), or
    /// empty when the caller of [`parse`] does not keep it.
    Begin {
        /// Process id from the line.
        tgid: u32,
        /// Slice name (`[empty slice name]` when empty, as Perfetto).
        name: String,
    },
    /// `E` or `E|tgid`: end the innermost open slice of the writing thread.
    End {
        /// Process id from the line, 0 if absent.
        tgid: u32,
    },
    /// `S|tgid|name|cookie` (track = name) or `G|tgid|track|name|cookie`: begin an async slice on the process's
    /// track `track`.
    AsyncBegin {
        /// Process id.
        tgid: u32,
        /// Track name (for `S`, the slice name).
        track: String,
        /// Slice name.
        name: String,
        /// Pairs the begin with its end on the same track.
        cookie: i64,
    },
    /// `I|tgid|name` (an instant on the writing thread, `track` `None`) or `N|tgid|track|name` (an instant on the
    /// process's track `track`): a slice of duration 0.
    Instant {
        /// Process id.
        tgid: u32,
        /// The process track, for `N`.
        track: Option<String>,
        /// The instant's name.
        name: String,
    },
    /// `F|tgid|name|cookie` or `H|tgid|track|[name|]cookie`: end the async slice with this cookie on `track`.
    AsyncEnd {
        /// Process id.
        tgid: u32,
        /// Track name (for `F`, the slice name).
        track: String,
        /// The begin's cookie.
        cookie: i64,
    },
}

/// What a `print` buffer held.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Parsed {
    /// A line ftl keeps.
    Kept(Atrace),
    /// A valid line of a kind ftl does not use (counter, instant, clock sync).
    Unused,
    /// Not an atrace line (Perfetto counts these as `systrace_parse_failure`).
    Invalid,
}

impl Parsed {
    /// The kept line, if any; an invalid one is counted in `failures` (Perfetto's `systrace_parse_failure`).
    pub fn kept(self, failures: &mut u64) -> Option<Atrace> {
        match self {
            Parsed::Kept(event) => Some(event),
            Parsed::Unused => None,
            Parsed::Invalid => {
                *failures += 1;
                None
            }
        }
    }
}

/// The leading fields of an atrace line (`phase|tgid|rest`; a missing field is empty).
#[derive(Debug, PartialEq)]
struct Head<'a> {
    /// The first byte of the first field.
    phase: u8,
    /// `None` when missing or not a number.
    tgid: Option<u32>,
    /// Everything after the second `|`.
    rest: &'a [u8],
    /// The whole line, trailing `\n` / `\0` trimmed.
    line: &'a [u8],
}

/// The [`Head`] of a line; `None` when its phase field is empty.
fn split(buf: &[u8]) -> Option<Head<'_>> {
    let line = trimmed(buf);
    usual_head(line).or_else(|| any_head(line))
}

/// The line without its trailing `\n` / `\0` bytes.
fn trimmed(buf: &[u8]) -> &[u8] {
    let mut len = buf.len();
    while len > 0 && matches!(buf[len - 1], b'\n' | b'\0') {
        len -= 1;
    }
    &buf[..len]
}

/// The [`Head`] of a line written the usual way — a one-byte phase, a bar, 1 to 9 digits, then a bar or the end
/// — read in one pass; `None` means "read it the general way" ([`any_head`]), which gives the same result for
/// these lines. Every line is split when the decoder triages it ([`triage`]), and the few lines triage does not
/// settle once more when parsed, so this is the hot path of atrace decoding.
#[inline]
fn usual_head(line: &[u8]) -> Option<Head<'_>> {
    let (&phase, field) = match line {
        [phase, b'|', field @ ..] if *phase != b'|' => (phase, field),
        _ => return None,
    };
    let mut tgid = 0u32;
    for (i, &c) in field.iter().enumerate() {
        match c {
            b'0'..=b'9' if i < 9 => tgid = tgid * 10 + u32::from(c - b'0'),
            b'|' if i > 0 => {
                return Some(Head {
                    phase,
                    tgid: Some(tgid),
                    rest: &field[i + 1..],
                    line,
                })
            }
            _ => return None,
        }
    }
    (!field.is_empty()).then_some(Head {
        phase,
        tgid: Some(tgid),
        rest: &[],
        line,
    })
}

/// The [`Head`] of any line (trailing `\n` / `\0` already trimmed): fields split on the first two bars.
fn any_head(line: &[u8]) -> Option<Head<'_>> {
    let bar = |b: &[u8]| b.iter().position(|&c| c == b'|');
    let (phase, rest) = match bar(line) {
        Some(i) => (&line[..i], &line[i + 1..]),
        None => (line, &[][..]),
    };
    let &phase = phase.first()?;
    let (tgid, rest) = match bar(rest) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    Some(Head {
        phase,
        tgid: parse_u32(tgid),
        rest,
        line,
    })
}

/// What the decoder learns of a line from its head alone, before deciding whether the line must be copied to be
/// parsed elsewhere: most lines of a trace are `E` lines and `B` lines whose names the model does not keep, and
/// those are whole once triaged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Triage {
    /// An `E` line: [`parse`] gives `Atrace::End { tgid }`.
    End {
        /// Process id from the line, 0 if absent.
        tgid: u32,
    },
    /// A `B` line whose name `keep_name` does not keep: [`parse`] gives `Atrace::Begin` with an empty name.
    Unnamed {
        /// Process id from the line.
        tgid: u32,
    },
    /// A `B` line whose name [`parse`] gives (kept by `keep_name`, or the empty-name placeholder).
    Named,
    /// A valid counter line (`C|tgid|name|value`): [`parse`] gives [`Parsed::Unused`], so nothing is handed on.
    Unused,
    /// Any other line, valid or not: only [`parse`] tells.
    Other,
}

impl Triage {
    /// The [`Atrace`] [`parse`] gives for an `End` or `Unnamed` line; `None` for the others.
    pub fn atrace(self) -> Option<Atrace> {
        match self {
            Triage::End { tgid } => Some(Atrace::End { tgid }),
            Triage::Unnamed { tgid } => Some(Atrace::Begin {
                tgid,
                name: String::new(),
            }),
            Triage::Named | Triage::Unused | Triage::Other => None,
        }
    }
}

/// Triages one atrace line (see [`Triage`]), agreeing with [`parse`] given the same `keep_name`.
pub fn triage(buf: &[u8], keep_name: &dyn Fn(&[u8]) -> bool) -> Triage {
    match split(buf) {
        Some(Head {
            phase: b'B',
            tgid: Some(tgid),
            rest,
            ..
        }) => match rest.is_empty() || keep_name(rest) {
            true => Triage::Named,
            false => Triage::Unnamed { tgid },
        },
        Some(Head {
            phase: b'E', tgid, ..
        }) => Triage::End {
            tgid: tgid.unwrap_or(0),
        },
        // A fifth of an atrace-heavy trace's lines are counters: settled here, they are neither copied nor parsed
        // again. Valid as `parse` has it: a name, then a value that reads as an i64.
        Some(Head {
            phase: b'C',
            tgid: Some(_),
            rest,
            ..
        }) => {
            let mut parts = rest.split(|&b| b == b'|');
            let (name, value) = (parts.next().unwrap_or_default(), parts.next());
            match !name.is_empty() && value.and_then(parse_i64).is_some() {
                true => Triage::Unused,
                false => Triage::Other,
            }
        }
        _ => Triage::Other,
    }
}

/// Parses one atrace line. A `B` line's name is copied only when `keep_name` says so; otherwise it is left
/// empty (a real empty name reads `[empty slice name]`), which spares an allocation for most lines of a trace.
pub fn parse(buf: &[u8], keep_name: &dyn Fn(&[u8]) -> bool) -> Parsed {
    let Some(Head {
        phase,
        tgid,
        rest: after_tgid,
        line,
    }) = split(buf)
    else {
        return Parsed::Invalid;
    };
    let text = |b: &[u8]| match std::str::from_utf8(b) {
        Ok(s) => s.to_owned(),
        Err(_) => String::from_utf8_lossy(b).into_owned(),
    };
    let cookie = parse_i64;
    match (phase, tgid) {
        (b'B', Some(tgid)) => {
            let name = if after_tgid.is_empty() {
                "[empty slice name]".into()
            } else if keep_name(after_tgid) {
                text(after_tgid)
            } else {
                String::new()
            };
            return Parsed::Kept(Atrace::Begin { tgid, name });
        }
        (b'E', _) => {
            return Parsed::Kept(Atrace::End {
                tgid: tgid.unwrap_or(0),
            })
        }
        _ => {}
    }
    let parts: [&[u8]; 3] = {
        let mut it = after_tgid.split(|&b| b == b'|');
        [(); 3].map(|()| it.next().unwrap_or_default())
    };
    let part = |i: usize| parts[i];
    let kept = match (phase, tgid) {
        (b'S' | b'F', Some(tgid)) => {
            let (name, Some(cookie)) = (part(0), cookie(part(1))) else {
                return Parsed::Invalid;
            };
            if name.is_empty() {
                return Parsed::Invalid;
            }
            if phase == b'S' {
                Atrace::AsyncBegin {
                    tgid,
                    track: text(name),
                    name: text(name),
                    cookie,
                }
            } else {
                Atrace::AsyncEnd {
                    tgid,
                    track: text(name),
                    cookie,
                }
            }
        }
        (b'G', Some(tgid)) => {
            let (track, name, Some(cookie)) = (part(0), part(1), cookie(part(2))) else {
                return Parsed::Invalid;
            };
            if track.is_empty() || name.is_empty() {
                return Parsed::Invalid;
            }
            Atrace::AsyncBegin {
                tgid,
                track: text(track),
                name: text(name),
                cookie,
            }
        }
        (b'H', Some(tgid)) => {
            let raw = if part(2).is_empty() { part(1) } else { part(2) };
            let (track, Some(cookie)) = (part(0), cookie(raw)) else {
                return Parsed::Invalid;
            };
            if track.is_empty() {
                return Parsed::Invalid;
            }
            Atrace::AsyncEnd {
                tgid,
                track: text(track),
                cookie,
            }
        }
        (b'C', Some(_)) if !part(0).is_empty() && cookie(part(1)).is_some() => {
            return Parsed::Unused
        }
        (b'I', Some(tgid)) if !part(0).is_empty() => Atrace::Instant {
            tgid,
            track: None,
            name: text(part(0)),
        },
        (b'N', Some(tgid)) if !part(0).is_empty() && !part(1).is_empty() => Atrace::Instant {
            tgid,
            track: Some(text(part(0))),
            name: text(part(1)),
        },
        _ if line.starts_with(b"trace_event_clock_sync:") => return Parsed::Unused,
        _ => return Parsed::Invalid,
    };
    Parsed::Kept(kept)
}

/// `str::parse::<u32>` of the bytes, without the UTF-8 check for the usual 1 to 9 plain digits.
fn parse_u32(b: &[u8]) -> Option<u32> {
    if (1..=9).contains(&b.len()) && b.iter().all(u8::is_ascii_digit) {
        return Some(b.iter().fold(0, |v, d| v * 10 + u32::from(d - b'0')));
    }
    std::str::from_utf8(b).ok()?.parse().ok()
}

/// `str::parse::<i64>` of the bytes, without the UTF-8 check for an optional `-` and 1 to 18 plain digits.
fn parse_i64(b: &[u8]) -> Option<i64> {
    let (negative, digits) = match b.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, b),
    };
    if (1..=18).contains(&digits.len()) && digits.iter().all(u8::is_ascii_digit) {
        let v = digits
            .iter()
            .fold(0i64, |v, d| v * 10 + i64::from(d - b'0'));
        return Some(if negative { -v } else { v });
    }
    std::str::from_utf8(b).ok()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::super::ftrace::{tests::bundles, walk, FtraceItem};
    use super::*;

    fn kept(s: &str) -> Atrace {
        match parse(s.as_bytes(), &|_| true) {
            Parsed::Kept(a) => a,
            other => panic!("{s:?} gave {other:?}"),
        }
    }

    #[test]
    fn begin_keeps_the_rest_of_the_line_as_the_name() {
        assert_eq!(
            kept("B|123|Choreographer#doFrame 42|extra\n"),
            Atrace::Begin {
                tgid: 123,
                name: "Choreographer#doFrame 42|extra".into()
            }
        );
        assert_eq!(
            kept("B|7|\n"),
            Atrace::Begin {
                tgid: 7,
                name: "[empty slice name]".into()
            }
        );
        assert_eq!(parse(b"B|x|name", &|_| true), Parsed::Invalid);
    }

    #[test]
    fn triage_agrees_with_parse() {
        let keep = |name: &[u8]| name.starts_with(b"DrawFrame");
        for line in [
            "B|1|DrawFrame 3",
            "B|1|DrawFrame 3\n",
            "B|1|inflate",
            "B|1|inflate\n\0",
            "B|1|",
            "B|1",
            "B|x|DrawFrame 3",
            "B|x|inflate",
            "B||DrawFrame 3",
            "Bx|2|DrawFrame 3",
            "Bx|2|inflate",
            "E|1",
            "E",
            "E|",
            "E|x",
            "E|12|extra",
            "Ex|5",
            "S|1|DrawFrame|4",
            "C|1|inflate|4",
            "C|1|inflate|4\n",
            "C|1|inflate|-4|extra",
            "C|1|inflate|",
            "C|1|inflate",
            "C|1||4",
            "C|1|inflate|x",
            "C|x|inflate|4",
            "C||inflate|4",
            "Cx|1|inflate|4",
            "",
            "|1|DrawFrame",
            "\n",
        ] {
            let parsed = parse(line.as_bytes(), &keep);
            let triaged = triage(line.as_bytes(), &keep);
            match triaged.atrace() {
                Some(atrace) => assert_eq!(parsed, Parsed::Kept(atrace), "{line:?}"),
                None if triaged == Triage::Unused => assert_eq!(parsed, Parsed::Unused, "{line:?}"),
                None => {
                    let named = matches!(
                        &parsed,
                        Parsed::Kept(Atrace::Begin { name, .. }) if !name.is_empty()
                    );
                    assert_eq!(triaged == Triage::Named, named, "{line:?}");
                    let plain = matches!(
                        &parsed,
                        Parsed::Kept(Atrace::End { .. } | Atrace::Begin { .. })
                    );
                    assert_eq!(plain, named, "{line:?}: parse gives {parsed:?}");
                }
            }
        }
        assert_eq!(
            triage(b"B|1|", &keep),
            Triage::Named,
            "the placeholder name counts"
        );
        assert_eq!(triage(b"B|1|inflate", &keep), Triage::Unnamed { tgid: 1 });
        assert_eq!(triage(b"E|7\n", &keep), Triage::End { tgid: 7 });
        assert_eq!(triage(b"C|7|Heap size (KB)|5120\n", &keep), Triage::Unused);
        assert_eq!(triage(b"C|7|Heap size (KB)|lots", &keep), Triage::Other);
    }

    #[test]
    fn end_needs_no_pid() {
        assert_eq!(kept("E"), Atrace::End { tgid: 0 });
        assert_eq!(kept("E|55\n\0"), Atrace::End { tgid: 55 });
    }

    #[test]
    fn async_forms_pair_by_track_and_cookie() {
        assert_eq!(
            kept("S|9|J<SHADE_EXPAND>|17"),
            Atrace::AsyncBegin {
                tgid: 9,
                track: "J<SHADE_EXPAND>".into(),
                name: "J<SHADE_EXPAND>".into(),
                cookie: 17
            }
        );
        assert_eq!(
            kept("F|9|J<SHADE_EXPAND>|17"),
            Atrace::AsyncEnd {
                tgid: 9,
                track: "J<SHADE_EXPAND>".into(),
                cookie: 17
            }
        );
        assert_eq!(
            kept("G|9|track|name|-3"),
            Atrace::AsyncBegin {
                tgid: 9,
                track: "track".into(),
                name: "name".into(),
                cookie: -3
            }
        );
        assert_eq!(
            kept("H|9|track|name|5"),
            Atrace::AsyncEnd {
                tgid: 9,
                track: "track".into(),
                cookie: 5
            }
        );
        assert_eq!(
            kept("H|9|track|5"),
            Atrace::AsyncEnd {
                tgid: 9,
                track: "track".into(),
                cookie: 5
            }
        );
        assert_eq!(parse(b"S|9|name|notanumber", &|_| true), Parsed::Invalid);
        assert_eq!(parse(b"S|9||5", &|_| true), Parsed::Invalid);
    }

    #[test]
    fn instants_are_kept_on_the_thread_or_a_named_track() {
        assert_eq!(
            kept("I|9|J<X>#UIThread"),
            Atrace::Instant {
                tgid: 9,
                track: None,
                name: "J<X>#UIThread".into()
            }
        );
        assert_eq!(
            kept("N|9|J<X>|FT#begin#0"),
            Atrace::Instant {
                tgid: 9,
                track: Some("J<X>".into()),
                name: "FT#begin#0".into()
            }
        );
        assert_eq!(parse(b"N|9|track|", &|_| true), Parsed::Invalid);
    }

    #[test]
    fn tgid_parses_as_str_parse_u32() {
        for t in [
            "",
            "0",
            "7",
            "123456789",
            "4294967295",
            "4294967296",
            "+5",
            "-5",
            " 5",
            "12a",
            "0012",
        ] {
            assert_eq!(parse_u32(t.as_bytes()), t.parse().ok(), "{t:?}");
        }
    }

    #[test]
    fn cookies_parse_as_str_parse_i64() {
        for t in [
            "",
            "-",
            "0",
            "-0",
            "17",
            "-3",
            "+5",
            "--5",
            "999999999999999999",
            "-999999999999999999",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775808",
            "-9223372036854775809",
            "1.5",
            " 1",
        ] {
            assert_eq!(parse_i64(t.as_bytes()), t.parse().ok(), "{t:?}");
        }
    }

    #[test]
    fn fields_split_on_the_first_two_bars() {
        assert_eq!(parse(b"|12|x", &|_| true), Parsed::Invalid);
        assert_eq!(kept("E|"), Atrace::End { tgid: 0 });
        assert_eq!(kept("Ex"), Atrace::End { tgid: 0 });
        assert_eq!(
            kept("Bogus|3|a|b"),
            Atrace::Begin {
                tgid: 3,
                name: "a|b".into()
            }
        );
        assert_eq!(parse(b"B|3", &|_| true), parse(b"B|3|", &|_| true));
    }

    #[test]
    fn the_usual_head_is_the_general_head() {
        let mut lines: Vec<Vec<u8>> = [
            "B|1|x",
            "B|1|",
            "B|1",
            "E|1",
            "E|",
            "E",
            "B|123456789|x",
            "B|1234567890|x",
            "B|4294967295",
            "B|4294967296|x",
            "B|+5|x",
            "B|-5|x",
            "B| 5|x",
            "B|12a|x",
            "B|0012|x",
            "B||x",
            "||5|x",
            "|5",
            "BB|1|x",
            "C|9|Heap|123",
            "S|3|a|7",
            "B|1|a|b|c",
            "",
            "B",
            "|",
        ]
        .iter()
        .map(|l| l.as_bytes().to_vec())
        .collect();
        // Every atrace line of the real traces.
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/traces");
        for name in [
            "pixel6a_a13_startup_warm_60hz.perfetto-trace",
            "pixel7pro_a13_nowinandroid_launch_120hz.perfetto-trace",
        ] {
            let trace = std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
            let found = lines.len();
            for bundle in bundles(&trace) {
                walk(bundle, &mut |item| {
                    if let FtraceItem::Print { buf, .. } = item {
                        lines.push(buf.to_vec());
                    }
                })
                .unwrap();
            }
            assert!(
                lines.len() > found + 1000,
                "{name}: {} lines",
                lines.len() - found
            );
        }
        let mut usual = 0;
        for buf in &lines {
            let line = trimmed(buf);
            let general = any_head(line);
            if let Some(head) = usual_head(line) {
                assert_eq!(Some(head), general, "{:?}", String::from_utf8_lossy(line));
                usual += 1;
            }
            assert_eq!(split(buf), general, "{:?}", String::from_utf8_lossy(line));
        }
        assert!(usual * 10 > lines.len() * 9, "{usual} of {}", lines.len());
    }

    #[test]
    fn counters_are_valid_but_unused() {
        assert_eq!(parse(b"C|9|Heap|123\n", &|_| true), Parsed::Unused);
        assert_eq!(parse(b"C|9|Heap|x", &|_| true), Parsed::Invalid);
        assert_eq!(parse(b"", &|_| true), Parsed::Invalid);
        assert_eq!(parse(b"hello world", &|_| true), Parsed::Invalid);
    }

    #[test]
    fn begin_names_not_kept_are_left_empty() {
        let keep = |n: &[u8]| n.starts_with(b"DrawFrame");
        assert_eq!(
            parse(b"B|3|measure", &keep),
            Parsed::Kept(Atrace::Begin {
                tgid: 3,
                name: String::new()
            })
        );
        assert_eq!(
            parse(b"B|3|DrawFrame 9", &keep),
            Parsed::Kept(Atrace::Begin {
                tgid: 3,
                name: "DrawFrame 9".into()
            })
        );
    }
}
