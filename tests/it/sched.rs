//! Thread states and causes: trace processor's `thread_state`, `thread_slice_time_in_state` and
//! `cpu_cycles_per_thread_slice` on the real traces, and synthetic pipelines whose late frame's UI thread is
//! starved, preempted, in IO, waiting for GC, a lock or a binder call, running slow code, at a low frequency or
//! on a little core; `android_cpu_cluster_mapping` and the per-cluster running columns from `CpuInfo` packets.

use crate::common::{ftl_ok, golden_rows, parse_csv, REAL_TRACES};
use ftl::synth::{Cause, Pipeline, TraceBuilder, APP_PID};
use std::collections::BTreeMap;

/// Rows of `ours` not in `theirs` and of `theirs` not in `ours` (multisets).
fn differences(ours: &[Vec<String>], theirs: &[Vec<String>]) -> (usize, usize) {
    fn count(rows: &[Vec<String>]) -> BTreeMap<&Vec<String>, i64> {
        let mut m = BTreeMap::new();
        rows.iter().for_each(|r| *m.entry(r).or_default() += 1);
        m
    }
    let (a, b) = (count(ours), count(theirs));
    let only = |x: &BTreeMap<&Vec<String>, i64>, y: &BTreeMap<&Vec<String>, i64>| {
        x.iter()
            .map(|(r, n)| (n - y.get(r).copied().unwrap_or(0)).max(0) as usize)
            .sum()
    };
    (only(&a, &b), only(&b, &a))
}

#[test]
fn thread_tables_equal_trace_processor_on_real_traces() {
    let mut compared = BTreeMap::new();
    for (golden, file) in REAL_TRACES {
        for table in [
            "thread_state",
            "thread_slice_time_in_state",
            "cpu_cycles_per_thread_slice",
        ] {
            let (_, ours, theirs) = golden_rows(golden, file, table);
            *compared.entry(table).or_insert(0) += theirs.len();
            if golden.starts_with("emulator") && table == "thread_state" {
                // Events of two CPUs at the same microsecond (the emulator's clock) come out of trace
                // processor's sorter in an order that also depends on the ftrace events ftl does not read:
                // 16 of 58,717 rows (8 same-time switch / waking pairs) differ.
                assert_eq!(theirs.len(), 58_717);
                assert_eq!(differences(&ours, &theirs), (14, 16), "{golden}");
            } else {
                assert_eq!(ours, theirs, "{table} of {golden}");
            }
        }
    }
    assert_eq!(
        compared,
        BTreeMap::from([
            ("cpu_cycles_per_thread_slice", 37),
            ("thread_slice_time_in_state", 105),
            ("thread_state", 58_717 + 23_016),
        ])
    );
}

const MS: i64 = 1_000_000;
const CPU: u32 = 0;
/// A thread of another process the UI thread waits for, and its process.
const SERVER_PID: i32 = 1500;
const SERVER_TID: i32 = 1512;

/// The pipeline whose slot 10 is late on the UI thread (its doFrame takes the whole app budget), and that
/// doFrame's span, ns.
fn late_ui_pipeline() -> (Pipeline, (i64, i64)) {
    let p = Pipeline {
        frames: 20,
        late: vec![],
        app_sections: true,
        causes: vec![(10, Cause::UiThread)],
        ..Default::default()
    };
    // As `Pipeline::build` places slot 10's doFrame.
    let vsync = p.start_ns + 12 * p.period_ns;
    let start = vsync - p.sf_work_ns - p.app_work_ns + 500_000;
    (p.clone(), (start, start + p.app_work_ns))
}

/// The late frame's row of `ftl frames` on `trace`.
fn late_row(trace: &TraceBuilder) -> BTreeMap<String, String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.pftrace");
    std::fs::write(&path, trace.bytes()).unwrap();
    let (header, rows) = parse_csv(&ftl_ok(&["frames", path.to_str().unwrap()]));
    let late: Vec<BTreeMap<String, String>> = rows
        .into_iter()
        .map(|r| header.iter().cloned().zip(r).collect::<BTreeMap<_, _>>())
        .filter(|r| r["late_stage"] == "ui_thread")
        .collect();
    assert_eq!(late.len(), 1, "{late:?}");
    late.into_iter().next().unwrap()
}

