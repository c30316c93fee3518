//! The `ftl` command line (clap derive): argument types, the subcommands, and exit codes. The only module that
//! knows argv, the terminal and exit codes.

use crate::analysis::slices::{ActualSliceRow, ExpectedSliceRow};
use crate::analysis::{self, explain, slices, Analysis, Config};
use crate::error::{Error, Result};
use crate::output::perfetto_tables::PerfettoTable;
use crate::output::table::{write_rows, write_rows_each, write_table, TableFormat};
use crate::output::text;
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

pub mod batch;
pub mod device;
pub mod diff;
pub mod report;

/// Did it jank, where, and whose fault was it? FrameTimeline analysis of Android Perfetto traces, and the pacing
/// numbers of every frame capture testers already take.
///
/// ftl reads a Perfetto trace (plain, gzip, or with compressed packets) recorded with the
/// `android.surfaceflinger.frametimeline` data source (Android 12+), rebuilds SurfaceFlinger's Expected and
/// Actual timelines exactly as Perfetto's trace processor does, links every app frame (SurfaceFrame) to the
/// DisplayFrame that put it on screen, and reports jank per process and per layer.
///
/// It also reads `dumpsys SurfaceFlinger --latency`, `dumpsys gfxinfo [framestats]` and Choreographer logcat
/// captures (any Android release, games on a SurfaceView too): surface_stats_collector's avg_surface_fps,
/// jank_count and max_frame_delay, PerfDog's Jank / BigJank / Stutter, FPS per second and 1 % low, sm and
/// Tencent GT's gt_sm, and HWUI's JankTracker numbers. A trace's layers get the same pacing numbers.
#[derive(Debug, Parser)]
#[command(name = "ftl", version, about, long_about, after_help = EXAMPLES)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

const EXAMPLES: &str = "Examples:
  ftl analyze trace.perfetto-trace                 # the report: verdict, per process, per layer
  ftl analyze trace.pftrace --format json -o r.json
  ftl analyze trace.pftrace --process com.example --layer '*MainActivity*'
  ftl slices trace.pftrace --timeline actual        # Perfetto's actual_frame_timeline_slice as CSV
  ftl frames trace.pftrace -o frames.parquet --format parquet
  ftl report trace.pftrace -o report.png            # the picture (SVG if the name ends in .svg)
  ftl report trace.pftrace -o report.html           # one offline page: zoom, hover, filter every frame
  ftl batch traces/ -r --fail-on 'janky_pct>5'      # rank a fleet of traces; exit 1 if any is too janky
  ftl analyze latency.txt --layer-name 'SurfaceView[com.example.game/com.example.game.MainActivity](BLAST)#1234'
  ftl analyze gfxinfo.txt --format json             # JankTracker recomputed from framestats + as dumped
  ftl batch captures/ --fail-on 'perfdog_big_jank>0'
  ftl diff base/ new/ --fail-on 'janky_pct>+1'       # A/B with statistics; exit 1 on a significant regression
  ftl explain 'Buffer Stuffing'
  ftl record --app com.example.app --duration 10s   # record a trace over adb and print the verdict
  ftl record --app com.example.game --source latency -o latency.txt
  ftl watch --app com.example.game --plain          # live FPS / jank, one line per second";

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Report jank per process and per layer: Perfetto's android_frame_timeline_metric numbers, present-based
    /// FPS, frame-time percentiles, overruns, frame pacing, and data-quality diagnostics; for a text capture,
    /// the frame pacing per layer / window / pid, JankTracker (gfxinfo) or GT SM (logcat), and skipped lines.
    Analyze(AnalyzeArgs),
    /// Print Perfetto's expected_frame_timeline_slice or actual_frame_timeline_slice table, row for row.
    Slices(SlicesArgs),
    /// One row per actual SurfaceFrame joined with its expected slice and the DisplayFrame that presented it
    /// (present time, overrun, app vsync delay, present interval, all labels); for a text capture, one row per
    /// frame with the times it records.
    Frames(FramesArgs),
    /// Explain jank types in plain words (all of them, or the one given).
    Explain(ExplainArgs),
    /// Draw the report: the picture (PNG or SVG) of a trace's timeline (expected/actual lanes per layer, UI thread /
    /// RenderThread lanes coloured by late stage when the app's atrace sections are recorded, vsync grid, jank
    /// colours) or of a text capture's frame times, FPS per second and headline numbers (GT SM for logcat); or, with
    /// -o FILE.html, the explorable single-file HTML report of every frame (zoom, hover, filters, linked panels)
    Report(report::ReportArgs),
    /// Triage many traces and captures in parallel into one ranked table; bad files are reported, not fatal.
    Batch(batch::BatchArgs),
    /// Did NEW get smoother or jankier than BASE? Two traces, two sets of runs or two batch outputs compared per
    /// process and per layer, with tests, verdicts and a --fail-on gate on the changes.
    Diff(diff::DiffArgs),
    /// Print a Perfetto stdlib table of the app's frames (android_frames, android_frame_stats, ...) row for
    /// row, with Perfetto's column names; needs the app's atrace sections (Choreographer#doFrame, DrawFrame).
    Table(TableArgs),
    /// Record on an Android device over adb and print the verdict: a Perfetto trace with FrameTimeline, the app's
    /// atrace sections and the scheduler, run the way the device's release needs; or a text source
    /// (`--latency`, gfxinfo, logcat) polled without losing frames into one capture file.
    Record(device::RecordArgs),
    /// Watch an app's frames live over adb: FPS, PerfDog Jank / BigJank, JankTracker janky %, frame times; or
    /// one line per second with --plain.
    Watch(device::WatchArgs),
}

