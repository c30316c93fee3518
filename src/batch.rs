//! Many traces in parallel (rayon) into one triage row per trace (or per trace × process / layer): inputs found
//! by content, deterministic order, per-file failure isolation, progress and per-trace output through callbacks.

use crate::analysis::frames::FrameRow;
use crate::analysis::metrics::{FrameTimes, LayerSummary};
use crate::analysis::percentile::percentile;
use crate::analysis::{Config, Report};
use crate::error::{Error, Result};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};

/// The `status` of a triage row whose trace was analysed.
pub const OK: &str = "ok";

/// A file met while expanding directories or globs that is not analysed, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The file or directory.
    pub path: PathBuf,
    /// Why it was skipped (one line).
    pub reason: String,
}

/// The expanded command-line paths: traces to analyse (sorted, unique) and what was skipped (sorted).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Inputs {
    /// Files to analyse.
    pub traces: Vec<PathBuf>,
    /// Files and directories left out, with the reason.
    pub skipped: Vec<Skipped>,
}

/// Expands `paths` into [`Inputs`]. A path naming a file is always analysed (the user asked for it; a bad file
/// becomes a failed row). Directories are listed (descending into subdirectories only if `recursive`) and globs
/// expanded; the files found there are analysed only if [`input::detect`](crate::input::detect) recognises them, others are skipped with the
/// reason. A missing path that is not a glob is kept, so that it fails as a row. Errors: an invalid glob
/// pattern ([`Error::Usage`]), a directory that cannot be listed ([`Error::Io`]).
pub fn collect_inputs(paths: &[PathBuf], recursive: bool) -> Result<Inputs> {
    let mut traces = BTreeSet::new();
    let mut skipped = Vec::new();
    for path in paths {
        if path.is_dir() {
            walk(path, recursive, &mut traces, &mut skipped)?;
        } else if path.exists() || !is_glob(path) {
            traces.insert(path.clone());
        } else {
            let pattern = path.to_string_lossy();
            let matches = glob::glob(&pattern)
                .map_err(|e| Error::Usage(format!("{pattern}: invalid glob: {e}")))?;
            let mut any = false;
            for found in matches {
                any = true;
                match found {
                    Ok(p) if p.is_dir() => walk(&p, recursive, &mut traces, &mut skipped)?,
                    Ok(p) => discovered(p, &mut traces, &mut skipped),
                    Err(e) => skipped.push(Skipped {
                        path: e.path().to_path_buf(),
                        reason: e.error().to_string(),
                    }),
                }
            }
            if !any {
                skipped.push(Skipped {
                    path: path.clone(),
                    reason: "the pattern matches no file".into(),
                });
            }
        }
    }
    skipped.retain(|s| !traces.contains(&s.path));
    skipped.sort_by(|a, b| a.path.cmp(&b.path));
    skipped.dedup();
    Ok(Inputs {
        traces: traces.into_iter().collect(),
        skipped,
    })
}

fn is_glob(path: &Path) -> bool {
    path.to_string_lossy().contains(['*', '?', '['])
}

/// A file found by listing: analysed if it looks like a trace or cannot be read (so that it fails as a row).
fn discovered(path: PathBuf, traces: &mut BTreeSet<PathBuf>, skipped: &mut Vec<Skipped>) {
    match crate::input::detect(&path) {
        Ok(Err(reason)) => skipped.push(Skipped { path, reason }),
        Ok(Ok(_)) | Err(_) => {
            traces.insert(path);
        }
    }
}

/// Lists `dir` (and, if `recursive`, its subdirectories) in name order. Symbolic links are not followed into
/// directories, so a link loop cannot make the walk endless.
fn walk(
    dir: &Path,
    recursive: bool,
    traces: &mut BTreeSet<PathBuf>,
    skipped: &mut Vec<Skipped>,
) -> Result<()> {
    let depth = if recursive { usize::MAX } else { 1 };
    let entries = walkdir::WalkDir::new(dir)
        .min_depth(1)
        .max_depth(depth)
        .sort_by_file_name();
    for entry in entries {
        let entry = entry.map_err(|e| Error::Io {
            path: e.path().unwrap_or(dir).to_path_buf(),
            source: e.into(),
        })?;
        let path = entry.path().to_path_buf();
        let reason = if entry.file_type().is_dir() {
            if recursive {
                continue;
            }
            "directory (use --recursive to descend)"
        } else if entry.path_is_symlink() && path.is_dir() {
            "symbolic link to a directory (not followed)"
        } else {
            discovered(path, traces, skipped);
            continue;
        };
        skipped.push(Skipped {
            path,
            reason: reason.into(),
        });
    }
    Ok(())
}

