//! One PROFILEDATA row: HWUI's `FrameInfo` of one frame, built from its values looked up by column name.

use serde::Serialize;

/// One PROFILEDATA row: HWUI's `FrameInfo` for one frame (AOSP `libs/hwui/FrameInfo.h` `FrameInfoIndex`). Times
/// are CLOCK_MONOTONIC ns; a column the release does not print is `None`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct FrameInfoRow {
    /// 1-based line number of the row in the capture.
    pub line: u64,
    /// `Flags` bit set (`FrameInfoFlags`: 1 WindowLayoutChanged, 2 RTAnimation, 4 SurfaceCanvas, 8 SkippedFrame).
    pub flags: i64,
    /// `FrameTimelineVsyncId` (12+): the FrameTimeline token of the vsync the frame started on.
    pub frame_timeline_vsync_id: Option<i64>,
    /// `IntendedVsync`, ns: the vsync the frame was meant to start on.
    pub intended_vsync_ns: i64,
    /// `Vsync`, ns: the vsync the UI thread actually started on.
    pub vsync_ns: i64,
    /// `InputEventId` (12+): id of the input event handled in the frame (0 if none).
    pub input_event_id: Option<i64>,
    /// `OldestInputEvent` (before 12), ns.
    pub oldest_input_event_ns: Option<i64>,
    /// `NewestInputEvent` (before 12), ns.
    pub newest_input_event_ns: Option<i64>,
    /// `HandleInputStart`, ns.
    pub handle_input_start_ns: Option<i64>,
    /// `AnimationStart`, ns.
    pub animation_start_ns: Option<i64>,
    /// `PerformTraversalsStart`, ns.
    pub perform_traversals_start_ns: Option<i64>,
    /// `DrawStart`, ns.
    pub draw_start_ns: Option<i64>,
    /// `FrameDeadline` (12+), ns, as dumped: the deadline `JankTracker::finishFrame` judged the frame by, written
    /// back into the frame when it was triple-buffered (12–14: one frame interval later; 15+: the unstuffed
    /// start + `WorkloadTarget`). `i64::MAX` when unknown.
    pub frame_deadline_ns: Option<i64>,
    /// The frame interval (12+), ns: the column whose values are intervals, whatever its label says.
    pub frame_interval_ns: Option<i64>,
    /// `FrameStartTime` (12+), ns: the column whose values are timestamps, whatever its label says.
    pub frame_start_time_ns: Option<i64>,
    /// `SyncQueued`, ns: the UI thread queued the sync with the RenderThread.
    pub sync_queued_ns: i64,
    /// `SyncStart`, ns: the RenderThread started the sync.
    pub sync_start_ns: i64,
    /// `IssueDrawCommandsStart`, ns.
    pub issue_draw_commands_start_ns: i64,
    /// `SwapBuffers`, ns.
    pub swap_buffers_ns: Option<i64>,
    /// `FrameCompleted`, ns: the RenderThread was done with the frame.
    pub frame_completed_ns: i64,
    /// `DequeueBufferDuration`, ns (a duration, not a time).
    pub dequeue_buffer_duration_ns: Option<i64>,
    /// `QueueBufferDuration`, ns (a duration, not a time).
    pub queue_buffer_duration_ns: Option<i64>,
    /// `GpuCompleted`, ns: the GPU finished the frame (acquire fence).
    pub gpu_completed_ns: Option<i64>,
    /// `SwapBuffersCompleted`, ns.
    pub swap_buffers_completed_ns: Option<i64>,
    /// `DisplayPresentTime`, ns: present fence (0 or -1 when not known at dump time).
    pub display_present_time_ns: Option<i64>,
    /// `CommandSubmissionCompleted`, ns.
    pub command_submission_completed_ns: Option<i64>,
    /// `WorkloadTarget` (15+), as printed.
    pub workload_target: Option<i64>,
    /// `AnimationTime` (16+), ns, as printed.
    pub animation_time_ns: Option<i64>,
}

