//! `ftl._ftl`: the Python extension module. Thin glue over the `ftl` crate: every table comes from the function
//! the CLI writes it with, handed to Python polars through the Arrow C data interface (pyo3-polars, no byte
//! round trip); the GIL is released while a trace is read and analysed; `ftl::Error` becomes the exceptions of
//! `ftl._errors`. The documented Python API is `python/ftl/__init__.py`.

use clap::{Args, FromArgMatches, ValueEnum};
use ftl::analysis::{slices as slice_rows, Analysis, Config};
use ftl::batch::{self, Grouping, Job, Outcome};
use ftl::cli::{AnalysisArgs, WindowArgs};
use ftl::output::perfetto_tables::{self, PerfettoTable};
use ftl::output::table::{to_dataframe, write_table, TableFormat};
use ftl::Error;
use polars::prelude::DataFrame;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use pyo3::IntoPyObjectExt;
use pyo3_polars::PyDataFrame;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

/// Extra attributes of a raised exception: (name, value).
type Attrs<'a> = Vec<(&'a str, Py<PyAny>)>;

/// Which exception of `ftl._errors` an error becomes, and the attributes it carries.
fn to_pyerr(py: Python<'_>, e: Error, loading_frame_timeline: bool) -> PyErr {
    let message = e.to_string();
    let (class, path, attrs): (&str, Option<&Path>, Attrs) = match &e {
        Error::Io { path, source } => (
            "ReadError",
            Some(path.as_path()),
            vec![("errno", obj(py, source.raw_os_error()))],
        ),
        Error::IsDirectory { path } => ("ReadError", Some(path.as_path()), vec![]),
        Error::Empty { path } => ("NotATraceError", Some(path.as_path()), vec![]),
        Error::Decode {
            path,
            offset,
            packet,
            ..
        } => (
            "NotATraceError",
            Some(path.as_path()),
            vec![("offset", obj(py, *offset)), ("packet", obj(py, *packet))],
        ),
        Error::NoFrameTimeline {
            path,
            packets,
            truncated_at,
        } => (
            if truncated_at.is_some() {
                "TruncatedTraceError"
            } else {
                "NoFrameTimelineError"
            },
            Some(path.as_path()),
            vec![
                ("packets", obj(py, *packets)),
                ("truncated_at", obj(py, *truncated_at)),
            ],
        ),
        // Line 0: the file as a whole. Asked for FrameTimeline tables it is a capture without them; asked to
        // analyse it, ftl does not know what it is.
        Error::Capture { path, line: 0, .. } if loading_frame_timeline => {
            ("NoFrameTimelineError", Some(path.as_path()), vec![])
        }
        Error::Capture { path, line: 0, .. } => ("NotATraceError", Some(path.as_path()), vec![]),
        Error::Capture { path, line, .. } => (
            "CaptureError",
            Some(path.as_path()),
            vec![("line", obj(py, *line))],
        ),
        Error::Output { path, .. } => ("OutputError", Some(path.as_path()), vec![]),
        Error::Usage(_) => return PyValueError::new_err(message),
        // Only `ftl record` / `ftl watch` talk to devices; the package does not, but the match stays whole.
        Error::Device(_) | Error::Disconnected(_) => return PyRuntimeError::new_err(message),
    };
    raise(py, class, message, path, attrs)
}

/// Runs `work` without the GIL; a panic (a bug in ftl) becomes a `TraceError` instead of taking the
/// interpreter down.
fn detached<T: Send>(
    py: Python<'_>,
    loading_frame_timeline: bool,
    work: impl FnOnce() -> ftl::Result<T> + Send,
) -> PyResult<T> {
    match py.detach(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(work))) {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => Err(to_pyerr(py, e, loading_frame_timeline)),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            let message = format!("internal error (a bug in ftl, please report it): {what}");
            Err(raise(py, "TraceError", message, None, Vec::new()))
        }
    }
}

