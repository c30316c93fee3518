//! `android_binder_txns` and `android_monitor_contention`: trace processor's rows on the real traces, and
//! synthetic traces for each binder transaction shape and each contention name form.

use crate::common::{golden_rows as rows, REAL_TRACES};
use ftl::synth::TraceBuilder;
use std::collections::BTreeMap;

/// `rows` without the columns `drop`, as a multiset.
fn without(header: &[String], rows: &[Vec<String>], drop: &[&str]) -> BTreeMap<Vec<String>, usize> {
    let mut set = BTreeMap::new();
    for r in rows {
        let kept = r
            .iter()
            .zip(header)
            .filter(|(_, h)| !drop.contains(&h.as_str()))
            .map(|(v, _)| v.clone())
            .collect();
        *set.entry(kept).or_insert(0) += 1;
    }
    set
}

#[test]
fn monitor_contention_equals_trace_processor_on_real_traces() {
    let mut compared = 0;
    for (golden, file) in REAL_TRACES {
        let (_, ours, theirs) = rows(golden, file, "android_monitor_contention");
        assert_eq!(ours, theirs, "{golden}");
        compared += theirs.len();
    }
    assert_eq!(compared, 109);
}

/// Every transaction trace processor lists is found with its times, processes and AIDL names, except the 6 of two
/// `dumpsys` processes forked during the trace (trace processor learns their threads' process from
/// `task_newtask`'s clone flags, which ftl does not read); every other row is equal, thread names included.
#[test]
fn binder_txns_equal_trace_processor_on_real_traces() {
    for (golden, file) in REAL_TRACES {
        let (header, ours, theirs) = rows(golden, file, "android_binder_txns");
        let names = ["client_thread", "server_thread"];
        let (ours_unnamed, theirs_unnamed) = (
            without(&header, &ours, &names),
            without(&header, &theirs, &names),
        );
        let client_process = header.iter().position(|h| h == "client_process").unwrap();
        let mut missing = 0;
        for (row, &n) in &theirs_unnamed {
            let found = ours_unnamed.get(row).copied().unwrap_or(0);
            if found < n {
                assert_eq!(row[client_process], "dumpsys", "{golden}: missing {row:?}");
                missing += n - found;
            }
        }
        let extra: Vec<_> = ours_unnamed
            .iter()
            .filter(|(row, &n)| theirs_unnamed.get(*row).copied().unwrap_or(0) < n)
            .collect();
        assert!(extra.is_empty(), "{golden}: extra {extra:?}");
        let same = without(&header, &ours, &[]);
        let matched: usize = without(&header, &theirs, &[])
            .iter()
            .map(|(row, &n)| n.min(same.get(row).copied().unwrap_or(0)))
            .sum();
        if golden.starts_with("pixel6a") {
            assert_eq!((theirs.len(), missing), (931, 6));
            assert_eq!(matched, 925, "{matched} of 931 rows equal");
        } else {
            assert_eq!((theirs.len(), ours.len()), (0, 0), "{golden}");
        }
    }
}

/// A trace with a FrameTimeline-less model: the tables only need the sections.
fn timeline(trace: &TraceBuilder) -> ftl::model::Timeline {
    let mut builder = ftl::model::TimelineBuilder::new();
    ftl::decode::decode(&trace.bytes()[..], &mut |e| builder.push(e)).unwrap();
    builder.build()
}

const CLIENT: i32 = 11;
const SERVER: i32 = 21;
const NESTED_SERVER: i32 = 31;

fn binder_trace() -> TraceBuilder {
    let mut t = TraceBuilder::new();
    t.process(10, "client", None)
        .process(20, "server", None)
        .process(30, "hal", None)
        .threads(&[
            (CLIENT, 10, "ui"),
            (12, 10, "worker"),
            (SERVER, 20, "binder:20_1"),
            (22, 20, "binder:20_2"),
            (NESTED_SERVER, 30, "binder:30_1"),
        ]);
    // Sync: 100 → 170 on the client, 110 → 160 on the server, with an AIDL child and a client-side name ignored.
    t.binder_transaction(100, CLIENT, 1, false, false)
        .binder_received(110, SERVER, 1)
        .begin(115, SERVER, 20, "AIDL::java::IFoo::bar::server")
        .begin(116, SERVER, 20, "AIDL::java::IFoo::bar::client")
        .end(120, SERVER, 20)
        .end(150, SERVER, 20)
        .binder_transaction(160, SERVER, 2, true, false)
        .binder_received(170, CLIENT, 2);
    // Oneway: duration 0 both sides; the next AIDL slice on the server thread names it.
    t.binder_transaction(200, CLIENT, 3, false, true)
        .binder_received(210, SERVER, 3)
        .begin(215, SERVER, 20, "AIDL::java::IFoo::ping::server")
        .end(230, SERVER, 20);
    // Never replied: the client slice never ends, no row.
    t.binder_transaction(300, 12, 4, false, false)
        .binder_received(305, 22, 4);
    // Nested: the server calls another process inside its reply.
    t.binder_transaction(400, CLIENT, 5, false, false)
        .binder_received(405, SERVER, 5)
        .binder_transaction(410, SERVER, 6, false, false)
        .binder_received(415, NESTED_SERVER, 6)
        .binder_transaction(420, NESTED_SERVER, 7, true, false)
        .binder_received(425, SERVER, 7)
        .binder_transaction(430, SERVER, 8, true, false)
        .binder_received(440, CLIENT, 8);
    // A receipt before its transaction is ignored (trace processor has not seen it yet): no row.
    t.binder_received(500, SERVER, 9)
        .binder_transaction(505, CLIENT, 9, false, true);
    t
}

