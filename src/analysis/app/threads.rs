//! Per app frame: what its UI thread did over its `Choreographer#doFrame` and its RenderThread over its
//! `DrawFrame`s — time per thread state (Perfetto's `thread_slice_time_in_state`), CPU cycles
//! (`cpu_cycles_per_thread_slice`), the largest blocking call, binder time — and the late frame's cause
//! ([`super::cause`]): the `ftl frames` columns `ui_*`, `rt_*`, `top_blocking_call*`, `binder_*`, `cause*`.

use super::blame::chosen_do_frames;
use super::blame::LateStage;
use super::cause::{cause, Call, CallKind, Cause, Evidence, Placement, StateKind, StatePiece};
use super::stdlib::FrameSections;
use crate::model::binder::binder_txns;
use crate::model::cluster::{ClusterType, CpuClusters};
use crate::model::kept_names::is_critical_blocking_call;
use crate::model::sched::{megacycles, Cycles, Sched};
use crate::model::sections::Section;
use crate::model::Timeline;
use rustc_hash::FxHashMap;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use std::sync::Arc;

/// One thread's time over its frame slices by state, ns, as Perfetto's `thread_slice_time_in_state` sums it
/// (slice ∩ states of dur > 0; time before the thread's first scheduler event and open-ended states count
/// nothing), and its CPU cycles. `None` fields: the trace lacks what they need.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ThreadTimes {
    /// `Running`.
    pub running_ns: i64,
    /// `Running` on a CPU whose `android_cpu_cluster_mapping.cluster_type` is `little`; `None` without a
    /// `CpuInfo` packet typing the CPUs (running time on a CPU it does not type is in none of the three).
    pub running_little_ns: Option<i64>,
    /// On a `medium` CPU (either middle cluster of 4).
    pub running_mid_ns: Option<i64>,
    /// On a `big` CPU.
    pub running_big_ns: Option<i64>,
    /// `R`.
    pub runnable_ns: i64,
    /// `R+`.
    pub runnable_preempted_ns: i64,
    /// `S`.
    pub sleeping_ns: i64,
    /// `D` / `DK` with `io_wait = 1`.
    pub uninterruptible_io_ns: i64,
    /// `D` / `DK` otherwise.
    pub uninterruptible_non_io_ns: i64,
    /// `cpu_cycles_per_thread_slice.megacycles` summed over the slices; `None` unless the frequency is known
    /// over all their running time.
    pub megacycles: Option<i64>,
}

/// A frame's thread columns; what the trace has no data for is `None`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrameThreads {
    /// The UI thread over its doFrame; `None` without scheduler data or doFrame.
    pub ui: Option<ThreadTimes>,
    /// The RenderThread over its DrawFrames.
    pub rt: Option<ThreadTimes>,
    /// The largest blocking call on either thread inside its span, standardised as Perfetto names critical
    /// blocking calls, and its time inside the span, ns.
    pub top_blocking_call: Option<(String, i64)>,
    /// Synchronous binder transactions the two threads made inside their spans: time (clipped), ns, and count.
    pub binder: Option<(i64, u64)>,
    /// The late frame's cause.
    pub cause: Option<Cause>,
    /// The UI thread's states over its doFrame, in time order (drawn under the UI thread lane; not a column).
    pub ui_states: Vec<StatePiece>,
    /// The RenderThread's states over its DrawFrames.
    pub rt_states: Vec<StatePiece>,
}

/// [`FrameThreads`] as `ftl frames` columns, boxed so that a frame without them costs one pointer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ThreadColumns(pub Option<Box<FrameThreads>>);

impl From<FrameThreads> for ThreadColumns {
    fn from(t: FrameThreads) -> Self {
        ThreadColumns((t != FrameThreads::default()).then(|| Box::new(t)))
    }
}

impl ThreadColumns {
    /// The cause's name, if any.
    pub fn cause(&self) -> Option<&str> {
        Some(self.0.as_ref()?.cause.as_ref()?.cause.as_str())
    }
}

