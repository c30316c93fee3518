//! `ftl diff`'s inputs and matching: each side (BASE, NEW) is one trace, a set of repeated runs (directory,
//! glob) or `ftl batch` Parquet output, analysed with the batch machinery into per-run, per-process and
//! per-layer rows keyed by normalised names, so that two recordings of the same app pair up.

pub mod metric;
pub mod render;
pub mod stats;
pub mod table;

use crate::analysis::Analysis;
use crate::batch::{self, Grouping, Job, TriageRow};
use crate::error::{Error, Result};
use metric::{FrameSample, Metric};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

/// What a row covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// A whole input (Parquet outputs of `ftl batch --by trace`).
    Trace,
    /// An app process: its layers together.
    Process,
    /// One layer (or a capture's layer / window).
    Layer,
}

impl Level {
    /// `trace`, `process` or `layer`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Trace => "trace",
            Level::Process => "process",
            Level::Layer => "layer",
        }
    }
}

/// The matching key of a row: level and normalised names ([`normalize`]); a name met twice in one run gets
/// ` [2]`, ` [3]` ... in row order.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key {
    /// What the row covers.
    pub level: Level,
    /// Normalised process name ("" when none).
    pub process: String,
    /// Normalised layer name ("" when none).
    pub layer: String,
}

/// A process or layer name without what changes between two recordings of the same app: instance suffixes
/// `#<digits>` (SurfaceFlinger's layer sequence numbers, `MainActivity#50010` ↔ `MainActivity#61234`) and object
/// addresses `@0x<hex>` (`Surface(name=Task=1)/@0x50aef49`) are dropped; everything else is kept.
pub fn normalize(name: &str) -> String {
    let b = name.as_bytes();
    let mut out = String::with_capacity(name.len());
    let mut i = 0;
    while i < b.len() {
        let run = |from: usize, f: fn(&u8) -> bool| b[from..].iter().take_while(|c| f(c)).count();
        if b[i] == b'#' {
            let n = run(i + 1, u8::is_ascii_digit);
            if n > 0 {
                i += 1 + n;
                continue;
            }
        } else if b[i..].starts_with(b"@0x") {
            let n = run(i + 3, u8::is_ascii_hexdigit);
            if n > 0 {
                i += 3 + n;
                continue;
            }
        }
        let c = name[i..].chars().next().unwrap_or(' ');
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// One row of one run: its headline numbers and, when kept, its frames.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// The names as recorded (before normalisation).
    pub process_name: Option<String>,
    /// The layer name as recorded.
    pub layer_name: Option<String>,
    /// Every [`Metric`] in [`Metric::ALL`] order (`None` when undefined or not in the input).
    pub values: [Option<f64>; Metric::COUNT],
    /// The row's frames in time order (single-trace statistics); `None` when not kept or not available (text
    /// captures, Parquet inputs).
    pub frames: Option<Vec<FrameSample>>,
    /// What `janky_pct` counts ([`jank_measure`]).
    pub jank_measure: Option<&'static str>,
    /// The row's late frames per cause (`ftl explain causes`) and its late frames; `None` where not known
    /// (text captures, Parquet inputs).
    pub causes: Option<Causes>,
}

/// Late frames per cause of one row of one run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Causes {
    /// Late frames (with a late stage).
    pub late_frames: u64,
    /// Of those, per cause.
    pub frames: BTreeMap<String, u64>,
}

/// One analysed input of a side.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// The input's name ([`Job::name`], or the `trace` column of a Parquet input).
    pub name: String,
    /// Its rows by key.
    pub rows: BTreeMap<Key, Sample>,
}

/// One side of the comparison.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Side {
    /// The inputs, in path order.
    pub runs: Vec<Run>,
    /// What the side was read from: `traces` (any source ftl reads) or `parquet` (`ftl batch` output).
    pub kind: &'static str,
}

/// How to read a side.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// The batch options (threads, analysis config); the grouping is ignored.
    pub batch: batch::Options,
    /// Descend into subdirectories.
    pub recursive: bool,
    /// Keep each row's frames (needed when a side has a single run: the bootstrap resamples frames).
    pub keep_frames: bool,
}