/// One trace to analyse, with a name unique in the batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Job {
    /// The file.
    pub path: PathBuf,
    /// Its file name reduced to `[A-Za-z0-9._-]`, made unique with a `-2`, `-3`... suffix: the `trace` column
    /// and the Hive partition key of per-trace outputs.
    pub name: String,
}

/// Names the traces (see [`Job::name`]); deterministic for a given (sorted) list.
pub fn jobs(traces: &[PathBuf]) -> Vec<Job> {
    let mut taken = BTreeSet::new();
    traces
        .iter()
        .map(|path| {
            let base: String = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| path.to_string_lossy().into_owned())
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || "._-".contains(c) {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            let mut name = base.clone();
            let mut n = 1;
            while !taken.insert(name.clone()) {
                n += 1;
                name = format!("{base}-{n}");
            }
            Job {
                path: path.clone(),
                name,
            }
        })
        .collect()
}

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

/// One row of the triage table. Frame counts are over actual SurfaceFrames (app frames) as in `ftl analyze`'s
/// verdict and per-layer table ([`LayerSummary`]); optional fields are null for failed traces.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TriageRow {
    /// The trace's unique name in the batch ([`Job::name`]), the `trace=` partition of `frames/`.
    pub trace: String,
    /// The trace file as found.
    pub path: String,
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
    /// 99th percentile actual frame duration, ms; dropped and unfinished frames excluded.
    pub frame_dur_ms_p99: Option<f64>,
    /// 99th percentile overrun (actual end − expected end), ms.
    pub overrun_ms_p99: Option<f64>,
    /// Longest present-to-present interval of any layer, vsyncs (Chromium `max_frame_delay`).
    pub max_frame_delay: Option<i64>,
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

/// Triage rows of an analysed trace: one per trace, or per (trace, process) / (trace, process, layer) in
/// (pid, layer name) order.
pub fn triage_rows(job: &Job, report: &Report, grouping: Grouping) -> Vec<TriageRow> {
    type Group<'r> = (Vec<&'r LayerSummary>, Vec<&'r FrameRow>);
    let mut groups: BTreeMap<(Option<i32>, Option<&str>), Group> = BTreeMap::new();
    for l in &report.layers {
        let key = group_key(grouping, l.pid, &l.layer_name);
        groups.entry(key).or_default().0.push(l);
    }
    for f in &report.frames {
        let key = group_key(grouping, f.pid, &f.layer_name);
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

fn group_key(grouping: Grouping, pid: i32, layer: &str) -> (Option<i32>, Option<&str>) {
    match grouping {
        Grouping::Trace => (None, None),
        Grouping::Process => (Some(pid), None),
        Grouping::Layer => (Some(pid), Some(layer)),
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
    let times = FrameTimes::of(frames);
    row.frame_dur_ms_p99 = percentile(&times.dur_ms, 99.0);
    row.overrun_ms_p99 = percentile(&times.overrun_ms, 99.0);
    row.max_frame_delay = layers.iter().filter_map(|l| l.max_frame_delay).max();
    row
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
    /// `frame_dur_ms_p99`.
    FrameDurMsP99,
    /// `overrun_ms_p99`.
    OverrunMsP99,
    /// `max_frame_delay`.
    MaxFrameDelay,
    /// `agreement_pct`.
    AgreementPct,
    /// `diagnostics_count`.
    DiagnosticsCount,
    /// `file_bytes`.
    FileBytes,
}

impl Column {
    /// Every column, in table order.
    pub const ALL: [Column; 14] = [
        Column::RefreshRateHz,
        Column::SpanMs,
        Column::Frames,
        Column::JankyFrames,
        Column::JankyPct,
        Column::AppJankyFrames,
        Column::SfJankyFrames,
        Column::DroppedFrames,
        Column::FrameDurMsP99,
        Column::OverrunMsP99,
        Column::MaxFrameDelay,
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
            Column::FrameDurMsP99 => "frame_dur_ms_p99",
            Column::OverrunMsP99 => "overrun_ms_p99",
            Column::MaxFrameDelay => "max_frame_delay",
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
            Column::FrameDurMsP99 => row.frame_dur_ms_p99,
            Column::OverrunMsP99 => row.overrun_ms_p99,
            Column::MaxFrameDelay => row.max_frame_delay.map(|v| v as f64),
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
        Column::ALL
            .into_iter()
            .find(|c| c.name() == s.trim())
            .ok_or_else(|| {
                let names: Vec<&str> = Column::ALL.iter().map(|c| c.name()).collect();
                format!("unknown column '{s}'; one of: {}", names.join(", "))
            })
    }
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

    fn symbol(self) -> &'static str {
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
        self.column.value(row).is_some_and(|v| match self.op {
            Op::Gt => v > self.threshold,
            Op::Ge => v >= self.threshold,
            Op::Lt => v < self.threshold,
            Op::Le => v <= self.threshold,
            Op::Eq => v == self.threshold,
            Op::Ne => v != self.threshold,
        })
    }
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}{}", self.column, self.op.symbol(), self.threshold)
    }
}