/// The UI thread's [`ThreadTimes`] column names, in [`ThreadTimes::values`] order.
const UI_COLUMNS: [&str; 10] = [
    "ui_running_ns",
    "ui_running_little_ns",
    "ui_running_mid_ns",
    "ui_running_big_ns",
    "ui_runnable_ns",
    "ui_runnable_preempted_ns",
    "ui_sleeping_ns",
    "ui_uninterruptible_io_ns",
    "ui_uninterruptible_non_io_ns",
    "ui_megacycles",
];
/// The RenderThread's.
const RT_COLUMNS: [&str; 10] = [
    "rt_running_ns",
    "rt_running_little_ns",
    "rt_running_mid_ns",
    "rt_running_big_ns",
    "rt_runnable_ns",
    "rt_runnable_preempted_ns",
    "rt_sleeping_ns",
    "rt_uninterruptible_io_ns",
    "rt_uninterruptible_non_io_ns",
    "rt_megacycles",
];

impl ThreadTimes {
    /// Adds `dur_ns` in state `kind` (other states count in no column).
    pub fn add(&mut self, kind: StateKind, dur_ns: i64) {
        match kind {
            StateKind::Running => self.running_ns += dur_ns,
            StateKind::Runnable => self.runnable_ns += dur_ns,
            StateKind::RunnablePreempted => self.runnable_preempted_ns += dur_ns,
            StateKind::Sleeping => self.sleeping_ns += dur_ns,
            StateKind::UninterruptibleIo => self.uninterruptible_io_ns += dur_ns,
            StateKind::UninterruptibleNonIo => self.uninterruptible_non_io_ns += dur_ns,
            StateKind::Other => {}
        }
    }

    /// Adds `dur_ns` of running on a CPU of `cluster` to its column, if the columns are known.
    fn add_running_on(&mut self, cluster: ClusterType, dur_ns: i64) {
        let column = match cluster {
            ClusterType::Little => &mut self.running_little_ns,
            ClusterType::Medium => &mut self.running_mid_ns,
            ClusterType::Big => &mut self.running_big_ns,
        };
        if let Some(ns) = column {
            *ns += dur_ns;
        }
    }

    /// The values in the order of the column names.
    fn values(&self) -> [Option<i64>; 10] {
        [
            Some(self.running_ns),
            self.running_little_ns,
            self.running_mid_ns,
            self.running_big_ns,
            Some(self.runnable_ns),
            Some(self.runnable_preempted_ns),
            Some(self.sleeping_ns),
            Some(self.uninterruptible_io_ns),
            Some(self.uninterruptible_non_io_ns),
            self.megacycles,
        ]
    }
}

impl Serialize for ThreadColumns {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let t = self.0.as_deref();
        let mut map = serializer.serialize_map(Some(UI_COLUMNS.len() + RT_COLUMNS.len() + 6))?;
        for (names, times) in [
            (UI_COLUMNS, t.and_then(|t| t.ui)),
            (RT_COLUMNS, t.and_then(|t| t.rt)),
        ] {
            let values = times.map(|t| t.values()).unwrap_or_default();
            for (name, value) in names.iter().zip(values) {
                map.serialize_entry(name, &value)?;
            }
        }
        let call = t.and_then(|t| t.top_blocking_call.as_ref());
        map.serialize_entry("top_blocking_call", &call.map(|c| &c.0))?;
        map.serialize_entry("top_blocking_call_ns", &call.map(|c| c.1))?;
        let binder = t.and_then(|t| t.binder);
        map.serialize_entry("binder_ns", &binder.map(|b| b.0))?;
        map.serialize_entry("binder_calls", &binder.map(|b| b.1))?;
        let cause = t.and_then(|t| t.cause.as_ref());
        map.serialize_entry("cause", &cause.map(|c| &c.cause))?;
        map.serialize_entry("cause_share_pct", &cause.and_then(|c| c.cause_share_pct))?;
        map.end()
    }
}

