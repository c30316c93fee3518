//! Report → tables (CSV / JSON / Parquet via polars), terminal text and charts: the only place polars,
//! comfy-table and plotters appear.

pub mod chart;
mod columns;
pub mod html;
pub mod json;
pub mod label;
pub mod perfetto_tables;
mod sched_tables;
pub mod table;
pub mod text;

use crate::analysis::capture::CaptureFrameRow;
use crate::analysis::capture::CaptureReport;
use crate::analysis::frames::{DisplayFrameRow, FrameRow};
use crate::analysis::janktracker::JankTrackerNumbers;
use crate::analysis::metrics::JankTypeCount;
use crate::analysis::{Analysis, Report};
use crate::error::{Error, Result};
use polars::prelude::DataFrame;
use serde::Serialize;
use std::io::Write;
use std::path::Path;
use table::{to_dataframe, write_rows, TableFormat};

/// Where a command writes: the file at `path`, created, or stdout when `None` (a writer that may move to another
/// thread, as a table's writer thread takes it). Errors: [`Error::Output`] naming the file.
pub fn open_output(path: Option<&Path>) -> Result<Box<dyn Write + Send>> {
    Ok(match path {
        Some(p) => Box::new(std::fs::File::create(p).map_err(|e| output_error(Some(p), e))?),
        None => Box::new(std::io::stdout()),
    })
}

/// Lets `write` fill the output of `path` (stdout when `None`) through a buffer, then flushes it, so that a large
/// report goes out as it is made. The buffer's own type reaches `write`, so that a serialiser's many small writes
/// are copies into it, not calls through `dyn Write`. Errors: [`Error::Output`] naming the file (`<stdout>`) and
/// the cause; a closed pipe is one of them, which the command line treats as success.
pub fn write_output(
    path: Option<&Path>,
    write: impl FnOnce(&mut std::io::BufWriter<Box<dyn Write + Send>>) -> std::io::Result<()>,
) -> Result<()> {
    let mut out = std::io::BufWriter::new(open_output(path)?);
    write(&mut out)
        .and_then(|()| out.flush())
        .map_err(|e| output_error(path, e))
}

fn output_error(path: Option<&Path>, e: impl std::fmt::Display) -> Error {
    Error::Output {
        path: path.unwrap_or(Path::new("<stdout>")).to_path_buf(),
        cause: e.to_string(),
    }
}

/// A row of the `jank_types` table: one process × jank-type component of Perfetto's metric.
#[derive(Debug, Clone, Default, Serialize)]
struct ProcessJankType {
    pid: i32,
    process_name: String,
    #[serde(flatten)]
    counts: JankTypeCount,
}

/// The report as named tables (`trace`, `processes`, `jank_types`, `layers`, `diagnostics`), the files that
/// `ftl analyze --format csv|parquet -o DIR` writes.
pub fn report_tables(report: &Report) -> Result<Vec<(&'static str, DataFrame)>> {
    let jank_types: Vec<ProcessJankType> = report
        .processes
        .iter()
        .flat_map(|p| {
            p.jank_types.iter().map(|c| ProcessJankType {
                pid: p.pid,
                process_name: p.name.clone(),
                counts: c.clone(),
            })
        })
        .collect();
    Ok(vec![
        ("trace", to_dataframe(std::slice::from_ref(&report.trace))?),
        ("processes", to_dataframe(&report.processes)?),
        ("jank_types", to_dataframe(&jank_types)?),
        ("layers", to_dataframe(&report.layers)?),
        (
            "diagnostics",
            to_dataframe(std::slice::from_ref(&report.diagnostics))?,
        ),
    ])
}

