//! HWUI's `Davey!` log line → a [`FrameInfoRow`]: one frame of 700 ms or more with its whole FrameInfo.
//!
//! AOSP `frameworks/base/libs/hwui/JankTracker.cpp` (`finishFrame`) logs at priority `I` (tag `OpenGLRenderer`,
//! HWUI's `LOG_TAG`), for a frame that missed its deadline with `totalDuration >= 700 ms` (IntendedVsync →
//! FrameCompleted, less any dequeue forgiveness):
//! `Davey! duration=<ms>ms; <Name>=<value>, <Name>=<value>, …, ` — one `Name=value` per `FrameInfoNames` entry
//! (`FrameInfo.cpp`), so the same columns as a `framestats` row: Android 11 without `FrameTimelineVsyncId`,
//! Android 12–14 with the `FrameInterval`/`FrameStartTime` labels printed in swapped order.

use crate::sources::gfxinfo::FrameInfoRow;
use serde::Serialize;

/// A frame interval lies in this range (1 ms – 1 s); a `FrameStartTime` is a timestamp far above it.
const INTERVAL_RANGE_NS: std::ops::RangeInclusive<i64> = 1_000_000..=1_000_000_000;
/// Most `Name=value` pairs read from one line (FrameInfoNames has 23 on Android 15).
const MAX_PAIRS: usize = 40;

/// One `Davey!` line.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DaveyFrame {
    /// 1-based line number in the file.
    pub line: u64,
    /// When it was logged, ns on the log's clock ([`super::SkipEvent::ts_ns`]); `None` without timestamps.
    pub ts_ns: Option<i64>,
    /// The printed `duration=` (JankTracker's total duration, IntendedVsync → FrameCompleted), ms; at least 700.
    pub duration_ms: i64,
    /// True if the `FrameInterval` label held a timestamp and `FrameStartTime` an interval (Android 12–14) and the
    /// two were swapped back.
    pub interval_labels_swapped: bool,
    /// The frame's FrameInfo, as a `framestats` row gives it (`row.line` is the log line).
    pub row: FrameInfoRow,
}

/// What a `Davey!` message is: `None` when the message is not one; `Some(None)` when it is, but its duration or
/// its `IntendedVsync`/`FrameCompleted` could not be read.
pub(super) fn parse(message: &str, line: u64) -> Option<Option<DaveyFrame>> {
    let rest = message.trim_start().strip_prefix("Davey! duration=")?;
    Some(parse_fields(rest, line))
}

