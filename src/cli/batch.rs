//! `ftl batch`: many traces in parallel into one ranked triage table (arguments, progress bar, Ctrl-C, outputs).

use super::AnalysisArgs;
use crate::analysis::Analysis;
use crate::batch::{self, BatchResult, Column, Condition, Grouping, Job, Outcome, TriageRow};
use crate::error::{Error, Result};
use crate::output::label;
use crate::output::table::{to_dataframe, write_table, TableFormat};
use clap::{Args, ValueEnum};
use comfy_table::{presets::UTF8_BORDERS_ONLY, Cell, CellAlignment, Table};
use indicatif::{ProgressBar, ProgressStyle};
use std::fmt::Write;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const BATCH_HELP: &str = "Inputs: Perfetto traces and text captures (dumpsys SurfaceFlinger --latency, dumpsys gfxinfo,
logcat) mixed freely; what each file is comes from its content (the `source` column). Files found in
directories that are none of these are listed as skipped; files named on the command line always get a row.

Triage columns (one row per input, or per input × process / layer with --by):
  trace, path, source, device, refresh_rate_hz, span_ms, pid, process_name, layer_name, frames, janky_frames,
  janky_pct, app_janky_frames, sf_janky_frames, dropped_frames, worst_layer, top_cause, top_cause_frames,
  top_cause_pct, frame_dur_ms_p99, overrun_ms_p99, max_frame_delay, jank_count, avg_surface_fps, fps_mean, fps_1pct_low, perfdog_jank,
  perfdog_big_jank, perfdog_stutter_pct, idle_gaps, active_fps, perfdog_jank_active, perfdog_big_jank_active,
  perfdog_stutter_pct_active, sm, gt_sm, agreement_pct, diagnostics_count, truncated_at_byte, file_bytes, status
FrameTimeline columns (janky_*, dropped_frames, worst_layer, frame_dur_ms_p99, overrun_ms_p99, agreement_pct)
are null for text captures. Pacing columns: jank_count (Chromium surface_stats_collector), perfdog_jank (every
interval meeting PerfDog's Jank rule, BigJanks included) and perfdog_big_jank are summed over the row's layers;
max_frame_delay and perfdog_stutter_pct are the largest, sm and gt_sm the lowest; avg_surface_fps, fps_mean
and fps_1pct_low are those of the layer with the most presents. idle_gaps, active_fps and perfdog_*_active
leave out idle gaps, where nothing asked to draw (`ftl explain idle`); null where the source does not record
when frames were asked for (--latency, logcat). top_cause is the commonest cause of the row's late frames
(`ftl explain causes`), top_cause_pct its share of them; null without scheduler data (sched/sched_switch).
Numeric columns for --sort and --fail-on:
  refresh_rate_hz, span_ms, frames, janky_frames, janky_pct, app_janky_frames, sf_janky_frames,
  dropped_frames, top_cause_frames, top_cause_pct, frame_dur_ms_p99, overrun_ms_p99, max_frame_delay, jank_count, avg_surface_fps, fps_mean,
  fps_1pct_low, perfdog_jank, perfdog_big_jank, perfdog_stutter_pct, idle_gaps, active_fps,
  perfdog_jank_active, perfdog_big_jank_active, perfdog_stutter_pct_active, sm, gt_sm, agreement_pct,
  diagnostics_count, file_bytes
Exit codes: 0 all inputs analysed (and no --fail-on condition holds), 1 some inputs failed, the batch was
interrupted or a --fail-on condition holds, 2 usage or output error.

Examples:
  ftl batch traces/                                   # ranked by janky_pct, worst first
  ftl batch 'fleet/**/*.pftrace' --by layer --sort frame_dur_ms_p99
  ftl batch captures/ --sort perfdog_stutter_pct --fail-on 'perfdog_big_jank>0'
  ftl batch traces/ -r -o out --format parquet        # out/triage.parquet + out/frames/trace=NAME/part-0.parquet
                                                      #   (+ out/series/trace=NAME/part-0.parquet for captures)
  ftl batch traces/ -o reports --format html          # reports/index.html + one report per input
  ftl batch traces/ --fail-on 'janky_pct>5,dropped_frames>0'";

/// `ftl batch` arguments.
#[derive(Debug, Args)]
#[command(after_help = BATCH_HELP)]
pub struct BatchArgs {
    /// Trace files, directories or globs (quote a glob to let ftl expand it). Files named directly are always
    /// analysed; files found in directories or by globs are recognised by content (gzip, or a protobuf Trace),
    /// the others are skipped and listed (an empty file counts as a failed capture, not as skipped).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    #[command(flatten)]
    analysis: AnalysisArgs,
    #[command(flatten)]
    window: super::WindowArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = BatchFormat::Text)]
    format: BatchFormat,
    /// Output file (text, csv, json; stdout if omitted) or directory (parquet: triage.parquet and
    /// frames/trace=NAME/part-0.parquet, the per-frame rows of `ftl frames` for every trace; a frames/ left by
    /// an earlier run is replaced).
    #[arg(short, long, value_name = "PATH")]
    output: Option<PathBuf>,
    /// Traces analysed at the same time (default: one per core).
    #[arg(short, long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
    /// Descend into subdirectories of the directories given.
    #[arg(short, long)]
    recursive: bool,
    /// Rank by this numeric column, largest first (ties by path; failed traces last).
    #[arg(long, value_name = "COLUMN", default_value = "janky_pct")]
    sort: Column,
    /// One row per trace, or per trace × app process, or per trace × layer.
    #[arg(long, value_enum, default_value_t = By::Trace)]
    by: By,
    /// Rows shown by the text format.
    #[arg(long, value_name = "N", default_value_t = 20)]
    top: usize,
    /// Exit 1 if a condition `COLUMN OP NUMBER` (OP: > >= < <= == !=) holds for any analysed row, e.g.
    /// 'janky_pct>5'. Repeat the option or separate conditions with commas: any one triggers.
    #[arg(long, value_name = "COND", value_delimiter = ',')]
    fail_on: Vec<Condition>,
    /// No progress bar (it is also off when stderr is not a terminal).
    #[arg(short, long)]
    quiet: bool,
}

