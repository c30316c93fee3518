//! The triage table: one row per input (or per input × process / layer) with the headline numbers of a trace
//! or a text capture, and the `--sort` / `--fail-on` columns over it.

use super::{Job, OK};
use crate::analysis::capture::{CaptureLayer, CaptureReport};
use crate::analysis::frames::FrameRow;
use crate::analysis::metrics::{FrameTimes, LayerSummary};
use crate::analysis::pacing::Pacing;
use crate::analysis::percentile::percentile;
use crate::analysis::{Analysis, Report};
use crate::model::Source;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

/// What one triage row covers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Grouping {
    /// One row per trace.
    #[default]
    Trace,
    /// One row per trace × app process.
    Process,
    /// One row per trace × (process, layer).
    Layer,
}

/// One row of the triage table. For traces, frame counts are over actual SurfaceFrames (app frames) as in `ftl
/// analyze`'s verdict and per-layer table ([`LayerSummary`]); for text captures `frames` counts the frames of
/// the capture's series (null for a logcat, which has none) and the FrameTimeline columns are null. The pacing columns come from every layer's
/// pacing numbers ([`Pacing`]): counts are summed over the row's layers, `max_frame_delay` and
/// `perfdog_stutter_pct` are the largest, `sm` and `gt_sm` the lowest (worst), and the FPS columns are those of
/// the layer with the most presents; the idle-aware columns (`ftl explain idle`) follow the same rules. Optional fields are null for failed inputs.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct TriageRow {
    /// The input's unique name in the batch ([`Job::name`]), the `trace=` partition of `frames/`.
    pub trace: String,
    /// The file as found.
    pub path: String,
    /// What the file is: `perfetto`, `sf_latency`, `gfxinfo`, `logcat`; null if it could not be read.
    pub source: Option<String>,
    /// Device build fingerprint from `SystemInfo`.
    pub device: Option<String>,
    /// Display refresh rate from the vsync period (inferred, or given with --vsync-period / --refresh-rate), Hz.
    pub refresh_rate_hz: Option<f64>,
    /// FrameTimeline span (first slice start → last slice end), ms.
    pub span_ms: Option<f64>,
    /// App process id (`--by process|layer`).
    pub pid: Option<i32>,
    /// App process name (`--by process|layer`).
    pub process_name: Option<String>,
    /// Layer name (`--by layer`).
    pub layer_name: Option<String>,
    /// Actual SurfaceFrames.
    pub frames: Option<u64>,
    /// Frames whose jank tag is visible jank (Self Jank, Other Jank, Dropped Frame).
    pub janky_frames: Option<u64>,
    /// `janky_frames / frames × 100` (0 without frames).
    pub janky_pct: Option<f64>,
    /// Janky because of the app (`Self Jank`).
    pub app_janky_frames: Option<u64>,
    /// Janky because of SurfaceFlinger / display (`Other Jank`).
    pub sf_janky_frames: Option<u64>,
    /// Dropped frames (`Dropped Frame` tag).
    pub dropped_frames: Option<u64>,
    /// Layer with the most janky frames (ties: first by name); null if none is janky.
    pub worst_layer: Option<String>,
    /// The commonest cause of the late frames (`ftl explain causes`), over the row's layers (ties: first by
    /// name); null when no late frame has a cause (no scheduler data, no thread sections, nothing late).
    pub top_cause: Option<String>,
    /// Late frames with that cause.
    pub top_cause_frames: Option<u64>,
    /// `top_cause_frames` over the row's late frames (those with a late stage), %.
    pub top_cause_pct: Option<f64>,
    /// 99th percentile actual frame duration, ms; dropped and unfinished frames excluded.
    pub frame_dur_ms_p99: Option<f64>,
    /// 99th percentile overrun (actual end − expected end), ms.
    pub overrun_ms_p99: Option<f64>,
    /// Longest present-to-present interval of any layer, vsyncs (Chromium `max_frame_delay`).
    pub max_frame_delay: Option<i64>,
    /// Chromium `jank_count`, summed over the layers.
    pub jank_count: Option<u64>,
    /// Chromium `avg_surface_fps` of the layer with the most presents.
    pub avg_surface_fps: Option<i64>,
    /// Mean FPS per second of the layer with the most presents.
    pub fps_mean: Option<f64>,
    /// 1 % low FPS of the layer with the most presents.
    pub fps_1pct_low: Option<f64>,
    /// PerfDog Jank, summed over the layers.
    pub perfdog_jank: Option<u64>,
    /// PerfDog BigJank, summed over the layers.
    pub perfdog_big_jank: Option<u64>,
    /// PerfDog Stutter of the most stuttering layer, %.
    pub perfdog_stutter_pct: Option<f64>,
    /// Idle gaps between presents, summed over the layers (`ftl explain idle`); null when no layer's source
    /// records when frames were asked for.
    pub idle_gaps: Option<u64>,
    /// Presents per active second (idle gaps left out) of the layer with the most presents.
    pub active_fps: Option<f64>,
    /// PerfDog Jank with idle gaps removed, summed over the layers.
    pub perfdog_jank_active: Option<u64>,
    /// PerfDog BigJank with idle gaps removed, summed over the layers.
    pub perfdog_big_jank_active: Option<u64>,
    /// PerfDog Stutter over the active time of the most stuttering layer, %.
    pub perfdog_stutter_pct_active: Option<f64>,
    /// Present-based smoothness of the least smooth layer.
    pub sm: Option<f64>,
    /// Tencent GT's SM of the least smooth pid (Choreographer logs).
    pub gt_sm: Option<f64>,
    /// Share of compared SurfaceFrames of the whole trace whose re-derived `jank_type` equals SurfaceFlinger's,
    /// % (`Report.agreement.surface_frames.jank_type_rate`).
    pub agreement_pct: Option<f64>,
    /// Data-quality findings of the trace: Σ of the diagnostics counters, +1 if truncated.
    pub diagnostics_count: Option<u64>,
    /// Byte where a truncated file ends inside a packet (what was read is analysed).
    pub truncated_at_byte: Option<u64>,
    /// File size, bytes.
    pub file_bytes: u64,
    /// `ok`, or the error that stopped this trace (one line naming the file).
    pub status: String,
}