/// An exception of `ftl._errors` with its `path` and other attributes.
fn raise(py: Python<'_>, class: &str, message: String, path: Option<&Path>, attrs: Attrs) -> PyErr {
    let made = (|| -> PyResult<PyErr> {
        let error = py
            .import("ftl._errors")?
            .getattr(class)?
            .call1((message,))?;
        error.setattr("path", path.map(|p| p.display().to_string()))?;
        for (name, value) in attrs {
            error.setattr(name, value)?;
        }
        Ok(PyErr::from_value(error))
    })();
    made.unwrap_or_else(|e| e)
}

fn obj<'py>(py: Python<'py>, value: impl IntoPyObject<'py>) -> Py<PyAny> {
    value.into_py_any(py).unwrap_or_else(|_| py.None())
}

/// The analysis options of `ftl analyze` / `ftl frames` from the keyword arguments of the Python API (the
/// names of the CLI options with `_` for `-`), validated by the CLI's own code.
fn config(options: Option<&Bound<'_, PyDict>>) -> PyResult<Config> {
    // The CLI's defaults, from its own argument definitions.
    let defaults = AnalysisArgs::augment_args(clap::Command::new("ftl")).get_matches_from(["ftl"]);
    let mut args = AnalysisArgs::from_arg_matches(&defaults)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let mut window = WindowArgs { window: Vec::new() };
    if let Some(options) = options {
        for (key, value) in options.iter() {
            let key: String = key.extract()?;
            if value.is_none() {
                continue;
            }
            match key.as_str() {
                "process" => args.process = Some(value.str()?.to_string()),
                "layer" => args.layer = Some(value.extract()?),
                "present_threshold" => args.present_threshold = value.extract()?,
                "vsync_period" => args.vsync_period = Some(value.extract()?),
                "refresh_rate" => args.refresh_rate = Some(value.extract()?),
                "sf_rules" => {
                    let name: String = value.extract()?;
                    args.sf_rules = Some(name.parse().map_err(PyValueError::new_err)?);
                }
                "layer_name" => args.layer_name = Some(value.extract()?),
                "gfxinfo_drop_flagged" => args.gfxinfo_drop_flagged = value.extract()?,
                "macrobenchmark" => args.macrobenchmark = Some(value.extract()?),
                "marker" => args.marker = strings(&value)?,
                "window" => window.window = strings(&value)?,
                other => {
                    return Err(PyTypeError::new_err(format!(
                        "unexpected analysis option '{other}'"
                    )))
                }
            }
        }
    }
    if args.vsync_period.is_some() && args.refresh_rate.is_some() {
        return Err(PyValueError::new_err(
            "give vsync_period or refresh_rate, not both",
        ));
    }
    args.config_in(&window)
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// A string or a sequence of strings.
fn strings(value: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    match value.extract::<String>() {
        Ok(one) => Ok(vec![one]),
        Err(_) => value.extract(),
    }
}

fn path_of(path: &Bound<'_, PyAny>) -> PyResult<PathBuf> {
    // str or os.PathLike.
    path.extract()
}

fn df(frame: DataFrame) -> PyDataFrame {
    PyDataFrame(frame)
}

/// `ftl analyze --format json` as JSON text.
#[pyfunction]
#[pyo3(signature = (path, options=None))]
fn analyze_json(
    py: Python<'_>,
    path: &Bound<'_, PyAny>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<String> {
    let path = path_of(path)?;
    let config = config(options)?;
    detached(py, false, || {
        let analysis = ftl::analyze_path(&path, &config)?;
        serde_json::to_string(&analysis).map_err(|e| Error::Output {
            path: path.clone(),
            cause: e.to_string(),
        })
    })
}

/// `ftl analyze --format parquet -o DIR`: the report's tables by name.
#[pyfunction]
#[pyo3(signature = (path, options=None))]
fn report_tables(
    py: Python<'_>,
    path: &Bound<'_, PyAny>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Vec<(String, PyDataFrame)>> {
    let path = path_of(path)?;
    let config = config(options)?;
    let tables = detached(py, false, || match ftl::analyze_path(&path, &config)? {
        Analysis::Trace(report) => ftl::output::report_tables(&report),
        Analysis::Capture(c) => ftl::output::capture_tables(&c),
    })?;
    Ok(tables
        .into_iter()
        .map(|(name, t)| (name.to_string(), df(t)))
        .collect())
}

/// `ftl frames`.
#[pyfunction]
#[pyo3(signature = (path, display_frames=false, options=None))]
fn frames(
    py: Python<'_>,
    path: &Bound<'_, PyAny>,
    display_frames: bool,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyDataFrame> {
    let path = path_of(path)?;
    let config = Config {
        display_frame_rows: display_frames,
        ..config(options)?
    };
    detached(py, false, || {
        let analysis = ftl::analyze_path(&path, &config)?;
        ftl::output::frames_table(&analysis, display_frames)
    })
    .map(df)
}

/// `ftl slices --timeline expected|actual`.
#[pyfunction]
fn slices(py: Python<'_>, path: &Bound<'_, PyAny>, timeline: &str) -> PyResult<PyDataFrame> {
    let path = path_of(path)?;
    let actual = match timeline {
        "actual" => true,
        "expected" => false,
        other => {
            return Err(PyValueError::new_err(format!(
                "timeline must be 'expected' or 'actual', got '{other}'"
            )))
        }
    };
    detached(py, true, || {
        let trace = ftl::load_path(&path)?;
        if actual {
            to_dataframe(&slice_rows::actual_rows(&trace.timeline).collect::<Vec<_>>())
        } else {
            to_dataframe(&slice_rows::expected_rows(&trace.timeline).collect::<Vec<_>>())
        }
    })
    .map(df)
}

/// `ftl table NAME`.
#[pyfunction]
#[pyo3(signature = (path, name, window=None, marker=None))]
fn table(
    py: Python<'_>,
    path: &Bound<'_, PyAny>,
    name: &str,
    window: Option<&Bound<'_, PyAny>>,
    marker: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyDataFrame> {
    let path = path_of(path)?;
    let which = PerfettoTable::from_str(name, false).map_err(|_| {
        PyValueError::new_err(format!(
            "unknown table '{name}'; one of: {}",
            table_names().join(", ")
        ))
    })?;
    let ranges = WindowArgs {
        window: window.map(strings).transpose()?.unwrap_or_default(),
    }
    .ranges()
    .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let windows = ftl::model::window::WindowSpec {
        ranges,
        markers: marker.map(strings).transpose()?.unwrap_or_default(),
    };
    detached(py, true, || {
        let trace = if which == PerfettoTable::ThreadState {
            ftl::load_path_all_thread_states(&path, &windows)?
        } else {
            ftl::load_path_in(&path, &windows)?
        };
        perfetto_tables::table(which, &trace.timeline)
    })
    .map(df)
}

/// The table names of `table`.
#[pyfunction]
fn table_names() -> Vec<String> {
    PerfettoTable::value_variants()
        .iter()
        .filter_map(|t| t.to_possible_value().map(|v| v.get_name().to_string()))
        .collect()
}

fn grouping(by: &str) -> PyResult<Grouping> {
    ftl::cli::batch::By::from_str(by, false)
        .map(Grouping::from)
        .map_err(|_| {
            PyValueError::new_err(format!(
                "by must be 'trace', 'process' or 'layer', got '{by}'"
            ))
        })
}

fn sort_column(sort: &str) -> PyResult<batch::Column> {
    sort.parse().map_err(PyValueError::new_err)
}

/// `ftl batch`'s input expansion: (path, job name) of every input to analyse, in batch order, and (path,
/// reason) of every file skipped.
#[pyfunction]
#[pyo3(signature = (paths, recursive=false))]
#[allow(clippy::type_complexity)]
fn collect_inputs(
    py: Python<'_>,
    paths: Vec<String>,
    recursive: bool,
) -> PyResult<(Vec<(String, String)>, Vec<(String, String)>)> {
    let paths: Vec<PathBuf> = paths.into_iter().map(PathBuf::from).collect();
    let inputs = detached(py, false, || batch::collect_inputs(&paths, recursive))?;
    let jobs = batch::jobs(&inputs.traces)
        .into_iter()
        .map(|j| (j.path.display().to_string(), j.name))
        .collect();
    let skipped = inputs
        .skipped
        .into_iter()
        .map(|s| (s.path.display().to_string(), s.reason))
        .collect();
    Ok((jobs, skipped))
}

/// Why `ftl batch` would skip this file found in a directory (it is none of the inputs ftl reads), or `None` if
/// it is analysed (including a file that cannot be read: it fails as a row).
#[pyfunction]
fn skip_reason(py: Python<'_>, path: PathBuf) -> Option<String> {
    py.detach(|| match ftl::input::detect(&path) {
        Ok(Err(reason)) => Some(reason),
        _ => None,
    })
}

/// The job names `ftl batch` gives these paths (already sorted and unique).
#[pyfunction]
fn job_names(paths: Vec<String>) -> Vec<String> {
    let paths: Vec<PathBuf> = paths.into_iter().map(PathBuf::from).collect();
    batch::jobs(&paths).into_iter().map(|j| j.name).collect()
}

/// `ftl batch`'s work for one input: analyse it, write its Hive partition under `out_dir` (if given), return
/// its outcome as JSON (a failed input is a failed row, never an exception). `shown` replaces the `path`
/// column (a URL the file was fetched from).
#[pyfunction]
#[pyo3(signature = (path, name, out_dir=None, by="trace", options=None, shown=None))]
fn triage_one(
    py: Python<'_>,
    path: String,
    name: String,
    out_dir: Option<String>,
    by: &str,
    options: Option<&Bound<'_, PyDict>>,
    shown: Option<String>,
) -> PyResult<String> {
    let options = batch::Options {
        jobs: 1,
        config: config(options)?,
        grouping: grouping(by)?,
    };
    let job = Job {
        path: PathBuf::from(path),
        name,
    };
    let out = out_dir.map(PathBuf::from);
    let mut outcome = py.detach(|| {
        let sink = |job: &Job, analysis: &Analysis| match &out {
            Some(out) => batch::write_partition(out, &job.name, analysis),
            None => Ok(()),
        };
        batch::analyze_one(&job, &options, &sink)
    });
    if let Some(shown) = shown {
        for row in &mut outcome.rows {
            row.path = shown.clone();
        }
    }
    serde_json::to_value(&outcome)
        .map(|v| exact_floats(v, true).to_string())
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Floats of an outcome carried as their bits (`{"f64": "<hex>"}`) and back: JSON text would round some of them
/// (serde_json parses floats to the nearest few ULPs unless its `float_roundtrip` feature is on, which would
/// rebuild polars), and the rows of a Dask triage must equal those of `ftl batch` exactly.
fn exact_floats(value: serde_json::Value, encode: bool) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::Number(n) if encode && n.is_f64() => {
            serde_json::json!({ "f64": format!("{:016x}", n.as_f64().unwrap_or(f64::NAN).to_bits()) })
        }
        Value::Object(m)
            if !encode && m.len() == 1 && m.get("f64").is_some_and(Value::is_string) =>
        {
            let bits = m["f64"]
                .as_str()
                .and_then(|h| u64::from_str_radix(h, 16).ok());
            bits.and_then(|b| serde_json::Number::from_f64(f64::from_bits(b)))
                .map_or(Value::Null, Value::Number)
        }
        Value::Array(items) => {
            Value::Array(items.into_iter().map(|v| exact_floats(v, encode)).collect())
        }
        Value::Object(m) => Value::Object(
            m.into_iter()
                .map(|(k, v)| (k, exact_floats(v, encode)))
                .collect(),
        ),
        other => other,
    }
}

/// Raises what `triage_one` and `triage_table` would raise for these options (ValueError / TypeError), so that a
/// distributed triage fails on the driver before any work instead of making every input a failed row.
#[pyfunction]
#[pyo3(signature = (by="trace", sort="janky_pct", options=None))]
fn check_options(by: &str, sort: &str, options: Option<&Bound<'_, PyDict>>) -> PyResult<()> {
    grouping(by)?;
    sort_column(sort)?;
    config(options).map(|_| ())
}

/// The ranked triage table of outcomes (JSON from `triage_one`), as `ftl batch` ranks it; written as
/// `out_dir/triage.parquet` if `out_dir` is given.
#[pyfunction]
#[pyo3(signature = (outcomes, sort="janky_pct", out_dir=None))]
fn triage_table(
    py: Python<'_>,
    outcomes: &Bound<'_, PyList>,
    sort: &str,
    out_dir: Option<String>,
) -> PyResult<PyDataFrame> {
    let sort = sort_column(sort)?;
    let mut parsed: Vec<Outcome> = Vec::with_capacity(outcomes.len());
    for o in outcomes.iter() {
        let text: String = o.extract()?;
        let value =
            serde_json::from_str(&text).map_err(|e| PyValueError::new_err(e.to_string()))?;
        parsed.push(
            serde_json::from_value(exact_floats(value, false))
                .map_err(|e| PyValueError::new_err(e.to_string()))?,
        );
    }
    detached(py, false, || {
        ranked_table(parsed, sort, out_dir.as_deref().map(Path::new))
    })
    .map(df)
}

fn ranked_table(
    outcomes: Vec<Outcome>,
    sort: batch::Column,
    out: Option<&Path>,
) -> ftl::Result<DataFrame> {
    let mut rows: Vec<_> = outcomes.into_iter().flat_map(|o| o.rows).collect();
    batch::rank(&mut rows, sort);
    let mut table = to_dataframe(&rows)?;
    if let Some(out) = out {
        write_table(
            &mut table,
            TableFormat::Parquet,
            Some(&out.join(batch::TRIAGE_FILE)),
        )?;
    }
    Ok(table)
}

/// Empties `out_dir/frames` and `out_dir/series` as `ftl batch -o DIR --format parquet` does.
#[pyfunction]
fn clear_partitions(py: Python<'_>, out_dir: String) -> PyResult<()> {
    detached(py, false, || batch::clear_partitions(Path::new(&out_dir)))
}

/// `ftl batch` on this machine (a rayon pool of `jobs` threads): the ranked triage table; with `out_dir`, the
/// Parquet layout of `ftl batch -o DIR --format parquet`.
#[pyfunction]
#[pyo3(signature = (paths, jobs=None, by="trace", sort="janky_pct", recursive=false, out_dir=None, options=None))]
#[allow(clippy::too_many_arguments)]
fn triage(
    py: Python<'_>,
    paths: Vec<String>,
    jobs: Option<usize>,
    by: &str,
    sort: &str,
    recursive: bool,
    out_dir: Option<String>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<PyDataFrame> {
    let options = batch::Options {
        jobs: jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from)),
        config: config(options)?,
        grouping: grouping(by)?,
    };
    if options.jobs == 0 {
        return Err(PyValueError::new_err("jobs must be at least 1"));
    }
    let sort = sort_column(sort)?;
    let paths: Vec<PathBuf> = paths.into_iter().map(PathBuf::from).collect();
    let out = out_dir.map(PathBuf::from);
    detached(py, false, || {
        let inputs = batch::collect_inputs(&paths, recursive)?;
        let jobs = batch::jobs(&inputs.traces);
        if let Some(out) = &out {
            batch::clear_partitions(out)?;
        }
        let sink = |job: &Job, analysis: &Analysis| match &out {
            Some(out) => batch::write_partition(out, &job.name, analysis),
            None => Ok(()),
        };
        let result = batch::run(&jobs, &options, &AtomicBool::new(false), sink, |_| {})?;
        ranked_table(result.outcomes, sort, out.as_deref())
    })
    .map(df)
}

#[pymodule]
fn _ftl(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(analyze_json, m)?)?;
    m.add_function(wrap_pyfunction!(report_tables, m)?)?;
    m.add_function(wrap_pyfunction!(frames, m)?)?;
    m.add_function(wrap_pyfunction!(slices, m)?)?;
    m.add_function(wrap_pyfunction!(table, m)?)?;
    m.add_function(wrap_pyfunction!(table_names, m)?)?;
    m.add_function(wrap_pyfunction!(collect_inputs, m)?)?;
    m.add_function(wrap_pyfunction!(job_names, m)?)?;
    m.add_function(wrap_pyfunction!(skip_reason, m)?)?;
    m.add_function(wrap_pyfunction!(triage_one, m)?)?;
    m.add_function(wrap_pyfunction!(triage_table, m)?)?;
    m.add_function(wrap_pyfunction!(check_options, m)?)?;
    m.add_function(wrap_pyfunction!(clear_partitions, m)?)?;
    m.add_function(wrap_pyfunction!(triage, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
