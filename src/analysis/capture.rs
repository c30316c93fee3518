//! The report of a text capture (`dumpsys SurfaceFlinger --latency`, `dumpsys gfxinfo`, Choreographer logcat):
//! per layer / window / pid, the pacing numbers of [`super::pacing`] and the source's own analyses (JankTracker,
//! GT's SM), with the capture's diagnostics; and its frames as rows.

use super::gt::gt_sm;
use super::janktracker::{compare_with_printed, duration, recompute, JankTrackerNumbers, Stamp};
use super::pacing::{pacing, Pacing};
use super::Config;
use crate::model::{CaptureDiagnostics, FrameSeries, SeriesFrame, Source};
use crate::sources::gfxinfo::GfxinfoCapture;
use crate::sources::logcat::{ChoreographerLog, SkipEvent};
use crate::sources::sf_latency::SfLatencyCapture;
use serde::Serialize;

/// Facts about the capture file.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CaptureFacts {
    /// Path as given.
    pub path: String,
    /// File size, bytes.
    pub file_bytes: u64,
    /// What was run to capture it.
    pub captured_with: &'static str,
    /// Dumps in the file (`--latency` refresh-period lines); `None` for other sources.
    pub dumps: Option<u64>,
    /// Frame rows read (`--latency` rows, gfxinfo PROFILEDATA rows kept), or log lines read.
    pub rows: u64,
    /// logcat `-v` format (`brief`, `time`, `threadtime`); `None` for other sources.
    pub log_format: Option<String>,
    /// Earliest present (or log) time, ns on the capture's clock (CLOCK_MONOTONIC for dumpsys).
    pub first_ts_ns: Option<i64>,
    /// Latest present (or log) time, ns.
    pub last_ts_ns: Option<i64>,
    /// `last_ts_ns − first_ts_ns`, ms.
    pub span_ms: Option<f64>,
}

/// One layer (`--latency`), window (gfxinfo) or pid (logcat) of a capture, with its pacing numbers under the
/// same names as a trace's layers.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CaptureLayer {
    /// Process id, when the source says (gfxinfo `** Graphics info for pid`, logcat's pid column).
    pub pid: Option<i32>,
    /// Process name, when the source says.
    pub process_name: Option<String>,
    /// The `--latency` layer name or the gfxinfo window name; `None` for a logcat pid.
    pub layer_name: Option<String>,
    /// Frames in the series (rows kept); 0 for a logcat pid.
    pub frames: u64,
    /// The pacing metrics (present-based ones from the series; `gt_sm*` from Choreographer logs).
    #[serde(flatten)]
    pub pacing: Pacing,
    /// Σ N of Choreographer `Skipped N frames!` lines (logcat only).
    pub skipped_frames: Option<u64>,
    /// Number of `Skipped N frames!` lines (logcat only).
    pub skip_events: Option<u64>,
    /// Smallest N seen: the log's skip-warning threshold is at most this (logcat only).
    pub min_skipped_frames: Option<u64>,
    /// gfxinfo windows: JankTracker `recomputed` from the PROFILEDATA rows, then `as_dumped` (the window's own
    /// summary, Android 12+), each object saying which it is; empty for other sources.
    pub jank_tracker: Vec<JankTrackerNumbers>,
    /// logcat: the `Skipped N frames!` lines behind `skipped_frames`, in file order (for charts); empty for other
    /// sources.
    #[serde(skip)]
    pub skips: Vec<SkipEvent>,
    /// gfxinfo windows: whether JankTracker recomputed from the rows equals the window's printed summary over
    /// the numbers the rows determine ([`super::janktracker::equals_printed`]), over the rows whose `SyncStart`
    /// is at or after the summary's `Stats since` (rows of an earlier concatenated dump, before a reset, are not
    /// the summary's); `None` when the window printed more frames than those rows hold, printed no summary, or
    /// for other sources.
    pub recomputed_equals_printed: Option<bool>,
    /// Each frame's own duration where the source measures one, as (end, duration) ns (for charts): gfxinfo
    /// rows JankTracker counts, `IntendedVsync → FrameCompleted` as JankTracker measures it; empty otherwise.
    #[serde(skip)]
    pub frame_durations_ns: Vec<(i64, i64)>,
}

/// A gfxinfo process's own summary, as the device printed it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CaptureProcess {
    /// Process id.
    pub pid: Option<i32>,
    /// Process name.
    pub process_name: Option<String>,
    /// The process-wide JankTracker numbers, `as_dumped`.
    pub jank_tracker: Option<JankTrackerNumbers>,
}

