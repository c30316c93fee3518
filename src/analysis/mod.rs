//! What it means: pure functions from a [`Timeline`] to a [`Report`]; no I/O.

pub mod app;
pub mod capture;
pub mod classify;
pub mod explain;
pub mod frames;
pub mod gt;
pub mod idle;
pub mod janktracker;
pub mod locks;
pub mod metrics;
pub mod pacing;
pub mod percentile;
pub mod slices;
pub mod vsync;

use crate::decode::DecodeSummary;
use crate::input::Compression;
use crate::model::{ExpectedBounds, Frames, ImportStats, SurfaceFrame, Timeline};
use crate::{joined, LoadedTrace};
use frames::{DisplayFrameRow, FrameRow};
use metrics::{LayerSummary, MetricTotals, ProcessMetrics};
use serde::Serialize;
use vsync::VsyncModel;

/// Facts about the trace as a whole.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TraceFacts {
    /// Path as given.
    pub path: String,
    /// File size, bytes.
    pub file_bytes: u64,
    /// File compression.
    pub compression: Compression,
    /// TracePackets read.
    pub packets: u64,
    /// `compressed_packets` chunks inflated.
    pub compressed_chunks: u64,
    /// First FrameTimeline slice start, ns on the trace clock.
    pub first_ts_ns: i64,
    /// Last FrameTimeline slice end (or start), ns.
    pub last_ts_ns: i64,
    /// `last_ts_ns − first_ts_ns`, ms.
    pub span_ms: f64,
    /// Device build fingerprint from `SystemInfo`, if recorded.
    pub device_fingerprint: Option<String>,
    /// Android SDK level from `SystemInfo`, if recorded.
    pub android_sdk_version: Option<u64>,
    /// Clock(s) the FrameTimeline packets were recorded on (e.g. `BOOTTIME`, `MONOTONIC`).
    pub frame_timeline_clock: String,
    /// The trace clock timestamps are reported on.
    pub trace_clock: String,
    /// Actual DisplayFrame slices.
    pub display_frames: u64,
    /// Actual SurfaceFrame slices.
    pub surface_frames: u64,
}

/// Data-quality findings; never fatal.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Diagnostics {
    /// Importer counters (Perfetto's stats plus ftl's).
    #[serde(flatten)]
    pub import: ImportStats,
    /// Byte offset where the file ended inside a packet (truncated trace).
    pub truncated_at_byte: Option<u64>,
    /// Packets skipped because their contents were corrupt.
    pub malformed_packets: u64,
    /// FrameTimeline events dropped: no ClockSnapshot relates their clock to the trace clock.
    pub events_outside_trace_clock: u64,
    /// FrameTimeline events dropped: packet without timestamp.
    pub events_without_timestamp: u64,
    /// Actual SurfaceFrames whose DisplayFrame is not in the trace (no present time).
    pub surface_frames_without_display_frame: u64,
    /// Actual SurfaceFrames without an expected slice (expired prediction).
    pub surface_frames_without_expected: u64,
    /// Actual SurfaceFrames with no `Choreographer#doFrame` / `DrawFrame` of their token in their process, when
    /// the trace has such sections for some frame (0 for a trace without app sections): frames drawn by a
    /// SurfaceView or by a process whose app tracing was off.
    pub surface_frames_without_app_sections: u64,
    /// ftrace `print` events that are not atrace lines (Perfetto's `systrace_parse_failure`).
    pub atrace_parse_failures: u64,
    /// Late frames whose late stage is the UI thread or RenderThread but that have no cause: the trace has no
    /// scheduler data over their doFrame / DrawFrame (`ftl explain causes`).
    pub late_frames_without_cause: u64,
    /// What the trace lacks for the thread columns and causes of its app frames, as what to record: ftrace
    /// events (`sched/sched_switch`, `sched/sched_waking`, …) or data sources (`linux.system_info`); empty when
    /// nothing is missing or no frame has app sections.
    pub cause_data_missing: Vec<String>,
}

