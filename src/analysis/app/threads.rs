//! Per app frame: what its UI thread did over its `Choreographer#doFrame` and its RenderThread over its
//! `DrawFrame`s — time per thread state (Perfetto's `thread_slice_time_in_state`), CPU cycles
//! (`cpu_cycles_per_thread_slice`), the largest blocking call, binder time — and the late frame's cause
//! ([`super::cause`]): the `ftl frames` columns `ui_*`, `rt_*`, `top_blocking_call*`, `binder_*`, `cause*`.

use super::cause::{Cause, StatePiece};
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

/// One thread's time over its frame slices by state, ns, as Perfetto's `thread_slice_time_in_state` sums it
/// (slice ∩ states of dur > 0; time before the thread's first scheduler event and open-ended states count
/// nothing), and its CPU cycles. `None` fields: the trace lacks what they need.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ThreadTimes {
    /// `Running`.
    pub running_ns: i64,
    /// `Running` on the little / medium / big cluster (`android_cpu_cluster_mapping`); `None` without the
    /// `CpuInfo` packet.
    pub running_little_ns: Option<i64>,
    /// On the medium cluster(s).
    pub running_mid_ns: Option<i64>,
    /// On the big cluster.
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