/// What `ftl analyze` reports for a text capture.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CaptureReport {
    /// The kind of capture.
    pub source: Source,
    /// Facts about the file.
    pub capture: CaptureFacts,
    /// Per layer / window / pid.
    pub layers: Vec<CaptureLayer>,
    /// gfxinfo: per process, the summary as dumped; empty for other sources.
    pub processes: Vec<CaptureProcess>,
    /// Skipped and adjusted lines, with their line numbers.
    pub diagnostics: CaptureDiagnostics,
    /// The series behind `layers` (for frame rows and charts).
    #[serde(skip)]
    pub series: Vec<FrameSeries>,
}

/// One frame of a capture as a table row (`ftl frames` on a text capture). Times in ns on the capture's clock.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CaptureFrameRow {
    /// `sf_latency` or `gfxinfo`.
    pub source: &'static str,
    /// Process id, if known.
    pub pid: Option<i32>,
    /// Process name, if known.
    pub process_name: Option<String>,
    /// Layer or window name.
    pub layer_name: String,
    /// The frame's times (`SeriesFrame`'s columns).
    #[serde(flatten)]
    pub frame: SeriesFrame,
    /// Present − the previous present of the layer.
    pub present_interval_ns: Option<i64>,
}

/// Applies `--process` / `--layer` and `--vsync-period` to a series; `None` if filtered out.
fn configured(mut series: FrameSeries, config: &Config) -> Option<FrameSeries> {
    if !config.keeps_process(series.process_name.as_deref(), series.pid) {
        return None;
    }
    if let Some(glob) = &config.layer {
        if !glob.matches(&series.layer_name) {
            return None;
        }
    }
    if let Some(period) = config.vsync_period_ns {
        series.period_ns = Some(period);
        series.period_from = "given on the command line";
    }
    Some(series)
}

fn layer_of(series: &FrameSeries) -> CaptureLayer {
    CaptureLayer {
        pid: series.pid,
        process_name: series.process_name.clone(),
        layer_name: Some(series.layer_name.clone()),
        frames: series.frames.len() as u64,
        pacing: pacing(series),
        ..CaptureLayer::default()
    }
}

/// Facts of a capture whose frames are `layers`: the span from the first to the last present of any layer.
fn facts(source: Source, path: &str, file_bytes: u64, layers: &[CaptureLayer]) -> CaptureFacts {
    let first_ts_ns = layers
        .iter()
        .filter_map(|l| l.pacing.first_present_ns)
        .min();
    let last_ts_ns = layers.iter().filter_map(|l| l.pacing.last_present_ns).max();
    CaptureFacts {
        path: path.to_string(),
        file_bytes,
        captured_with: source.command(),
        first_ts_ns,
        last_ts_ns,
        span_ms: first_ts_ns
            .zip(last_ts_ns)
            .map(|(a, b)| (b as f64 - a as f64) / 1e6),
        ..CaptureFacts::default()
    }
}

/// The report of a `--latency` capture: one layer.
pub fn sf_latency(
    capture: SfLatencyCapture,
    path: &str,
    file_bytes: u64,
    config: &Config,
) -> CaptureReport {
    let series: Vec<FrameSeries> = configured(capture.series, config).into_iter().collect();
    let layers: Vec<CaptureLayer> = series.iter().map(layer_of).collect();
    let mut capture_facts = facts(Source::SfLatency, path, file_bytes, &layers);
    capture_facts.dumps = Some(capture.dumps);
    capture_facts.rows = capture.rows;
    CaptureReport {
        source: Source::SfLatency,
        capture: capture_facts,
        layers,
        processes: Vec::new(),
        diagnostics: capture.diagnostics,
        series,
    }
}

