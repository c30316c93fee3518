//! Perfetto's scheduler tables for `ftl table`: `thread_state`, and for the app frames' slices
//! (`Choreographer#doFrame*`, `DrawFrame*`) `thread_slice_time_in_state` and `cpu_cycles_per_thread_slice`, and
//! `android_cpu_cluster_mapping` (from [`crate::model::cluster`]), with
//! tids and names instead of trace processor's ids, as the queries of `../shared/golden/README.md` select them.
//! Rows come from [`crate::model::sched`]; a trace without scheduler events gives header-only tables.

use crate::error::Result;
use crate::model::Timeline;
use crate::output::table::to_dataframe;
use polars::prelude::DataFrame;
use serde::Serialize;

#[derive(Debug, Default, Serialize)]
struct ThreadStateRow {
    ts: i64,
    dur: i64,
    cpu: Option<u32>,
    tid: i32,
    thread_name: Option<String>,
    state: Option<String>,
    io_wait: Option<u8>,
    blocked_function: Option<String>,
    waker_tid: Option<i32>,
    irq_context: Option<u8>,
}

/// The columns naming an app frame's slice in the per-slice tables, as the golden queries select them.
#[derive(Debug, Default, Clone, Serialize)]
struct SliceColumns {
    slice_ts: i64,
    slice_dur: i64,
    name: String,
    tid: i32,
    thread_name: Option<String>,
    process_name: Option<String>,
}

#[derive(Debug, Default, Serialize)]
struct TimeInStateRow {
    #[serde(flatten)]
    slice: SliceColumns,
    state: Option<String>,
    io_wait: Option<u8>,
    blocked_function: Option<String>,
    dur: i64,
}

#[derive(Debug, Default, Serialize)]
struct CyclesRow {
    #[serde(flatten)]
    slice: SliceColumns,
    millicycles: Option<i64>,
    megacycles: Option<i64>,
}

/// Perfetto's `thread_state`, ordered by (ts, tid, dur, state). `blocked_function` is always null: it needs
/// the kernel symbols ftl does not read.
pub fn thread_state(timeline: &Timeline) -> Result<DataFrame> {
    let name = |tid: i32| timeline.app.thread_name(tid).map(str::to_string);
    let mut rows: Vec<ThreadStateRow> = timeline
        .sched
        .iter()
        .flat_map(|s| {
            s.thread_states().iter().map(move |r| ThreadStateRow {
                ts: r.ts,
                dur: r.dur,
                cpu: r.cpu,
                tid: r.tid,
                thread_name: None,
                state: s.state_name(r.state).map(str::to_string),
                io_wait: r.io_wait.map(u8::from),
                blocked_function: None,
                waker_tid: r.waker_tid,
                irq_context: r.irq_context.map(u8::from),
            })
        })
        .collect();
    rows.sort_by(|a, b| {
        (a.ts, a.tid, a.dur)
            .cmp(&(b.ts, b.tid, b.dur))
            .then_with(|| a.state.cmp(&b.state))
    });
    for r in &mut rows {
        r.thread_name = name(r.tid);
    }
    to_dataframe(&rows)
}

/// The app frames' thread slices Perfetto's per-slice tables are asked about here: every slice named
/// `Choreographer#doFrame*` or `DrawFrame*` that ended with a positive duration on a thread other than the
/// swapper, with the names of its thread and process.
fn frame_slices(timeline: &Timeline) -> impl Iterator<Item = SliceColumns> + '_ {
    let app = &timeline.app;
    app.sections.iter().filter_map(move |s| {
        let name = app.name(s.name);
        let frame = crate::model::sched::is_frame_slice(name.as_bytes());
        (frame && s.dur > 0 && s.tid > 0).then(|| SliceColumns {
            slice_ts: s.ts,
            slice_dur: s.dur,
            name: name.to_string(),
            tid: s.tid,
            thread_name: app.thread_name(s.tid).map(str::to_string),
            process_name: app
                .pid_of(s.tid)
                .and_then(|pid| timeline.process_names.get(&pid).cloned()),
        })
    })
}

