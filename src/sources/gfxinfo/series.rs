//! A window's frames as a [`FrameSeries`] and the frame period of its rows.

use super::{FrameInfoRow, GfxWindow, INTERVAL_RANGE_NS};
use crate::model::{FrameSeries, SeriesFrame, Source};

/// The frame period of a window's rows, ns, and where it came from: the median of the frame-interval column
/// (values in 1 ms – 1 s) when the release prints one (`"FrameInterval"`), else the smallest consecutive
/// `IntendedVsync` delta in 1 ms – 1 s (`"smallest IntendedVsync delta"`: the vsync period once two frames were
/// drawn on consecutive vsyncs; pass `--vsync-period` for an app that never did); `None` when neither gives a
/// value.
/// "Median" is the lower middle value of an even count (always a measured value).
pub fn frame_period(rows: &[FrameInfoRow]) -> (Option<i64>, &'static str) {
    let intervals: Vec<i64> = rows
        .iter()
        .filter_map(|r| r.frame_interval_ns)
        .filter(|v| INTERVAL_RANGE_NS.contains(v))
        .collect();
    if let Some(m) = lower_median(intervals) {
        return (Some(m), "FrameInterval");
    }
    let mut vsyncs: Vec<i64> = rows.iter().map(|r| r.intended_vsync_ns).collect();
    vsyncs.sort_unstable();
    let deltas: Vec<i64> = vsyncs
        .windows(2)
        .map(|w| w[1].saturating_sub(w[0]))
        .filter(|d| INTERVAL_RANGE_NS.contains(d))
        .collect();
    // IntendedVsync values are vsync times, so their deltas are whole vsyncs: the smallest is the period as soon
    // as two frames were drawn on consecutive vsyncs (a median would give an app drawing at 30 fps on a 60 Hz
    // display a 33 ms "vsync").
    match deltas.into_iter().min() {
        Some(m) => (Some(m), "smallest IntendedVsync delta"),
        None => (
            None,
            "unknown (no FrameInterval column, fewer than 2 frames)",
        ),
    }
}

fn lower_median(mut v: Vec<i64>) -> Option<i64> {
    v.sort_unstable();
    let mid = v.len().checked_sub(1)? / 2;
    v.get(mid).copied()
}

impl GfxWindow {
    /// The window's frames as a [`FrameSeries`] (`source` gfxinfo, `layer_name` the window name): expected start
    /// `IntendedVsync`, expected end `FrameDeadline`, actual start `Vsync`, actual end `FrameCompleted`, ready
    /// `GpuCompleted`. Present times: `DisplayPresentTime` when the column exists with at least one plausible
    /// value > 0 (frames whose value is 0, −1 or implausible then have no present time:
    /// [`FrameInfoRow::present_ns`]), else `FrameCompleted` for every frame, labelled so. The rows are finished
    /// frames only (the reader left the others out, [`FrameInfoRow::unfinished`]), so span, per-second series and
    /// frame delays come from valid frames; an implausible `FrameDeadline` (or HWUI's `i64::MAX` "unknown") gives
    /// no expected end. Period: see [`frame_period`].
    pub fn series(&self, pid: Option<i32>, process_name: Option<&str>) -> FrameSeries {
        let has_present = self.rows.iter().any(|r| r.present_ns().is_some());
        let (period_ns, period_from) = frame_period(&self.rows);
        let frames = self
            .rows
            .iter()
            .map(|r| SeriesFrame {
                expected_start_ns: Some(r.intended_vsync_ns),
                expected_end_ns: r.frame_deadline_ns.filter(|&d| d > 0 && !r.implausible(d)),
                actual_start_ns: Some(r.vsync_ns),
                actual_end_ns: Some(r.frame_completed_ns),
                ready_ns: r.gpu_completed_ns,
                desired_present_ns: None,
                present_ns: if has_present {
                    r.present_ns()
                } else {
                    Some(r.frame_completed_ns)
                },
            })
            .collect();
        FrameSeries {
            source: Source::Gfxinfo,
            pid,
            process_name: process_name.map(str::to_string),
            layer_name: self.name.clone(),
            period_ns,
            period_from,
            presents_from: if has_present {
                "DisplayPresentTime"
            } else {
                "FrameCompleted (no present times in this capture)"
            },
            frames,
        }
    }
}
