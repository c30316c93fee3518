//! Java monitor contention: Perfetto's `android_monitor_contention` (stdlib `android/monitor_contention.sql`,
//! google/perfetto @ ec5d16b1) over the kept app sections — ART's `monitor contention with owner …` slices parsed
//! into blocked / blocking thread and method, only the leaf-ish ones.

use crate::model::binder::{process_of, str_split, BINDER_REPLY};
use crate::model::sections::{AppSections, Section};
use crate::model::Timeline;
use rustc_hash::FxHashMap;

/// One row of `android_monitor_contention`: a contention slice on the blocked thread, parsed from its name
/// `monitor contention with owner <thread> (<tid>) at <method>(<src>) waiters=<n> blocking from <method>(<src>)`
/// with the SQL's `str_split` rules (a part the name lacks is `None`). Perfetto's ids become indexes into
/// [`AppSections::sections`] and `utid`/`upid` become tids/pids; times in ns on the trace clock. Not carried:
/// `monotonic_dur` (needs suspend data).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct MonitorContention {
    /// The contention slice (`id`).
    pub section: u32,
    /// Its start, ns.
    pub ts: i64,
    /// Its duration, ns.
    pub dur: i64,
    /// The method holding the lock, with return and parameter types: `int a.B.c(int)`.
    pub blocking_method: Option<String>,
    /// The method waiting for the lock.
    pub blocked_method: Option<String>,
    /// `blocking_method` without return and parameter types: `a.B.c`.
    pub short_blocking_method: Option<String>,
    /// `blocked_method` without return and parameter types.
    pub short_blocked_method: Option<String>,
    /// Source location of the blocking method (`File.java:12`).
    pub blocking_src: Option<String>,
    /// Source location of the blocked method.
    pub blocked_src: Option<String>,
    /// Other threads waiting for the lock (`waiters=`).
    pub waiter_count: Option<i64>,
    /// The blocked thread (the slice's).
    pub blocked_thread_tid: i32,
    /// Its name, if known.
    pub blocked_thread_name: Option<String>,
    /// It is its process's main thread; `None` when its process is unknown.
    pub is_blocked_thread_main: Option<bool>,
    /// The lock owner's name as the slice gives it.
    pub blocking_thread_name: Option<String>,
    /// The number in parentheses after the owner's name (a tid from Android U, an ART thread id before).
    pub blocking_tid: Option<i64>,
    /// The thread of that tid in the blocked thread's process, if there is one.
    pub blocking_thread_tid: Option<i32>,
    /// That thread is its process's main thread.
    pub is_blocking_thread_main: Option<bool>,
    /// The blocked thread's process, if known.
    pub pid: Option<i32>,
    /// Its name, if known.
    pub process_name: Option<String>,
    /// The `binder reply` slice enclosing the contention, if any (`binder_reply_id`).
    pub binder_reply: Option<u32>,
    /// The lock's name from the slices around the contention: `X` when the slice just before it on its thread is
    /// `X_lock_acquire` and the next one (or the one after a `Lock contention…` child) is `X_lock_held`.
    pub lock_name: Option<String>,
}

/// Prefix of the contention slices.
const MONITOR_CONTENTION: &str = "monitor contention";
/// Prefix of ART's lock contention slices (a contention slice's allowed child).
const LOCK_CONTENTION: &str = "Lock contention";

/// The contention slices of `timeline` that `android_monitor_contention` lists, in slice order: named
/// `monitor contention*`, ended, whose name gives both short methods, and leaf-ish — no child, or a
/// `Lock contention*` child without children of its own.
pub fn monitor_contention(timeline: &Timeline) -> Vec<MonitorContention> {
    let app = &timeline.app;
    let sections = &app.sections;
    let name = |s: &Section| app.name(s.name);
    // Leaf-ish: the contention slices with a childless `Lock contention*` child.
    let mut lock_child = vec![false; sections.len()];
    // Neighbours for the lock name: the `*_lock_acquire` / `*_lock_held` / `Lock contention*` slices by (thread,
    // place on the thread).
    let mut by_place: FxHashMap<(i32, u32), &str> = FxHashMap::default();
    for s in sections {
        let n = name(s);
        let parent = sections.get(s.parent as usize);
        if n.starts_with(LOCK_CONTENTION) {
            by_place.insert((s.tid, s.ordinal), n);
            let direct = parent.filter(|p| p.depth + 1 == s.depth);
            if s.children == 0 && direct.is_some_and(|p| name(p).starts_with(MONITOR_CONTENTION)) {
                lock_child[s.parent as usize] = true;
            }
        } else if n.ends_with(ACQUIRE) || n.ends_with(HELD) {
            by_place.insert((s.tid, s.ordinal), n);
        }
    }
    let mut rows = Vec::new();
    for (i, s) in sections.iter().enumerate() {
        let n = name(s);
        let leafish = s.children == 0 || lock_child[i];
        if !n.starts_with(MONITOR_CONTENTION) || !leafish || s.dur == -1 {
            continue;
        }
        let parsed = Parsed::new(n);
        if parsed.short_blocking_method.is_none() || parsed.short_blocked_method.is_none() {
            continue;
        }
        let neighbour = |offset: i64| {
            let ordinal = u32::try_from(i64::from(s.ordinal) + offset).ok()?;
            by_place.get(&(s.tid, ordinal)).copied()
        };
        let lock_name = lock_name(neighbour(-1), neighbour(1), neighbour(2));
        rows.push(row(timeline, app, i as u32, s, parsed, lock_name));
    }
    rows
}