/// The UI thread runs from the doFrame's start, leaves the CPU in `state` at +2 ms and is back on it 2 ms before
/// the end: 12.6 ms of `state` (and of what turns it into a state: a waking at +3 ms makes an S or D thread R).
fn scheduled(t: &mut TraceBuilder, (start, end): (i64, i64), state: i64, woken: bool) {
    let at = |ns: i64| ns as u64;
    t.kernel_release("5.10.107-android13-4")
        .sched_switch(at(start - MS), CPU, 0, 0, APP_PID, "com.example.app")
        .sched_switch(at(start + 2 * MS), CPU, APP_PID, state, 0, "swapper/0");
    if woken {
        t.sched_waking(at(start + 3 * MS), 1, SERVER_TID, APP_PID);
    }
    t.sched_switch(at(end - 2 * MS), CPU, 0, 0, APP_PID, "com.example.app")
        .sched_switch(at(end + MS), CPU, APP_PID, 1, 0, "swapper/0");
}

fn share(row: &BTreeMap<String, String>) -> f64 {
    row["cause_share_pct"].parse().unwrap()
}

#[test]
fn each_state_of_a_late_ui_thread_is_its_cause() {
    let (p, span) = late_ui_pipeline();
    let dur = span.1 - span.0;
    // (prev_state, woken, cause, the column holding the time, that time).
    for (state, woken, cause, column, ns) in [
        (1, true, "cpu_starved", "ui_runnable_ns", 11_600_000),
        (
            0x100,
            false,
            "preempted",
            "ui_runnable_preempted_ns",
            dur - 4 * MS,
        ),
        (
            2,
            false,
            "sleeping",
            "ui_uninterruptible_non_io_ns",
            dur - 4 * MS,
        ),
    ] {
        let mut t = p.build();
        scheduled(&mut t, span, state, woken);
        let row = late_row(&t);
        assert_eq!(row["cause"], cause, "{row:?}");
        assert_eq!(row[column], ns.to_string(), "{row:?}");
        assert_eq!(row["ui_running_ns"], (4 * MS).to_string());
        assert!(
            (share(&row) - 100.0 * ns as f64 / dur as f64).abs() < 1e-9,
            "{row:?}"
        );
        // No frequency events: no cycles; the RenderThread, of which the scheduler says nothing: no columns.
        assert_eq!(row["ui_megacycles"], "");
        assert_eq!(row["rt_running_ns"], "");
    }
    // D with io_wait is io.
    let mut t = p.build();
    scheduled(&mut t, span, 2, false);
    t.sched_blocked_reason((span.0 + 2 * MS + 10) as u64, APP_PID, true);
    let row = late_row(&t);
    assert_eq!(
        (
            row["cause"].as_str(),
            row["ui_uninterruptible_io_ns"].as_str()
        ),
        ("io", (dur - 4 * MS).to_string().as_str())
    );
}

#[test]
fn a_late_ui_thread_blocked_in_a_call_has_that_call_as_its_cause() {
    let (p, span) = late_ui_pipeline();
    let (a, b) = ((span.0 + MS) as u64, (span.1 - 3 * MS) as u64);
    let monitor =
        "monitor contention with owner HeapTaskDaemon (1234) at void a.B.c()(B.java:1) waiters=0 \
                   blocking from void d.E.f()(E.java:2)";
    // Woken inside the call or not: the call is the cause, unless it is code the thread ran (a section).
    for (section, woken, cause, top) in [
        ("GC: Wait For Concurrent", true, "gc", "Garbage Collector"),
        (
            monitor,
            true,
            "lock:HeapTaskDaemon",
            "monitor contention with HeapTaskDaemon (a.B.c)",
        ),
        ("inflate", false, "sleeping:inflate", "inflate"),
        ("inflate", true, "cpu_starved", "inflate"),
    ] {
        let mut t = p.build();
        scheduled(&mut t, span, 1, woken);
        t.begin(a, APP_PID, APP_PID, section)
            .end(b, APP_PID, APP_PID);
        let row = late_row(&t);
        assert_eq!(row["cause"], cause, "{row:?}");
        assert_eq!(row["top_blocking_call"], top);
        assert_eq!(row["top_blocking_call_ns"], (b - a).to_string());
    }
    // A synchronous binder call to another process: the transaction and its reply.
    let mut t = p.build();
    t.process(SERVER_PID, "system_server", Some(1000))
        .threads(&[(SERVER_TID, SERVER_PID, "binder:1500_2")]);
    scheduled(&mut t, span, 1, true);
    t.binder_transaction(a, APP_PID, 7, false, false)
        .binder_received(a + 50_000, SERVER_TID, 7)
        .binder_transaction(b - 50_000, SERVER_TID, 8, true, false)
        .binder_received(b, APP_PID, 8);
    let row = late_row(&t);
    assert_eq!(row["cause"], "binder:system_server", "{row:?}");
    assert_eq!(
        (row["binder_ns"].as_str(), row["binder_calls"].as_str()),
        ((b - a).to_string().as_str(), "1")
    );
    assert_eq!(
        row["top_blocking_call"],
        "binder transaction (system_server)"
    );
}

