//! Rows → polars `DataFrame`s, written as CSV, JSON or Parquet. Columns come from the rows' `Serialize`
//! field order, so every table has a stable schema that follows its row struct.

use crate::error::{Error, Result};
use polars::prelude::*;
use serde::{de::DeserializeOwned, Serialize};
use serde_json::Value;
use std::fs::File;
use std::io::Write;
use std::path::Path;

/// A table file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFormat {
    /// Comma-separated, header row, empty field for absent values.
    Csv,
    /// A JSON array of row objects.
    Json,
    /// Apache Parquet.
    Parquet,
}

impl TableFormat {
    /// The file extension.
    pub fn extension(self) -> &'static str {
        match self {
            TableFormat::Csv => "csv",
            TableFormat::Json => "json",
            TableFormat::Parquet => "parquet",
        }
    }
}

#[derive(Clone, Copy)]
enum Kind {
    Int,
    Float,
    Bool,
    Str,
}

impl Kind {
    /// The type of a column that holds no value in this table, from the naming rule that puts units in column
    /// names, so that a column's type never depends on the input: lists (`*_per_second`, `frame_lengths*`,
    /// `histogram`, `lines`, `*_diagnostics`, `jank_tracker`) → string (JSON text); `_ns`, `_token`, `_bytes`,
    /// `frames`, `_count`, `pid`, `uid`, Perfetto's `frame_dur_*` (ns), the integer pacing metrics
    /// (`avg_surface_fps*`, `jank_count*`, `max_frame_delay*`, `perfdog_jank`, `perfdog_big_jank`, `*_min` of
    /// smoothness, `skip_events`, `dumps`, `rows`) → integer; `_ms`, `_pct`, `_hz`, `_rate`, `fps`, `fps_*`,
    /// `sm`, `gt_sm`, `_value` → float; `is_*`, `agrees` → bool; anything else → string.
    fn of_unit(name: &str) -> Kind {
        let ends = |suffixes: &[&str]| suffixes.iter().any(|s| name.ends_with(s));
        let starts = |prefixes: &[&str]| prefixes.iter().any(|s| name.starts_with(s));
        if ends(&["_per_second", "_diagnostics"])
            || starts(&["frame_lengths"])
            || matches!(name, "histogram" | "lines" | "jank_tracker")
        {
            Kind::Str
        } else if starts(&["avg_surface_fps", "jank_count", "max_frame_delay"])
            || matches!(
                name,
                "perfdog_jank"
                    | "perfdog_big_jank"
                    | "sm_min"
                    | "gt_sm_min"
                    | "skip_events"
                    | "dumps"
                    | "rows"
            )
        {
            Kind::Int
        } else if ends(&["_ms", "_pct", "_hz", "_rate", "_value"])
            || name.contains("_ms_")
            || name == "fps"
            || starts(&["fps_"])
            || matches!(name, "sm" | "gt_sm")
        {
            Kind::Float
        } else if ends(&[
            "_ns", "_token", "_bytes", "_byte", "frames", "_count", "_version", "_delay", "pid",
        ]) || name == "uid"
            || name.starts_with("frame_dur_")
            || is_perfetto_integer(name)
        {
            Kind::Int
        } else if name.starts_with("is_") || name == "agrees" {
            Kind::Bool
        } else {
            Kind::Str
        }
    }
}

/// Perfetto stdlib columns that hold integers whatever their name says: ids, ns times and durations, 1/NULL
/// flags (`was_*`), frame counts.
fn is_perfetto_integer(name: &str) -> bool {
    matches!(name, "frame_id" | "ts" | "dur" | "ts_end" | "overrun")
        || ["_tid", "_time", "_dur", "_frames"]
            .iter()
            .any(|s| name.ends_with(s))
        || name.starts_with("was_")
}

