//! A summary block (`Total frames rendered`, `Janky frames`, percentiles, `Number …`, histograms) as printed.

use serde::Serialize;

/// A summary block exactly as the device printed it (AOSP `ProfileData::dump`); a line absent from the block is
/// `None` (or empty).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct GfxSummary {
    /// 1-based line of the block's first summary line.
    pub line: u64,
    /// `Stats since: <ns>ns`, CLOCK_MONOTONIC ns of the last reset.
    pub stats_since_ns: Option<i64>,
    /// `Total frames rendered`.
    pub total_frames_rendered: Option<u64>,
    /// `Janky frames: n (pct%)`: n.
    pub janky_frames: Option<u64>,
    /// `Janky frames: n (pct%)`: pct, percent.
    pub janky_pct: Option<f64>,
    /// `Janky frames (legacy): n (pct%)` (12+): n.
    pub janky_frames_legacy: Option<u64>,
    /// `Janky frames (legacy): n (pct%)` (12+): pct, percent.
    pub janky_legacy_pct: Option<f64>,
    /// `50th percentile`, ms (a histogram bucket time, `ProfileData::findPercentile`).
    pub percentile_50_ms: Option<u64>,
    /// `90th percentile`, ms.
    pub percentile_90_ms: Option<u64>,
    /// `95th percentile`, ms.
    pub percentile_95_ms: Option<u64>,
    /// `99th percentile`, ms.
    pub percentile_99_ms: Option<u64>,
    /// `Number Missed Vsync`.
    pub missed_vsync: Option<u64>,
    /// `Number High input latency`.
    pub high_input_latency: Option<u64>,
    /// `Number Slow UI thread`.
    pub slow_ui_thread: Option<u64>,
    /// `Number Slow bitmap uploads`.
    pub slow_bitmap_uploads: Option<u64>,
    /// `Number Slow issue draw commands`.
    pub slow_issue_draw_commands: Option<u64>,
    /// `Number Frame deadline missed`.
    pub frame_deadline_missed: Option<u64>,
    /// `Number Frame deadline missed (legacy)` (12+).
    pub frame_deadline_missed_legacy: Option<u64>,
    /// Any other `Number <what>: n` line: (what, n).
    pub other_numbers: Vec<(String, u64)>,
    /// `HISTOGRAM:` as (bucket ms, frames), in printed order.
    pub histogram: Vec<(u32, u64)>,
    /// `50th gpu percentile`, ms (newer releases).
    pub gpu_percentile_50_ms: Option<u64>,
    /// `90th gpu percentile`, ms.
    pub gpu_percentile_90_ms: Option<u64>,
    /// `95th gpu percentile`, ms.
    pub gpu_percentile_95_ms: Option<u64>,
    /// `99th gpu percentile`, ms.
    pub gpu_percentile_99_ms: Option<u64>,
    /// `GPU HISTOGRAM:` as (bucket ms, frames).
    pub gpu_histogram: Vec<(u32, u64)>,
}