/// A thread slice: (tid, ts, dur), ns.
type ThreadSlice = (i32, i64, i64);

/// What a frame's thread columns are read from: the trace's scheduler data, the app's doFrame / DrawFrame
/// sections by frame, and the blocking calls of the threads that draw frames.
pub struct ThreadSource<'t> {
    sched: &'t Sched,
    /// The CPUs' cluster types, when the trace's `CpuInfo` types some CPU.
    clusters: Option<&'t CpuClusters>,
    /// Per (pid, frame id): the doFrame (tid, ts, dur) chosen as [`super::blame::app_work`] chooses it.
    do_frames: FxHashMap<(i32, i64), ThreadSlice>,
    /// Per (pid, frame id): its DrawFrames (tid, ts, dur).
    draw_frames: FxHashMap<(i32, i64), Vec<ThreadSlice>>,
    /// Per thread that draws frames: its blocking calls and sections.
    calls: FxHashMap<i32, ThreadCalls>,
}

/// Intervals `[start, end)` in start order with the running maximum of their ends: those that may overlap `[a, b)`
/// are found by two binary searches ([`Intervals::candidates`]).
struct Intervals {
    starts: Vec<i64>,
    max_ends: Vec<i64>,
}

impl Intervals {
    /// `sorted`: (start, end) in start order.
    fn new(sorted: impl Iterator<Item = (i64, i64)>) -> Self {
        let (mut starts, mut max_ends) = (Vec::new(), Vec::new());
        let mut max = i64::MIN;
        for (start, end) in sorted {
            max = max.max(end);
            starts.push(start);
            max_ends.push(max);
        }
        Intervals { starts, max_ends }
    }

    /// The positions holding every interval that overlaps `[a, b)` (`start < b && end > a`), and others that
    /// start before `b`; empty exactly when none overlaps.
    fn candidates(&self, a: i64, b: i64) -> std::ops::Range<usize> {
        let before = self.starts.partition_point(|&s| s < b);
        let from = self.max_ends[..before].partition_point(|&e| e <= a);
        from..before
    }
}

/// Per thread, the spans [`ThreadSource::columns`] reads calls over: each doFrame, and each frame's first DrawFrame
/// start … last DrawFrame end (a superset: every thread of the frame's DrawFrames, every DrawFrame).
struct FrameSpans(FxHashMap<i32, Intervals>);

impl FrameSpans {
    fn new<'a>(
        do_frames: impl Iterator<Item = &'a ThreadSlice>,
        draw_frames: impl Iterator<Item = &'a Vec<ThreadSlice>>,
    ) -> Self {
        let mut spans: FxHashMap<i32, Vec<(i64, i64)>> = FxHashMap::default();
        for &(tid, ts, dur) in do_frames {
            spans.entry(tid).or_default().push((ts, ts + dur));
        }
        for frame in draw_frames {
            let start = frame.iter().map(|d| d.1).min().unwrap_or(0);
            let end = frame.iter().map(|d| d.1 + d.2).max().unwrap_or(start);
            for &(tid, ..) in frame {
                spans.entry(tid).or_default().push((start, end));
            }
        }
        let by_tid = spans
            .into_iter()
            .map(|(tid, mut spans)| {
                spans.sort_unstable();
                (tid, Intervals::new(spans.into_iter()))
            })
            .collect();
        FrameSpans(by_tid)
    }

    /// Whether `[ts, end)` of thread `tid` overlaps one of its spans.
    fn overlaps(&self, tid: i32, ts: i64, end: i64) -> bool {
        self.0
            .get(&tid)
            .is_some_and(|spans| !spans.candidates(ts, end).is_empty())
    }
}

/// One thread's calls in the order they were read, and their positions by start time.
struct ThreadCalls {
    calls: Vec<Call>,
    /// Positions in `calls` in start order (stable).
    by_start: Vec<u32>,
    /// The calls' intervals in that order.
    intervals: Intervals,
}