const ACQUIRE: &str = "_lock_acquire";
const HELD: &str = "_lock_held";

/// The SQL's lock name from the names of the slices just before and the two just after a contention on its
/// thread (`None`: no slice, or one whose name does not matter).
fn lock_name(prev: Option<&str>, next_1: Option<&str>, next_2: Option<&str>) -> Option<String> {
    let prev = prev.filter(|p| p.ends_with(ACQUIRE))?;
    let held = match next_1? {
        n if n.ends_with(HELD) => n,
        n if n.starts_with(LOCK_CONTENTION) => next_2.filter(|n| n.ends_with(HELD))?,
        _ => return None,
    };
    let lock = prev.replace(ACQUIRE, "");
    (lock == held.replace(HELD, "")).then_some(lock)
}

/// The parts of a contention slice's name (`android_extract_android_monitor_contention_*`).
struct Parsed {
    blocking_method: Option<String>,
    blocked_method: Option<String>,
    short_blocking_method: Option<String>,
    short_blocked_method: Option<String>,
    blocking_src: Option<String>,
    blocked_src: Option<String>,
    waiter_count: Option<i64>,
    blocking_thread_name: Option<String>,
    blocking_tid: Option<i64>,
}

impl Parsed {
    fn new(name: &str) -> Self {
        // `str_split(str_split(name, after, 1), "(", 0) || "(" || str_split(…, "(", 1)`.
        let method = |after: &str| {
            let rest = str_split(name, after, 1);
            let (head, args) = (split(rest, "(", 0)?, split(rest, "(", 1)?);
            Some(format!("{head}({args}"))
        };
        let short = |method: &Option<String>| {
            let second_word = split(method.as_deref(), " ", 1);
            split(second_word, "(", 0).map(str::to_string)
        };
        let (blocking_method, blocked_method) = (method(") at "), method("blocking from "));
        let owned = |s: Option<&str>| s.map(str::to_string);
        Parsed {
            short_blocking_method: short(&blocking_method),
            short_blocked_method: short(&blocked_method),
            blocking_method,
            blocked_method,
            blocking_src: owned(split(str_split(name, ")(", 1), ")", 0)),
            blocked_src: owned(split(str_split(name, ")(", 2), ")", 0)),
            waiter_count: split(str_split(name, "waiters=", 1), " ", 0).map(cast_int),
            blocking_thread_name: owned(split(str_split(name, "with owner ", 1), " (", 0)),
            blocking_tid: split(str_split(name, " (", 1), ")", 0).map(cast_int),
        }
    }
}

/// [`str_split`] of a part that may be missing (SQL NULL in, NULL out).
fn split<'a>(s: Option<&'a str>, delimiter: &str, field: usize) -> Option<&'a str> {
    s.and_then(|s| str_split(s, delimiter, field))
}

/// SQLite's `CAST(text AS INT)`: the leading integer after any spaces (sign, then digits), 0 without one; the
/// value saturates beyond i64.
fn cast_int(text: &str) -> i64 {
    let t = text.trim_start();
    let (negative, digits) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let mut value: i64 = 0;
    for d in digits.bytes().take_while(u8::is_ascii_digit) {
        let d = i64::from(d - b'0');
        value = match negative {
            true => value.saturating_mul(10).saturating_sub(d),
            false => value.saturating_mul(10).saturating_add(d),
        };
    }
    value
}