impl Diagnostics {
    /// The counters with their descriptions, in report order (truncation is separate: an offset).
    pub fn counts(&self) -> [(&'static str, u64); 11] {
        let d = self;
        [
            ("parser errors", d.import.parser_errors),
            ("unpaired FrameEnd events", d.import.unpaired_ends),
            (
                "slices that never ended (dur = -1)",
                d.import.unterminated_slices,
            ),
            ("malformed packets skipped", d.malformed_packets),
            (
                "events outside the trace clock",
                d.events_outside_trace_clock,
            ),
            ("events without timestamp", d.events_without_timestamp),
            (
                "SurfaceFrames without their DisplayFrame",
                d.surface_frames_without_display_frame,
            ),
            (
                "SurfaceFrames without expected slice (expired prediction)",
                d.surface_frames_without_expected,
            ),
            (
                "SurfaceFrames without doFrame/DrawFrame sections",
                d.surface_frames_without_app_sections,
            ),
            (
                "print events that are not atrace lines",
                d.atrace_parse_failures,
            ),
            (
                "late UI-thread / RenderThread frames without a cause (no scheduler data over them)",
                d.late_frames_without_cause,
            ),
        ]
    }
}

/// The analysis of one input: a Perfetto trace or a text capture. Serialises as the report itself (both carry
/// `source`).
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Analysis {
    /// A Perfetto trace with FrameTimeline.
    Trace(Box<Report>),
    /// A `--latency`, gfxinfo or logcat capture.
    Capture(Box<capture::CaptureReport>),
}

/// The analysis of one trace: what `ftl analyze` prints.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Always `perfetto` (the `source` every report carries).
    pub source: crate::model::Source,
    /// Trace facts.
    pub trace: TraceFacts,
    /// Vsync model.
    pub vsync: VsyncModel,
    /// Agreement of ftl's re-derived jank labels with SurfaceFlinger's.
    pub agreement: classify::Agreement,
    /// Perfetto's `android_frame_timeline_metric`, per process.
    pub processes: Vec<ProcessMetrics>,
    /// The metric's totals.
    pub totals: MetricTotals,
    /// Per layer.
    pub layers: Vec<LayerSummary>,
    /// Data quality.
    pub diagnostics: Diagnostics,
    /// The analysis windows the report covers (`--window`, `--marker`); absent for the whole trace.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub windows: Vec<crate::model::window::Span>,
    /// Macrobenchmark's FrameTimingMetric for `Config::macrobenchmark`, in Macrobenchmark's JSON shape.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub macrobenchmark: Option<app::macrobenchmark::Macrobenchmark>,
    /// Per-frame rows (SurfaceFrames), for tables and charts; empty unless [`Config::frame_rows`], and from
    /// [`analyze_each`], which gives them out instead.
    #[serde(skip)]
    pub frames: Vec<FrameRow>,
    /// Per-frame rows (DisplayFrames); `None` unless [`Config::display_frame_rows`].
    #[serde(skip)]
    pub display_frames: Option<Vec<DisplayFrameRow>>,
}

/// Options of the analysis.
#[derive(Debug, Clone)]
pub struct Config {
    /// Keep only processes whose name contains this (case-sensitive) or whose pid equals it.
    pub process: Option<String>,
    /// Keep only layers whose name matches this glob.
    pub layer: Option<glob::Pattern>,
    /// Present threshold of the classifier, ns (SurfaceFlinger's default: 2 ms).
    pub present_threshold_ns: i64,
    /// Vsync period override, ns (for VRR, or when inference is impossible).
    pub vsync_period_ns: Option<i64>,
    /// Force one Android release's classifier rules instead of choosing them from the trace.
    pub sf_rules: Option<classify::SfRules>,
    /// Layer name of a `--latency` capture (default: the file name without extension).
    pub layer_name: Option<String>,
    /// gfxinfo: drop PROFILEDATA rows whose `Flags` is not 0 (the hand-analysis rule; JankTracker keeps them).
    pub gfxinfo_drop_flagged_rows: bool,
    /// Package whose Macrobenchmark FrameTimingMetric to compute (traces only).
    pub macrobenchmark: Option<String>,
    /// Analysis windows (`--window`, `--marker`); empty: the whole trace.
    pub windows: crate::model::window::WindowSpec,
    /// Keep [`Report::frames`], the per-SurfaceFrame rows (charts, `batch`, `diff`). Without it they are
    /// summarised per layer as they are made and not kept: one row per SurfaceFrame is about 240 bytes
    /// ([`analyze_each`] gives them out instead, as `ftl frames` does).
    pub frame_rows: bool,
    /// Build [`Report::display_frames`], the per-DisplayFrame rows (`frames --display-frames`, charts). Without
    /// it they are not built and take no memory: one row per DisplayFrame is about 240 bytes.
    pub display_frame_rows: bool,
}