impl ThreadCalls {
    fn new(calls: Vec<Call>) -> Self {
        let mut by_start: Vec<u32> = (0..calls.len() as u32).collect();
        by_start.sort_by_key(|&i| calls[i as usize].ts);
        let intervals = Intervals::new(by_start.iter().map(|&i| {
            let c = &calls[i as usize];
            (c.ts, c.end)
        }));
        ThreadCalls {
            calls,
            by_start,
            intervals,
        }
    }

    /// The calls overlapping `[a, b)`, in the order they were read.
    fn overlapping(&self, a: i64, b: i64) -> impl Iterator<Item = &Call> {
        let mut at: Vec<u32> = self.by_start[self.intervals.candidates(a, b)]
            .iter()
            .copied()
            .filter(|&i| self.calls[i as usize].end > a)
            .collect();
        at.sort_unstable();
        at.into_iter().map(|i| &self.calls[i as usize])
    }
}

impl<'t> ThreadSource<'t> {
    /// The source over `timeline` and its frame `sections`; `None` when the trace has no scheduler data (every
    /// thread column is then null). Only the calls that overlap a frame's span on their thread are read
    /// (`FrameSpans`): no other is ever asked for.
    pub fn new(timeline: &'t Timeline, sections: &FrameSections) -> Option<Self> {
        let sched = timeline.sched.as_ref()?;
        let app = &timeline.app;
        // The doFrame that is the frame's UI thread work, as `app_work` chooses it.
        let do_frames: FxHashMap<(i32, i64), ThreadSlice> = chosen_do_frames(&sections.do_frames)
            .into_iter()
            .map(|(key, d)| (key, (d.tid, d.ts, d.dur)))
            .collect();
        let mut draw_frames: FxHashMap<(i32, i64), Vec<ThreadSlice>> = FxHashMap::default();
        for r in &sections.draw_frames {
            let Some(pid) = r.pid else { continue };
            draw_frames
                .entry((pid, r.frame_id))
                .or_default()
                .push((r.tid, r.ts, r.dur));
        }
        let spans = FrameSpans::new(do_frames.values(), draw_frames.values());
        let thread_name = |tid: i32| app.thread_name(tid).map(str::to_string);
        // Per section name: its kind, name and whether it is a critical blocking call, once.
        let mut by_name: FxHashMap<u32, Option<(CallKind, Arc<str>, bool)>> = FxHashMap::default();
        let mut calls: FxHashMap<i32, Vec<Call>> = FxHashMap::default();
        for s in &app.sections {
            let end = if s.dur < 0 { i64::MAX } else { s.ts + s.dur };
            if !spans.overlaps(s.tid, s.ts, end) {
                continue;
            }
            let call = by_name.entry(s.name).or_insert_with(|| {
                let name = app.name(s.name);
                let kind = call_kind(name, &thread_name)?;
                let shown = call_name(name, &kind).into();
                Some((kind, shown, is_critical_blocking_call(name.as_bytes())))
            });
            let Some((kind, name, blocking)) = call else {
                continue;
            };
            calls.entry(s.tid).or_default().push(Call {
                ts: s.ts,
                end,
                depth: s.depth,
                name: name.clone(),
                blocking: *blocking,
                kind: kind.clone(),
            });
        }
        let in_a_span = |s: &Section| spans.overlaps(s.tid, s.ts, s.ts + s.dur.max(0));
        for t in binder_txns(timeline, in_a_span)
            .into_iter()
            .filter(|t| t.is_sync)
        {
            let server = t
                .server_process
                .clone()
                .unwrap_or_else(|| format!("pid {}", t.server_pid));
            calls.entry(t.client_tid).or_default().push(Call {
                ts: t.client_ts,
                end: t.client_ts + t.client_dur.max(0),
                // A transaction is the innermost thing its thread does.
                depth: u32::MAX,
                name: format!(
                    "{} ({server})",
                    t.aidl_name.as_deref().unwrap_or("binder transaction")
                )
                .into(),
                blocking: true,
                kind: CallKind::Binder { server },
            });
        }
        Some(ThreadSource {
            sched,
            clusters: timeline.cpu_clusters.as_ref().filter(|c| c.is_typed()),
            do_frames,
            draw_frames,
            calls: calls
                .into_iter()
                .map(|(tid, calls)| (tid, ThreadCalls::new(calls)))
                .collect(),
        })
    }