impl BatchArgs {
    /// Whether the run writes Parquet (the triage table and the per-frame partitions).
    pub(super) fn writes_parquet(&self) -> bool {
        self.format == BatchFormat::Parquet
    }
}

/// Output formats of `ftl batch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BatchFormat {
    /// The top rows as an aligned table, then failed and skipped files and a summary line.
    Text,
    /// The triage table as CSV.
    Csv,
    /// The triage table as a JSON array of rows.
    Json,
    /// triage.parquet and Hive-partitioned per-frame tables under -o DIR.
    Parquet,
    /// One offline HTML report per input under -o DIR (`DIR/<trace>.html`, as `ftl report`) and DIR/index.html,
    /// the ranked triage table whose rows open them.
    Html,
}

/// What one row covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum By {
    /// One row per trace.
    Trace,
    /// One row per trace × app process.
    Process,
    /// One row per trace × layer.
    Layer,
}

impl From<By> for Grouping {
    fn from(by: By) -> Self {
        match by {
            By::Trace => Grouping::Trace,
            By::Process => Grouping::Process,
            By::Layer => Grouping::Layer,
        }
    }
}

/// Totals of a batch for the summary line.
struct Summary {
    ok: usize,
    failed: usize,
    skipped: usize,
    not_started: usize,
    frames: u64,
    bytes: u64,
    elapsed: Duration,
    jobs: usize,
}

impl Summary {
    fn new(result: &BatchResult, skipped: usize, elapsed: Duration, jobs: usize) -> Self {
        let failed = result.outcomes.iter().filter(|o| o.failed).count();
        Summary {
            ok: result.outcomes.len() - failed,
            failed,
            skipped,
            not_started: result.not_started,
            frames: result
                .outcomes
                .iter()
                .flat_map(|o| &o.rows)
                .filter_map(|r| r.frames)
                .sum(),
            bytes: result.outcomes.iter().map(|o| o.file_bytes).sum(),
            elapsed,
            jobs,
        }
    }