impl FrameInfoRow {
    /// A row from its values looked up by HWUI column name (`FrameInfoNames` in AOSP `FrameInfo.cpp`, as a
    /// PROFILEDATA header or a `Davey!` line names them): `get(name)` is the value of that column, `None` when
    /// the release does not print it. The caller has already resolved the Android 12–14
    /// `FrameInterval`/`FrameStartTime` label swap. The columns every release prints read 0 when missing.
    pub fn from_columns(line: u64, get: impl Fn(&str) -> Option<i64>) -> FrameInfoRow {
        let req = |name: &str| get(name).unwrap_or(0);
        FrameInfoRow {
            line,
            flags: req("Flags"),
            frame_timeline_vsync_id: get("FrameTimelineVsyncId"),
            intended_vsync_ns: req("IntendedVsync"),
            vsync_ns: req("Vsync"),
            input_event_id: get("InputEventId"),
            oldest_input_event_ns: get("OldestInputEvent"),
            newest_input_event_ns: get("NewestInputEvent"),
            handle_input_start_ns: get("HandleInputStart"),
            animation_start_ns: get("AnimationStart"),
            perform_traversals_start_ns: get("PerformTraversalsStart"),
            draw_start_ns: get("DrawStart"),
            frame_deadline_ns: get("FrameDeadline"),
            frame_interval_ns: get("FrameInterval"),
            frame_start_time_ns: get("FrameStartTime"),
            sync_queued_ns: req("SyncQueued"),
            sync_start_ns: req("SyncStart"),
            issue_draw_commands_start_ns: req("IssueDrawCommandsStart"),
            swap_buffers_ns: get("SwapBuffers"),
            frame_completed_ns: req("FrameCompleted"),
            dequeue_buffer_duration_ns: get("DequeueBufferDuration"),
            queue_buffer_duration_ns: get("QueueBufferDuration"),
            gpu_completed_ns: get("GpuCompleted"),
            swap_buffers_completed_ns: get("SwapBuffersCompleted"),
            display_present_time_ns: get("DisplayPresentTime"),
            command_submission_completed_ns: get("CommandSubmissionCompleted"),
            workload_target: get("WorkloadTarget"),
            animation_time_ns: get("AnimationTime"),
        }
    }
}

/// Every column name HWUI prints in a PROFILEDATA header or a `Davey!` line, over the releases (AOSP
/// `FrameInfo.cpp` `FrameInfoNames`: 6–11, 12–14, 15 adds `WorkloadTarget`, 16 `AnimationTime`). A column not in
/// this list is kept by name on the window ([`super::GfxWindow::unknown_columns`]) and not read.
pub const KNOWN_COLUMNS: [&str; 27] = [
    "Flags",
    "FrameTimelineVsyncId",
    "IntendedVsync",
    "Vsync",
    "InputEventId",
    "OldestInputEvent",
    "NewestInputEvent",
    "HandleInputStart",
    "AnimationStart",
    "PerformTraversalsStart",
    "DrawStart",
    "FrameDeadline",
    "FrameStartTime",
    "FrameInterval",
    "WorkloadTarget",
    "AnimationTime",
    "SyncQueued",
    "SyncStart",
    "IssueDrawCommandsStart",
    "SwapBuffers",
    "FrameCompleted",
    "DequeueBufferDuration",
    "QueueBufferDuration",
    "GpuCompleted",
    "SwapBuffersCompleted",
    "DisplayPresentTime",
    "CommandSubmissionCompleted",
];

/// Times at or above this, ns (2^55 ns ≈ 417 days of uptime), cannot belong to a capture: garbage seen in
/// PROFILEDATA rows sits near 2^58.
pub const IMPLAUSIBLE_FROM_NS: i64 = 1 << 55;
/// A time further than this from its frame's `IntendedVsync`, ns (one day), cannot belong to that frame.
pub const MAX_FROM_INTENDED_VSYNC_NS: i64 = 86_400_000_000_000;

/// Why a row does not count as a finished frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unfinished {
    /// `FrameCompleted` is before `SyncStart`: the slot's later columns still hold an older frame's values (or
    /// 0), because HWUI had not finished this frame when it was dumped.
    NotCompleted,
    /// A time JankTracker or the frame series measures (`IntendedVsync`, `Vsync`, `SyncQueued`, `SyncStart`,
    /// `IssueDrawCommandsStart`, `FrameCompleted`, `GpuCompleted`) is implausible ([`FrameInfoRow::implausible`]).
    ImplausibleTime,
}