impl Command {
    /// Whether the command writes Parquet, whose writer needs polars' shared zeroes.
    fn writes_parquet(&self) -> bool {
        match self {
            Command::Analyze(a) => a.format == ReportFormat::Parquet,
            Command::Slices(SlicesArgs { format, .. })
            | Command::Frames(FramesArgs { format, .. })
            | Command::Table(TableArgs { format, .. }) => *format == Format::Parquet,
            Command::Batch(a) => a.writes_parquet(),
            Command::Explain(_)
            | Command::Report(_)
            | Command::Diff(_)
            | Command::Record(_)
            | Command::Watch(_) => false,
        }
    }
}

/// Options shared by every command that reads one input.
#[derive(Debug, Args)]
pub struct TraceArgs {
    /// The input: a Perfetto trace, or a text capture — `dumpsys SurfaceFlinger --latency` output, `dumpsys
    /// gfxinfo [framestats]` output, or an `adb logcat` with Choreographer lines. What it is comes from its
    /// content, not its name; gzip, UTF-16 (PowerShell redirects) and CRLF are handled.
    #[arg(value_name = "INPUT")]
    pub trace: PathBuf,
}

/// Analysis options.
#[derive(Debug, Args)]
pub struct AnalysisArgs {
    /// Keep only processes whose name contains NAME (or whose pid is NAME).
    #[arg(long, value_name = "NAME")]
    pub process: Option<String>,
    /// Keep only layers matching GLOB (e.g. '*MainActivity*').
    #[arg(long, value_name = "GLOB")]
    pub layer: Option<String>,
    /// Present threshold of the jank classifier in ms: |actual − expected present| above it is late/early.
    #[arg(long, value_name = "MS", default_value_t = 2.0)]
    pub present_threshold: f64,
    /// Vsync period in ms, instead of inferring it from the trace (VRR displays, odd traces).
    #[arg(long, value_name = "MS", conflicts_with = "refresh_rate")]
    pub vsync_period: Option<f64>,
    /// Refresh rate in Hz, instead of inferring the vsync period from the trace.
    #[arg(long, value_name = "HZ")]
    pub refresh_rate: Option<f64>,
    /// Apply one Android release's SurfaceFlinger jank rules (a12, a13, a14, a15, a16) instead of the ones the
    /// trace shows.
    #[arg(long, value_name = "RULES")]
    pub sf_rules: Option<analysis::classify::SfRules>,
    /// Name of the layer a `dumpsys SurfaceFlinger --latency` capture was taken for (default: the file name
    /// without its extension).
    #[arg(long, value_name = "NAME")]
    pub layer_name: Option<String>,
    /// gfxinfo: drop PROFILEDATA rows whose Flags is not 0 before computing anything (the hand-analysis rule of
    /// developer.android.com; the recomputed JankTracker numbers otherwise follow JankTracker, which counts
    /// flagged frames in the total and histogram).
    #[arg(long)]
    pub gfxinfo_drop_flagged: bool,
    /// Also compute AndroidX Macrobenchmark's FrameTimingMetric for package PKG (frameCount,
    /// frameDurationCpuMs, frameOverrunMs with P50/P90/P95/P99 and the per-frame samples), with
    /// Macrobenchmark's frame matching; `--format json` puts it under "macrobenchmark" in Macrobenchmark's
    /// own JSON shape. Needs the app's atrace sections (Choreographer#doFrame, DrawFrame on RenderThread).
    #[arg(long, value_name = "PKG")]
    pub macrobenchmark: Option<String>,
    /// Analyse only the frames inside each span of the atrace section or CUJ named NAME (exact, or a prefix
    /// ending in *; e.g. a benchmark's measured section, 'J<SHADE_EXPAND_COLLAPSE>'); repeatable; several
    /// occurrences are several windows. Perfetto traces only. Which frames are inside: see --window.
    #[arg(long, value_name = "NAME")]
    pub marker: Vec<String>,
}