#[test]
fn running_time_is_slow_code_or_low_frequency() {
    let (p, span) = late_ui_pipeline();
    let at = |ns: i64| ns as u64;
    let running = |khz: u32| {
        let mut t = p.build();
        t.cpu_frequency(at(span.0 - 10 * MS), CPU, 2_000_000)
            .cpu_frequency(at(span.0 - 5 * MS), CPU, khz)
            .sched_switch(at(span.0 - MS), CPU, 0, 0, APP_PID, "com.example.app")
            .sched_switch(at(span.1 + MS), CPU, APP_PID, 1, 0, "swapper/0")
            .begin(at(span.0 + MS), APP_PID, APP_PID, "inflate")
            .end(at(span.1 - MS), APP_PID, APP_PID);
        late_row(&t)
    };
    let dur = span.1 - span.0;
    let fast = running(1_800_000);
    assert_eq!(fast["cause"], "slow_code:inflate");
    assert!((share(&fast) - 100.0 * (dur - 2 * MS) as f64 / dur as f64).abs() < 1e-9);
    // Running all along at a known frequency: cycles, as cpu_cycles_per_thread_slice counts them.
    let millicycles = dur * 1_800_000 / 1000;
    assert_eq!(
        fast["ui_megacycles"],
        ((millicycles as f64 / 1e9) as i64).to_string()
    );
    let slow = running(500_000);
    assert_eq!(slow["cause"], "low_frequency");
    assert_eq!(share(&slow), 100.0);
}