impl Unfinished {
    /// The diagnostic under which such rows are counted.
    pub fn diagnostic(self) -> &'static str {
        match self {
            Unfinished::NotCompleted => {
                "unfinished frames left out (FrameCompleted before SyncStart: HWUI had not finished them when \
                 dumping, and JankTracker had not counted them)"
            }
            Unfinished::ImplausibleTime => {
                "frames with an implausible time left out (a measured stamp >= 2^55 ns or > 1 day from \
                 IntendedVsync: garbage in a ring-buffer slot HWUI never finished)"
            }
        }
    }
}

impl FrameInfoRow {
    /// True if `t` (a time column of this row, ns) cannot belong to the capture: at or above
    /// [`IMPLAUSIBLE_FROM_NS`], or a positive time more than [`MAX_FROM_INTENDED_VSYNC_NS`] from the row's
    /// `IntendedVsync`. 0 and negative values are "not set" (HWUI's sentinels), not implausible.
    pub fn implausible(&self, t: i64) -> bool {
        t >= IMPLAUSIBLE_FROM_NS
            || (t > 0 && t.abs_diff(self.intended_vsync_ns) > MAX_FROM_INTENDED_VSYNC_NS as u64)
    }

    /// `None` if the row is a frame HWUI finished (and JankTracker counted: AOSP `CanvasContext::draw` /
    /// `onSurfaceStatsAvailable` set `FrameCompleted` after `SyncStart` right before `JankTracker::finishFrame`),
    /// else why not. A ring-buffer slot (`JankTracker::startFrame`, `RingBuffer::next`) is reused without being
    /// cleared: `CanvasContext::prepareTree` writes the UI-thread columns, `SyncQueued` and `SyncStart`, and the
    /// later columns keep the previous occupant's values (or uninitialised memory) until the frame is finished.
    /// A skipped frame (Flags 8) or one still waiting for its GPU fence is dumped that way.
    pub fn unfinished(&self) -> Option<Unfinished> {
        let measured = [
            Some(self.vsync_ns),
            Some(self.sync_queued_ns),
            Some(self.sync_start_ns),
            Some(self.issue_draw_commands_start_ns),
            Some(self.frame_completed_ns),
            self.gpu_completed_ns,
        ];
        if self.intended_vsync_ns <= 0
            || self.intended_vsync_ns >= IMPLAUSIBLE_FROM_NS
            || measured.into_iter().flatten().any(|t| self.implausible(t))
        {
            return Some(Unfinished::ImplausibleTime);
        }
        if self.frame_completed_ns < self.sync_start_ns {
            return Some(Unfinished::NotCompleted);
        }
        None
    }

    /// The frame's present time, ns: `DisplayPresentTime` when > 0 and plausible; `None` when the column is
    /// absent, 0 or −1 (not known when dumped) or implausible (the frame counts as not presented).
    pub fn present_ns(&self) -> Option<i64> {
        self.display_present_time_ns
            .filter(|&p| p > 0 && !self.implausible(p))
    }

    /// What identifies the frame across concatenated dumps: the columns written when the frame started (the
    /// UI-thread columns, `SyncQueued`, `SyncStart`; AOSP `CanvasContext::prepareTree`), which never change
    /// afterwards. `IntendedVsync` alone does not: a frame and its re-draw (an RT-animation frame, Flags 2) can
    /// share it. `Flags`, `FrameDeadline` and `FrameInterval` are left out: HWUI changes them while the frame is
    /// drawn and finished.
    pub fn identity(&self) -> [i64; 12] {
        let o = |v: Option<i64>| v.unwrap_or(i64::MIN);
        [
            self.intended_vsync_ns,
            self.vsync_ns,
            o(self.frame_timeline_vsync_id),
            o(self.input_event_id),
            o(self.oldest_input_event_ns),
            o(self.newest_input_event_ns),
            o(self.handle_input_start_ns),
            o(self.animation_start_ns),
            o(self.perform_traversals_start_ns),
            o(self.draw_start_ns),
            self.sync_queued_ns,
            self.sync_start_ns,
        ]
    }

    /// How complete the row is, to keep the better of two dumps of one frame: finished first, then with a
    /// present time, then with a GPU completion time.
    pub fn completeness(&self) -> (bool, bool, bool) {
        (
            self.unfinished().is_none(),
            self.present_ns().is_some(),
            self.gpu_completed_ns.is_some_and(|g| g > 0),
        )
    }
}