    /// The thread columns of frame `frame_id` of process `pid`, whose late stage is `stage`.
    pub fn columns(&self, pid: i32, frame_id: i64, stage: Option<LateStage>) -> ThreadColumns {
        let ui = self
            .do_frames
            .get(&(pid, frame_id))
            .copied()
            .filter(|d| d.2 > 0);
        let rt: Vec<(i32, i64, i64)> = self
            .draw_frames
            .get(&(pid, frame_id))
            .map(|v| v.iter().copied().filter(|d| d.2 > 0).collect())
            .unwrap_or_default();
        // The RenderThread's span: its first DrawFrame's start to its last one's end.
        let rt_span = rt.first().map(|&(tid, ..)| {
            let start = rt.iter().map(|d| d.1).min().unwrap_or(0);
            let end = rt.iter().map(|d| d.1 + d.2).max().unwrap_or(start);
            (tid, start, end)
        });
        let ui_span = ui.map(|(tid, ts, dur)| (tid, ts, ts + dur));
        let spans: Vec<(i32, i64, i64)> = ui_span.into_iter().chain(rt_span).collect();
        let states = |span: Option<(i32, i64, i64)>| {
            span.map_or_else(Vec::new, |(tid, a, b)| self.state_pieces(tid, a, b))
        };
        let late = match stage {
            Some(LateStage::UiThread) => ui_span.map(|s| (s, "Choreographer#doFrame")),
            Some(LateStage::RenderThread) => rt_span.map(|s| (s, "DrawFrame")),
            _ => None,
        };
        let evidence = late.map(|((tid, a, b), span_name)| Evidence {
            span: (a, b),
            span_name,
            states: self.state_pieces(tid, a, b),
            calls: self.calls_in(tid, a, b).cloned().collect(),
            placement: self.placement(tid, a, b),
        });
        FrameThreads {
            ui: ui.and_then(|d| self.times(&[d])),
            rt: self.times(&rt),
            top_blocking_call: self.top_blocking_call(&spans),
            binder: (!spans.is_empty()).then(|| self.binder(&spans)),
            cause: cause(stage, evidence.as_ref()),
            ui_states: states(ui_span),
            rt_states: states(rt_span),
        }
        .into()
    }

    /// The thread's states over `[a, b)` as the rule reads them (time without a state left out).
    fn state_pieces(&self, tid: i32, a: i64, b: i64) -> Vec<StatePiece> {
        self.sched
            .pieces(tid, a, b)
            .into_iter()
            .map(|(ts, end, r)| StatePiece {
                ts,
                end,
                kind: StateKind::of(self.sched.state_name(r.state).unwrap_or(""), r.io_wait),
                little: self.cluster_of(r.cpu) == Some(ClusterType::Little),
            })
            .collect()
    }