impl TriageRow {
    /// True if the trace was analysed.
    pub fn is_ok(&self) -> bool {
        self.status == OK
    }
}

/// Triage rows of an analysed input: one per input, or per (input, process) / (input, process, layer) in
/// (pid, layer name) order.
pub fn triage_rows(job: &Job, analysis: &Analysis, grouping: Grouping) -> Vec<TriageRow> {
    match analysis {
        Analysis::Trace(report) => trace_rows(job, report, grouping),
        Analysis::Capture(report) => capture_rows(job, report, grouping),
    }
}

/// The pacing columns of a row from the pacing numbers of its layers.
fn pacing_columns(mut row: TriageRow, layers: &[&Pacing]) -> TriageRow {
    let sum =
        |f: fn(&Pacing) -> Option<u64>| layers.iter().filter_map(|p| f(p)).reduce(|a, b| a + b);
    let max = |f: fn(&Pacing) -> Option<f64>| layers.iter().filter_map(|p| f(p)).reduce(f64::max);
    let min = |f: fn(&Pacing) -> Option<f64>| layers.iter().filter_map(|p| f(p)).reduce(f64::min);
    row.max_frame_delay = layers.iter().filter_map(|p| p.max_frame_delay).max();
    row.jank_count = sum(|p| p.jank_count);
    row.perfdog_jank = sum(|p| p.perfdog_jank);
    row.perfdog_big_jank = sum(|p| p.perfdog_big_jank);
    row.perfdog_stutter_pct = max(|p| p.perfdog_stutter_pct);
    row.idle_gaps = sum(|p| p.activity.idle_gaps);
    row.perfdog_jank_active = sum(|p| p.activity.perfdog_jank_active);
    row.perfdog_big_jank_active = sum(|p| p.activity.perfdog_big_jank_active);
    row.perfdog_stutter_pct_active = max(|p| p.activity.perfdog_stutter_pct_active);
    row.sm = min(|p| p.sm);
    row.gt_sm = min(|p| p.gt_sm);
    // The FPS columns (and, without a vsync model, the refresh rate) are those of the main layer: the one with
    // the most presents.
    if let Some(main) = layers
        .iter()
        .filter(|p| p.presented_frames > 0)
        .max_by_key(|p| p.presented_frames)
    {
        row.avg_surface_fps = main.avg_surface_fps;
        row.fps_mean = main.fps_mean;
        row.fps_1pct_low = main.fps_1pct_low;
        row.active_fps = main.activity.active_fps;
        row.refresh_rate_hz = row
            .refresh_rate_hz
            .or_else(|| main.refresh_period_ms.map(|ms| 1e3 / ms));
    }
    row
}