impl FromStr for Condition {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = |why: &str| format!("'{s}': {why}; expected COLUMN OP NUMBER, e.g. janky_pct>5");
        let at = s
            .find(['<', '>', '=', '!'])
            .ok_or_else(|| bad("no operator (> >= < <= == !=)"))?;
        let (column, rest) = s.split_at(at);
        let (symbol, op) = Op::ALL
            .into_iter()
            .find(|(sym, _)| rest.starts_with(sym))
            .ok_or_else(|| bad("unknown operator"))?;
        let number = rest[symbol.len()..].trim();
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

/// How to run a batch.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Traces analysed at the same time (threads of a local rayon pool); 0 means one per core.
    pub jobs: usize,
    /// Analysis options, the same for every trace.
    pub config: Config,
    /// Rows per trace.
    pub grouping: Grouping,
}

/// What became of one trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Its rows: the triage rows, or one row whose `status` is the error.
    pub rows: Vec<TriageRow>,
    /// File size, bytes (0 if unknown).
    pub file_bytes: u64,
    /// True if the trace failed.
    pub failed: bool,
}

/// A finished batch: outcomes in job order, without the traces not started because of `stop`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BatchResult {
    /// One per started trace, in job order.
    pub outcomes: Vec<Outcome>,
    /// Traces not started because the batch was stopped.
    pub not_started: usize,
}

/// Analyses `jobs` in parallel on a local pool of `options.jobs` threads, each trace streamed by
/// [`crate::load_path`]. Per trace, on its worker: `sink(job, report)` (e.g. write its frames) while the
/// [`Report`] is alive, then the report is dropped and only its rows are kept, then `progress(outcome)`. A
/// trace that fails to load, or whose sink fails, becomes a failed row and never stops the batch. Once `stop` is
/// set no new trace is started. Peak memory ≈ `jobs` × one trace's model and report. Errors: the thread pool
/// cannot be built.
pub fn run<S, P>(
    jobs: &[Job],
    options: &Options,
    stop: &AtomicBool,
    sink: S,
    progress: P,
) -> Result<BatchResult>
where
    S: Fn(&Job, &Report) -> Result<()> + Sync,
    P: Fn(&Outcome) + Sync,
{
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.jobs)
        .thread_name(|i| format!("ftl-batch-{i}"))
        .build()
        .map_err(|e| Error::Usage(format!("cannot start {} threads: {e}", options.jobs)))?;
    let outcomes: Vec<Option<Outcome>> = pool.install(|| {
        jobs.par_iter()
            .with_max_len(1)
            .map(|job| {
                if stop.load(Ordering::Relaxed) {
                    return None;
                }
                let outcome = analyze_one(job, options, &sink);
                progress(&outcome);
                Some(outcome)
            })
            .collect()
    });
    let started = outcomes.iter().flatten().count();
    Ok(BatchResult {
        not_started: outcomes.len() - started,
        outcomes: outcomes.into_iter().flatten().collect(),
    })
}

