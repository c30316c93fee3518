//! `ftl table TRACE NAME`: Perfetto stdlib tables and views by their Perfetto names, columns in Perfetto's
//! order, trace processor's internal ids replaced by what a trace says (`upid` → `pid`, `utid` → `tid`, other
//! slice `*_id` columns left out, `frame_id` kept), rows in a fixed order (the ORDER BY of each query in
//! `../shared/golden/README.md`).

use crate::analysis::app::stdlib::{self, AppFrameTables};
use crate::error::Result;
use crate::model::Timeline;
use crate::output::table::to_dataframe;
use clap::ValueEnum;
use polars::prelude::DataFrame;
use serde::Serialize;

/// The tables `ftl table` prints, by their Perfetto names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PerfettoTable {
    /// One row per app frame (stdlib `android.frames.timeline`): doFrame ⨝ DrawFrame ⨝ FrameTimeline by vsync
    /// id, per process.
    #[value(name = "android_frames")]
    AndroidFrames,
    /// android_frames before grouping: one row per actual slice (layer) of each frame.
    #[value(name = "android_frames_layers")]
    AndroidFramesLayers,
    /// Per token: end of its first actual slice − end of its expected slice, ns (FrameTimeline only).
    #[value(name = "android_frames_overrun")]
    AndroidFramesOverrun,
    /// Per frame: the doFrame duration, ns.
    #[value(name = "android_frames_ui_time")]
    AndroidFramesUiTime,
    /// Per frame: actual start − expected start, ns.
    #[value(name = "android_app_vsync_delay_per_frame")]
    AndroidAppVsyncDelayPerFrame,
    /// Per frame: app vsync delay + doFrame + all DrawFrames, ns.
    #[value(name = "android_cpu_time_per_frame")]
    AndroidCpuTimePerFrame,
    /// Per frame: overrun, cpu_time, ui_time, was_jank, was_slow_frame (>20 ms), was_big_jank (>50 ms),
    /// was_huge_jank (>200 ms).
    #[value(name = "android_frame_stats")]
    AndroidFrameStats,
    /// Per CUJ (`J<NAME>` interaction of SysUI, Launcher, ...): state, frames, missed app / SF frames, layer,
    /// start and duration — the columns of Perfetto's android_jank_cuj_slice_summary.
    #[value(name = "android_jank_cuj", alias = "android_jank_cuj_slice_summary")]
    AndroidJankCuj,
    /// Per binder transaction (stdlib `android.binder`, needs the `binder_driver` ftrace events): client and
    /// server process / thread / slice, the server's AIDL name, sync or oneway.
    #[value(name = "android_binder_txns")]
    AndroidBinderTxns,
    /// Per Java monitor contention slice (stdlib `android.monitor_contention`, needs atrace `dalvik`): blocked and
    /// blocking thread and method, waiters, process.
    #[value(name = "android_monitor_contention")]
    AndroidMonitorContention,
    /// Perfetto's `thread_state`: each thread's scheduling states (Running, R, R+, S, D, …) with cpu, io_wait,
    /// waker and irq_context (needs `sched/sched_switch`, `sched/sched_waking`, `sched/sched_blocked_reason`).
    #[value(name = "thread_state")]
    ThreadState,
    /// stdlib `slices.time_in_state` for every `Choreographer#doFrame*` / `DrawFrame*` slice: time per (state,
    /// io_wait) inside the slice.
    #[value(name = "thread_slice_time_in_state")]
    ThreadSliceTimeInState,
    /// stdlib `linux.cpu.utilization.slice` for the same slices: CPU millicycles / megacycles (needs
    /// `power/cpu_frequency`; null unless the thread ran with a known frequency for all of the slice).
    #[value(name = "cpu_cycles_per_thread_slice")]
    CpuCyclesPerThreadSlice,
    /// stdlib `android.cpu.cluster_type`: per CPU of the trace's `CpuInfo` packet (data source
    /// `linux.system_info`), its cluster type `little`, `medium` or `big` (null unless 2, 3 or 4 clusters).
    #[value(name = "android_cpu_cluster_mapping")]
    AndroidCpuClusterMapping,
}

