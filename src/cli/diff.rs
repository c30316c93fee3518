//! `ftl diff`: BASE vs NEW (two traces, two sets of runs, or two `ftl batch` Parquet outputs) into a table of
//! changes with verdicts, a `--fail-on` gate over the changes, and the picture.

use super::AnalysisArgs;
use crate::batch;
use crate::diff::metric::Metric;
use crate::diff::stats::Correction;
use crate::diff::table::{self, gate_failures, Diff, Gate};
use crate::diff::{self, render, LoadOptions, Side};
use crate::error::{Error, Result};
use crate::output::chart::diff::{DiffChart, LayerDelta};
use crate::output::table::{to_dataframe, write_table, TableFormat};
use clap::{Args, ValueEnum};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const DIFF_HELP: &str = "BASE and NEW are each a trace or capture, a directory or quoted glob of repeated runs, or the
output of `ftl batch --format parquet` (its -o DIR or the triage.parquet in it). Processes and layers are
matched by name with instance suffixes (#123) and addresses (@0xabc) dropped; rows on one side only are listed.

Metrics (per process and per layer; units in the names):
  frames (shown, not tested), janky_pct (the source's own measure, named in jank_measure: FrameTimeline jank
  tag, JankTracker for gfxinfo, PerfDog Jank for --latency), app_janky_pct, sf_janky_pct, dropped_pct
  (FrameTimeline jank tags, % of frames), frame_dur_ms_p50/p90/p99, overrun_ms_p90/p99, fps_mean, fps_1pct_low, perfdog_stutter_pct,
  sm, max_frame_delay (pacing: with repeated runs only)
Statistics: with >= 2 runs on each side the runs are the unit (Welch's t-test on per-run values); otherwise
the frames of each side are resampled with a circular block bootstrap (blocks of sqrt(n) frames, fixed seed),
which is weaker evidence. p-values are adjusted over all rows x metrics tested (Holm by default).
Verdicts: regressed / improved (adjusted p < --alpha, worse / better direction: more jank, longer frames,
lower FPS or sm are worse), no significant change, not tested, only in base, only in new.
Exit codes: 0 no --fail-on condition holds, 1 one holds (each offending row is named on stderr), 2 usage
error or an input that cannot be analysed.

Examples:
  ftl diff before.pftrace after.pftrace
  ftl diff 'base/*.perfetto-trace' 'new/*.perfetto-trace' --fail-on 'janky_pct>+1,frame_dur_ms_p90>+10%'
  ftl diff base_out/ new_out/ --format markdown -o comment.md   # two `ftl batch --format parquet -o` dirs
  ftl diff base/ new/ --png diff.png --format json -o diff.json";

/// `ftl diff` arguments.
#[derive(Debug, Args)]
#[command(after_help = DIFF_HELP)]
pub struct DiffArgs {
    /// The baseline: a trace, a directory or glob of runs, or `ftl batch` Parquet output.
    #[arg(value_name = "BASE")]
    base: PathBuf,
    /// The candidate, same kinds as BASE.
    #[arg(value_name = "NEW")]
    new: PathBuf,
    #[command(flatten)]
    analysis: AnalysisArgs,
    #[command(flatten)]
    window: super::WindowArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
    format: DiffFormat,
    /// Output file (stdout if omitted; Parquet needs a file).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Also draw base vs new frame-duration CDFs and per-layer janky % changes to this PNG (or SVG) file.
    #[arg(long, value_name = "FILE")]
    png: Option<PathBuf>,
    /// Also write the comparison as one offline HTML page: both sides' frame-duration CDFs, janky % per matched
    /// layer, and the verdict table, sortable and filterable (`ftl report --help` says what such a file holds).
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Significance level of the adjusted p-values.
    #[arg(long, value_name = "P", default_value_t = 0.05)]
    alpha: f64,
    /// Multiple-testing adjustment over all rows × metrics tested.
    #[arg(long, value_enum, default_value_t = CorrectionArg::Holm)]
    correction: CorrectionArg,
    /// Bootstrap resamples per row when a side has one run.
    #[arg(long, value_name = "N", default_value_t = 1000, value_parser = clap::value_parser!(u32).range(100..))]
    resamples: u32,
    /// Exit 1 if a condition holds for any matched row: `METRIC OP +N` (the change, e.g. 'janky_pct>+1'),
    /// `METRIC OP +N%` (relative to BASE, e.g. 'frame_dur_ms_p90>+10%'), or `METRIC OP N` (NEW's value, as in
    /// `ftl batch`). Changes count only when significant unless --no-significance. Repeat or separate with
    /// commas: any one triggers.
    #[arg(long, value_name = "COND", value_delimiter = ',')]
    fail_on: Vec<Gate>,
    /// Let --fail-on change conditions hold on any change, significant or not.
    #[arg(long)]
    no_significance: bool,
    /// Inputs analysed at the same time (default: one per core).
    #[arg(short, long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    jobs: Option<u16>,
    /// Descend into subdirectories of BASE and NEW.
    #[arg(short, long)]
    recursive: bool,
}

/// Output formats of `ftl diff`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DiffFormat {
    /// The verdict, then the significant changes and headline metrics as a table.
    Text,
    /// One JSON object: verdict, mode, alpha, correction, counts, notes, rows.
    Json,
    /// The diff table as CSV.
    Csv,
    /// The diff table as Parquet (needs -o).
    Parquet,
    /// A pull-request comment: heading, pipe table, notes, all tests in a `<details>` block.
    Markdown,
}

/// `--correction`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CorrectionArg {
    /// Holm's step-down (family-wise error rate).
    Holm,
    /// Benjamini–Hochberg (false discovery rate).
    Bh,
    /// No adjustment.
    None,
}