/// Builds a DataFrame from rows. Column names and order: the fields of `T` as serialised (a `T::default()`
/// supplies them when `rows` is empty). Types: integers → Int64, floats → Float64, bools → Boolean, everything
/// else → String (nested values as JSON text); `None` → null; a column without any value takes the type its name
/// gives (`Kind::of_unit`), so a table's schema is the same for every trace.
pub fn to_dataframe<T: Serialize + Default>(rows: &[T]) -> Result<DataFrame> {
    let err = |cause: String| Error::Output {
        path: "<table>".into(),
        cause,
    };
    let objects: Vec<serde_json::Map<String, Value>> = rows
        .iter()
        .map(|r| match serde_json::to_value(r) {
            Ok(Value::Object(m)) => Ok(m),
            Ok(_) => Err(err("row is not a struct".into())),
            Err(e) => Err(err(e.to_string())),
        })
        .collect::<Result<_>>()?;
    let names: Vec<String> = match serde_json::to_value(T::default()) {
        Ok(Value::Object(m)) => m.keys().cloned().collect(),
        _ => return Err(err("row type is not a struct".into())),
    };
    let columns = names
        .iter()
        .map(|name| {
            let values: Vec<&Value> = objects
                .iter()
                .map(|o| o.get(name).unwrap_or(&Value::Null))
                .collect();
            column(name, &values)
        })
        .collect();
    DataFrame::new(rows.len(), columns).map_err(|e| err(e.to_string()))
}

fn column(name: &str, values: &[&Value]) -> Column {
    let kind = values.iter().fold(None, |kind, v| match (kind, v) {
        (_, Value::Null) => kind,
        (None | Some(Kind::Int), Value::Number(n)) if n.is_i64() => Some(Kind::Int),
        (None | Some(Kind::Int) | Some(Kind::Float), Value::Number(_)) => Some(Kind::Float),
        (None | Some(Kind::Bool), Value::Bool(_)) => Some(Kind::Bool),
        _ => Some(Kind::Str),
    });
    let kind = kind.unwrap_or_else(|| Kind::of_unit(name));
    let name = PlSmallStr::from(name);
    match kind {
        Kind::Int => Column::new(name, values.iter().map(|v| v.as_i64()).collect::<Vec<_>>()),
        Kind::Float => Column::new(name, values.iter().map(|v| v.as_f64()).collect::<Vec<_>>()),
        Kind::Bool => Column::new(name, values.iter().map(|v| v.as_bool()).collect::<Vec<_>>()),
        Kind::Str => Column::new(
            name,
            values
                .iter()
                .map(|v| match v {
                    Value::Null => None,
                    Value::String(s) => Some(s.clone()),
                    other => Some(other.to_string()),
                })
                .collect::<Vec<_>>(),
        ),
    }
}

/// Writes `df` to `path`, or to stdout when `path` is `None` (CSV and JSON only).
pub fn write_table(df: &mut DataFrame, format: TableFormat, path: Option<&Path>) -> Result<()> {
    let shown = path.map_or_else(|| "<stdout>".into(), Path::to_path_buf);
    let err = |cause: String| Error::Output {
        path: shown.clone(),
        cause,
    };
    match path {
        Some(p) => {
            let file = File::create(p).map_err(|e| err(e.to_string()))?;
            write_to(df, format, file).map_err(err)
        }
        None if format == TableFormat::Parquet => {
            Err(Error::Usage("Parquet output needs -o FILE".into()))
        }
        None => {
            let stdout = std::io::stdout().lock();
            write_to(df, format, stdout).map_err(err)
        }
    }
}

fn write_to<W: Write>(df: &mut DataFrame, format: TableFormat, mut out: W) -> Result<(), String> {
    let e = |e: PolarsError| e.to_string();
    match format {
        TableFormat::Csv => CsvWriter::new(&mut out).finish(df).map_err(e)?,
        TableFormat::Json => JsonWriter::new(&mut out)
            .with_json_format(JsonFormat::Json)
            .finish(df)
            .map_err(e)?,
        TableFormat::Parquet => {
            ParquetWriter::new(&mut out).finish(df).map_err(e)?;
        }
    }
    out.flush().map_err(|e| e.to_string())
}

/// Reads the rows of a Parquet file written by [`write_table`] back into `T` (the inverse of [`to_dataframe`]:
/// columns matched to fields by name, nulls to `None`, missing columns to `T`'s serde defaults).
///
/// Errors: [`Error::Io`] if the file cannot be opened; [`Error::Capture`] (line 0) naming the file if it is not
/// Parquet or its rows do not fit `T`.
pub fn read_parquet_rows<T: DeserializeOwned>(path: &Path) -> Result<Vec<T>> {
    let bad = |cause: String| Error::Capture {
        path: path.to_path_buf(),
        line: 0,
        cause,
    };
    let file = File::open(path).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut df = ParquetReader::new(file)
        .finish()
        .map_err(|e| bad(format!("not a readable Parquet table: {e}")))?;
    let mut json = Vec::new();
    write_to(&mut df, TableFormat::Json, &mut json).map_err(bad)?;
    serde_json::from_slice(&json).map_err(|e| bad(format!("unexpected columns: {e}")))
}