fn row(
    timeline: &Timeline,
    app: &AppSections,
    section: u32,
    s: &Section,
    p: Parsed,
    lock_name: Option<String>,
) -> MonitorContention {
    let pid = process_of(timeline, s.tid);
    // The owner: a thread of that tid in the same process.
    let blocking_thread_tid = p
        .blocking_tid
        .and_then(|t| i32::try_from(t).ok())
        .filter(|&t| pid.is_some() && process_of(timeline, t) == pid);
    let mut ancestor = s.parent;
    let binder_reply = std::iter::from_fn(|| {
        let a = app.sections.get(ancestor as usize)?;
        let at = ancestor;
        ancestor = a.parent;
        Some((at, a))
    })
    .find(|(_, a)| app.name(a.name) == BINDER_REPLY)
    .map(|(at, _)| at);
    MonitorContention {
        section,
        ts: s.ts,
        dur: s.dur,
        blocking_method: p.blocking_method,
        blocked_method: p.blocked_method,
        short_blocking_method: p.short_blocking_method,
        short_blocked_method: p.short_blocked_method,
        blocking_src: p.blocking_src,
        blocked_src: p.blocked_src,
        waiter_count: p.waiter_count,
        blocked_thread_tid: s.tid,
        blocked_thread_name: app.thread_name(s.tid).map(str::to_string),
        is_blocked_thread_main: pid.map(|pid| pid == s.tid),
        blocking_thread_name: p.blocking_thread_name,
        blocking_tid: p.blocking_tid,
        blocking_thread_tid,
        is_blocking_thread_main: blocking_thread_tid.zip(pid).map(|(t, pid)| t == pid),
        pid,
        process_name: pid.and_then(|pid| timeline.process_names.get(&pid).cloned()),
        binder_reply,
        lock_name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_as_the_sql_splits_them() {
        let p = Parsed::new(
            "monitor contention with owner Thread-63 (182) at int libcore.io.Linux.readBytes(java.io.FileDescriptor, \
             java.lang.Object, int, int)(Linux.java:-2) waiters=3 blocking from void a.B.c()(B.java:7)",
        );
        assert_eq!(
            p.blocking_method.as_deref(),
            Some("int libcore.io.Linux.readBytes(java.io.FileDescriptor, java.lang.Object, int, int)")
        );
        assert_eq!(
            p.short_blocking_method.as_deref(),
            Some("libcore.io.Linux.readBytes")
        );
        assert_eq!(p.blocked_method.as_deref(), Some("void a.B.c()"));
        assert_eq!(p.short_blocked_method.as_deref(), Some("a.B.c"));
        assert_eq!(p.blocking_src.as_deref(), Some("Linux.java:-2"));
        assert_eq!(p.blocked_src.as_deref(), Some("B.java:7"));
        assert_eq!(p.waiter_count, Some(3));
        assert_eq!(p.blocking_thread_name.as_deref(), Some("Thread-63"));
        assert_eq!(p.blocking_tid, Some(182));
        // Without an owner method: no blocking method, so no row.
        let p = Parsed::new(
            "monitor contention with owner x (1) waiters=0 blocking from void a.B.c()(B.java:7)",
        );
        assert_eq!(p.short_blocking_method, None);
        assert_eq!(p.short_blocked_method.as_deref(), Some("a.B.c"));
    }

    #[test]
    fn cast_int_reads_a_leading_integer() {
        assert_eq!(cast_int("12"), 12);
        assert_eq!(cast_int(" -4x"), -4);
        assert_eq!(cast_int("x"), 0);
        assert_eq!(cast_int("99999999999999999999"), i64::MAX);
    }

    #[test]
    fn lock_names_need_matching_acquire_and_held_neighbours() {
        let name = |p, n1, n2| lock_name(p, n1, n2);
        assert_eq!(
            name(Some("mm_lock_acquire"), Some("mm_lock_held"), None).as_deref(),
            Some("mm")
        );
        assert_eq!(
            name(
                Some("mm_lock_acquire"),
                Some("Lock contention on a monitor lock"),
                Some("mm_lock_held")
            )
            .as_deref(),
            Some("mm")
        );
        assert_eq!(
            name(Some("mm_lock_acquire"), Some("xx_lock_held"), None),
            None
        );
        assert_eq!(name(None, Some("mm_lock_held"), None), None);
        assert_eq!(
            name(Some("mm_lock_acquire"), Some("other"), Some("mm_lock_held")),
            None
        );
    }
}