/// The rows of `ftl frames`: one per actual SurfaceFrame of a trace (per actual DisplayFrame with
/// `display_frames`), or one per frame of a text capture.
enum FrameRows<'a> {
    Surface(&'a [FrameRow]),
    Display(&'a [DisplayFrameRow]),
    Capture(Vec<CaptureFrameRow>),
}

impl<'a> FrameRows<'a> {
    /// Errors: `display_frames` on a capture ([`Error::Usage`]: DisplayFrames come from FrameTimeline), or on a
    /// report analysed without [`Config::display_frame_rows`](crate::analysis::Config::display_frame_rows).
    fn of(analysis: &'a Analysis, display_frames: bool) -> Result<FrameRows<'a>> {
        Ok(match (analysis, display_frames) {
            (Analysis::Trace(report), true) => {
                FrameRows::Display(report.display_frames.as_deref().ok_or_else(|| {
                    Error::Usage(
                        "DisplayFrame rows were not built: analyse with Config::display_frame_rows".into(),
                    )
                })?)
            }
            (Analysis::Trace(report), false) => FrameRows::Surface(&report.frames),
            (Analysis::Capture(c), true) => {
                return Err(Error::Usage(format!(
                    "--display-frames: a `{}` capture has no DisplayFrames (they come from FrameTimeline)",
                    c.source.command()
                )))
            }
            (Analysis::Capture(c), false) => {
                FrameRows::Capture(crate::analysis::capture::frame_rows(c))
            }
        })
    }
}

/// The table of `ftl frames` as one DataFrame: one row per actual SurfaceFrame of a trace (per actual
/// DisplayFrame with `display_frames`), or one row per frame of a text capture. Errors: `display_frames` on a
/// capture ([`Error::Usage`]: DisplayFrames come from FrameTimeline).
pub fn frames_table(analysis: &Analysis, display_frames: bool) -> Result<DataFrame> {
    match FrameRows::of(analysis, display_frames)? {
        FrameRows::Surface(rows) => to_dataframe(rows),
        FrameRows::Display(rows) => to_dataframe(rows),
        FrameRows::Capture(rows) => to_dataframe(&rows),
    }
}

/// [`frames_table`] written to `path` (stdout when `None`) a batch at a time ([`table::write_rows`]), without
/// the whole table in memory. Errors: those of [`frames_table`] and [`table::write_rows`].
pub fn write_frames(
    analysis: &Analysis,
    display_frames: bool,
    format: TableFormat,
    path: Option<&Path>,
) -> Result<()> {
    match FrameRows::of(analysis, display_frames)? {
        FrameRows::Surface(rows) => write_rows::<FrameRow>(rows, format, path),
        FrameRows::Display(rows) => write_rows::<DisplayFrameRow>(rows, format, path),
        FrameRows::Capture(rows) => write_rows::<CaptureFrameRow>(rows, format, path),
    }
}

/// A row of a capture's `jank_tracker` table: one window or process × one set of numbers.
#[derive(Debug, Clone, Default, Serialize)]
struct JankTrackerRow {
    pid: Option<i32>,
    process_name: Option<String>,
    /// The window; null for a process's own summary.
    layer_name: Option<String>,
    #[serde(flatten)]
    numbers: JankTrackerNumbers,
}

/// A row of a capture's `diagnostics` table.
#[derive(Debug, Clone, Default, Serialize)]
struct DiagnosticRow {
    what: String,
    count: u64,
    /// The first line numbers, as JSON.
    lines: Vec<u64>,
}

/// A text capture's report as named tables (`capture`, `layers`, `jank_tracker`, `diagnostics`), the files
/// that `ftl analyze --format csv|parquet -o DIR` writes for it.
pub fn capture_tables(report: &CaptureReport) -> Result<Vec<(&'static str, DataFrame)>> {
    let mut jank_tracker: Vec<JankTrackerRow> = Vec::new();
    for l in &report.layers {
        for n in &l.jank_tracker {
            jank_tracker.push(JankTrackerRow {
                pid: l.pid,
                process_name: l.process_name.clone(),
                layer_name: l.layer_name.clone(),
                numbers: n.clone(),
            });
        }
    }
    for p in &report.processes {
        if let Some(n) = &p.jank_tracker {
            jank_tracker.push(JankTrackerRow {
                pid: p.pid,
                process_name: p.process_name.clone(),
                layer_name: None,
                numbers: n.clone(),
            });
        }
    }
    let diagnostics: Vec<DiagnosticRow> = report
        .diagnostics
        .counts
        .iter()
        .map(|(what, n)| DiagnosticRow {
            what: what.clone(),
            count: n.count,
            lines: n.lines.clone(),
        })
        .collect();
    Ok(vec![
        (
            "capture",
            to_dataframe(std::slice::from_ref(&report.capture))?,
        ),
        ("layers", to_dataframe(&report.layers)?),
        ("jank_tracker", to_dataframe(&jank_tracker)?),
        ("diagnostics", to_dataframe(&diagnostics)?),
    ])
}
