//! Report → tables (CSV / JSON / Parquet via polars), terminal text and charts: the only place polars,
//! comfy-table and plotters appear.

pub mod chart;
pub mod label;
pub mod table;
pub mod text;

use crate::analysis::metrics::JankTypeCount;
use crate::analysis::Report;
use crate::error::Result;
use polars::prelude::DataFrame;
use serde::Serialize;
use table::to_dataframe;

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