/// `--window` of the commands that analyse a trace (`ftl report` has its own, which also sets the picture).
#[derive(Debug, Args)]
pub struct WindowArgs {
    /// Analyse only the frames inside START..END, after the first FrameTimeline slice; each bound in ms
    /// (1500ms), s (4s) or a bare number of seconds (1.5..4); repeatable. A frame is inside when all of it is:
    /// it starts at or after START and is on screen (present fence; DisplayFrames too) at or before END — a
    /// frame that starts inside and presents after END is outside. Perfetto traces only.
    #[arg(long, value_name = "START..END")]
    pub window: Vec<String>,
}

impl WindowArgs {
    /// The `--window` ranges, ns after the first FrameTimeline slice.
    pub fn ranges(&self) -> Result<Vec<(i64, i64)>> {
        self.window
            .iter()
            .map(|w| {
                crate::model::window::parse_range(w)
                    .map_err(|e| Error::Usage(format!("--window: {e}")))
            })
            .collect()
    }
}

/// Report formats of `ftl analyze`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// Aligned terminal tables.
    Text,
    /// One JSON object: {"trace", "vsync", "processes", "totals", "layers", "diagnostics", ...}.
    Json,
    /// One CSV file per table under -o DIR.
    Csv,
    /// One Parquet file per table under -o DIR.
    Parquet,
}

/// Table formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// CSV with a header row; absent values are empty fields.
    Csv,
    /// A JSON array of row objects.
    Json,
    /// Apache Parquet (needs -o).
    Parquet,
}

impl From<Format> for TableFormat {
    fn from(f: Format) -> Self {
        match f {
            Format::Csv => TableFormat::Csv,
            Format::Json => TableFormat::Json,
            Format::Parquet => TableFormat::Parquet,
        }
    }
}

const ANALYZE_HELP: &str = "Frame pacing (every layer of a trace, --latency layer, gfxinfo window; JSON field names):
  avg_surface_fps, jank_count, max_frame_delay, frame_lengths (+ _99 / _50: the last 99 % / 50 % of presents)
      Chromium surface_stats_collector: present deltas under half a refresh period dropped; integer FPS with
      Python's rounding; rises of 1-19 vsyncs between consecutive frames; the longest frame in vsyncs
  perfdog_jank, perfdog_big_jank, perfdog_stutter_pct
      PerfDog: frame time > 2 x the mean of the previous three and > 2 (Jank) or 3 (BigJank) film frames
      (1000/24 ms); perfdog_jank counts every Jank interval, BigJanks included; Stutter = Jank time / total time
  fps_per_second, fps_min, fps_mean, fps_variance, fps_1pct_low, fps_0_1pct_low
      presents per whole second from the first present; GameBench's low FPS over the worst frame times
  sm_per_second, sm, sm_min     refresh rate - vsyncs missed per second (desired vs actual present)
  gt_sm_per_second, gt_sm       Tencent GT's SM from Choreographer 'Skipped N frames!' lines (logcat)
gfxinfo windows also carry jank_tracker[]: HWUI JankTracker numbers `recomputed` from framestats and
`as_dumped` by the device, never mixed. presents_from / period_from say what each number was computed from.";