#[test]
fn without_the_scheduler_the_columns_are_null_and_the_diagnostics_say_what_to_record() {
    let (p, _) = late_ui_pipeline();
    let row = late_row(&p.build());
    for column in [
        "cause",
        "ui_running_ns",
        "rt_sleeping_ns",
        "binder_ns",
        "top_blocking_call",
    ] {
        assert_eq!(row[column], "", "{column}");
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.pftrace");
    std::fs::write(&path, p.build().bytes()).unwrap();
    let report: serde_json::Value = serde_json::from_str(&ftl_ok(&[
        "analyze",
        path.to_str().unwrap(),
        "--format",
        "json",
    ]))
    .unwrap();
    let d = &report["diagnostics"];
    assert_eq!(d["late_frames_without_cause"], 1);
    assert_eq!(
        d["cause_data_missing"],
        serde_json::json!([
            "sched/sched_switch",
            "sched/sched_waking",
            "sched/sched_blocked_reason",
            "power/cpu_frequency",
            "linux.system_info (CpuInfo)"
        ])
    );
    let text = ftl_ok(&["analyze", path.to_str().unwrap()]);
    assert!(
        text.contains("also record: sched/sched_switch, sched/sched_waking"),
        "{text}"
    );
}

#[test]
fn prev_state_decodes_by_the_traces_kernel_version() {
    let states = |release: Option<&str>, prev_state: i64| {
        let mut t = Pipeline {
            frames: 2,
            ..Default::default()
        }
        .build();
        if let Some(r) = release {
            t.kernel_release(r);
        }
        t.sched_switch(100, 0, 0, 0, 5, "a")
            .sched_switch(200, 0, 5, prev_state, 6, "b");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.pftrace");
        std::fs::write(&path, t.bytes()).unwrap();
        let (header, rows) = parse_csv(&ftl_ok(&["table", path.to_str().unwrap(), "thread_state"]));
        let state = header.iter().position(|h| h == "state").unwrap();
        let tid = header.iter().position(|h| h == "tid").unwrap();
        rows.iter()
            .filter(|r| r[tid] == "5")
            .map(|r| r[state].clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(states(Some("5.10.1"), 0x100), ["Running", "R+"]);
    assert_eq!(states(Some("4.9.1"), 0x1000), ["Running", "R+"]);
    assert_eq!(states(Some("4.9.1"), 0x100), ["Running", "W"]);
    // Without a kernel version, Perfetto's 4.4: preempted is 0x800.
    assert_eq!(states(None, 0x800), ["Running", "R+"]);
    assert_eq!(states(Some("5.10.1"), 0x80 | 2), ["Running", "DI"]);
}

/// The Pixel 6 layout: capacities 160 × 4, 498 × 2, 1024 × 2 (little, medium, big), with frequencies.
const PIXEL6_CPUS: [(Option<u32>, &[u32]); 8] = [
    (Some(160), &[300_000, 1_803_000]),
    (Some(160), &[300_000, 1_803_000]),
    (Some(160), &[300_000, 1_803_000]),
    (Some(160), &[300_000, 1_803_000]),
    (Some(498), &[400_000, 2_253_000]),
    (Some(498), &[400_000, 2_253_000]),
    (Some(1024), &[500_000, 2_802_000]),
    (Some(1024), &[500_000, 2_802_000]),
];

/// `ftl table t android_cpu_cluster_mapping` of a small pipeline with these `CpuInfo` packets: (ucpu, cpu, cluster_type).
fn cluster_mapping(packets: &[&[(Option<u32>, &[u32])]]) -> Vec<(String, String, String)> {
    // `ftl table` wants FrameTimeline.
    let mut t = Pipeline {
        frames: 2,
        ..Default::default()
    }
    .build();
    for cpus in packets {
        t.cpu_info(cpus);
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.pftrace");
    std::fs::write(&path, t.bytes()).unwrap();
    let out = ftl_ok(&[
        "table",
        path.to_str().unwrap(),
        "android_cpu_cluster_mapping",
    ]);
    let (header, rows) = parse_csv(&out);
    assert_eq!(header, ["ucpu", "cpu", "cluster_type"]);
    rows.into_iter()
        .map(|r| (r[0].clone(), r[1].clone(), r[2].clone()))
        .collect()
}

/// The cluster types of [`cluster_mapping`], by CPU.
fn cluster_types(packets: &[&[(Option<u32>, &[u32])]]) -> Vec<String> {
    cluster_mapping(packets)
        .into_iter()
        .enumerate()
        .map(|(i, (ucpu, cpu, t))| {
            assert_eq!((ucpu, cpu), (i.to_string(), i.to_string()));
            t
        })
        .collect()
}

#[test]
fn cpu_clusters_follow_capacity_else_maximum_frequency() {
    let mut pixel6 = vec!["little"; 4];
    pixel6.extend(["medium", "medium", "big", "big"]);
    assert_eq!(cluster_types(&[&PIXEL6_CPUS]), pixel6);
    // Equal capacities but one missing: the maximum frequencies (1.8, 2.4, 1.8 GHz) decide.
    let by_frequency: [(Option<u32>, &[u32]); 3] = [
        (Some(100), &[300_000, 1_800_000]),
        (None, &[2_400_000, 300_000]),
        (Some(100), &[500_000, 1_800_000]),
    ];
    assert_eq!(cluster_types(&[&by_frequency]), ["little", "big", "little"]);
    // Neither capacities nor frequencies everywhere: one cluster, no type.
    let neither: [(Option<u32>, &[u32]); 2] = [(None, &[300_000]), (Some(5), &[])];
    assert_eq!(cluster_types(&[&neither]), ["", ""]);
}

#[test]
fn two_three_and_four_clusters_have_types_five_do_not() {
    let by_capacity = |n: u32| {
        let cpus: Vec<(Option<u32>, &[u32])> = (1..=n).map(|c| (Some(100 * c), &[][..])).collect();
        cluster_types(&[&cpus])
    };
    assert_eq!(by_capacity(2), ["little", "big"]);
    assert_eq!(by_capacity(3), ["little", "medium", "big"]);
    assert_eq!(by_capacity(4), ["little", "medium", "medium", "big"]);
    assert_eq!(by_capacity(5), ["", "", "", "", ""]);
    // Without CpuInfo: no rows.
    assert_eq!(cluster_mapping(&[]), []);
}

/// The late UI thread of [`late_ui_pipeline`] on the Pixel 6 CPUs: on CPU 0 (little) from before the doFrame to
/// +3 ms, runnable to +4 ms, on CPU 4 (medium) to +6 ms, runnable to +7 ms, then on CPU 6 (big) to after it.
fn on_three_clusters(t: &mut TraceBuilder, (start, _): (i64, i64)) {
    let at = |ns: i64| (start + ns) as u64;
    let app = "com.example.app";
    t.sched_switch(at(-MS), 0, 0, 0, APP_PID, app)
        .sched_switch(at(3 * MS), 0, APP_PID, 0, 0, "swapper/0")
        .sched_switch(at(4 * MS), 4, 0, 0, APP_PID, app)
        .sched_switch(at(6 * MS), 4, APP_PID, 0, 0, "swapper/4")
        .sched_switch(at(7 * MS), 6, 0, 0, APP_PID, app)
        .sched_switch(at(40 * MS), 6, APP_PID, 1, 0, "swapper/6");
}

#[test]
fn running_time_splits_by_the_cluster_of_its_cpu() {
    let (p, span) = late_ui_pipeline();
    let dur = span.1 - span.0;
    assert!(
        span.0 + 40 * MS > span.1,
        "the thread runs past the doFrame"
    );
    let mut t = p.build();
    t.kernel_release("5.10.107-android13-4")
        .cpu_info(&PIXEL6_CPUS);
    on_three_clusters(&mut t, span);
    let row = late_row(&t);
    let big = dur - 7 * MS;
    for (column, ns) in [
        ("ui_running_ns", 3 * MS + 2 * MS + big),
        ("ui_running_little_ns", 3 * MS),
        ("ui_running_mid_ns", 2 * MS),
        ("ui_running_big_ns", big),
        ("ui_runnable_ns", 2 * MS),
    ] {
        assert_eq!(row[column], ns.to_string(), "{column}: {row:?}");
    }
    // The RenderThread, of which the scheduler says nothing: null, not 0.
    assert_eq!(row["rt_running_little_ns"], "");
    // Without CpuInfo the split is unknown: null, the running time stays.
    let mut t = p.build();
    t.kernel_release("5.10.107-android13-4");
    on_three_clusters(&mut t, span);
    let row = late_row(&t);
    assert_eq!(row["ui_running_ns"], (5 * MS + big).to_string());
    for column in [
        "ui_running_little_ns",
        "ui_running_mid_ns",
        "ui_running_big_ns",
    ] {
        assert_eq!(row[column], "", "{column}");
    }
}

#[test]
fn a_late_ui_thread_running_on_a_little_core_is_little_core() {
    let (p, span) = late_ui_pipeline();
    let at = |ns: i64| ns as u64;
    // Running all the doFrame on `cpu` at a tenth of its top frequency, inside `inflate` but for 1 ms each side.
    let running = |cpu: u32, cpus: Option<&[(Option<u32>, &[u32])]>| {
        let mut t = p.build();
        if let Some(cpus) = cpus {
            t.cpu_info(cpus);
        }
        t.cpu_frequency(at(span.0 - 10 * MS), cpu, 1_800_000)
            .cpu_frequency(at(span.0 - 5 * MS), cpu, 180_000)
            .sched_switch(at(span.0 - MS), cpu, 0, 0, APP_PID, "com.example.app")
            .sched_switch(at(span.1 + MS), cpu, APP_PID, 1, 0, "swapper/0")
            .begin(at(span.0 + MS), APP_PID, APP_PID, "inflate")
            .end(at(span.1 - MS), APP_PID, APP_PID);
        t
    };
    // On little CPU 1 at low frequency: little_core takes all the running time, before low_frequency.
    let little = running(1, Some(&PIXEL6_CPUS));
    let row = late_row(&little);
    assert_eq!(row["cause"], "little_core", "{row:?}");
    assert_eq!(share(&row), 100.0);
    // On big CPU 7 at low frequency: low_frequency. Without CpuInfo, CPU 1 the same.
    for trace in [running(7, Some(&PIXEL6_CPUS)), running(1, None)] {
        let row = late_row(&trace);
        assert_eq!(row["cause"], "low_frequency", "{row:?}");
        assert_eq!(share(&row), 100.0);
    }
    // With the clusters known, the diagnostics no longer ask for them.
    let missing = |trace: &TraceBuilder| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.pftrace");
        std::fs::write(&path, trace.bytes()).unwrap();
        let out = ftl_ok(&["analyze", path.to_str().unwrap(), "--format", "json"]);
        let report: serde_json::Value = serde_json::from_str(&out).unwrap();
        report["diagnostics"]["cause_data_missing"].clone()
    };
    assert_eq!(
        missing(&little),
        serde_json::json!(["sched/sched_waking", "sched/sched_blocked_reason"])
    );
    assert_eq!(
        missing(&running(1, None)),
        serde_json::json!([
            "sched/sched_waking",
            "sched/sched_blocked_reason",
            "linux.system_info (CpuInfo)"
        ])
    );
}