    /// `slices` (tid, ts, dur) summed as `thread_slice_time_in_state` and `cpu_cycles_per_thread_slice` give them;
    /// `None` when the scheduler says nothing of the thread over them (no state, as Perfetto gives no row).
    fn times(&self, slices: &[ThreadSlice]) -> Option<ThreadTimes> {
        let known = self.clusters.map(|_| 0);
        let mut t = ThreadTimes {
            running_little_ns: known,
            running_mid_ns: known,
            running_big_ns: known,
            ..ThreadTimes::default()
        };
        let (mut any, mut total) = (false, Some(0));
        for &(tid, ts, dur) in slices {
            for p in self.sched.time_in_state(tid, ts, dur) {
                let kind = StateKind::of(self.sched.state_name(p.state).unwrap_or(""), p.io_wait);
                t.add(kind, p.dur);
                if let (StateKind::Running, Some(cluster)) = (kind, self.cluster_of(p.cpu)) {
                    t.add_running_on(cluster, p.dur);
                }
                any = true;
            }
            let slice = self.sched.millicycles(tid, ts, dur).map(megacycles);
            total = total.zip(slice).map(|(a, b)| a + b);
        }
        t.megacycles = total;
        any.then_some(t)
    }

    /// The thread's calls overlapping `[a, b)`.
    fn calls_in(&self, tid: i32, a: i64, b: i64) -> impl Iterator<Item = &Call> {
        self.calls
            .get(&tid)
            .into_iter()
            .flat_map(move |calls| calls.overlapping(a, b))
    }

    /// The largest of Perfetto's critical blocking calls (and binder transactions) inside the spans, with its
    /// time inside them; on equal times, the earlier.
    fn top_blocking_call(&self, spans: &[(i32, i64, i64)]) -> Option<(String, i64)> {
        spans
            .iter()
            .flat_map(|&(tid, a, b)| {
                self.calls_in(tid, a, b)
                    .map(move |c| (c, c.end.min(b) - c.ts.max(a)))
            })
            .filter(|(c, _)| c.blocking)
            .min_by(|x, y| y.1.cmp(&x.1).then(x.0.ts.cmp(&y.0.ts)))
            .map(|(c, d)| (c.name.to_string(), d))
    }

    /// Synchronous binder transactions inside the spans: their time inside them, ns, and their count.
    fn binder(&self, spans: &[(i32, i64, i64)]) -> (i64, u64) {
        spans.iter().fold((0, 0), |(ns, n), &(tid, a, b)| {
            self.calls_in(tid, a, b)
                .filter(|c| matches!(c.kind, CallKind::Binder { .. }))
                .fold((ns, n), |(ns, n), c| {
                    (ns + c.end.min(b) - c.ts.max(a), n + 1)
                })
        })
    }

    /// The cluster type of `cpu`, when the trace's `CpuInfo` gives one.
    fn cluster_of(&self, cpu: Option<u32>) -> Option<ClusterType> {
        self.clusters?.cluster_type(cpu?)
    }

    /// Where the thread ran inside `[a, b)` off the little cluster (the rule's `little_core` takes the rest):
    /// its mean CPU frequency over that running time against the highest those CPUs reached.
    fn placement(&self, tid: i32, a: i64, b: i64) -> Placement {
        let mut c = Cycles::default();
        let mut max_khz = None;
        for (from, to, r) in self.sched.pieces(tid, a, b) {
            let Some(cpu) = r
                .cpu
                .filter(|&cpu| self.cluster_of(Some(cpu)) != Some(ClusterType::Little))
            else {
                continue;
            };
            let piece = self.sched.cycles(tid, from, to);
            c.running_ns += piece.running_ns;
            c.known_ns += piece.known_ns;
            c.millicycles += piece.millicycles;
            max_khz = max_khz.max(self.sched.max_frequency_khz(cpu));
        }
        let frequency_ratio = match max_khz {
            // millicycles = Σ ns × kHz / 1000: the mean kHz is millicycles × 1000 / ns.
            Some(max) if c.running_ns > 0 && c.known_ns == c.running_ns && max > 0 => {
                Some(c.millicycles as f64 * 1000.0 / c.running_ns as f64 / f64::from(max))
            }
            _ => None,
        };
        Placement { frequency_ratio }
    }
}