/// `ftl analyze`.
#[derive(Debug, Args)]
#[command(after_help = ANALYZE_HELP)]
pub struct AnalyzeArgs {
    #[command(flatten)]
    trace: TraceArgs,
    #[command(flatten)]
    analysis: AnalysisArgs,
    #[command(flatten)]
    window: WindowArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    format: ReportFormat,
    /// Output file (text, json) or directory (csv, parquet); stdout if omitted for text and json.
    #[arg(short, long, value_name = "PATH")]
    output: Option<PathBuf>,
    /// Also draw the picture of `ftl report` (the timeline report of a trace, or a text capture's frame times
    /// and FPS) to this PNG (or SVG) file.
    #[arg(long, value_name = "FILE")]
    png: Option<PathBuf>,
}

/// Which Perfetto frame timeline table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Timeline {
    /// expected_frame_timeline_slice: what SurfaceFlinger predicted.
    Expected,
    /// actual_frame_timeline_slice: what happened, with the jank labels.
    Actual,
}

/// `ftl slices`.
#[derive(Debug, Args)]
pub struct SlicesArgs {
    #[command(flatten)]
    trace: TraceArgs,
    /// The table.
    #[arg(long, value_enum)]
    timeline: Timeline,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Csv)]
    format: Format,
    /// Output file (stdout if omitted; Parquet needs a file).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

/// `ftl frames`.
#[derive(Debug, Args)]
pub struct FramesArgs {
    #[command(flatten)]
    trace: TraceArgs,
    #[command(flatten)]
    analysis: AnalysisArgs,
    #[command(flatten)]
    window: WindowArgs,
    /// One row per actual DisplayFrame instead of per SurfaceFrame.
    #[arg(long)]
    display_frames: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Csv)]
    format: Format,
    /// Output file (stdout if omitted; Parquet needs a file).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

/// `ftl table`.
#[derive(Debug, Args)]
#[command(after_help = TABLE_HELP)]
pub struct TableArgs {
    /// The Perfetto trace.
    #[arg(value_name = "TRACE")]
    trace: PathBuf,
    /// The table, by its Perfetto name.
    #[arg(value_enum, value_name = "NAME")]
    name: PerfettoTable,
    #[command(flatten)]
    window: WindowArgs,
    /// Keep only the frames inside each span of the atrace section or CUJ named NAME (see `ftl analyze
    /// --help`); repeatable.
    #[arg(long, value_name = "NAME")]
    marker: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Csv)]
    format: Format,
    /// Output file (stdout if omitted; Parquet needs a file).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
}

const TABLE_HELP: &str = "Columns are Perfetto's, in Perfetto's order, with trace processor's row ids replaced by what
the trace says: upid -> pid, utid -> tid (ui_thread_tid, render_thread_tid); other *_id columns of slices are
left out, frame_id (the vsync id) is kept. Times are ns on the trace clock. A trace without the app's atrace
sections (record the `gfx` and `view` atrace categories, or run a Macrobenchmark) gives header-only tables,
except android_frames_overrun, which needs FrameTimeline only.
Source: Perfetto stdlib android/frames/timeline.sql and per_frame_metrics.sql.";

/// `ftl explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// A jank type as Perfetto names it (e.g. 'App Deadline Missed'), `stages` for the late stages of
    /// `ftl frames`' late_stage column (or one of them, e.g. `ui_thread`), `idle` for the idle-gap rule of the
    /// pacing numbers (`idle_gaps`, `active_fps`, `perfdog_*_active`), `causes` for the rule behind the
    /// `cause` column (why a late frame's UI thread or RenderThread was late); all jank types if omitted.
    jank_type: Option<String>,
}

impl AnalysisArgs {
    /// The configuration with the `--window` ranges of `window`.
    pub fn config_in(&self, window: &WindowArgs) -> Result<Config> {
        let mut config = self.config()?;
        config.windows.ranges = window.ranges()?;
        Ok(config)
    }