    fn line(&self) -> String {
        let secs = self.elapsed.as_secs_f64();
        let mut line = format!(
            "{} inputs ok, {} failed, {} skipped; {} frames; {secs:.2} s, {:.1} MB/s with {} jobs",
            self.ok,
            self.failed,
            self.skipped,
            self.frames,
            self.bytes as f64 / 1e6 / secs.max(1e-9),
            self.jobs
        );
        if self.not_started > 0 {
            let _ = write!(
                line,
                "; interrupted: {} traces not started",
                self.not_started
            );
        }
        line
    }
}

/// Runs `ftl batch`; exit code 0 if every input was analysed and no `--fail-on` condition holds, else 1.
pub fn run(args: &BatchArgs) -> Result<ExitCode> {
    let mut options = batch::Options {
        jobs: args.jobs.map_or_else(
            || std::thread::available_parallelism().map_or(1, usize::from),
            usize::from,
        ),
        config: args.analysis.config_in(&args.window)?,
        grouping: args.by.into(),
    };
    // The HTML reports draw SurfaceFlinger's DisplayFrames too.
    options.config.display_frame_rows = args.format == BatchFormat::Html;
    let out_dir = match (args.format, &args.output) {
        (BatchFormat::Parquet | BatchFormat::Html, None) => {
            let what = if args.format == BatchFormat::Html {
                "html writes index.html and one report per input"
            } else {
                "parquet writes triage.parquet and frames/"
            };
            return Err(Error::Usage(format!(
                "--format {what} into a directory: give -o DIR"
            )));
        }
        (BatchFormat::Parquet | BatchFormat::Html, Some(dir)) => Some(dir.clone()),
        _ => None,
    };
    let frames_dir = out_dir
        .as_ref()
        .filter(|_| args.format == BatchFormat::Parquet);
    let html_dir = out_dir
        .as_ref()
        .filter(|_| args.format == BatchFormat::Html);
    if let Some(dir) = html_dir {
        std::fs::create_dir_all(dir).map_err(|e| Error::Output {
            path: dir.clone(),
            cause: e.to_string(),
        })?;
    }
    let inputs = batch::collect_inputs(&args.paths, args.recursive)?;
    let jobs = batch::jobs(&inputs.traces);
    if let Some(out) = &frames_dir {
        batch::clear_partitions(out)?;
    }
    let stop = Arc::new(AtomicBool::new(false));
    let handler_stop = Arc::clone(&stop);
    if let Err(e) = ctrlc::set_handler(move || {
        if handler_stop.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        eprintln!("\nftl: interrupted: finishing the traces under way (Ctrl-C again to quit now)");
    }) {
        eprintln!("ftl: Ctrl-C will not stop the batch cleanly: {e}");
    }
    let bar = progress_bar(jobs.len(), args.quiet);
    let started = Instant::now();
    let bytes_done = AtomicU64::new(0);
    let progress = |o: &Outcome| {
        let bytes = bytes_done.fetch_add(o.file_bytes, Ordering::Relaxed) + o.file_bytes;
        let secs = started.elapsed().as_secs_f64().max(1e-9);
        bar.set_message(format!("{:.1} MB/s", bytes as f64 / 1e6 / secs));
        bar.inc(1);
    };
    let sink = |job: &Job, analysis: &Analysis| match (frames_dir, html_dir) {
        (Some(out), _) => batch::write_partition(out, &job.name, analysis),
        (_, Some(out)) => crate::output::html::write(
            analysis,
            &out.join(format!("{}.html", job.name)),
            &crate::output::html::HtmlOptions::default(),
        ),
        _ => Ok(()),
    };
    let result = batch::run(&jobs, &options, &stop, sink, progress)?;
    bar.finish_and_clear();
    let summary = Summary::new(
        &result,
        inputs.skipped.len(),
        started.elapsed(),
        options.jobs,
    );
    let mut rows: Vec<TriageRow> = result.outcomes.into_iter().flat_map(|o| o.rows).collect();
    batch::rank(&mut rows, args.sort);
    let output = args.output.as_deref();
    match args.format {
        BatchFormat::Text => {
            let text = render(&rows, &inputs.skipped, &summary, args);
            crate::output::write_output(output, |w| std::io::Write::write_all(w, text.as_bytes()))?;
        }
        BatchFormat::Html => {
            let dir = html_dir.map_or_else(PathBuf::new, PathBuf::clone);
            crate::output::html::write_index(&rows, &dir.join("index.html"))?;
            eprint!("{}", problems(&inputs.skipped, &rows));
            eprintln!(
                "ftl: {}; open {}",
                summary.line(),
                dir.join("index.html").display()
            );
        }
        BatchFormat::Csv | BatchFormat::Json | BatchFormat::Parquet => {
            let (format, path) = match (args.format, output) {
                (BatchFormat::Csv, p) => (TableFormat::Csv, p.map(Path::to_path_buf)),
                (BatchFormat::Json, p) => (TableFormat::Json, p.map(Path::to_path_buf)),
                (_, p) => (TableFormat::Parquet, p.map(|d| d.join(batch::TRIAGE_FILE))),
            };
            write_table(&mut to_dataframe(&rows)?, format, path.as_deref())?;
            eprint!("{}", problems(&inputs.skipped, &rows));
            eprintln!("ftl: {}", summary.line());
        }
    }
    let gate = regressions(&rows, &args.fail_on);
    if !gate.is_empty() {
        eprint!("{gate}");
    }
    Ok(
        if summary.failed > 0 || summary.not_started > 0 || !gate.is_empty() {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        },
    )
}