impl Config {
    /// True if `--process` keeps the process with this name and pid: no filter, a name containing the filter
    /// (case-sensitive), or a pid equal to it. An unknown name or pid never matches a filter.
    pub fn keeps_process(&self, name: Option<&str>, pid: Option<i32>) -> bool {
        self.process.as_deref().is_none_or(|want| {
            name.is_some_and(|n| n.contains(want)) || pid.is_some_and(|p| p.to_string() == want)
        })
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            process: None,
            layer: None,
            present_threshold_ns: 2_000_000,
            vsync_period_ns: None,
            sf_rules: None,
            layer_name: None,
            gfxinfo_drop_flagged_rows: false,
            macrobenchmark: None,
            windows: crate::model::window::WindowSpec::default(),
            frame_rows: true,
            display_frame_rows: true,
        }
    }
}

fn clock_name(id: u32) -> String {
    match id {
        1 => "REALTIME".into(),
        3 => "MONOTONIC".into(),
        5 => "MONOTONIC_RAW".into(),
        6 => "BOOTTIME".into(),
        other => format!("clock {other}"),
    }
}

/// Counts of the linked frames, kept after the links are dropped.
struct LinkCounts {
    display_frames: u64,
    surface_frames: u64,
    surface_frames_without_display_frame: u64,
    surface_frames_without_expected: u64,
}

impl LinkCounts {
    fn of(linked: &Frames) -> Self {
        let surface_count =
            |f: fn(&SurfaceFrame) -> bool| linked.surface.iter().filter(|s| f(s)).count() as u64;
        LinkCounts {
            display_frames: linked.display.len() as u64,
            surface_frames: linked.surface.len() as u64,
            surface_frames_without_display_frame: surface_count(|s| s.display().is_none()),
            surface_frames_without_expected: surface_count(|s| s.expected().is_none()),
        }
    }
}

/// Analyses a loaded trace; its slices are freed as the per-frame rows that replace them are built. The
/// SurfaceFrame rows are kept in [`Report::frames`] with [`Config::frame_rows`], else only summarised.
pub fn analyze(trace: LoadedTrace, path: &str, config: &Config) -> Report {
    let mut frames = Vec::new();
    if config.frame_rows {
        frames.reserve_exact(
            trace
                .timeline
                .actual
                .iter()
                .filter(|s| !s.kind.is_display())
                .count(),
        );
    }
    let mut summaries = metrics::LayerSummaries::default();
    // Rows only summarised need no present interval, and are summarised in two halves on two cores. Kept rows
    // are summarised once the model is freed, so that the summaries' memory does not add to the model's.
    let mut second_half = metrics::LayerSummaries::default();
    let mut summarise_second = |f: FrameRow| second_half.add(&f);
    let second: Option<&mut (dyn FnMut(FrameRow) + Send)> =
        (!config.frame_rows).then_some(&mut summarise_second);
    let mut report = analyze_rows(
        trace,
        path,
        config,
        config.frame_rows,
        &mut |f| {
            if config.frame_rows {
                frames.push(f);
            } else {
                summaries.add(&f);
            }
        },
        second,
    );
    summaries.append(second_half);
    frames.iter().for_each(|f| summaries.add(f));
    report.layers = summaries.finish(report.vsync.period_ns);
    if let Some(m) = report.macrobenchmark.as_mut() {
        m.add_top_causes(&report.layers);
    }
    report.frames = frames;
    report
}

