//! `Event`: the one contract between the trace file format and the model. Producers (the protobuf decoder,
//! the synth builder's tests) emit these; everything downstream consumes only these.

pub use super::atrace::Atrace;
pub use super::binder::BinderEvent;

/// Which of the four FrameTimeline slice kinds a start event opens.
/// Source: `FrameTimelineEvent` oneof in Perfetto's `frameworks_native_trace_packet.proto`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum SliceKind {
    /// `ExpectedDisplayFrameStart`: SurfaceFlinger's predicted timeline for a DisplayFrame.
    ExpectedDisplayFrame,
    /// `ActualDisplayFrameStart`: what SurfaceFlinger did; the slice ends at the present fence.
    ActualDisplayFrame,
    /// `ExpectedSurfaceFrameStart`: the app's predicted timeline for a SurfaceFrame.
    ExpectedSurfaceFrame,
    /// `ActualSurfaceFrameStart`: what the app did; the slice ends at max(GPU done, queue time).
    ActualSurfaceFrame,
}

impl SliceKind {
    /// True for the two expected (predicted) kinds.
    pub fn is_expected(self) -> bool {
        matches!(
            self,
            SliceKind::ExpectedDisplayFrame | SliceKind::ExpectedSurfaceFrame
        )
    }
    /// True for the two DisplayFrame kinds.
    pub fn is_display(self) -> bool {
        matches!(
            self,
            SliceKind::ExpectedDisplayFrame | SliceKind::ActualDisplayFrame
        )
    }
}

/// The labels SurfaceFlinger attached to an actual frame, as in the packet (absent fields kept apart); 15 bytes,
/// as the model keeps one per slice. Enum values are kept as integers so that out-of-range values can be
/// reported, as Perfetto does: narrowed to a byte by [`EnumCode`], which keeps every one of them out of range.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FrameLabels {
    /// `PresentType` (1 on-time, 2 late, 3 early, 4 dropped, 5 unknown).
    pub present_type: EnumCode,
    /// Whether the frame finished before its deadline.
    pub on_time_finish: Option<bool>,
    /// Whether SurfaceFlinger composited it with the GPU (client composition).
    pub gpu_composition: Option<bool>,
    /// `PredictionType` (1 valid, 2 expired, 3 unknown).
    pub prediction_type: EnumCode,
    /// `JankSeverityType` (0 unknown, 1 none, 2 partial, 3 full).
    pub jank_severity_type: EnumCode,
    /// SurfaceFrames only: whether the frame carried a buffer (else a transaction).
    pub is_buffer: Option<bool>,
    /// `JankType` bitmask and severity score.
    pub jank: JankValues,
}

const _: () = assert!(std::mem::size_of::<FrameLabels>() == 15);
// A scheduler event is kept until the sorter hands it on (`model::sched`): 16 bytes, 24 with its time.
const _: () = assert!(std::mem::size_of::<Sched>() == 16);

impl FrameLabels {
    /// `JankType` bitmask.
    pub fn jank_type(&self) -> Option<i32> {
        let JankValues { jank_type, set, .. } = self.jank;
        (set & HAS_JANK_TYPE != 0).then_some(jank_type)
    }

    /// Severity score (newer Android versions).
    pub fn jank_severity_score(&self) -> Option<f32> {
        let JankValues { score, set, .. } = self.jank;
        (set & HAS_SCORE != 0).then_some(score)
    }
}

/// A frame's `JankType` bitmask and severity score, each optional, in 9 bytes (one says which are present)
/// instead of the 16 of two `Option`s: what lets a model slice take 64 bytes rather than 72.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
#[repr(C, packed)]
pub struct JankValues {
    jank_type: i32,
    score: f32,
    set: u8,
}

const HAS_JANK_TYPE: u8 = 1;
const HAS_SCORE: u8 = 2;

impl JankValues {
    /// The bitmask and score as read (`None` = absent).
    pub fn new(jank_type: Option<i32>, score: Option<f32>) -> Self {
        JankValues {
            jank_type: jank_type.unwrap_or(0),
            score: score.unwrap_or(0.0),
            set: jank_type.map_or(0, |_| HAS_JANK_TYPE) | score.map_or(0, |_| HAS_SCORE),
        }
    }
}

/// An optional enum label as [`FrameLabels`] keeps it: one byte, where an `Option<i8>` takes two (`i8::MIN`
/// stands for "absent"). The packet's `int32` is narrowed: values outside `i8`, and `i8::MIN` itself, become
/// `i8::MAX`, outside every label's range as they were.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct EnumCode(i8);

impl EnumCode {
    const ABSENT: i8 = i8::MIN;

    /// The label read from the packet (`None` = absent).
    pub fn new(value: Option<i32>) -> Self {
        EnumCode(value.map_or(Self::ABSENT, |v| {
            i8::try_from(v)
                .ok()
                .filter(|&v| v != Self::ABSENT)
                .unwrap_or(i8::MAX)
        }))
    }