fn analyze_one<S>(job: &Job, options: &Options, sink: &S) -> Outcome
where
    S: Fn(&Job, &Report) -> Result<()>,
{
    let analysed = crate::analyze_path(&job.path, &options.config).and_then(|report| {
        sink(job, &report)?;
        Ok((
            triage_rows(job, &report, options.grouping),
            report.trace.file_bytes,
        ))
    });
    match analysed {
        Ok((rows, file_bytes)) => Outcome {
            rows,
            file_bytes,
            failed: false,
        },
        Err(e) => {
            let file_bytes = std::fs::metadata(&job.path).map_or(0, |m| m.len());
            Outcome {
                rows: vec![TriageRow {
                    trace: job.name.clone(),
                    path: job.path.display().to_string(),
                    file_bytes,
                    status: e.to_string(),
                    ..TriageRow::default()
                }],
                file_bytes,
                failed: true,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(path: &str, janky_pct: Option<f64>, status: &str) -> TriageRow {
        TriageRow {
            path: path.into(),
            janky_pct,
            status: status.into(),
            ..TriageRow::default()
        }
    }

    #[test]
    fn job_names_are_unique_and_safe() {
        let names: Vec<String> = jobs(&[
            PathBuf::from("a/x y.pftrace"),
            PathBuf::from("b/x y.pftrace"),
            PathBuf::from("c/x_y.pftrace"),
        ])
        .into_iter()
        .map(|j| j.name)
        .collect();
        assert_eq!(names, ["x_y.pftrace", "x_y.pftrace-2", "x_y.pftrace-3"]);
    }

    #[test]
    fn rank_sorts_descending_with_ties_by_path_and_failures_last() {
        let mut rows = vec![
            row("z", None, "z: broken"),
            row("b", Some(5.0), OK),
            row("c", None, OK),
            row("a", Some(5.0), OK),
            row("d", Some(9.0), OK),
            row("a0", None, "a0: empty"),
        ];
        rank(&mut rows, Column::JankyPct);
        let order: Vec<&str> = rows.iter().map(|r| r.path.as_str()).collect();
        assert_eq!(order, ["d", "a", "b", "c", "a0", "z"]);
    }

    #[test]
    fn conditions_parse_and_hold() {
        let c: Condition = "janky_pct>5".parse().unwrap();
        assert_eq!(c.column, Column::JankyPct);
        assert_eq!(c.op, Op::Gt);
        assert!(c.holds(&row("a", Some(5.5), OK)));
        assert!(!c.holds(&row("a", Some(5.0), OK)));
        assert!(!c.holds(&row("a", None, OK)), "null never triggers");
        let ge: Condition = " janky_pct >= 5 ".parse().unwrap();
        assert!(ge.holds(&row("a", Some(5.0), OK)));
        for (text, op) in [
            ("<", Op::Lt),
            ("<=", Op::Le),
            ("==", Op::Eq),
            ("!=", Op::Ne),
        ] {
            let c: Condition = format!("frames{text}1").parse().unwrap();
            assert_eq!(c.op, op);
            assert_eq!(c.to_string(), format!("frames{text}1"));
        }
        for bad in [
            "janky_pct",
            "janky_pct>>5",
            "janky_pct=5",
            "nope>5",
            "janky_pct>x",
            "frames>inf",
        ] {
            assert!(bad.parse::<Condition>().is_err(), "{bad} parsed");
        }
    }

    #[test]
    fn column_names_are_triage_fields() {
        let fields = match serde_json::to_value(TriageRow::default()).unwrap() {
            serde_json::Value::Object(m) => m,
            _ => unreachable!(),
        };
        for c in Column::ALL {
            assert!(fields.contains_key(c.name()), "{c}");
            assert_eq!(c.name().parse::<Column>(), Ok(c));
        }
    }

    #[test]
    fn stop_starts_nothing_and_sink_errors_are_rows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("synth.pftrace");
        std::fs::write(&path, crate::synth::Pipeline::default().build().bytes()).unwrap();
        let jobs = jobs(&[path.clone(), path]);
        let options = Options {
            jobs: 2,
            ..Options::default()
        };
        let stopped = run(
            &jobs,
            &options,
            &AtomicBool::new(true),
            |_, _| Ok(()),
            |_| {},
        )
        .unwrap();
        assert_eq!(stopped.not_started, 2);
        assert!(stopped.outcomes.is_empty());
        let sink = |_: &Job, _: &Report| {
            Err(Error::Output {
                path: "out".into(),
                cause: "disk full".into(),
            })
        };
        let done = std::sync::atomic::AtomicUsize::new(0);
        let progress = |_: &Outcome| {
            done.fetch_add(1, Ordering::Relaxed);
        };
        let result = run(&jobs, &options, &AtomicBool::new(false), sink, progress).unwrap();
        assert_eq!(done.load(Ordering::Relaxed), 2);
        assert!(result.outcomes.iter().all(|o| o.failed));
        assert_eq!(
            result.outcomes[0].rows[0].status,
            "out: cannot write output: disk full"
        );
        assert_eq!(result.outcomes[1].rows[0].trace, "synth.pftrace-2");
    }
}