    fn config(&self) -> Result<Config> {
        let layer = self
            .layer
            .as_deref()
            .map(glob::Pattern::new)
            .transpose()
            .map_err(|e| Error::Usage(format!("--layer: invalid glob: {e}")))?;
        let positive = |name: &str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(v)
            } else {
                Err(Error::Usage(format!(
                    "{name} must be a positive number, got {v}"
                )))
            }
        };
        let vsync_period_ns = match (self.vsync_period, self.refresh_rate) {
            (Some(ms), _) => Some((positive("--vsync-period", ms)? * 1e6).round() as i64),
            (None, Some(hz)) => Some((1e9 / positive("--refresh-rate", hz)?).round() as i64),
            (None, None) => None,
        };
        if !(self.present_threshold.is_finite() && self.present_threshold >= 0.0) {
            return Err(Error::Usage(format!(
                "--present-threshold must be ≥ 0 ms, got {}",
                self.present_threshold
            )));
        }
        Ok(Config {
            process: self.process.clone(),
            layer,
            present_threshold_ns: (self.present_threshold * 1e6).round() as i64,
            vsync_period_ns,
            sf_rules: self.sf_rules,
            layer_name: self.layer_name.clone(),
            gfxinfo_drop_flagged_rows: self.gfxinfo_drop_flagged,
            macrobenchmark: self.macrobenchmark.clone(),
            windows: crate::model::window::WindowSpec {
                ranges: Vec::new(),
                markers: self.marker.clone(),
            },
            // Asked for by the commands that show the rows.
            frame_rows: true,
            display_frame_rows: false,
        })
    }
}