impl From<CorrectionArg> for Correction {
    fn from(c: CorrectionArg) -> Self {
        match c {
            CorrectionArg::Holm => Correction::Holm,
            CorrectionArg::Bh => Correction::BenjaminiHochberg,
            CorrectionArg::None => Correction::None,
        }
    }
}

/// Runs `ftl diff`: 0, or 1 if a `--fail-on` condition holds.
pub fn run(args: &DiffArgs) -> Result<ExitCode> {
    if !(args.alpha > 0.0 && args.alpha < 1.0) {
        return Err(Error::Usage(format!(
            "--alpha must be between 0 and 1, got {}",
            args.alpha
        )));
    }
    if args.format == DiffFormat::Parquet && args.output.is_none() {
        return Err(Error::Usage("--format parquet needs -o FILE".into()));
    }
    let base_inputs = diff::find_inputs("BASE", std::slice::from_ref(&args.base), args.recursive)?;
    let new_inputs = diff::find_inputs("NEW", std::slice::from_ref(&args.new), args.recursive)?;
    let load = LoadOptions {
        batch: batch::Options {
            jobs: args.jobs.map_or_else(
                || std::thread::available_parallelism().map_or(1, usize::from),
                usize::from,
            ),
            config: args.analysis.config_in(&args.window)?,
            grouping: batch::Grouping::Trace,
        },
        recursive: args.recursive,
        // Frames are resampled when a side has one run; the picture's CDFs need them too.
        keep_frames: base_inputs.is_single_trace()
            || new_inputs.is_single_trace()
            || args.png.is_some()
            || args.html.is_some(),
    };
    let (base, new) = diff::load_sides(&base_inputs, &new_inputs, &load)?;
    let options = table::Options {
        alpha: args.alpha,
        correction: args.correction.into(),
        resamples: args.resamples as usize,
    };
    let d = table::diff(&base, &new, &options);
    write(&d, args.format, args.output.as_deref())?;
    if args.png.is_some() || args.html.is_some() {
        let picture = chart(&d, &base, &new);
        if let Some(png) = &args.png {
            picture.render(png)?;
        }
        if let Some(html) = &args.html {
            crate::output::html::write_diff(&d, &picture, html)?;
        }
    }
    let gate = gate_failures(&d, &args.fail_on, !args.no_significance);
    eprint!("{gate}");
    Ok(if gate.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn write(d: &Diff, format: DiffFormat, output: Option<&Path>) -> Result<()> {
    let text = match format {
        DiffFormat::Text => render::text(d),
        DiffFormat::Markdown => render::markdown(d),
        DiffFormat::Json => {
            return crate::output::write_output(output, |w| crate::output::json::write_pretty(w, d))
        }
        DiffFormat::Csv | DiffFormat::Parquet => {
            let format = if format == DiffFormat::Csv {
                TableFormat::Csv
            } else {
                TableFormat::Parquet
            };
            return write_table(&mut to_dataframe(&d.rows)?, format, output);
        }
    };
    crate::output::write_output(output, |w| w.write_all(text.as_bytes()))
}

/// The picture's data: every frame duration of each side's layer rows (all runs), and the janky % of every
/// matched layer.
fn chart(d: &Diff, base: &Side, new: &Side) -> DiffChart {
    let durations = |side: &Side| -> Vec<f64> {
        let mut v: Vec<f64> = side
            .runs
            .iter()
            .flat_map(|r| r.rows.iter())
            .filter(|(k, _)| k.level == diff::Level::Layer)
            .flat_map(|(_, s)| s.frames.iter().flatten())
            .filter_map(|f| f.dur_ms)
            .collect();
        v.sort_by(f64::total_cmp);
        v
    };
    let layers = d
        .rows
        .iter()
        .filter(|r| {
            r.level == "layer"
                && r.metric == Metric::JankyPct.name()
                && r.base_runs > 0
                && r.new_runs > 0
        })
        .filter_map(|r| {
            Some(LayerDelta {
                layer: r.layer_name.clone()?,
                base_pct: r.base_value?,
                new_pct: r.new_value?,
                verdict: r.verdict.clone(),
            })
        })
        .collect();
    DiffChart {
        title: format!("ftl diff: {}", render::headline(d)),
        base_ms: durations(base),
        new_ms: durations(new),
        layers,
    }
}