/// Traces done / total, MB/s and ETA on a terminal; hidden with `--quiet` or when stderr is not a terminal.
fn progress_bar(total: usize, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let style = ProgressStyle::with_template(
        "{elapsed_precise} {wide_bar} {pos}/{len} inputs  {msg}  ETA {eta}",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar());
    ProgressBar::new(total as u64).with_style(style)
}

/// Lines naming every failed trace (its error), every truncated one and every skipped file (the reason).
fn problems(skipped: &[batch::Skipped], rows: &[TriageRow]) -> String {
    let failed: Vec<&TriageRow> = rows.iter().filter(|r| !r.is_ok()).collect();
    let mut out = String::new();
    if !failed.is_empty() {
        let _ = writeln!(out, "Failed ({}):", failed.len());
        for r in failed {
            let _ = writeln!(out, "  {}", r.status);
        }
    }
    let mut truncated: Vec<(&str, u64)> = rows
        .iter()
        .filter_map(|r| Some((r.path.as_str(), r.truncated_at_byte?)))
        .collect();
    truncated.sort_unstable();
    truncated.dedup();
    if !truncated.is_empty() {
        let _ = writeln!(
            out,
            "Truncated, analysed what was read ({}):",
            truncated.len()
        );
        for (path, at) in truncated {
            let _ = writeln!(
                out,
                "  {path}: the file ends inside the packet at byte {at}"
            );
        }
    }
    if !skipped.is_empty() {
        let _ = writeln!(out, "Skipped ({}):", skipped.len());
        for s in skipped {
            let _ = writeln!(out, "  {}: {}", s.path.display(), s.reason);
        }
    }
    out
}

/// The `--fail-on` message: per condition that holds, the rows it holds for; empty if none holds.
fn regressions(rows: &[TriageRow], conditions: &[Condition]) -> String {
    let mut out = String::new();
    for c in conditions {
        let hits: Vec<String> = rows
            .iter()
            .filter(|r| r.is_ok() && c.holds(r))
            .map(|r| {
                let scope = match (&r.layer_name, &r.process_name) {
                    (Some(l), _) => format!(" [{l}]"),
                    (None, Some(p)) => format!(" [{p}]"),
                    (None, None) => String::new(),
                };
                let value = c.column.value(r).unwrap_or(f64::NAN);
                format!("{}{scope} ({} = {value:.2})", r.path, c.column)
            })
            .collect();
        if !hits.is_empty() {
            let _ = writeln!(
                out,
                "ftl: --fail-on {c} holds for {} rows: {}",
                hits.len(),
                hits.join(", ")
            );
        }
    }
    out
}