/// Runs a parsed command line; the exit code of a success (errors are mapped in [`exit_code`]).
pub fn run(cli: Cli) -> Result<ExitCode> {
    if cli.command.writes_parquet() {
        // Now, while the process is small: making polars' zeroes writes 8 MiB, however briefly.
        crate::memory::release_shared_zeroes();
    }
    match cli.command {
        Command::Analyze(a) => {
            // The report needs the rows only for its chart.
            let config = Config {
                frame_rows: a.png.is_some(),
                display_frame_rows: a.png.is_some(),
                ..a.analysis.config_in(&a.window)?
            };
            let analysis = crate::analyze_path(&a.trace.trace, &config)?;
            write_report(&analysis, a.format, a.output.as_deref())?;
            if let Some(png) = &a.png {
                crate::output::chart::render(
                    &analysis,
                    png,
                    &crate::output::chart::ChartOptions::default(),
                )?;
            }
        }
        Command::Slices(a) => {
            let trace = crate::load_path(&a.trace.trace)?;
            let (format, output) = (a.format.into(), a.output.as_deref());
            match a.timeline {
                Timeline::Expected => write_rows::<ExpectedSliceRow>(
                    slices::expected_rows(&trace.timeline),
                    format,
                    output,
                )?,
                Timeline::Actual => write_rows::<ActualSliceRow>(
                    slices::actual_rows(&trace.timeline),
                    format,
                    output,
                )?,
            }
        }
        Command::Frames(a) => {
            let config = Config {
                frame_rows: !a.display_frames,
                display_frame_rows: a.display_frames,
                ..a.analysis.config_in(&a.window)?
            };
            let (path, format, output) = (&a.trace.trace, a.format.into(), a.output.as_deref());
            // A trace's SurfaceFrame rows are written as the analysis makes them, a batch at a time, not kept;
            // DisplayFrame rows and a capture's frames come from the whole analysis.
            match crate::open_input(path, &config)? {
                crate::Input::Trace(trace) if !a.display_frames => {
                    let shown = path.display().to_string();
                    write_rows_each::<crate::analysis::frames::FrameRow, _>(
                        format,
                        output,
                        |push| {
                            crate::analysis::analyze_each(*trace, &shown, &config, &mut |row| {
                                push(&row)
                            });
                        },
                    )?;
                }
                opened => {
                    let analysis = crate::analyze_input(opened, path, &config)?;
                    crate::output::write_frames(&analysis, a.display_frames, format, output)?;
                }
            }
        }
        Command::Explain(a) => print_explanations(a.jank_type.as_deref())?,
        Command::Report(a) => report::run(&a)?,
        Command::Batch(a) => return batch::run(&a),
        Command::Diff(a) => return diff::run(&a),
        Command::Record(a) => return device::run_record(&a),
        Command::Watch(a) => return device::run_watch(&a),
        Command::Table(a) => {
            let windows = crate::model::window::WindowSpec {
                ranges: a.window.ranges()?,
                markers: a.marker.clone(),
            };
            let trace = if a.name == crate::output::perfetto_tables::PerfettoTable::ThreadState {
                crate::load_path_all_thread_states(&a.trace, &windows)?
            } else {
                crate::load_path_in(&a.trace, &windows)?
            };
            let mut df = crate::output::perfetto_tables::table(a.name, &trace.timeline)?;
            write_table(&mut df, a.format.into(), a.output.as_deref())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes `ftl explain`'s text to standard output (a reader that stops early, `| head`, is no error).
fn print_explanations(jank_type: Option<&str>) -> Result<()> {
    let text = explanations(jank_type)?;
    crate::output::write_output(None, |w| w.write_all(text.as_bytes()))
}

/// The text of `ftl explain JANK_TYPE`. Errors: an unknown name.
fn explanations(jank_type: Option<&str>) -> Result<String> {
    use crate::analysis::app::blame::LateStage;
    use std::fmt::Write as _;
    let mut out = String::new();
    let stages = LateStage::ALL
        .iter()
        .filter(|s| jank_type.is_some_and(|n| n == "stages" || n == s.name()));
    let mut any_stage = false;
    for stage in stages {
        let _ = writeln!(out, "{}\n    {}\n", stage.name(), stage.explanation());
        any_stage = true;
    }
    if any_stage {
        let _ = writeln!(out, "Rule, in order of evidence: stuffing (Buffer Stuffing label) > the app's CPU late (DrawFrame end after the deadline: ui_thread if vsync delay + doFrame >= the RenderThread's part, else render_thread) > gpu (RenderThread in time, buffer ready late) > app (late, no doFrame/DrawFrame) > surfaceflinger (app on time, SurfaceFlinger/display jank types).");
        return Ok(out);
    }
    if jank_type == Some("idle") {
        let _ = writeln!(out, "{}", analysis::idle::EXPLANATION);
        return Ok(out);
    }
    if matches!(jank_type, Some("causes" | "cause")) {
        let _ = writeln!(out, "{}", analysis::app::cause::EXPLANATION);
        return Ok(out);
    }
    match jank_type {
        Some(name) => match explain::explain(name) {
            Some(text) => {
                let _ = writeln!(out, "{name}: {text}");
            }
            None => {
                let known: Vec<&str> = explain::JANK_EXPLANATIONS.iter().map(|(n, _)| *n).collect();
                return Err(Error::Usage(format!(
                    "unknown jank type '{name}'; known: {}",
                    known.join(", ")
                )));
            }
        },
        None => {
            for (name, text) in explain::JANK_EXPLANATIONS {
                let _ = writeln!(out, "{name}\n    {text}\n");
            }
        }
    }
    Ok(out)
}

pub(crate) fn write_report(
    analysis: &Analysis,
    format: ReportFormat,
    output: Option<&Path>,
) -> Result<()> {
    match format {
        ReportFormat::Text => {
            let text = match analysis {
                Analysis::Trace(report) => text::render(report),
                Analysis::Capture(c) => text::render_capture(c),
            };
            crate::output::write_output(output, |w| w.write_all(text.as_bytes()))
        }
        // Written as it is serialised: the per-frame lists of the pacing metrics make it megabytes.
        ReportFormat::Json => {
            crate::output::write_output(output, |w| crate::output::json::write_pretty(w, analysis))
        }
        ReportFormat::Csv | ReportFormat::Parquet => {
            let dir = output.ok_or_else(|| {
                Error::Usage("--format csv/parquet writes one file per table: give -o DIR".into())
            })?;
            let format = if format == ReportFormat::Csv {
                TableFormat::Csv
            } else {
                TableFormat::Parquet
            };
            std::fs::create_dir_all(dir).map_err(|e| Error::Output {
                path: dir.to_path_buf(),
                cause: e.to_string(),
            })?;
            let tables = match analysis {
                Analysis::Trace(report) => crate::output::report_tables(report)?,
                Analysis::Capture(c) => crate::output::capture_tables(c)?,
            };
            for (name, mut df) in tables {
                write_table(
                    &mut df,
                    format,
                    Some(&dir.join(format!("{name}.{}", format.extension()))),
                )?;
            }
            Ok(())
        }
    }
}

/// Maps a result to the process exit code: 0 ok (also when stdout was closed early, e.g. `| head`),
/// 2 for errors (usage or fatal), after printing the one-line message to stderr.
pub fn exit_code(result: Result<ExitCode>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ftl: {e}");
            ExitCode::from(2)
        }
    }
}