/// Triage rows of a text capture, grouped by (pid, layer) of its layers / windows / pids.
fn capture_rows(job: &Job, report: &CaptureReport, grouping: Grouping) -> Vec<TriageRow> {
    let mut groups: BTreeMap<(Option<i32>, Option<&str>), Vec<&CaptureLayer>> = BTreeMap::new();
    for l in &report.layers {
        let key = group_key(grouping, l.pid, l.layer_name.as_deref());
        groups.entry(key).or_default().push(l);
    }
    if groups.is_empty() {
        groups.entry((None, None)).or_default();
    }
    let base = TriageRow {
        trace: job.name.clone(),
        path: job.path.display().to_string(),
        source: Some(report.source.name().to_string()),
        span_ms: report.capture.span_ms,
        diagnostics_count: Some(report.diagnostics.total()),
        file_bytes: report.capture.file_bytes,
        status: OK.into(),
        ..TriageRow::default()
    };
    groups
        .into_iter()
        .map(|((pid, layer), layers)| {
            let pacing: Vec<&Pacing> = layers.iter().map(|l| &l.pacing).collect();
            let mut row = pacing_columns(base.clone(), &pacing);
            // A logcat holds no frame series (its skips and Davey lines are events): absent, not 0.
            row.frames =
                (report.source != Source::Logcat).then(|| layers.iter().map(|l| l.frames).sum());
            row.pid = pid;
            row.process_name =
                pid.and_then(|_| layers.first().and_then(|l| l.process_name.clone()));
            row.layer_name = layer.map(str::to_string);
            row
        })
        .collect()
}

/// Triage rows of an analysed trace.
fn trace_rows(job: &Job, report: &Report, grouping: Grouping) -> Vec<TriageRow> {
    type Group<'r> = (Vec<&'r LayerSummary>, Vec<&'r FrameRow>);
    let mut groups: BTreeMap<(Option<i32>, Option<&str>), Group> = BTreeMap::new();
    for l in &report.layers {
        let key = group_key(grouping, Some(l.pid), Some(&l.layer_name));
        groups.entry(key).or_default().0.push(l);
    }
    for f in &report.frames {
        let key = group_key(grouping, Some(f.pid), Some(&f.layer_name));
        groups.entry(key).or_default().1.push(f);
    }
    // A trace without app frames (or none left by --process / --layer) still gets its row, with 0 frames.
    if groups.is_empty() {
        groups.entry((None, None)).or_default();
    }
    let t = &report.trace;
    let d = &report.diagnostics;
    let findings: u64 = d.counts().iter().map(|(_, n)| n).sum();
    let base = TriageRow {
        trace: job.name.clone(),
        path: job.path.display().to_string(),
        source: Some(report.source.name().to_string()),
        device: t.device_fingerprint.clone(),
        refresh_rate_hz: report.vsync.refresh_rate_hz(),
        span_ms: Some(t.span_ms),
        agreement_pct: report
            .agreement
            .surface_frames
            .jank_type_rate
            .map(|r| r * 100.0),
        diagnostics_count: Some(findings + u64::from(d.truncated_at_byte.is_some())),
        truncated_at_byte: d.truncated_at_byte,
        file_bytes: t.file_bytes,
        status: OK.into(),
        ..TriageRow::default()
    };
    groups
        .into_iter()
        .map(|((pid, layer), (layers, frames))| {
            let mut row = summarize(base.clone(), &layers, &frames);
            row.pid = pid;
            row.process_name = pid.and_then(|_| layers.first().map(|l| l.process_name.clone()));
            row.layer_name = layer.map(str::to_string);
            row
        })
        .collect()
}

/// The (pid, layer) a row of `grouping` is keyed by.
fn group_key(
    grouping: Grouping,
    pid: Option<i32>,
    layer: Option<&str>,
) -> (Option<i32>, Option<&str>) {
    match grouping {
        Grouping::Trace => (None, None),
        Grouping::Process => (pid, None),
        Grouping::Layer => (pid, layer),
    }
}

