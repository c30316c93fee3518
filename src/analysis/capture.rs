//! The report of a text capture (`dumpsys SurfaceFlinger --latency`, `dumpsys gfxinfo`, Choreographer logcat):
//! per layer / window / pid, the pacing numbers of [`super::pacing`] and the source's own analyses (JankTracker,
//! GT's SM), with the capture's diagnostics; and its frames as rows.

use super::gt::gt_sm;
use super::janktracker::{compare_with_printed, duration, recompute, JankTrackerNumbers, Stamp};
use super::pacing::{pacing, Pacing};
use super::Config;
use crate::model::{CaptureDiagnostics, FrameSeries, SeriesFrame, Source};
use crate::sources::gfxinfo::GfxinfoCapture;
use crate::sources::logcat::{ChoreographerLog, DaveyFrame, SkipEvent};
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
    /// logcat format ([`LogFormat::name`](crate::sources::logcat::LogFormat::name): `brief`, `process`, `tag`,
    /// `thread`, `time`, `threadtime`, `long`, `studio`, `studio_legacy`); `None` for other sources.
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
    /// logcat: HWUI `Davey!` lines of this pid (JankTracker.cpp logs one only for a frame of 700 ms or more,
    /// IntendedVsync → FrameCompleted: not a count of janky frames); `None` for other sources.
    pub davey_frames: Option<u64>,
    /// logcat: the longest `Davey!` `duration=`, ms; `None` without Davey lines.
    pub davey_max_ms: Option<i64>,
    /// logcat: the `Davey!` frames behind `davey_frames`, in file order (for frame rows); empty for other sources.
    #[serde(skip)]
    pub daveys: Vec<DaveyFrame>,
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
    /// `sf_latency`, `gfxinfo` or `logcat`.
    pub source: &'static str,
    /// Process id, if known.
    pub pid: Option<i32>,
    /// Process name, if known.
    pub process_name: Option<String>,
    /// Layer or window name; `None` for a logcat event, which belongs to no layer.
    pub layer_name: Option<String>,
    /// The frame's times (`SeriesFrame`'s columns).
    #[serde(flatten)]
    pub frame: SeriesFrame,
    /// Present − the previous present of the layer.
    pub present_interval_ns: Option<i64>,
    /// logcat rows: `davey` (an HWUI `Davey!` line: a frame of 700 ms or more, its FrameInfo times in the frame
    /// columns) or `choreographer_skip` (a `Skipped N frames!` line); `None` for other sources.
    pub log_event: Option<&'static str>,
    /// logcat rows: 1-based line of the event in the file.
    pub log_line: Option<u64>,
    /// logcat rows: when the line was logged, ns on the log's clock (see `SkipEvent::ts_ns`).
    pub log_ts_ns: Option<i64>,
    /// `choreographer_skip` rows: N, the frames (vsync periods) skipped.
    pub skipped_frames: Option<u64>,
    /// `davey` rows: the printed `duration=`, ms.
    pub davey_duration_ms: Option<i64>,
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
                        compare_with_printed(&w.rows, &recomputed, config.vsync_period_ns, p, since)
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

/// The report of a logcat capture: one entry per pid that logged Choreographer skipped frames or HWUI `Davey!`
/// frames (plus one with an unknown pid for such lines without a pid), with GT's SM and the Davey count, named
/// from the log's process names; sorted by pid, the unknown pid last.
pub fn logcat(
    log: ChoreographerLog,
    path: &str,
    file_bytes: u64,
    config: &Config,
) -> CaptureReport {
    let mut by_pid: std::collections::BTreeMap<(bool, i32), (Vec<SkipEvent>, Vec<DaveyFrame>)> =
        std::collections::BTreeMap::new();
    // Key (unknown, pid): known pids first, in order.
    let key = |pid: Option<i32>| (pid.is_none(), pid.unwrap_or(0));
    for p in log.pids {
        by_pid.entry(key(Some(p.pid))).or_default().0 = p.events;
    }
    if !log.skips_without_pid.is_empty() {
        by_pid.entry(key(None)).or_default().0 = log.skips_without_pid;
    }
    for (pid, d) in log.daveys {
        by_pid.entry(key(pid)).or_default().1.push(d);
    }
    let layers = by_pid
        .into_iter()
        .filter_map(|((unknown, pid), (skips, daveys))| {
            let pid = (!unknown).then_some(pid);
            let process_name = pid.and_then(|p| log.process_names.get(&p)).cloned();
            if !config.keeps_process(process_name.as_deref(), pid) {
                return None;
            }
            let gt = gt_sm(&skips, log.first_ts_ns, log.last_ts_ns);
            Some(CaptureLayer {
                pid,
                process_name,
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
                skips,
                davey_frames: Some(daveys.len() as u64),
                davey_max_ms: daveys.iter().map(|d| d.duration_ms).max(),
                daveys,
                ..CaptureLayer::default()
            })
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

/// A logcat pid's `Davey!` and `Skipped N frames!` lines as rows, in file order: a Davey row carries its
/// FrameInfo times as a gfxinfo row does (IntendedVsync, FrameDeadline, Vsync, FrameCompleted, GpuCompleted,
/// DisplayPresentTime when known), a skip row only its time and N.
fn log_rows(layer: &CaptureLayer) -> Vec<CaptureFrameRow> {
    let row = |event, line, ts, frame| CaptureFrameRow {
        source: Source::Logcat.name(),
        pid: layer.pid,
        process_name: layer.process_name.clone(),
        layer_name: None,
        frame,
        log_event: Some(event),
        log_line: Some(line),
        log_ts_ns: ts,
        ..CaptureFrameRow::default()
    };
    let mut rows: Vec<CaptureFrameRow> = layer
        .daveys
        .iter()
        .map(|d| {
            let r = &d.row;
            let frame = SeriesFrame {
                expected_start_ns: Some(r.intended_vsync_ns),
                expected_end_ns: r.frame_deadline_ns,
                actual_start_ns: Some(r.vsync_ns),
                actual_end_ns: Some(r.frame_completed_ns),
                ready_ns: r.gpu_completed_ns.filter(|t| *t > 0),
                desired_present_ns: None,
                present_ns: r.display_present_time_ns.filter(|t| *t > 0),
            };
            CaptureFrameRow {
                davey_duration_ms: Some(d.duration_ms),
                ..row("davey", d.line, d.ts_ns, frame)
            }
        })
        .chain(layer.skips.iter().map(|s| CaptureFrameRow {
            skipped_frames: Some(s.skipped),
            ..row(
                "choreographer_skip",
                s.line,
                s.ts_ns,
                SeriesFrame::default(),
            )
        }))
        .collect();
    rows.sort_by_key(|r| r.log_line);
    rows
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
                layer_name: Some(s.layer_name.clone()),
                frame: f,
                present_interval_ns,
                ..CaptureFrameRow::default()
            });
        }
    }
    if report.source == Source::Logcat {
        rows.extend(report.layers.iter().flat_map(log_rows));
    }
    rows
}