/// What to record for the thread columns and causes that `timeline` lacks: the ftrace events by name, in the
/// order of the README's config, then the `CpuInfo` of data source `linux.system_info` (the clusters of
/// `*_running_little_ns` … and `little_core`).
pub fn missing_data(timeline: &Timeline) -> Vec<String> {
    let c = timeline
        .sched
        .as_ref()
        .map(Sched::coverage)
        .unwrap_or_default();
    [
        (c.sched_switch, "sched/sched_switch"),
        (c.sched_waking, "sched/sched_waking"),
        (c.sched_blocked_reason, "sched/sched_blocked_reason"),
        (c.cpu_frequency, "power/cpu_frequency"),
        (
            timeline.cpu_clusters.is_some(),
            "linux.system_info (CpuInfo)",
        ),
    ]
    .into_iter()
    .filter(|(has, _)| !has)
    .map(|(_, event)| event.to_string())
    .collect()
}

/// What a kept section on a thread that draws frames stands for in the cause rule, or `None` for the frame
/// sections themselves (`Choreographer#doFrame`, `DrawFrame*`: the spans the rule cuts). Lock owners named by tid
/// (`Lock contention on … (owner tid: N)`) are named with `thread_name`.
pub fn call_kind(name: &str, thread_name: &dyn Fn(i32) -> Option<String>) -> Option<CallKind> {
    // The frame sections are the spans the rule cuts; binder slices are read as transactions.
    let binder_slice = ["binder transaction", "binder reply", "binder async rcv"]
        .iter()
        .any(|b| name.starts_with(b));
    if name.starts_with("Choreographer#doFrame") || name.starts_with("DrawFrame") || binder_slice {
        return None;
    }
    Some(if name.starts_with("GC: Wait For") {
        CallKind::Gc
    } else if let Some(rest) = name.strip_prefix("monitor contention with owner ") {
        CallKind::Lock {
            owner: rest.split(" (").next().map(str::to_string),
        }
    } else if name.starts_with("Lock contention on") {
        let tid = name
            .split("(owner tid: ")
            .nth(1)
            .and_then(|t| t.split(')').next())
            .and_then(|t| t.trim().parse().ok());
        CallKind::Lock {
            owner: tid.map(|tid| thread_name(tid).unwrap_or_else(|| format!("tid {tid}"))),
        }
    } else if name == "Contending for pthread mutex" {
        CallKind::Lock { owner: None }
    } else if name == "dequeueBuffer" || name == "waitForBufferRelease" {
        CallKind::BufferWait
    } else if name.to_ascii_lowercase().contains("fence") || name.starts_with("Waiting for GPU") {
        CallKind::GpuWait
    } else {
        CallKind::Section
    })
}