/// The device column: product and Android release from the build fingerprint ([`label::device`]).
fn device(fingerprint: Option<&str>) -> String {
    fingerprint.map_or_else(
        || label::ABSENT.into(),
        |f| label::elide(&label::device(f), 24),
    )
}

/// A layer name for the table: readable, at most 40 characters.
fn layer(name: Option<&str>) -> String {
    name.map_or_else(
        || label::ABSENT.into(),
        |n| label::elide(&label::layer_label(n), 40),
    )
}

fn num(v: Option<f64>, decimals: usize) -> String {
    v.map_or_else(|| label::ABSENT.into(), |v| format!("{v:.decimals$}"))
}

fn count(v: Option<u64>) -> String {
    v.map_or_else(|| label::ABSENT.into(), |v| v.to_string())
}

/// The text report: the top rows, then problems and the summary line.
fn render(
    rows: &[TriageRow],
    skipped: &[batch::Skipped],
    summary: &Summary,
    args: &BatchArgs,
) -> String {
    let ok: Vec<&TriageRow> = rows.iter().filter(|r| r.is_ok()).collect();
    let scope = match args.by {
        By::Trace => None,
        By::Process => Some("process"),
        By::Layer => Some("layer"),
    };
    let mut header = vec!["#", "trace"];
    header.extend(scope);
    header.extend([
        "device", "Hz", "span s", "frames", "janky", "janky %", "app", "SF", "dropped",
    ]);
    // On per-layer rows the worst layer is the row's own layer.
    let worst_layer = args.by != By::Layer;
    header.extend(worst_layer.then_some("worst layer"));
    header.extend([
        "top cause",
        "p99 ms",
        "p99 overrun ms",
        "max delay",
        "agree %",
        "diag",
    ]);
    let mut t = Table::new();
    t.load_preset(UTF8_BORDERS_ONLY)
        .set_header(header.iter().map(Cell::new));
    for (i, r) in ok.iter().take(args.top).enumerate() {
        let mut cells = vec![(i + 1).to_string(), r.trace.clone()];
        match args.by {
            By::Trace => {}
            By::Process => cells.push(format!(
                "{} ({})",
                r.process_name.as_deref().unwrap_or("?"),
                r.pid.unwrap_or(0)
            )),
            By::Layer => cells.push(layer(r.layer_name.as_deref())),
        }
        cells.extend([
            device(r.device.as_deref()),
            num(r.refresh_rate_hz, 1),
            num(r.span_ms.map(|ms| ms / 1e3), 2),
            count(r.frames),
            count(r.janky_frames),
            num(r.janky_pct, 1),
            count(r.app_janky_frames),
            count(r.sf_janky_frames),
            count(r.dropped_frames),
        ]);
        cells.extend(worst_layer.then(|| layer(r.worst_layer.as_deref())));
        cells.extend([
            r.top_cause.as_ref().map_or_else(
                || label::ABSENT.into(),
                |c| format!("{c} ({}%)", num(r.top_cause_pct, 0)),
            ),
            num(r.frame_dur_ms_p99, 2),
            num(r.overrun_ms_p99, 2),
            r.max_frame_delay
                .map_or_else(|| label::ABSENT.into(), |d| format!("{d} vsync")),
            num(r.agreement_pct, 1),
            count(r.diagnostics_count),
        ]);
        t.add_row(cells);
    }
    for (i, name) in header.iter().enumerate() {
        let text = matches!(
            *name,
            "trace" | "process" | "layer" | "device" | "worst layer" | "top cause"
        );
        if let (false, Some(c)) = (text, t.column_mut(i)) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    let mut out = format!(
        "Triage: {} rows ranked by {} (largest first), top {}\n{t}\n",
        ok.len(),
        args.sort,
        args.top.min(ok.len())
    );
    out.push_str(&problems(skipped, rows));
    let _ = writeln!(out, "{}", summary.line());
    out
}