    /// The narrowed value, `None` when absent.
    pub fn get(self) -> Option<i8> {
        (self.0 != Self::ABSENT).then_some(self.0)
    }
}

impl Default for EnumCode {
    /// Absent.
    fn default() -> Self {
        EnumCode(Self::ABSENT)
    }
}

impl std::fmt::Debug for EnumCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

/// A start event: opens an expected or actual slice identified by `cookie`. Fields are `None` when absent from
/// the packet; the model decides which absences are errors.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameStart {
    /// The kind of slice this opens.
    pub kind: SliceKind,
    /// Pairs the start with its `FrameEnd`.
    pub cookie: Option<i64>,
    /// The frame token (vsync id): DisplayFrame token or SurfaceFrame token.
    pub token: Option<i64>,
    /// SurfaceFrames only: token of the DisplayFrame that presented (or latched) this frame.
    pub display_frame_token: Option<i64>,
    /// Process that owns the slice (SurfaceFlinger for DisplayFrames, the app for SurfaceFrames).
    pub pid: Option<i32>,
    /// SurfaceFrames only: the layer name, e.g. `TX - com.pkg/com.pkg.MainActivity#12` (the decoder keeps one
    /// copy of each distinct name, which its events share).
    pub layer_name: Option<std::sync::Arc<str>>,
    /// Actual kinds only: SurfaceFlinger's labels.
    pub labels: FrameLabels,
}

/// A FrameTimeline event (TracePacket field 76).
#[derive(Debug, Clone, PartialEq)]
pub enum FrameTimelineEvent {
    /// One of the four `*Start` messages.
    Start(FrameStart),
    /// `FrameEnd{cookie}`: closes the slice opened with this cookie.
    End {
        /// The cookie, `None` if absent.
        cookie: Option<i64>,
    },
    /// A `FrameTimelineEvent` with none of its oneof members set.
    Empty,
}

/// Device facts from `SystemInfo` (TracePacket field 45).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct SystemInfo {
    /// `ro.build.fingerprint`, e.g. `google/cheetah/cheetah:13/TQ1A.../user/release-keys`.
    pub android_build_fingerprint: Option<String>,
    /// Android SDK level (33 = Android 13); recorded from Android 13 on.
    pub android_sdk_version: Option<u64>,
    /// SoC model.
    pub android_soc_model: Option<String>,
    /// Kernel release from `uname`.
    pub kernel_release: Option<String>,
    /// Machine from `uname` (e.g. `aarch64`).
    pub machine: Option<String>,
}

/// One CPU of a `CpuInfo` packet (TracePacket field 67; `cpu_info.proto`): the n-th entry is CPU n.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CpuInfoCpu {
    /// `capacity` (sysfs `cpu_capacity`, relative performance), if recorded.
    pub capacity: Option<u32>,
    /// The largest of `frequencies` (sysfs `scaling_available_frequencies`), kHz; `None` when none is listed.
    pub max_frequency_khz: Option<u32>,
}

/// What a [`Event::TrackEvent`] does (`TrackEvent.Type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrackEventPhase {
    /// `TYPE_SLICE_BEGIN`.
    Begin,
    /// `TYPE_SLICE_END`.
    End,
    /// `TYPE_INSTANT`: a slice of duration 0.
    Instant,
}

/// A scheduler event ([`Event::Sched`]), from ftrace or `compact_sched` (`sched.proto`, `power.proto`,
/// `task.proto`); what it means is the model's (`model::sched`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sched {
    /// `sched_switch` on the event's CPU: `prev_tid` leaves in the raw task state `prev_state`, `next_tid` runs.
    /// `prev_tid` is `None` from `compact_sched` (the thread last switched in on that CPU).
    Switch {
        /// The thread switched out, if the event names it.
        prev_tid: Option<i32>,
        /// Its raw `prev_state` (kernel task state bits, decoded by kernel version), truncated to 16 bits as
        /// Perfetto's `TaskState::FromRawPrevState(uint16_t, …)` takes it.
        prev_state: u16,
        /// The thread switched in.
        next_tid: i32,
    },
    /// `sched_waking` recorded on the event's CPU: `tid` woken by `waker` (`None` from `compact_sched`: the
    /// thread running on that CPU).
    Waking {
        /// The woken thread.
        tid: i32,
        /// The waking thread, if the event names it.
        waker: Option<i32>,
        /// Whether `common_flags` has a hard or soft IRQ bit (0x08 | 0x10), if recorded (Perfetto's
        /// `irq_context`).
        irq: Option<bool>,
    },
    /// `task_newtask`: `tid` created by `parent`.
    NewTask {
        /// The new thread.
        tid: i32,
        /// Its creator.
        parent: i32,
    },
    /// `sched_blocked_reason`: whether `tid`'s last blocked state waited on IO.
    BlockedReason {
        /// The thread.
        tid: i32,
        /// `io_wait`, if recorded.
        io_wait: Option<bool>,
    },
    /// `cpu_frequency`: `cpu` runs at `khz` from now on.
    CpuFrequency {
        /// The CPU.
        cpu: u32,
        /// kHz.
        khz: u32,
    },
}

