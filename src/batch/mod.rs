//! Many traces in parallel (rayon) into one triage row per trace (or per trace × process / layer): inputs found
//! by content, deterministic order, per-file failure isolation, progress and per-trace output through callbacks.

mod triage;

pub use triage::{
    by_name, rank, split_condition, triage_rows, Column, Condition, Grouping, Op, TriageRow,
};

use crate::analysis::{Analysis, Config};
use crate::error::{Error, Result};
use rayon::prelude::*;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
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

/// What became of one trace (serialisable, so that a distributed engine can carry it between processes).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
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
/// [`Analysis`] is alive, then the report is dropped and only its rows are kept, then `progress(outcome)`. A
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
    S: Fn(&Job, &Analysis) -> Result<()> + Sync,
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

/// Analyses one job as [`run`] does on its workers (the unit of work a distributed engine schedules, e.g. the
/// Python package's Dask triage): `sink(job, analysis)` while the analysis is alive, then its triage rows; a
/// load error, a sink error or a panic becomes one failed row naming the file.
pub fn analyze_one<S>(job: &Job, options: &Options, sink: &S) -> Outcome
where
    S: Fn(&Job, &Analysis) -> Result<()>,
{
    let analyse = || {
        crate::analyze_path(&job.path, &options.config).and_then(|analysis| {
            sink(job, &analysis)?;
            let file_bytes = match &analysis {
                Analysis::Trace(r) => r.trace.file_bytes,
                Analysis::Capture(c) => c.capture.file_bytes,
            };
            Ok((triage_rows(job, &analysis, options.grouping), file_bytes))
        })
    };
    // A panic is a bug in ftl, but one input must not take the whole batch down with it: it becomes that
    // input's failed row.
    let analysed =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(analyse)).unwrap_or_else(|panic| {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Err(Error::Usage(format!(
                "{}: internal error (a bug in ftl, please report it): {what}",
                job.path.display()
            )))
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

/// The triage table of a Parquet batch, in its output directory.
pub const TRIAGE_FILE: &str = "triage.parquet";
/// Where a Parquet batch writes the SurfaceFrame rows of traces (the rows of `ftl frames`).
pub const FRAMES_DIR: &str = "frames";
/// Where it writes the frame rows of text captures (`ftl frames` on a capture: another schema).
pub const SERIES_DIR: &str = "series";

/// Empties (or creates) `out/frames` and `out/series` before a Parquet batch: they are ftl's own output, and
/// partitions of an earlier run would mix with this run's in a query. Errors: [`Error::Output`].
pub fn clear_partitions(out: &Path) -> Result<()> {
    for dir in [out.join(FRAMES_DIR), out.join(SERIES_DIR)] {
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(|e| Error::Output {
                path: dir.to_path_buf(),
                cause: format!("cannot replace the previous run's frames: {e}"),
            })?;
        }
        create_dir(&dir)?;
    }
    Ok(())
}

fn create_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::Output {
        path: dir.to_path_buf(),
        cause: e.to_string(),
    })
}

/// Writes the input's per-frame rows (the rows of `ftl frames`, [`crate::output::frames_table`]) as
/// `part-0.parquet` in the Hive partition `frames/trace=NAME` (traces) or `series/trace=NAME` (text captures
/// with frames) under `out`; on failure the partition is removed, so that no half-written file outlives its
/// failed row. The sink of `ftl batch -o DIR --format parquet`.
pub fn write_partition(out: &Path, name: &str, analysis: &Analysis) -> Result<()> {
    let dir = match analysis {
        Analysis::Trace(_) => FRAMES_DIR,
        Analysis::Capture(c) if c.series.is_empty() => return Ok(()),
        Analysis::Capture(_) => SERIES_DIR,
    };
    let partition = out.join(dir).join(format!("trace={name}"));
    create_dir(&partition)?;
    let written = crate::output::write_frames(
        analysis,
        false,
        crate::output::table::TableFormat::Parquet,
        Some(&partition.join("part-0.parquet")),
    );
    if written.is_err() {
        let _ = std::fs::remove_dir_all(partition);
    }
    written
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
        let sink = |_: &Job, _: &Analysis| {
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