/// [`analyze`], giving each SurfaceFrame row of the processes and layers asked for to `each` as it is made (in
/// actual-slice order, with its present interval) instead of keeping or summarising it: [`Report::frames`] and
/// [`Report::layers`] stay empty whatever [`Config::frame_rows`] says. What `ftl frames` writes a batch at a time.
pub fn analyze_each(
    trace: LoadedTrace,
    path: &str,
    config: &Config,
    each: &mut dyn FnMut(FrameRow),
) -> Report {
    analyze_rows(trace, path, config, true, each, None)
}

/// What [`analyze_rows`] counts of the SurfaceFrame rows it gives out (of the processes and layers asked for).
#[derive(Debug, Default)]
struct RowCounts {
    /// Rows without their doFrame / DrawFrame sections.
    without_app_sections: u64,
    /// Rows late on the UI thread or RenderThread without a cause.
    without_cause: u64,
}

impl RowCounts {
    fn count(&mut self, f: &FrameRow) {
        self.without_app_sections += u64::from(f.app_work.0.is_none());
        let thread_stage = matches!(
            f.late_stage,
            Some(app::blame::LateStage::UiThread | app::blame::LateStage::RenderThread)
        );
        self.without_cause += u64::from(thread_stage && f.threads.cause().is_none());
    }

    fn plus(self, other: RowCounts) -> RowCounts {
        RowCounts {
            without_app_sections: self.without_app_sections + other.without_app_sections,
            without_cause: self.without_cause + other.without_cause,
        }
    }
}

/// `sink` behind the filter `keeps`, counting in `counts` the rows it lets through.
fn counted<'a, S: FnMut(FrameRow) + ?Sized>(
    keeps: &'a impl Fn(&FrameRow) -> bool,
    counts: &'a mut RowCounts,
    sink: &'a mut S,
) -> impl FnMut(FrameRow) + 'a {
    move |f| {
        if keeps(&f) {
            counts.count(&f);
            sink(f);
        }
    }
}