/// Fills the frame columns of `row` from the layers and frames of its group.
fn summarize(mut row: TriageRow, layers: &[&LayerSummary], frames: &[&FrameRow]) -> TriageRow {
    let sum = |f: fn(&LayerSummary) -> u64| layers.iter().map(|l| f(l)).sum::<u64>();
    let (n, janky) = (sum(|l| l.frames), sum(|l| l.janky_frames));
    row.frames = Some(n);
    row.janky_frames = Some(janky);
    row.janky_pct = Some(if n == 0 {
        0.0
    } else {
        janky as f64 * 100.0 / n as f64
    });
    row.app_janky_frames = Some(sum(|l| l.app_janky_frames));
    row.sf_janky_frames = Some(sum(|l| l.sf_janky_frames));
    row.dropped_frames = Some(sum(|l| l.dropped_frames));
    row.worst_layer = layers
        .iter()
        .filter(|l| l.janky_frames > 0)
        .min_by(|a, b| {
            b.janky_frames
                .cmp(&a.janky_frames)
                .then(a.layer_name.cmp(&b.layer_name))
        })
        .map(|l| l.layer_name.clone());
    let mut causes: BTreeMap<String, u64> = BTreeMap::new();
    for (cause, n) in layers.iter().flat_map(|l| &l.late_causes) {
        *causes.entry(cause.clone()).or_default() += n;
    }
    if let Some((cause, n)) = crate::analysis::metrics::ranked_causes(&causes).first() {
        let late: u64 = layers.iter().flat_map(|l| l.late_stages.values()).sum();
        row.top_cause = Some(cause.to_string());
        row.top_cause_frames = Some(*n);
        row.top_cause_pct = Some(*n as f64 * 100.0 / late.max(1) as f64);
    }
    let times = FrameTimes::of(frames);
    row.frame_dur_ms_p99 = percentile(&times.dur_ms, 99.0);
    row.overrun_ms_p99 = percentile(&times.overrun_ms, 99.0);
    let pacing: Vec<&Pacing> = layers.iter().map(|l| &l.pacing).collect();
    pacing_columns(row, &pacing)
}

/// The numeric triage columns that `--sort` and `--fail-on` refer to, by their column names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    /// `refresh_rate_hz`.
    RefreshRateHz,
    /// `span_ms`.
    SpanMs,
    /// `frames`.
    Frames,
    /// `janky_frames`.
    JankyFrames,
    /// `janky_pct`.
    JankyPct,
    /// `app_janky_frames`.
    AppJankyFrames,
    /// `sf_janky_frames`.
    SfJankyFrames,
    /// `dropped_frames`.
    DroppedFrames,
    /// `top_cause_frames`.
    TopCauseFrames,
    /// `top_cause_pct`.
    TopCausePct,
    /// `frame_dur_ms_p99`.
    FrameDurMsP99,
    /// `overrun_ms_p99`.
    OverrunMsP99,
    /// `max_frame_delay`.
    MaxFrameDelay,
    /// `jank_count`.
    JankCount,
    /// `avg_surface_fps`.
    AvgSurfaceFps,
    /// `fps_mean`.
    FpsMean,
    /// `fps_1pct_low`.
    Fps1PctLow,
    /// `perfdog_jank`.
    PerfdogJank,
    /// `perfdog_big_jank`.
    PerfdogBigJank,
    /// `perfdog_stutter_pct`.
    PerfdogStutterPct,
    /// `idle_gaps`.
    IdleGaps,
    /// `active_fps`.
    ActiveFps,
    /// `perfdog_jank_active`.
    PerfdogJankActive,
    /// `perfdog_big_jank_active`.
    PerfdogBigJankActive,
    /// `perfdog_stutter_pct_active`.
    PerfdogStutterPctActive,
    /// `sm`.
    Sm,
    /// `gt_sm`.
    GtSm,
    /// `agreement_pct`.
    AgreementPct,
    /// `diagnostics_count`.
    DiagnosticsCount,
    /// `file_bytes`.
    FileBytes,
}

impl Column {
    /// Every column, in table order.
    pub const ALL: [Column; 30] = [
        Column::RefreshRateHz,
        Column::SpanMs,
        Column::Frames,
        Column::JankyFrames,
        Column::JankyPct,
        Column::AppJankyFrames,
        Column::SfJankyFrames,
        Column::DroppedFrames,
        Column::TopCauseFrames,
        Column::TopCausePct,
        Column::FrameDurMsP99,
        Column::OverrunMsP99,
        Column::MaxFrameDelay,
        Column::JankCount,
        Column::AvgSurfaceFps,
        Column::FpsMean,
        Column::Fps1PctLow,
        Column::PerfdogJank,
        Column::PerfdogBigJank,
        Column::PerfdogStutterPct,
        Column::IdleGaps,
        Column::ActiveFps,
        Column::PerfdogJankActive,
        Column::PerfdogBigJankActive,
        Column::PerfdogStutterPctActive,
        Column::Sm,
        Column::GtSm,
        Column::AgreementPct,
        Column::DiagnosticsCount,
        Column::FileBytes,
    ];