/// The report of a gfxinfo capture: one layer per window with PROFILEDATA rows or a summary (JankTracker
/// recomputed from the rows and as dumped), and each process's own summary as dumped.
pub fn gfxinfo(
    capture: GfxinfoCapture,
    path: &str,
    file_bytes: u64,
    config: &Config,
) -> CaptureReport {
    let mut layers = Vec::new();
    let mut series = Vec::new();
    let mut processes = Vec::new();
    let mut rows = 0;
    for p in &capture.processes {
        let mut kept_any = false;
        for w in &p.windows {
            let Some(s) = configured(w.series(p.pid, p.process_name.as_deref()), config) else {
                continue;
            };
            kept_any = true;
            rows += w.rows.len() as u64;
            let mut layer = layer_of(&s);
            layer.frame_durations_ns = w
                .rows
                .iter()
                .map(|r| {
                    let total = duration(r, Stamp::IntendedVsync, Stamp::FrameCompleted);
                    (r.frame_completed_ns, total)
                })
                .filter(|(_, total)| *total > 0)
                .collect();
            let printed = w.summary.as_ref().map(JankTrackerNumbers::from);
            if !w.rows.is_empty() {
                let recomputed = recompute(&w.rows, config.vsync_period_ns);
                // Rows dropped at read time (`--gfxinfo-drop-flagged`) are frames JankTracker counted.
                layer.recomputed_equals_printed = printed
                    .as_ref()
                    .filter(|_| !config.gfxinfo_drop_flagged_rows)
                    .and_then(|p| {
                        let since = w.summary.as_ref().and_then(|s| s.stats_since_ns);
                        compare_with_printed(&w.rows, config.vsync_period_ns, p, since)
                    });
                layer.jank_tracker.push(recomputed);
            }
            layer.jank_tracker.extend(printed);
            layers.push(layer);
            series.push(s);
        }
        let process_matches = config.keeps_process(p.process_name.as_deref(), p.pid);
        if kept_any || (process_matches && config.layer.is_none()) {
            processes.push(CaptureProcess {
                pid: p.pid,
                process_name: p.process_name.clone(),
                jank_tracker: p.summary.as_ref().map(JankTrackerNumbers::from),
            });
        }
    }
    let mut capture_facts = facts(Source::Gfxinfo, path, file_bytes, &layers);
    capture_facts.rows = rows;
    CaptureReport {
        source: Source::Gfxinfo,
        capture: capture_facts,
        layers,
        processes,
        diagnostics: capture.diagnostics,
        series,
    }
}

/// The report of a logcat capture: one entry per pid that logged Choreographer skipped frames, with GT's SM.
pub fn logcat(
    log: ChoreographerLog,
    path: &str,
    file_bytes: u64,
    config: &Config,
) -> CaptureReport {
    let layers = log
        .pids
        .iter()
        .filter(|p| config.keeps_process(None, Some(p.pid)))
        .map(|p| {
            let gt = gt_sm(p, log.first_ts_ns, log.last_ts_ns);
            CaptureLayer {
                pid: Some(p.pid),
                pacing: Pacing {
                    presents_from: "none (Choreographer logs have no present times)",
                    period_from: "none",
                    gt_sm_per_second: (gt.seconds > 0 && !gt.gt_sm_per_second.is_empty())
                        .then_some(gt.gt_sm_per_second),
                    gt_sm: gt.gt_sm,
                    gt_sm_min: gt.gt_sm_min,
                    ..Pacing::default()
                },
                skipped_frames: Some(gt.skipped_frames),
                skip_events: Some(gt.skip_events),
                min_skipped_frames: gt.min_skipped_frames,
                skips: p.events.clone(),
                ..CaptureLayer::default()
            }
        })
        .collect();
    CaptureReport {
        source: Source::Logcat,
        capture: CaptureFacts {
            path: path.to_string(),
            file_bytes,
            captured_with: Source::Logcat.command(),
            dumps: None,
            rows: log.lines,
            log_format: Some(log.format.name().to_string()),
            first_ts_ns: log.first_ts_ns,
            last_ts_ns: log.last_ts_ns,
            span_ms: log
                .first_ts_ns
                .zip(log.last_ts_ns)
                .map(|(a, b)| (b as f64 - a as f64) / 1e6),
        },
        layers,
        processes: Vec::new(),
        diagnostics: log.diagnostics,
        series: Vec::new(),
    }
}

/// Every frame of every series of the report, one row each, with its present interval on its layer.
pub fn frame_rows(report: &CaptureReport) -> Vec<CaptureFrameRow> {
    let mut rows = Vec::new();
    for s in &report.series {
        let mut previous: Option<i64> = None;
        for f in s.frames.iter() {
            let present_interval_ns = f
                .present_ns
                .zip(previous)
                .and_then(|(p, q)| p.checked_sub(q));
            if f.present_ns.is_some() {
                previous = f.present_ns;
            }
            rows.push(CaptureFrameRow {
                source: s.source.name(),
                pid: s.pid,
                process_name: s.process_name.clone(),
                layer_name: s.layer_name.clone(),
                frame: f,
                present_interval_ns,
            });
        }
    }
    rows
}