/// [`analyze_each`], the rows' present intervals set only `with_intervals`; with `second`, the second half of the
/// rows go to `second`, made on a thread of their own ([`frames::frame_rows`]).
fn analyze_rows(
    trace: LoadedTrace,
    path: &str,
    config: &Config,
    with_intervals: bool,
    each: &mut dyn FnMut(FrameRow),
    second: Option<&mut (dyn FnMut(FrameRow) + Send)>,
) -> Report {
    let LoadedTrace {
        mut timeline,
        decode: d,
        file_bytes,
        compression,
        windows,
    } = trace;
    // Two passes over every slice, one per core.
    let (first_ts_ns, last_ts_ns) = rayon::join(
        || crate::model::window::origin_ns(&timeline),
        || {
            timeline
                .expected
                .iter()
                .chain(&timeline.actual)
                .map(|s| s.end_ns().unwrap_or(s.ts_ns))
                .max()
                .unwrap_or(0)
        },
    );
    // Two steps, each with a second core: first the vsync model beside the app sections' work, Macrobenchmark's
    // numbers and the links (all read the slices); then Perfetto's metric beside the labels. What each thread
    // allocates lives on in its own heap, and all is done before the per-frame rows, so that their working sets are
    // freed first. Once the vsync model and the links have read the expected slices, their bounds replace them: the
    // labels and the rows are made beside 16 bytes per expected slice, not 56.
    let (sections, work, macrobenchmark, rules, vsync, linked) = std::thread::scope(|scope| {
        let expected = &timeline.expected;
        let vsync = scope.spawn(move || vsync::infer_vsync(expected, config.vsync_period_ns));
        let sections = app::stdlib::FrameSections::of(&timeline.app);
        let work = app::blame::app_work(&sections.do_frames, &sections.draw_frames);
        let macrobenchmark = config
            .macrobenchmark
            .as_deref()
            .map(|package| app::macrobenchmark::macrobenchmark(&timeline, package));
        let rules = config.sf_rules.map_or_else(
            || classify::SfRules::detect(&timeline, &d.frame_timeline_clock_ids),
            |r| (r, "forced".to_string()),
        );
        let linked = timeline.link();
        (sections, work, macrobenchmark, rules, joined(vsync), linked)
    });
    let options = classify::Options {
        present_threshold_ns: config.present_threshold_ns,
        rules,
    };
    let (metric, expected, classification) = std::thread::scope(|scope| {
        let (actual, processes) = (&timeline.actual, &timeline.processes);
        let aside = scope.spawn(move || metrics::frame_timeline_metric(actual, processes));
        let expected = ExpectedBounds::take(&mut timeline.expected);
        let classification =
            classify::classify_trace(&timeline, &expected, &linked, &vsync, &options);
        (joined(aside), expected, classification)
    });
    let (mut processes, totals) = metric;
    let counts = LinkCounts::of(&linked);
    let classify::Classification {
        display,
        surface,
        agreement,
    } = classification;
    let system_info = timeline.system_info.clone().unwrap_or_default();
    let import = timeline.stats.clone();
    let display = config.display_frame_rows.then_some(display);
    // The rows of the processes and layers asked for: kept if asked for, else summarised as they are made.
    let keeps = |f: &FrameRow| {
        config.keeps_process(Some(&f.process_name), Some(f.pid))
            && config
                .layer
                .as_ref()
                .is_none_or(|g| g.matches(&f.layer_name))
    };
    let cause_data_missing = if work.is_empty() {
        Vec::new()
    } else {
        app::threads::missing_data(&timeline)
    };
    let (mut first_counts, mut second_counts) = (RowCounts::default(), RowCounts::default());
    let keeps = &keeps;
    let mut second = second.map(|sink| counted(keeps, &mut second_counts, sink));
    let display_frames = frames::frame_rows(
        timeline,
        expected,
        linked,
        surface,
        display,
        (&sections, &work),
        with_intervals,
        &mut counted(keeps, &mut first_counts, each),
        second
            .as_mut()
            .map(|s| s as &mut (dyn FnMut(FrameRow) + Send)),
    );
    drop(second);
    let RowCounts {
        without_app_sections,
        without_cause,
    } = first_counts.plus(second_counts);
    // The model, links and labels are gone: their pages go back.
    crate::memory::release_freed();
    processes.retain(|m| config.keeps_process(Some(&m.name), Some(m.pid)));
    let facts = TraceFacts {
        path: path.to_string(),
        file_bytes,
        compression,
        packets: d.packets,
        compressed_chunks: d.compressed_chunks,
        first_ts_ns,
        last_ts_ns,
        span_ms: (last_ts_ns - first_ts_ns) as f64 / 1e6,
        device_fingerprint: system_info.android_build_fingerprint,
        android_sdk_version: system_info.android_sdk_version,
        frame_timeline_clock: d
            .frame_timeline_clock_ids
            .iter()
            .map(|c| clock_name(*c))
            .collect::<Vec<_>>()
            .join(", "),
        trace_clock: clock_name(d.trace_clock),
        display_frames: counts.display_frames,
        surface_frames: counts.surface_frames,
    };
    let diagnostics = Diagnostics {
        import,
        truncated_at_byte: d.truncated_at,
        malformed_packets: d.malformed_packets,
        events_outside_trace_clock: d.unconvertible_timestamps,
        events_without_timestamp: d.missing_timestamps,
        surface_frames_without_display_frame: counts.surface_frames_without_display_frame,
        surface_frames_without_expected: counts.surface_frames_without_expected,
        surface_frames_without_app_sections: if work.is_empty() {
            0
        } else {
            without_app_sections
        },
        atrace_parse_failures: d.atrace_parse_failures,
        late_frames_without_cause: without_cause,
        cause_data_missing,
    };
    Report {
        source: crate::model::Source::Perfetto,
        trace: facts,
        vsync,
        agreement,
        processes,
        totals,
        layers: Vec::new(),
        diagnostics,
        windows,
        macrobenchmark,
        frames: Vec::new(),
        display_frames,
    }
}

/// Convenience for callers that have only a `Timeline` (tests): analyses it as an in-memory trace.
pub fn analyze_timeline(timeline: Timeline, config: &Config) -> Report {
    let trace = LoadedTrace {
        timeline,
        decode: DecodeSummary::default(),
        file_bytes: 0,
        compression: Compression::None,
        windows: Vec::new(),
    };
    analyze(trace, "", config)
}