    /// The column name in the triage table.
    pub fn name(self) -> &'static str {
        match self {
            Column::RefreshRateHz => "refresh_rate_hz",
            Column::SpanMs => "span_ms",
            Column::Frames => "frames",
            Column::JankyFrames => "janky_frames",
            Column::JankyPct => "janky_pct",
            Column::AppJankyFrames => "app_janky_frames",
            Column::SfJankyFrames => "sf_janky_frames",
            Column::DroppedFrames => "dropped_frames",
            Column::TopCauseFrames => "top_cause_frames",
            Column::TopCausePct => "top_cause_pct",
            Column::FrameDurMsP99 => "frame_dur_ms_p99",
            Column::OverrunMsP99 => "overrun_ms_p99",
            Column::MaxFrameDelay => "max_frame_delay",
            Column::JankCount => "jank_count",
            Column::AvgSurfaceFps => "avg_surface_fps",
            Column::FpsMean => "fps_mean",
            Column::Fps1PctLow => "fps_1pct_low",
            Column::PerfdogJank => "perfdog_jank",
            Column::PerfdogBigJank => "perfdog_big_jank",
            Column::PerfdogStutterPct => "perfdog_stutter_pct",
            Column::IdleGaps => "idle_gaps",
            Column::ActiveFps => "active_fps",
            Column::PerfdogJankActive => "perfdog_jank_active",
            Column::PerfdogBigJankActive => "perfdog_big_jank_active",
            Column::PerfdogStutterPctActive => "perfdog_stutter_pct_active",
            Column::Sm => "sm",
            Column::GtSm => "gt_sm",
            Column::AgreementPct => "agreement_pct",
            Column::DiagnosticsCount => "diagnostics_count",
            Column::FileBytes => "file_bytes",
        }
    }

    /// The row's value; `None` when null.
    pub fn value(self, row: &TriageRow) -> Option<f64> {
        let count = |v: Option<u64>| v.map(|v| v as f64);
        match self {
            Column::RefreshRateHz => row.refresh_rate_hz,
            Column::SpanMs => row.span_ms,
            Column::Frames => count(row.frames),
            Column::JankyFrames => count(row.janky_frames),
            Column::JankyPct => row.janky_pct,
            Column::AppJankyFrames => count(row.app_janky_frames),
            Column::SfJankyFrames => count(row.sf_janky_frames),
            Column::DroppedFrames => count(row.dropped_frames),
            Column::TopCauseFrames => count(row.top_cause_frames),
            Column::TopCausePct => row.top_cause_pct,
            Column::FrameDurMsP99 => row.frame_dur_ms_p99,
            Column::OverrunMsP99 => row.overrun_ms_p99,
            Column::MaxFrameDelay => row.max_frame_delay.map(|v| v as f64),
            Column::JankCount => count(row.jank_count),
            Column::AvgSurfaceFps => row.avg_surface_fps.map(|v| v as f64),
            Column::FpsMean => row.fps_mean,
            Column::Fps1PctLow => row.fps_1pct_low,
            Column::PerfdogJank => count(row.perfdog_jank),
            Column::PerfdogBigJank => count(row.perfdog_big_jank),
            Column::PerfdogStutterPct => row.perfdog_stutter_pct,
            Column::IdleGaps => count(row.idle_gaps),
            Column::ActiveFps => row.active_fps,
            Column::PerfdogJankActive => count(row.perfdog_jank_active),
            Column::PerfdogBigJankActive => count(row.perfdog_big_jank_active),
            Column::PerfdogStutterPctActive => row.perfdog_stutter_pct_active,
            Column::Sm => row.sm,
            Column::GtSm => row.gt_sm,
            Column::AgreementPct => row.agreement_pct,
            Column::DiagnosticsCount => count(row.diagnostics_count),
            Column::FileBytes => Some(row.file_bytes as f64),
        }
    }
}