fn parse_fields(rest: &str, line: u64) -> Option<DaveyFrame> {
    let (duration, rest) = rest.split_once("ms;")?;
    let duration_ms: i64 = duration.trim().parse().ok()?;
    let mut pairs: Vec<(&str, i64)> = Vec::with_capacity(24);
    for pair in rest.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, value) = pair.split_once('=')?;
        if pairs.len() < MAX_PAIRS {
            pairs.push((name.trim(), value.trim().parse().ok()?));
        }
    }
    let value = |name: &str| pairs.iter().find(|(n, _)| *n == name).map(|p| p.1);
    value("IntendedVsync")?;
    value("FrameCompleted")?;
    let swapped = match (value("FrameInterval"), value("FrameStartTime")) {
        (Some(fi), Some(fs)) => !INTERVAL_RANGE_NS.contains(&fi) && INTERVAL_RANGE_NS.contains(&fs),
        _ => false,
    };
    let row = FrameInfoRow::from_columns(line, |name| match (swapped, name) {
        (true, "FrameInterval") => value("FrameStartTime"),
        (true, "FrameStartTime") => value("FrameInterval"),
        _ => value(name),
    });
    Some(DaveyFrame {
        line,
        ts_ns: None,
        duration_ms,
        interval_labels_swapped: swapped,
        row,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Android 13's FrameInfoNames order with its swapped labels: the value under `FrameInterval` is the frame's
    /// start time, the one under `FrameStartTime` the 16.67 ms interval.
    const A13: &str = "Davey! duration=812ms; Flags=0, FrameTimelineVsyncId=4242, IntendedVsync=1000000000, \
        Vsync=1000000000, InputEventId=0, HandleInputStart=1000500000, AnimationStart=1000600000, \
        PerformTraversalsStart=1000700000, DrawStart=1700000000, FrameDeadline=1016666666, \
        FrameInterval=1000100000, FrameStartTime=16666666, SyncQueued=1790000000, SyncStart=1790100000, \
        IssueDrawCommandsStart=1790200000, SwapBuffers=1800000000, FrameCompleted=1812000000, \
        DequeueBufferDuration=100000, QueueBufferDuration=200000, GpuCompleted=1811000000, \
        SwapBuffersCompleted=1811500000, DisplayPresentTime=0, CommandSubmissionCompleted=1800100000, ";

    #[test]
    fn android_13_line_with_swapped_labels() {
        let d = parse(A13, 9).flatten().unwrap();
        assert_eq!(
            (d.line, d.duration_ms, d.interval_labels_swapped),
            (9, 812, true)
        );
        let r = &d.row;
        assert_eq!(r.frame_interval_ns, Some(16_666_666));
        assert_eq!(r.frame_start_time_ns, Some(1_000_100_000));
        assert_eq!(
            (r.intended_vsync_ns, r.frame_completed_ns),
            (1_000_000_000, 1_812_000_000)
        );
        assert_eq!(r.frame_timeline_vsync_id, Some(4242));
        assert_eq!(r.gpu_completed_ns, Some(1_811_000_000));
        // The printed duration is IntendedVsync → FrameCompleted.
        assert_eq!(
            (r.frame_completed_ns - r.intended_vsync_ns) / 1_000_000,
            d.duration_ms
        );
    }

    #[test]
    fn android_15_order_is_not_swapped() {
        let fixed = A13.replace(
            "FrameInterval=1000100000, FrameStartTime=16666666",
            "FrameStartTime=1000100000, FrameInterval=16666666",
        );
        let d = parse(&fixed, 1).flatten().unwrap();
        assert!(!d.interval_labels_swapped);
        assert_eq!(d.row.frame_interval_ns, Some(16_666_666));
        assert_eq!(d.row.frame_start_time_ns, Some(1_000_100_000));
    }

    #[test]
    fn android_11_line_without_timeline_columns() {
        // Android 11's FrameInfoNames: no FrameTimelineVsyncId, InputEventId, FrameDeadline, FrameInterval,
        // FrameStartTime.
        let a11 = "Davey! duration=1503ms; Flags=1, IntendedVsync=5000000000, Vsync=5000000000, \
            OldestInputEvent=9223372036854775807, NewestInputEvent=0, HandleInputStart=5000100000, \
            AnimationStart=5000200000, PerformTraversalsStart=5000300000, DrawStart=6400000000, \
            SyncQueued=6490000000, SyncStart=6490100000, IssueDrawCommandsStart=6490200000, SwapBuffers=6500000000, \
            FrameCompleted=6503000000, DequeueBufferDuration=50000, QueueBufferDuration=60000, GpuCompleted=0, ";
        let d = parse(a11, 3).flatten().unwrap();
        assert_eq!((d.duration_ms, d.interval_labels_swapped), (1503, false));
        assert_eq!(d.row.frame_timeline_vsync_id, None);
        assert_eq!(d.row.frame_interval_ns, None);
        assert_eq!((d.row.flags, d.row.vsync_ns), (1, 5_000_000_000));
    }

    #[test]
    fn other_messages_and_broken_lines() {
        assert_eq!(parse("Skipped 31 frames!", 1), None);
        assert_eq!(
            parse("Davey! duration=abcms; IntendedVsync=1", 1),
            Some(None)
        );
        assert_eq!(parse("Davey! duration=800ms; Flags=0, ", 1), Some(None));
        assert_eq!(
            parse(
                "Davey! duration=800ms; IntendedVsync=x, FrameCompleted=2",
                1
            ),
            Some(None)
        );
    }
}