/// `thread_slice_time_in_state` for the app frames' slices ([`frame_slices`]), ordered by (slice_ts, tid,
/// state, io_wait, blocked_function).
pub fn thread_slice_time_in_state(timeline: &Timeline) -> Result<DataFrame> {
    let mut rows: Vec<TimeInStateRow> = Vec::new();
    if let Some(sched) = &timeline.sched {
        for slice in frame_slices(timeline) {
            let mut parts = sched.time_in_state(slice.tid, slice.slice_ts, slice.slice_dur);
            merge_cpus(&mut parts);
            for p in parts {
                rows.push(TimeInStateRow {
                    slice: slice.clone(),
                    state: sched.state_name(p.state).map(str::to_string),
                    io_wait: p.io_wait.map(u8::from),
                    blocked_function: None,
                    dur: p.dur,
                });
            }
        }
    }
    fn key(r: &TimeInStateRow) -> (i64, i32, Option<&str>, Option<u8>) {
        (r.slice.slice_ts, r.slice.tid, r.state.as_deref(), r.io_wait)
    }
    rows.sort_by(|a, b| key(a).cmp(&key(b)));
    to_dataframe(&rows)
}

/// The table groups by (state, io_wait, blocked_function), not by CPU: pieces that differ only in CPU add up.
fn merge_cpus(parts: &mut Vec<crate::model::sched::StateTime>) {
    let mut merged: Vec<crate::model::sched::StateTime> = Vec::with_capacity(parts.len());
    for p in parts.drain(..) {
        match merged
            .iter_mut()
            .find(|m| (m.state, m.io_wait) == (p.state, p.io_wait))
        {
            Some(m) => m.dur += p.dur,
            None => merged.push(crate::model::sched::StateTime { cpu: None, ..p }),
        }
    }
    *parts = merged;
}

/// `cpu_cycles_per_thread_slice` for the app frames' slices, ordered by (slice_ts, tid); a trace without
/// scheduler events has no rows, one without `cpu_frequency` null cycles.
pub fn cpu_cycles_per_thread_slice(timeline: &Timeline) -> Result<DataFrame> {
    let mut rows: Vec<CyclesRow> = match &timeline.sched {
        None => Vec::new(),
        Some(sched) => frame_slices(timeline)
            .map(|slice| {
                let millicycles = sched.millicycles(slice.tid, slice.slice_ts, slice.slice_dur);
                CyclesRow {
                    slice,
                    millicycles,
                    megacycles: millicycles.map(crate::model::sched::megacycles),
                }
            })
            .collect(),
    };
    rows.sort_by_key(|r| (r.slice.slice_ts, r.slice.tid));
    to_dataframe(&rows)
}

#[derive(Debug, Default, Serialize)]
struct ClusterRow {
    ucpu: u32,
    cpu: u32,
    cluster_type: Option<&'static str>,
}

/// `android_cpu_cluster_mapping` (stdlib `android/cpu/cluster_type.sql`), ordered by cpu: the CPUs the trace's
/// `CpuInfo` packets list with their cluster type; `ucpu` = `cpu` (one machine). No rows without `CpuInfo`.
/// Trace processor also lists, with a null type, the CPUs it knows only from other data (scheduler events, CPU
/// counters): ftl does not.
pub fn android_cpu_cluster_mapping(timeline: &Timeline) -> Result<DataFrame> {
    let rows: Vec<ClusterRow> = timeline
        .cpu_clusters
        .iter()
        .flat_map(|c| c.cpus())
        .map(|(cpu, t)| ClusterRow {
            ucpu: cpu,
            cpu,
            cluster_type: t.map(|t| t.as_str()),
        })
        .collect();
    to_dataframe(&rows)
}