/// How `top_blocking_call` and the `slow_code:` / `sleeping:` details name a section: Java monitor contention
/// as its owner thread and the method the owner holds the lock in, everything else as Perfetto standardises
/// critical blocking calls ([`super::blocking::standardize`]).
pub fn call_name(name: &str, kind: &CallKind) -> String {
    if let (CallKind::Lock { owner: Some(owner) }, Some(rest)) =
        (kind, name.strip_prefix("monitor contention with owner "))
    {
        // `… (<tid>) at <return type> <method>(<src>) …`: the method without its return type and arguments.
        let method = rest
            .split_once(") at ")
            .and_then(|(_, at)| at.split('(').next())
            .map(|m| m.rsplit(' ').next().unwrap_or(m));
        return match method {
            Some(m) => format!("monitor contention with {owner} ({m})"),
            None => format!("monitor contention with {owner}"),
        };
    }
    super::blocking::standardize(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_read_only_where_they_overlap_a_frame_span_of_their_thread() {
        // Thread 7: a doFrame [100, 200) and one at [50, 60); thread 8: two DrawFrames of one frame, [300, 310)
        // and [340, 350), whose span is [300, 350).
        let do_frames = [(7, 100, 100), (7, 50, 10)];
        let draw_frames = [vec![(8, 300, 10), (8, 340, 10)]];
        let spans = FrameSpans::new(do_frames.iter(), draw_frames.iter());
        for (tid, ts, end, want) in [
            (7, 0, 51, true),    // reaches into [50, 60)
            (7, 60, 100, false), // between the doFrames, touching both
            (7, 0, i64::MAX, true),
            (7, 199, 199, true), // of duration 0, inside
            (7, 200, 300, false),
            (8, 320, 330, true), // between the DrawFrames, inside the frame's span
            (8, 350, 400, false),
            (9, 0, i64::MAX, false), // a thread without frames
        ] {
            assert_eq!(spans.overlaps(tid, ts, end), want, "{tid} [{ts}, {end})");
        }
    }

    #[test]
    fn a_threads_calls_over_a_span_come_in_the_order_read() {
        let call = |ts: i64, end: i64, name: &str| Call {
            ts,
            end,
            depth: 0,
            name: name.into(),
            blocking: true,
            kind: CallKind::Section,
        };
        // An outer call, two inner ones, and a transaction read last though it starts among them.
        let calls = ThreadCalls::new(vec![
            call(0, 100, "outer"),
            call(10, 20, "a"),
            call(50, 60, "b"),
            call(15, 16, "binder"),
            call(150, i64::MAX, "unfinished"),
        ]);
        let names = |a, b| -> Vec<&str> { calls.overlapping(a, b).map(|c| &*c.name).collect() };
        assert_eq!(names(12, 55), ["outer", "a", "b", "binder"]);
        assert_eq!(names(25, 40), ["outer"]);
        assert_eq!(names(100, 150), Vec::<&str>::new());
        assert_eq!(names(100, 151), ["unfinished"]);
        assert_eq!(names(20, 50), ["outer"]);
    }

    fn kind(name: &str) -> Option<CallKind> {
        call_kind(name, &|tid| {
            (tid == 1665).then(|| "HeapTaskDaemon".to_string())
        })
    }

    #[test]
    fn sections_are_told_apart_for_the_cause_rule() {
        let monitor = "monitor contention with owner Binder:1605_6 (1628) at void com.android.server.am.ActivityManagerService.attachApplication(android.app.IApplicationThread, long)(ActivityManagerService.java:4567) waiters=0 blocking from void com.android.server.wm.WindowManagerService.relayoutWindow()(WindowManagerService.java:2200)";
        assert_eq!(
            kind(monitor),
            Some(CallKind::Lock {
                owner: Some("Binder:1605_6".into())
            })
        );
        assert_eq!(
            call_name(monitor, &kind(monitor).unwrap()),
            "monitor contention with Binder:1605_6 (com.android.server.am.ActivityManagerService.attachApplication)"
        );
        assert_eq!(
            kind("Lock contention on thread list lock (owner tid: 1665)"),
            Some(CallKind::Lock {
                owner: Some("HeapTaskDaemon".into())
            })
        );
        assert_eq!(
            kind("Lock contention on a monitor lock (owner tid: 7)"),
            Some(CallKind::Lock {
                owner: Some("tid 7".into())
            })
        );
        assert_eq!(
            kind("Contending for pthread mutex"),
            Some(CallKind::Lock { owner: None })
        );
        assert_eq!(kind("GC: Wait For Concurrent"), Some(CallKind::Gc));
        assert_eq!(kind("dequeueBuffer"), Some(CallKind::BufferWait));
        assert_eq!(kind("waitForBufferRelease"), Some(CallKind::BufferWait));
        assert_eq!(kind("Waiting for GPU"), Some(CallKind::GpuWait));
        assert_eq!(kind("wait on release Fence"), Some(CallKind::GpuWait));
        assert_eq!(kind("inflate"), Some(CallKind::Section));
        assert_eq!(kind("Choreographer#doFrame 12"), None);
        assert_eq!(kind("DrawFrames 12"), None);
        assert_eq!(
            call_name("GC: Wait For Alloc", &CallKind::Gc),
            "Garbage Collector"
        );
    }
}