/// A side's inputs before analysis: traces to analyse, or triage rows of `ftl batch` Parquet outputs.
#[derive(Debug, Clone, PartialEq)]
pub enum Inputs {
    /// Files to analyse (traces or text captures), sorted.
    Traces(Vec<PathBuf>),
    /// `triage.parquet` files (or directories holding one).
    Parquet(Vec<PathBuf>),
}

impl Inputs {
    /// True for a side of one trace or capture: its frames are what the tests resample (Parquet outputs
    /// carry no frames).
    pub fn is_single_trace(&self) -> bool {
        matches!(self, Inputs::Traces(t) if t.len() < 2)
    }
}

/// The triage Parquet file `path` names: itself if it ends in `.parquet`, `DIR/triage.parquet` for a directory
/// holding one (the `-o DIR` of `ftl batch --format parquet`).
fn parquet_of(path: &Path) -> Option<PathBuf> {
    if path.is_dir() {
        let t = path.join("triage.parquet");
        return t.is_file().then_some(t);
    }
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
        .then(|| path.to_path_buf())
}

/// Finds a side's inputs: `ftl batch` Parquet outputs if every path is one, else the traces and captures of
/// the files, directories and globs ([`batch::collect_inputs`]). `side` names the side in errors.
///
/// Errors: [`Error::Usage`] if nothing is found, if Parquet outputs and traces are mixed, or for an invalid
/// glob; [`Error::Io`] for a directory that cannot be listed.
pub fn find_inputs(side: &str, paths: &[PathBuf], recursive: bool) -> Result<Inputs> {
    let parquet: Vec<PathBuf> = paths.iter().filter_map(|p| parquet_of(p)).collect();
    if !parquet.is_empty() {
        if parquet.len() != paths.len() {
            return Err(Error::Usage(format!(
                "{side}: mixes `ftl batch` Parquet outputs with traces; give one kind per side"
            )));
        }
        return Ok(Inputs::Parquet(parquet));
    }
    let found = batch::collect_inputs(paths, recursive)?;
    if found.traces.is_empty() {
        let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        return Err(Error::Usage(format!(
            "{side}: no trace or capture found in {}",
            shown.join(", ")
        )));
    }
    Ok(Inputs::Traces(found.traces))
}

/// Reads both sides (BASE, NEW): the traces of both are analysed in one parallel batch ([`batch::run`]: one
/// pool, so that neither side waits for the other's last trace), Parquet sides are read as triage rows (one run
/// per `trace` value).
///
/// Errors: the first input that fails (its one-line error naming the file) — a diff over a side with a missing
/// run would compare different things —, and the errors of [`crate::output::table::read_parquet_rows`].
pub fn load_sides(base: &Inputs, new: &Inputs, options: &LoadOptions) -> Result<(Side, Side)> {
    let traces = |i: &Inputs| match i {
        Inputs::Traces(paths) => paths.clone(),
        Inputs::Parquet(_) => Vec::new(),
    };
    let (base_paths, new_paths) = (traces(base), traces(new));
    let mut runs = analyse(
        &[base_paths.as_slice(), new_paths.as_slice()].concat(),
        options,
    )?;
    let new_runs = runs.split_off(base_paths.len().min(runs.len()));
    let side = |inputs: &Inputs, runs: Vec<Run>| match inputs {
        Inputs::Traces(_) => Ok(Side {
            runs,
            kind: "traces",
        }),
        Inputs::Parquet(files) => read_parquet_side(files),
    };
    Ok((side(base, runs)?, side(new, new_runs)?))
}

fn read_parquet_side(files: &[PathBuf]) -> Result<Side> {
    let mut by_trace: BTreeMap<String, Vec<TriageRow>> = BTreeMap::new();
    for f in files {
        for row in crate::output::table::read_parquet_rows::<TriageRow>(f)? {
            if !row.is_ok() {
                return Err(Error::Usage(format!(
                    "{}: holds a failed input: {}",
                    f.display(),
                    row.status
                )));
            }
            by_trace.entry(row.trace.clone()).or_default().push(row);
        }
    }
    let runs = by_trace
        .into_iter()
        .map(|(name, rows)| Run {
            name,
            rows: keyed(rows.iter().map(|r| (r, None)), false),
        })
        .collect();
    Ok(Side {
        runs,
        kind: "parquet",
    })
}

