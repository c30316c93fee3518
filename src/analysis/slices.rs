//! Rows of Perfetto's `expected_frame_timeline_slice` / `actual_frame_timeline_slice` tables, with Perfetto's
//! column names and value strings (`src/trace_processor/perfetto_sql/stdlib/prelude/after_eof/events.sql`).

use crate::model::jank::{PredictionType, PresentType, Severity};
use crate::model::{Slice, Timeline};
use serde::Serialize;
use std::borrow::Cow;

/// A row of `expected_frame_timeline_slice`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ExpectedSliceRow {
    /// Start, ns on the trace clock.
    pub ts: i64,
    /// Duration, ns; `-1` if the slice never ended.
    pub dur: i64,
    /// Owning process.
    pub pid: i32,
    /// DisplayFrame token.
    pub display_frame_token: i64,
    /// SurfaceFrame token (empty for DisplayFrames).
    pub surface_frame_token: Option<i64>,
    /// Layer name (empty for DisplayFrames).
    pub layer_name: Option<String>,
}

/// A row of `actual_frame_timeline_slice`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ActualSliceRow {
    /// The columns shared with the expected table.
    #[serde(flatten)]
    pub base: ExpectedSliceRow,
    /// e.g. `On-time Present`, `Late Present`.
    pub present_type: PresentType,
    /// 1 if the frame finished on time, else 0.
    pub on_time_finish: i64,
    /// 1 if SurfaceFlinger used GPU composition, else 0.
    pub gpu_composition: i64,
    /// e.g. `App Deadline Missed, Buffer Stuffing`.
    pub jank_type: Cow<'static, str>,
    /// e.g. `Valid Prediction`.
    pub prediction_type: PredictionType,
    /// e.g. `Self Jank`.
    pub jank_tag: &'static str,
    /// `Unknown`, `None`, `Partial` or `Full`.
    pub jank_severity_type: Severity,
}

fn base(timeline: &Timeline, s: &Slice) -> ExpectedSliceRow {
    ExpectedSliceRow {
        ts: s.ts_ns,
        dur: s.dur_ns,
        pid: s.pid,
        display_frame_token: s.display_frame_token,
        surface_frame_token: s.surface_frame_token(),
        layer_name: s.layer.map(|_| timeline.layer_name(s.layer).to_string()),
    }
}

/// The expected table, in Perfetto's slice-id order.
pub fn expected_rows(timeline: &Timeline) -> impl Iterator<Item = ExpectedSliceRow> + '_ {
    timeline.expected.iter().map(|s| base(timeline, s))
}

/// The actual table, in Perfetto's slice-id order.
pub fn actual_rows(timeline: &Timeline) -> impl Iterator<Item = ActualSliceRow> + '_ {
    timeline.actual.iter().map(|s| ActualSliceRow {
        base: base(timeline, s),
        present_type: s.present_type(),
        on_time_finish: i64::from(s.labels.on_time_finish.unwrap_or(false)),
        gpu_composition: i64::from(s.labels.gpu_composition.unwrap_or(false)),
        jank_type: s.jank_type(),
        prediction_type: s.prediction_type(),
        jank_tag: s.jank_tag().name(),
        jank_severity_type: s.severity(),
    })
}