#[derive(Debug, Default, Serialize)]
struct AndroidFramesRow {
    frame_id: i64,
    ts: i64,
    dur: i64,
    actual_frame_timeline_count: i64,
    expected_frame_timeline_count: i64,
    draw_frame_count: i64,
    pid: Option<i32>,
    process_name: Option<String>,
    ui_thread_tid: i32,
    render_thread_tid: i32,
}

#[derive(Debug, Default, Serialize)]
struct AndroidFramesLayersRow {
    frame_id: i64,
    ts: i64,
    dur: i64,
    ts_end: i64,
    layer_name: Option<String>,
    pid: Option<i32>,
    process_name: Option<String>,
}

/// `android_binder_txns` in the golden query's columns.
#[derive(Debug, Default, Serialize)]
struct BinderTxnRow {
    aidl_name: Option<String>,
    interface: Option<String>,
    method_name: Option<String>,
    client_process: Option<String>,
    client_thread: Option<String>,
    client_tid: i32,
    client_pid: i32,
    is_main_thread: i32,
    client_ts: i64,
    client_dur: i64,
    server_process: Option<String>,
    server_thread: Option<String>,
    server_tid: i32,
    server_pid: i32,
    server_ts: i64,
    server_dur: i64,
    is_sync: i32,
}

/// `android_monitor_contention` in the golden query's columns.
#[derive(Debug, Default, Serialize)]
struct MonitorContentionRow {
    ts: i64,
    dur: i64,
    blocking_method: Option<String>,
    blocked_method: Option<String>,
    short_blocking_method: Option<String>,
    short_blocked_method: Option<String>,
    blocking_src: Option<String>,
    blocked_src: Option<String>,
    waiter_count: Option<i64>,
    blocked_thread_name: Option<String>,
    blocked_thread_tid: i32,
    is_blocked_thread_main: Option<i32>,
    blocking_thread_name: Option<String>,
    blocking_thread_tid: Option<i32>,
    is_blocking_thread_main: Option<i32>,
    process_name: Option<String>,
    pid: Option<i32>,
    lock_name: Option<String>,
}

#[derive(Debug, Default, Serialize)]
struct OverrunRow {
    frame_id: i64,
    overrun: i64,
}

#[derive(Debug, Default, Serialize)]
struct UiTimeRow {
    frame_id: i64,
    ui_time: i64,
}

#[derive(Debug, Default, Serialize)]
struct VsyncDelayRow {
    frame_id: i64,
    app_vsync_delay: i64,
}