/// Analyses `paths` in parallel; their runs in the same order.
fn analyse(paths: &[PathBuf], options: &LoadOptions) -> Result<Vec<Run>> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let jobs = batch::jobs(paths);
    let runs: Mutex<BTreeMap<String, Run>> = Mutex::new(BTreeMap::new());
    let sink = |job: &Job, analysis: &Analysis| {
        let run = run_of(job, analysis, options.keep_frames);
        if let Ok(mut runs) = runs.lock() {
            runs.insert(job.name.clone(), run);
        }
        Ok(())
    };
    let batch_options = batch::Options {
        grouping: Grouping::Trace,
        ..options.batch.clone()
    };
    let result = batch::run(&jobs, &batch_options, &AtomicBool::new(false), sink, |_| {})?;
    if let Some(failed) = result.outcomes.iter().find(|o| o.failed) {
        let status = failed.rows.first().map_or("failed", |r| r.status.as_str());
        return Err(Error::Usage(status.to_string()));
    }
    let mut runs = runs.into_inner().unwrap_or_default();
    Ok(jobs.iter().filter_map(|j| runs.remove(&j.name)).collect())
}

/// (pid, layer) of a triage row, as `ftl batch` groups them.
type RowKey<'a> = (Option<i32>, Option<&'a str>);

/// The rows of one analysed input: per process and per layer, with their frames if `keep_frames`.
fn run_of(job: &Job, analysis: &Analysis, keep_frames: bool) -> Run {
    let mut rows = batch::triage_rows(job, analysis, Grouping::Process);
    rows.extend(batch::triage_rows(job, analysis, Grouping::Layer));
    if let Analysis::Capture(c) = analysis {
        capture_jank(c, &mut rows);
    }
    let mut frames: BTreeMap<RowKey, Vec<FrameSample>> = BTreeMap::new();
    if let Analysis::Trace(report) = analysis {
        for f in &report.frames {
            let s = FrameSample::of(f);
            frames.entry((Some(f.pid), None)).or_default().push(s);
            frames
                .entry((Some(f.pid), Some(&*f.layer_name)))
                .or_default()
                .push(s);
        }
        for series in frames.values_mut() {
            series.sort_by_key(|f| f.start_ns);
        }
    }
    let with_frames: Vec<(&TriageRow, Option<&Vec<FrameSample>>)> = rows
        .iter()
        .map(|r| (r, frames.get(&(r.pid, r.layer_name.as_deref()))))
        .collect();
    let mut rows = keyed(with_frames.into_iter(), keep_frames);
    if let Analysis::Trace(report) = analysis {
        for sample in rows.values_mut() {
            let mut causes = Causes::default();
            for l in report.layers.iter().filter(|l| {
                sample.process_name.as_deref() == Some(l.process_name.as_str())
                    && sample
                        .layer_name
                        .as_deref()
                        .is_none_or(|name| name == l.layer_name)
            }) {
                causes.late_frames += l.late_stages.values().sum::<u64>();
                for (cause, n) in &l.late_causes {
                    *causes.frames.entry(cause.clone()).or_default() += n;
                }
            }
            sample.causes = Some(causes);
        }
    }
    Run {
        name: job.name.clone(),
        rows,
    }
}

/// The name of the jank measure behind `janky_pct` for an input of `source` (the triage `source` column).
pub fn jank_measure(source: Option<&str>) -> Option<&'static str> {
    match source? {
        "perfetto" => Some("FrameTimeline jank tag"),
        "gfxinfo" => Some("JankTracker"),
        "sf_latency" => Some("PerfDog Jank"),
        _ => None,
    }
}

