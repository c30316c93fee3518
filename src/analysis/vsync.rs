//! Vsync model: the vsync period inferred from the cadence of DisplayFrame expected ends (they sit on the
//! vsync grid, AOSP `Scheduler/MessageQueue.cpp`), and the SF/app work durations from expected slice durations.

use crate::model::Timeline;
use serde::Serialize;

/// What the trace says about vsync timing.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct VsyncModel {
    /// Inferred vsync period in ns (`None` when the trace has too few DisplayFrames).
    pub period_ns: Option<i64>,
}

impl VsyncModel {
    /// Refresh rate in Hz from the period.
    pub fn refresh_rate_hz(&self) -> Option<f64> {
        self.period_ns.map(|p| 1e9 / p as f64)
    }
}

/// Infers the vsync period: the smallest common step of consecutive expected-DisplayFrame ends.
pub fn infer_vsync(timeline: &Timeline) -> VsyncModel {
    let mut ends: Vec<i64> = timeline
        .expected
        .iter()
        .filter(|s| s.kind.is_display())
        .filter_map(|s| s.end_ns())
        .collect();
    ends.sort_unstable();
    ends.dedup();
    let mut deltas: Vec<i64> = ends.windows(2).filter_map(|w| Some(w.get(1)? - w.first()?)).filter(|d| *d > 0).collect();
    deltas.sort_unstable();
    // The shortest deltas are one vsync apart; take the median of the lowest quartile as the period.
    let low = &deltas[..deltas.len().div_ceil(4)];
    let period_ns = low.get(low.len() / 2).copied();
    VsyncModel { period_ns }
}