/// Builds the table `name` of `timeline`.
pub fn table(name: PerfettoTable, timeline: &Timeline) -> Result<DataFrame> {
    let app = AppFrameTables::new(timeline);
    let process_name = |pid: i32| timeline.process_names.get(&pid).cloned();
    match name {
        PerfettoTable::ThreadState => super::sched_tables::thread_state(timeline),
        PerfettoTable::ThreadSliceTimeInState => {
            super::sched_tables::thread_slice_time_in_state(timeline)
        }
        PerfettoTable::CpuCyclesPerThreadSlice => {
            super::sched_tables::cpu_cycles_per_thread_slice(timeline)
        }
        PerfettoTable::AndroidCpuClusterMapping => {
            super::sched_tables::android_cpu_cluster_mapping(timeline)
        }
        PerfettoTable::AndroidFrames => {
            let mut rows: Vec<AndroidFramesRow> = app
                .frames
                .iter()
                .map(|f| AndroidFramesRow {
                    frame_id: f.frame_id,
                    ts: f.ts,
                    dur: f.dur,
                    actual_frame_timeline_count: f.actual_frame_timeline_count,
                    expected_frame_timeline_count: 1,
                    draw_frame_count: f.draw_frame_count,
                    pid: f.pid,
                    process_name: process_name(f.app_pid),
                    ui_thread_tid: app.do_frames[f.do_frame].tid,
                    render_thread_tid: app.draw_frames[f.draw_frame].tid,
                })
                .collect();
            rows.sort_by_key(|r| (r.ts, r.frame_id));
            to_dataframe(&rows)
        }
        PerfettoTable::AndroidFramesLayers => {
            let mut rows: Vec<AndroidFramesLayersRow> = app
                .layers
                .iter()
                .map(|l| AndroidFramesLayersRow {
                    frame_id: l.frame_id,
                    ts: l.ts,
                    dur: l.dur,
                    ts_end: l.ts + l.dur,
                    layer_name: stdlib::layer_name(timeline, l.actual).map(str::to_string),
                    pid: l.pid,
                    process_name: process_name(l.app_pid),
                })
                .collect();
            rows.sort_by(|a, b| {
                (a.ts, a.frame_id, &a.layer_name, a.dur).cmp(&(
                    b.ts,
                    b.frame_id,
                    &b.layer_name,
                    b.dur,
                ))
            });
            to_dataframe(&rows)
        }
        PerfettoTable::AndroidFramesOverrun => to_dataframe(
            &stdlib::overruns(timeline)
                .into_iter()
                .map(|(frame_id, overrun)| OverrunRow { frame_id, overrun })
                .collect::<Vec<_>>(),
        ),
        PerfettoTable::AndroidFramesUiTime => {
            let mut rows: Vec<UiTimeRow> = app
                .ui_times()
                .map(|(frame_id, ui_time)| UiTimeRow { frame_id, ui_time })
                .collect();
            rows.sort_by_key(|r| (r.frame_id, r.ui_time));
            to_dataframe(&rows)
        }
        PerfettoTable::AndroidAppVsyncDelayPerFrame => to_dataframe(
            &app.app_vsync_delays(timeline)
                .into_iter()
                .map(|(frame_id, app_vsync_delay)| VsyncDelayRow {
                    frame_id,
                    app_vsync_delay,
                })
                .collect::<Vec<_>>(),
        ),
        PerfettoTable::AndroidCpuTimePerFrame => to_dataframe(&app.cpu_times(timeline)),
        PerfettoTable::AndroidJankCuj => {
            to_dataframe(&crate::analysis::app::cuj::cujs(timeline, &app))
        }
        PerfettoTable::AndroidFrameStats => to_dataframe(&app.frame_stats(timeline)),
        PerfettoTable::AndroidBinderTxns => {
            let mut rows: Vec<BinderTxnRow> = crate::model::binder::binder_txns(timeline, |_| true)
                .into_iter()
                .map(|t| BinderTxnRow {
                    aidl_name: t.aidl_name,
                    interface: t.interface,
                    method_name: t.method_name,
                    client_process: t.client_process,
                    client_thread: t.client_thread,
                    client_tid: t.client_tid,
                    client_pid: t.client_pid,
                    is_main_thread: i32::from(t.is_main_thread),
                    client_ts: t.client_ts,
                    client_dur: t.client_dur,
                    server_process: t.server_process,
                    server_thread: t.server_thread,
                    server_tid: t.server_tid,
                    server_pid: t.server_pid,
                    server_ts: t.server_ts,
                    server_dur: t.server_dur,
                    is_sync: i32::from(t.is_sync),
                })
                .collect();
            rows.sort_by_key(|r| (r.client_ts, r.client_tid, r.server_ts));
            to_dataframe(&rows)
        }
        PerfettoTable::AndroidMonitorContention => {
            let mut rows: Vec<MonitorContentionRow> =
                crate::analysis::locks::monitor_contention(timeline)
                    .into_iter()
                    .map(|m| MonitorContentionRow {
                        ts: m.ts,
                        dur: m.dur,
                        blocking_method: m.blocking_method,
                        blocked_method: m.blocked_method,
                        short_blocking_method: m.short_blocking_method,
                        short_blocked_method: m.short_blocked_method,
                        blocking_src: m.blocking_src,
                        blocked_src: m.blocked_src,
                        waiter_count: m.waiter_count,
                        blocked_thread_name: m.blocked_thread_name,
                        blocked_thread_tid: m.blocked_thread_tid,
                        is_blocked_thread_main: m.is_blocked_thread_main.map(i32::from),
                        blocking_thread_name: m.blocking_thread_name,
                        blocking_thread_tid: m.blocking_thread_tid,
                        is_blocking_thread_main: m.is_blocking_thread_main.map(i32::from),
                        process_name: m.process_name,
                        pid: m.pid,
                        lock_name: m.lock_name,
                    })
                    .collect();
            rows.sort_by_key(|r| (r.ts, r.blocked_thread_tid, r.dur));
            to_dataframe(&rows)
        }
    }
}
