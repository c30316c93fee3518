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
    /// `FrameDeadline` (12+), ns, as dumped: already moved one interval later by JankTracker when the frame was
    /// triple-buffered (`JankTracker::finishFrame`). `i64::MAX` when unknown.
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
        }
    }
}