/// Everything the decoder tells the model.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A FrameTimeline event with its timestamp converted to the trace clock, in ns.
    FrameTimeline {
        /// Timestamp on the trace clock (BOOTTIME unless the trace says otherwise), ns.
        ts_ns: i64,
        /// The event.
        event: FrameTimelineEvent,
    },
    /// A process from `ProcessTree` (TracePacket field 2).
    Process {
        /// Process id.
        pid: i32,
        /// `cmdline[0]`, as Perfetto names processes.
        name: String,
        /// Linux uid, if recorded.
        uid: Option<i32>,
    },
    /// `SystemInfo` packet.
    SystemInfo(SystemInfo),
    /// A `CpuInfo` packet's CPUs, in CPU order.
    CpuInfo(Vec<CpuInfoCpu>),
    /// An atrace line from an ftrace `print` event, its timestamp converted to the trace clock.
    Atrace {
        /// Timestamp on the trace clock, ns.
        ts_ns: i64,
        /// The writing thread.
        tid: i32,
        /// The parsed line.
        event: Atrace,
    },
    /// A `TrackDescriptor` (TracePacket field 60): a track for a process, a thread, or under a parent track.
    TrackDescriptor {
        /// The track's id.
        uuid: u64,
        /// The parent track, if any.
        parent_uuid: Option<u64>,
        /// Its name (`name` or `static_name`), if given.
        name: Option<String>,
        /// The process of a process (or thread) track.
        pid: Option<i32>,
        /// The thread of a thread track.
        tid: Option<i32>,
    },
    /// A `TrackEvent` (TracePacket field 11) slice begin, slice end or instant on a described track.
    TrackEvent {
        /// Timestamp on the trace clock, ns.
        ts_ns: i64,
        /// The track (`track_uuid`).
        track_uuid: u64,
        /// Begin, end or instant.
        phase: TrackEventPhase,
        /// The event's name (`None` for ends and interned names).
        name: Option<String>,
    },
    /// A thread's process and name from `ProcessTree.threads`.
    Thread {
        /// Thread id.
        tid: i32,
        /// Its process, if the source says.
        tgid: Option<i32>,
        /// Its name (`comm`), if the source says.
        name: Option<String>,
    },
    /// A binder transaction event from ftrace, its timestamp converted to the trace clock.
    Binder {
        /// Timestamp on the trace clock, ns.
        ts_ns: i64,
        /// The thread the event happened on.
        tid: i32,
        /// The event.
        event: BinderEvent,
    },
    /// The scheduler events of one ftrace bundle, each with its timestamp on the trace clock (ns), in the order
    /// read: one event per bundle, not per scheduler event, as a trace holds millions of them.
    Sched {
        /// The CPU of the ftrace bundle they were read from.
        cpu: u32,
        /// `(ts_ns, event)`.
        events: Vec<(i64, Sched)>,
    },
    /// A thread's name from ftrace: `task_newtask`, `task_rename`, or the scheduler's `comm` (which a process
    /// tree's name outranks, as in Perfetto's `ThreadNamePriority`).
    ThreadName {
        /// Thread id.
        tid: i32,
        /// Its name.
        name: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jank_type_and_score_keep_absent_apart_from_zero() {
        for jank_type in [None, Some(0), Some(-1), Some(i32::MAX)] {
            for score in [None, Some(0.0), Some(-2.5), Some(f32::INFINITY)] {
                let labels = FrameLabels {
                    jank: JankValues::new(jank_type, score),
                    ..FrameLabels::default()
                };
                assert_eq!(
                    (labels.jank_type(), labels.jank_severity_score()),
                    (jank_type, score)
                );
            }
        }
        assert_ne!(JankValues::new(Some(0), None), JankValues::default());
        assert_eq!(JankValues::new(None, None), JankValues::default());
    }

    #[test]
    fn enum_codes_keep_absent_apart_and_narrow_what_a_byte_cannot_hold() {
        assert_eq!(EnumCode::new(None).get(), None);
        assert_eq!(EnumCode::default(), EnumCode::new(None));
        for v in [0, 1, 5, -1, -127, 127] {
            assert_eq!(EnumCode::new(Some(v)).get(), Some(v as i8));
        }
        // Outside i8, and the byte that stands for "absent": out of every label's range, present.
        for v in [-128, 128, i32::MAX, i32::MIN] {
            assert_eq!(EnumCode::new(Some(v)).get(), Some(i8::MAX));
        }
        assert_eq!(std::mem::size_of::<EnumCode>(), 1);
    }
}