impl fmt::Display for Column {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Column {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        by_name(s, &Column::ALL, Column::name, "column")
    }
}

/// The item of `all` whose `name` is `s` (trimmed); else an error listing the names (`what`: "column").
pub fn by_name<T: Copy>(
    s: &str,
    all: &[T],
    name: fn(T) -> &'static str,
    what: &str,
) -> Result<T, String> {
    all.iter()
        .copied()
        .find(|c| name(*c) == s.trim())
        .ok_or_else(|| {
            let names: Vec<&str> = all.iter().map(|c| name(*c)).collect();
            format!("unknown {what} '{s}'; one of: {}", names.join(", "))
        })
}

/// Sorts rows for the triage table: analysed rows by `key` descending (nulls after numbers), ties by path then
/// (pid, layer); failed rows last, by path.
pub fn rank(rows: &mut [TriageRow], key: Column) {
    rows.sort_by(|a, b| {
        let failed = |r: &TriageRow| !r.is_ok();
        let value = |r: &TriageRow| key.value(r).filter(|v| !v.is_nan());
        failed(a)
            .cmp(&failed(b))
            .then_with(|| match (value(a), value(b)) {
                (Some(x), Some(y)) => y.total_cmp(&x),
                (x, y) => y.is_some().cmp(&x.is_some()),
            })
            .then_with(|| a.path.cmp(&b.path))
            .then_with(|| a.pid.cmp(&b.pid))
            .then_with(|| a.layer_name.cmp(&b.layer_name))
    });
}

/// A comparison operator of [`Condition`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
}

impl Op {
    const ALL: [(&'static str, Op); 6] = [
        (">=", Op::Ge),
        ("<=", Op::Le),
        ("==", Op::Eq),
        ("!=", Op::Ne),
        (">", Op::Gt),
        ("<", Op::Lt),
    ];

    /// True if `value OP threshold`.
    pub fn holds(self, value: f64, threshold: f64) -> bool {
        match self {
            Op::Gt => value > threshold,
            Op::Ge => value >= threshold,
            Op::Lt => value < threshold,
            Op::Le => value <= threshold,
            Op::Eq => value == threshold,
            Op::Ne => value != threshold,
        }
    }

    /// The operator as written (`>=`, `<` ...).
    pub fn symbol(self) -> &'static str {
        Op::ALL
            .iter()
            .find(|(_, op)| *op == self)
            .map_or("?", |(s, _)| s)
    }
}

/// A CI gate `COLUMN OP NUMBER` over a triage row, e.g. `janky_pct>5` (`--fail-on`). OP is one of
/// `> >= < <= == !=`; COLUMN one of [`Column`]'s names. A null value never triggers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Condition {
    /// The column.
    pub column: Column,
    /// The comparison.
    pub op: Op,
    /// The number compared with.
    pub threshold: f64,
}

impl Condition {
    /// True if the row's value satisfies the condition (a regression).
    pub fn holds(&self, row: &TriageRow) -> bool {
        self.column
            .value(row)
            .is_some_and(|v| self.op.holds(v, self.threshold))
    }
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}{}", self.column, self.op.symbol(), self.threshold)
    }
}

/// Splits a condition `NAME OP REST` at its operator (`> >= < <= == !=`): (NAME, OP, REST trimmed). Shared by
/// `ftl batch --fail-on` and `ftl diff --fail-on`, whose REST also takes a sign and a `%`.
pub fn split_condition(s: &str) -> Result<(&str, Op, &str), String> {
    let at = s
        .find(['<', '>', '=', '!'])
        .ok_or_else(|| "no operator (> >= < <= == !=)".to_string())?;
    let (name, rest) = s.split_at(at);
    let (symbol, op) = Op::ALL
        .into_iter()
        .find(|(sym, _)| rest.starts_with(sym))
        .ok_or_else(|| "unknown operator".to_string())?;
    Ok((name.trim(), op, rest[symbol.len()..].trim()))
}

impl FromStr for Condition {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = |why: &str| format!("'{s}': {why}; expected COLUMN OP NUMBER, e.g. janky_pct>5");
        let (column, op, number) = split_condition(s).map_err(|e| bad(&e))?;
        let threshold: f64 = number
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| bad(&format!("'{number}' is not a number")))?;
        Ok(Condition {
            column: column.parse().map_err(|e: String| bad(&e))?,
            op,
            threshold,
        })
    }
}