#[test]
fn binder_transactions_of_each_shape() {
    let timeline = timeline(&binder_trace());
    let got: Vec<_> = ftl::model::binder::binder_txns(&timeline, |_| true)
        .into_iter()
        .map(|t| {
            (
                (t.client_tid, t.client_ts, t.client_dur),
                (t.server_tid, t.server_ts, t.server_dur),
                t.aidl_name,
                t.interface,
                t.method_name,
                t.is_sync,
            )
        })
        .collect();
    let aidl = |method: &str| Some(format!("AIDL::java::IFoo::{method}::server"));
    let foo = || Some("IFoo".to_string());
    assert_eq!(
        got,
        [
            (
                (CLIENT, 100, 70),
                (SERVER, 110, 50),
                aidl("bar"),
                foo(),
                Some("bar".into()),
                true
            ),
            (
                (CLIENT, 200, 0),
                (SERVER, 210, 0),
                aidl("ping"),
                foo(),
                Some("ping".into()),
                false
            ),
            ((CLIENT, 400, 40), (SERVER, 405, 25), None, None, None, true),
            (
                (SERVER, 410, 15),
                (NESTED_SERVER, 415, 5),
                None,
                None,
                None,
                true
            ),
        ]
    );
    let first = &ftl::model::binder::binder_txns(&timeline, |_| true)[0];
    assert_eq!(
        (
            first.client_process.as_deref(),
            first.client_thread.as_deref(),
            first.is_main_thread
        ),
        (Some("client"), Some("ui"), false)
    );
    assert_eq!(first.server_thread.as_deref(), Some("binder:20_1"));
}

/// `monitor contention with owner Thread-2 (7) at <blocking> waiters=<n> blocking from <blocked>`.
fn contention(waiters: u32) -> String {
    format!(
        "monitor contention with owner Thread-2 (7) at void a.B.c(int)(B.java:1) waiters={waiters} blocking from \
         void d.E.f()(E.java:2)"
    )
}

#[test]
fn monitor_contention_of_each_name_form() {
    let (pid, tid) = (40, 41);
    let mut t = TraceBuilder::new();
    t.process(pid, "app", None).threads(&[(tid, pid, "worker")]);
    let slice = |t: &mut TraceBuilder, ts: u64, end: u64, name: &str| {
        t.begin(ts, tid, pid, name).end(end, tid, pid);
    };
    // 0: no child: kept.
    slice(&mut t, 100, 110, &contention(0));
    // 1: a childless `Lock contention` child: kept.
    t.begin(200, tid, pid, &contention(1));
    slice(
        &mut t,
        201,
        205,
        "Lock contention on a monitor lock (owner tid: 7)",
    );
    t.end(210, tid, pid);
    // 2: the `Lock contention` child has a child: dropped.
    t.begin(300, tid, pid, &contention(2)).begin(
        301,
        tid,
        pid,
        "Lock contention on thread list lock (owner tid: 7)",
    );
    slice(&mut t, 302, 303, "something");
    t.end(305, tid, pid).end(310, tid, pid);
    // 3: another child: dropped.
    t.begin(400, tid, pid, &contention(3));
    slice(&mut t, 401, 402, "inflate");
    t.end(410, tid, pid);
    // 4: no owner method: dropped.
    slice(
        &mut t,
        500,
        510,
        "monitor contention with owner Thread-2 (7) waiters=0 blocking from void d.E.f()(E.java:2)",
    );
    // 5: between `mm_lock_acquire` and `mm_lock_held`: lock name `mm`.
    slice(&mut t, 600, 601, "mm_lock_acquire");
    slice(&mut t, 602, 610, &contention(5));
    slice(&mut t, 611, 612, "mm_lock_held");
    // 6: never ends: dropped.
    t.begin(700, tid, pid, &contention(6));
    let timeline = timeline(&t);
    let got: Vec<_> = ftl::analysis::locks::monitor_contention(&timeline)
        .into_iter()
        .map(|m| (m.ts, m.dur, m.waiter_count, m.lock_name))
        .collect();
    assert_eq!(
        got,
        [
            (100, 10, Some(0), None),
            (200, 10, Some(1), None),
            (602, 8, Some(5), Some("mm".to_string()))
        ]
    );
    let first = &ftl::analysis::locks::monitor_contention(&timeline)[0];
    assert_eq!(first.short_blocking_method.as_deref(), Some("a.B.c"));
    assert_eq!(first.blocked_method.as_deref(), Some("void d.E.f()"));
    assert_eq!(
        (first.blocking_src.as_deref(), first.blocked_src.as_deref()),
        (Some("B.java:1"), Some("E.java:2"))
    );
    assert_eq!(first.blocking_thread_name.as_deref(), Some("Thread-2"));
    assert_eq!(
        (first.blocking_tid, first.blocking_thread_tid),
        (Some(7), None)
    );
    assert_eq!(
        (
            first.process_name.as_deref(),
            first.pid,
            first.is_blocked_thread_main
        ),
        (Some("app"), Some(pid), Some(false))
    );
}