/// Fills the janky columns of a text capture's triage rows (null in the triage table, which keeps FrameTimeline
/// columns for FrameTimeline) with the capture's own jank measure ([`jank_measure`]): HWUI JankTracker's janky
/// frames for gfxinfo (recomputed from the framestats rows, else as dumped), PerfDog Jank intervals for
/// `--latency`; the rows of a process sum its layers. Logcat has no frames: left null.
fn capture_jank(c: &crate::analysis::capture::CaptureReport, rows: &mut [TriageRow]) {
    let mut counts: BTreeMap<RowKey, (u64, u64)> = BTreeMap::new();
    for l in &c.layers {
        let tracked = l
            .jank_tracker
            .iter()
            .find(|n| n.numbers == "recomputed")
            .or(l.jank_tracker.first());
        let (janky, total) = match (c.source, tracked) {
            (crate::model::Source::Gfxinfo, Some(n)) => match (n.janky_frames, n.total_frames) {
                (Some(janky), Some(total)) => (janky, total),
                _ => continue,
            },
            (crate::model::Source::SfLatency, _) => match l.pacing.perfdog_jank {
                Some(j) => (j, l.frames),
                None => continue,
            },
            _ => continue,
        };
        for key in [(l.pid, None), (l.pid, l.layer_name.as_deref())] {
            let e = counts.entry(key).or_default();
            e.0 += janky;
            e.1 += total;
        }
    }
    for r in rows {
        if let Some(&(janky, total)) = counts.get(&(r.pid, r.layer_name.as_deref())) {
            r.janky_frames = Some(janky);
            r.janky_pct = Some(if total == 0 {
                0.0
            } else {
                janky as f64 * 100.0 / total as f64
            });
        }
    }
}

/// Rows by key; a frame series, when given, supplies the frame metrics (and is kept if `keep_frames`).
fn keyed<'a>(
    rows: impl Iterator<Item = (&'a TriageRow, Option<&'a Vec<FrameSample>>)>,
    keep_frames: bool,
) -> BTreeMap<Key, Sample> {
    let mut out = BTreeMap::new();
    let mut scratch = Default::default();
    for (row, frames) in rows {
        let level = match (&row.layer_name, &row.process_name, row.pid) {
            (Some(_), _, _) => Level::Layer,
            (None, Some(_), _) | (None, None, Some(_)) => Level::Process,
            (None, None, None) => Level::Trace,
        };
        let process = row
            .process_name
            .as_deref()
            .map(normalize)
            .unwrap_or_default();
        let layer = row.layer_name.as_deref().map(normalize).unwrap_or_default();
        let mut key = Key {
            level,
            process,
            layer,
        };
        let mut n = 1;
        let stem = key.clone();
        while out.contains_key(&key) {
            n += 1;
            key = stem.clone();
            match level {
                Level::Layer => key.layer = format!("{} [{n}]", stem.layer),
                _ => key.process = format!("{} [{n}]", stem.process),
            }
        }
        let mut values = Metric::ALL.map(|m| m.of_triage(row));
        if let Some(frames) = frames {
            let from_frames = metric::of_frames(frames.iter(), &mut scratch);
            values[..from_frames.len()].copy_from_slice(&from_frames);
        }
        out.insert(
            key,
            Sample {
                process_name: row.process_name.clone(),
                layer_name: row.layer_name.clone(),
                values,
                frames: frames.filter(|_| keep_frames).cloned(),
                jank_measure: jank_measure(row.source.as_deref()),
                causes: None,
            },
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_lose_instance_suffixes_and_addresses_only() {
        assert_eq!(
            normalize("TX - com.foo/com.foo.MainActivity#50010"),
            normalize("TX - com.foo/com.foo.MainActivity#61234")
        );
        assert_eq!(
            normalize("TX - SurfaceView[com.foo/com.foo.Main](BLAST)#12"),
            "TX - SurfaceView[com.foo/com.foo.Main](BLAST)"
        );
        assert_eq!(
            normalize("TX - Surface(name=Task=1)/@0x50aef49 - animation-leash of app_transition#0"),
            "TX - Surface(name=Task=1)/ - animation-leash of app_transition"
        );
        assert_eq!(normalize("NavigationBar0#74"), "NavigationBar0");
        assert_eq!(normalize("a#b #"), "a#b #");
        assert_eq!(normalize("ünï#3x"), "ünïx");
    }

    #[test]
    fn repeated_names_in_one_run_are_numbered() {
        let row = |layer: &str| TriageRow {
            pid: Some(1),
            process_name: Some("p".into()),
            layer_name: Some(layer.into()),
            frames: Some(10),
            ..TriageRow::default()
        };
        let rows = [row("L#1"), row("L#2"), row("M#3")];
        let keys: Vec<String> = keyed(rows.iter().map(|r| (r, None)), false)
            .into_keys()
            .map(|k| k.layer)
            .collect();
        assert_eq!(keys, ["L", "L [2]", "M"]);
    }
}
