//! Rows → polars `DataFrame`s, written as CSV, JSON or Parquet. Columns come from the rows' `Serialize`
//! field order, so every table has a stable schema that follows its row struct.

use super::columns::Columns;
use crate::error::{Error, Result};
use polars::io::csv::write::BatchedWriter as CsvBatchedWriter;
use polars::io::parquet::write::BatchedWriter as ParquetBatchedWriter;
use polars::prelude::*;
use serde::{de::DeserializeOwned, Serialize};
use std::borrow::Borrow;
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

/// The type of a table column.
#[derive(Clone, Copy)]
pub(super) enum Kind {
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
    /// (`avg_surface_fps*`, `jank_count*`, `max_frame_delay*`, `perfdog_jank`, `perfdog_big_jank` and their
    /// `_active` forms, `idle_gaps`, `*_min` of smoothness, `skip_events`, `dumps`, `rows`) → integer; `_ms`,
    /// `_pct`, `_pct_*`, `_hz`, `_rate`, `_s`, `_fps`, `fps`, `fps_*`, `sm`, `gt_sm`, `_value` → float; `is_*`,
    /// `agrees`, `recomputed_equals_printed` → bool; anything else → string.
    pub(super) fn of_unit(name: &str) -> Kind {
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
                    | "perfdog_jank_active"
                    | "perfdog_big_jank_active"
                    | "idle_gaps"
                    | "sm_min"
                    | "gt_sm_min"
                    | "skip_events"
                    | "dumps"
                    | "rows"
            )
        {
            Kind::Int
        } else if ends(&["_ms", "_pct", "_hz", "_rate", "_value", "_s", "_fps"])
            || name.contains("_ms_")
            || name.contains("_pct_")
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
        } else if name.starts_with("is_") || matches!(name, "agrees" | "recomputed_equals_printed")
        {
            Kind::Bool
        } else {
            Kind::Str
        }
    }
}

/// Perfetto stdlib columns that hold integers whatever their name says: ids, ns times and durations, 1/NULL
/// flags (`was_*`), frame counts.
fn is_perfetto_integer(name: &str) -> bool {
    matches!(
        name,
        "frame_id"
            | "ts"
            | "dur"
            | "ts_end"
            | "overrun"
            | "tid"
            | "cpu"
            | "io_wait"
            | "irq_context"
            | "slice_ts"
    ) || ["_tid", "_time", "_dur", "_frames", "_calls", "cycles"]
        .iter()
        .any(|s| name.ends_with(s))
        || name.starts_with("was_")
}

/// Rows per batch of [`write_rows`] in Parquet: one row group. Two batches are held at a time (one gathered, one
/// encoded), so this keeps a FrameTimeline-dense trace's table within half the analysis' own peak, for a file
/// about 5 % larger than with twice the rows per group.
pub const BATCH_ROWS: usize = 8_192;

/// Rows per batch of [`write_rows`] in CSV and JSON, whose bytes do not depend on the batches: half a row group,
/// half the memory, for a few more calls into the writer.
const TEXT_BATCH_ROWS: usize = 4_096;

/// Builds a DataFrame from rows. Column names and order: the fields of `T` as serialised, flattened fields
/// included (a `T::default()` supplies them when `rows` is empty). Types: integers → Int64, floats → Float64,
/// bools → Boolean, everything else → String (nested values as JSON text); `None` → null; a column without any
/// value takes the type its name gives (`Kind::of_unit`), so a table's schema is the same for every trace.
pub fn to_dataframe<T: Serialize + Default>(rows: &[T]) -> Result<DataFrame> {
    let mut columns = Columns::of::<T>().map_err(table_error)?;
    for row in rows {
        columns.push(row).map_err(table_error)?;
    }
    columns.take_frame().map_err(|e| table_error(e.to_string()))
}

fn table_error(cause: String) -> Error {
    Error::Output {
        path: "<table>".into(),
        cause,
    }
}

/// Writes rows as a table to `path`, or to stdout when `path` is `None` (CSV and JSON only), a batch at a time
/// ([`BATCH_ROWS`] for Parquet, fewer for CSV and JSON): the columns and types of [`to_dataframe`], and the
/// same bytes as writing the whole table at once (the batches of a column that holds no value take the type of
/// the first batch). Each batch is encoded on a writer thread while the next is gathered. Errors:
/// [`Error::Usage`] for Parquet to stdout; [`Error::Output`] naming the file if it cannot be written.
pub fn write_rows<T: Serialize + Default>(
    rows: impl IntoIterator<Item = impl Borrow<T>>,
    format: TableFormat,
    path: Option<&Path>,
) -> Result<()> {
    write_batches::<T, _>(format, path, |batches| {
        let mut rows = rows.into_iter();
        while let Some(row) = rows.next() {
            batches.push(row.borrow(), rows.size_hint().0)?;
        }
        Ok(())
    })
}

/// [`write_rows`] of the rows `produce` hands to its callback as it makes them (rows made inside a computation,
/// such as [`crate::analysis::analyze_each`]'s): the output is opened before `produce` runs, and written
/// a batch at a time. Returns what `produce` returns. Errors: those of [`write_rows`]; after a write error
/// the rows that follow are dropped.
pub fn write_rows_each<T: Serialize + Default, R>(
    format: TableFormat,
    path: Option<&Path>,
    produce: impl FnOnce(&mut dyn FnMut(&T)) -> R,
) -> Result<R> {
    write_batches::<T, _>(format, path, |batches| {
        let mut written = Ok(());
        let made = produce(&mut |row| {
            if written.is_ok() {
                written = batches.push(row, 0);
            }
        });
        written.map(|()| made)
    })
}

/// Opens the output and lets `fill` gather rows of `T` into [`Batches`], typed columns as they come. Each full
/// batch is finished into a DataFrame on this thread and handed to a writer thread, which encodes it while `fill`
/// gathers the next: making rows and encoding them take two cores. At
/// most two batches are held, the one being encoded and the one being gathered. Errors: the writer's (naming the
/// output) before `fill`'s.
fn write_batches<T: Serialize + Default, R>(
    format: TableFormat,
    path: Option<&Path>,
    fill: impl FnOnce(&mut Batches) -> Result<R, String>,
) -> Result<R> {
    let columns = Columns::of::<T>().map_err(table_error)?;
    with_sink(format, path, |sink| {
        let rows_per_batch = sink.batch_rows();
        std::thread::scope(|scope| {
            // No queue: a batch is handed over only once the writer has finished the one before.
            let (to_writer, batches_in) = std::sync::mpsc::sync_channel::<DataFrame>(0);
            let writer = scope.spawn(move || -> Result<(), String> {
                for mut batch in batches_in {
                    sink.write(&mut batch)?;
                }
                Ok(())
            });
            let mut batches = Batches {
                columns,
                rows_per_batch,
                to_writer,
                sent: false,
            };
            let filled = fill(&mut batches).and_then(|made| batches.end().map(|()| made));
            drop(batches);
            crate::joined(writer)?;
            filled
        })
    })
}

/// The batch being gathered on the caller's thread, and the way to the writer thread.
struct Batches {
    columns: Columns,
    rows_per_batch: usize,
    to_writer: std::sync::mpsc::SyncSender<DataFrame>,
    /// Whether a batch has gone to the writer.
    sent: bool,
}

impl Batches {
    /// Adds a row, handing the batch to the writer once full. A new batch's columns are sized for this row and
    /// the `left` the caller knows of (at most a batch).
    fn push<T: Serialize>(&mut self, row: &T, left: usize) -> Result<(), String> {
        if self.columns.rows() == 0 {
            self.columns
                .reserve(left.saturating_add(1).min(self.rows_per_batch));
        }
        self.columns.push(row)?;
        if self.columns.rows() == self.rows_per_batch {
            self.send()?;
        }
        Ok(())
    }

    /// Hands the last batch to the writer (and, for a table without rows, the empty one that gives its header).
    fn end(&mut self) -> Result<(), String> {
        if self.columns.rows() > 0 || !self.sent {
            self.send()?;
        }
        Ok(())
    }

    fn send(&mut self) -> Result<(), String> {
        let batch = self.columns.take_frame().map_err(|e| e.to_string())?;
        self.sent = true;
        // A closed channel means the writer stopped on an error, which it reports itself.
        self.to_writer
            .send(batch)
            .map_err(|_| "the table writer stopped".to_string())
    }
}

/// Writes `df` to `path`, or to stdout when `path` is `None` (CSV and JSON only).
pub fn write_table(df: &mut DataFrame, format: TableFormat, path: Option<&Path>) -> Result<()> {
    with_sink(format, path, |sink| sink.write(df))
}

/// Opens the output, lets `fill` write its batches, and finishes the file. Errors name the output.
fn with_sink<R>(
    format: TableFormat,
    path: Option<&Path>,
    fill: impl FnOnce(&mut Sink) -> Result<R, String>,
) -> Result<R> {
    if path.is_none() && format == TableFormat::Parquet {
        return Err(Error::Usage("Parquet output needs -o FILE".into()));
    }
    let out = super::open_output(path)?;
    let err = |cause: String| Error::Output {
        path: path.map_or_else(|| "<stdout>".into(), Path::to_path_buf),
        cause,
    };
    let mut sink = Sink {
        format,
        out: Some(out),
        writer: None,
    };
    let filled = fill(&mut sink).map_err(err)?;
    sink.finish().map_err(err)?;
    Ok(filled)
}

/// The CSV header line exactly as polars writes it (`QuoteStyle::Necessary`: a name is quoted when it is empty or
/// holds a comma, a quote or a line break, its quotes doubled). Written here because polars' header writer builds
/// a null array, and the first null array makes polars allocate and zero its 8 MiB of shared zeroes
/// (`polars-buffer`'s `GLOBAL_ZEROES`): a third of the peak memory of `ftl frames` on a sparse trace.
fn csv_header(schema: &Schema) -> String {
    let field = |name: &str| {
        if name.is_empty() || name.contains([',', '"', '\n', '\r']) {
            format!("\"{}\"", name.replace('"', "\"\""))
        } else {
            name.to_owned()
        }
    };
    let names: Vec<String> = schema.iter_names().map(|n| field(n.as_str())).collect();
    names.join(",") + "\n"
}

/// A table being written batch by batch with polars' batched writers (JSON: one array, its batches joined).
struct Sink {
    format: TableFormat,
    /// The output until the first batch opens a writer on it.
    out: Option<Box<dyn Write + Send>>,
    writer: Option<(Schema, Writer)>,
}

enum Writer {
    Csv(CsvBatchedWriter<Box<dyn Write + Send>>),
    Parquet(Box<ParquetBatchedWriter<Box<dyn Write + Send>>>),
    Json(Box<dyn Write + Send>, bool),
}

impl Sink {
    /// Rows per batch in this format.
    fn batch_rows(&self) -> usize {
        match self.format {
            TableFormat::Parquet => BATCH_ROWS,
            TableFormat::Csv | TableFormat::Json => TEXT_BATCH_ROWS,
        }
    }

    /// Writes one batch; a batch whose types differ from the first batch's (a column null throughout one of
    /// them) is cast to the first batch's schema.
    fn write(&mut self, df: &mut DataFrame) -> Result<(), String> {
        let e = |e: PolarsError| e.to_string();
        if self.writer.is_none() {
            let out = self.out.take().ok_or("output already closed")?;
            let schema = df.schema().as_ref().clone();
            let writer = match self.format {
                TableFormat::Csv => {
                    let mut out = out;
                    out.write_all(csv_header(&schema).as_bytes())
                        .map_err(|e| e.to_string())?;
                    let writer = CsvWriter::new(out).include_header(false);
                    Writer::Csv(writer.batched(&schema).map_err(e)?)
                }
                // Columns encoded on this thread: the same bytes, without the 4-6 MB polars' pool took while
                // a row group was encoded, and no slower (the rows are made on this thread anyway).
                TableFormat::Parquet => Writer::Parquet(Box::new(
                    ParquetWriter::new(out)
                        .set_parallel(false)
                        .batched(&schema)
                        .map_err(e)?,
                )),
                TableFormat::Json => Writer::Json(out, false),
            };
            self.writer = Some((schema, writer));
        }
        let Some((schema, writer)) = &mut self.writer else {
            unreachable!("opened above")
        };
        if df.schema().as_ref() != schema {
            *df = df
                .columns()
                .iter()
                .map(|c| c.cast(schema.get(c.name()).unwrap_or(c.dtype())))
                .collect::<PolarsResult<Vec<_>>>()
                .and_then(|columns| DataFrame::new(df.height(), columns))
                .map_err(e)?;
        }
        match writer {
            Writer::Csv(w) => w.write_batch(df).map_err(e),
            Writer::Parquet(w) => w.write_batch(df).map_err(e),
            Writer::Json(out, any_rows) => {
                let mut array = Vec::new();
                JsonWriter::new(&mut array)
                    .with_json_format(JsonFormat::Json)
                    .finish(df)
                    .map_err(e)?;
                let rows = array
                    .strip_prefix(b"[")
                    .and_then(|a| a.strip_suffix(b"]"))
                    .ok_or("polars wrote JSON that is not an array")?;
                let io = |e: std::io::Error| e.to_string();
                if !*any_rows {
                    out.write_all(b"[").map_err(io)?;
                } else if !rows.is_empty() {
                    out.write_all(b",").map_err(io)?;
                }
                *any_rows |= !rows.is_empty();
                out.write_all(rows).map_err(io)
            }
        }
    }

    fn finish(self) -> Result<(), String> {
        let e = |e: PolarsError| e.to_string();
        let io = |e: std::io::Error| e.to_string();
        match self.writer {
            Some((_, Writer::Csv(mut w))) => w.finish().map_err(e),
            Some((_, Writer::Parquet(w))) => w.finish().map(drop).map_err(e),
            Some((_, Writer::Json(mut out, _))) => {
                out.write_all(b"]").and_then(|()| out.flush()).map_err(io)
            }
            None => Ok(()),
        }
    }
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
    JsonWriter::new(&mut json)
        .with_json_format(JsonFormat::Json)
        .finish(&mut df)
        .map_err(|e| bad(e.to_string()))?;
    serde_json::from_slice(&json).map_err(|e| bad(format!("unexpected columns: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize, Default)]
    struct Row {
        ts: i64,
        /// Null in the first batch, text later: later batches are cast to the first batch's schema.
        note: Option<String>,
        ratio_ms: f64,
    }

    fn rows() -> impl Iterator<Item = Row> {
        (0..BATCH_ROWS as i64 * 2 + 7).map(|i| Row {
            ts: i * 3,
            note: (i > BATCH_ROWS as i64 + 2).then(|| format!("n{i}")),
            ratio_ms: i as f64 / 7.0,
        })
    }

    /// A write that fails while rows are still being made (a full disk: `/dev/full`) ends the table with an
    /// error naming the output, in every format and through both entry points; the rows still to come are
    /// dropped, and nothing waits on the stopped writer thread.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_failing_output_is_an_error_naming_it() {
        let full = Path::new("/dev/full");
        let named = |r: Result<()>| match r {
            Err(Error::Output { path, cause }) => {
                assert_eq!(path, full);
                assert!(!cause.is_empty());
            }
            other => panic!("expected an output error, got {other:?}"),
        };
        for format in [TableFormat::Csv, TableFormat::Json, TableFormat::Parquet] {
            named(write_rows::<Row>(rows(), format, Some(full)));
            let mut made = 0;
            named(
                write_rows_each::<Row, _>(format, Some(full), |push| {
                    for row in rows() {
                        push(&row);
                        made += 1;
                    }
                })
                .map(drop),
            );
            assert_eq!(made, rows().count());
        }
    }

    /// Streaming in batches writes the same bytes as the whole table at once (CSV, JSON) and the same
    /// table (Parquet), with one row group per batch.
    #[test]
    fn batched_writes_equal_whole_table_writes() {
        let dir = tempfile::tempdir().unwrap();
        let all: Vec<Row> = rows().collect();
        for format in [TableFormat::Csv, TableFormat::Json, TableFormat::Parquet] {
            let whole = dir.path().join(format!("whole.{}", format.extension()));
            let batched = dir.path().join(format!("batched.{}", format.extension()));
            // The same rows pushed one by one from inside a computation.
            let pushed = dir.path().join(format!("pushed.{}", format.extension()));
            write_table(&mut to_dataframe(&all).unwrap(), format, Some(&whole)).unwrap();
            write_rows::<Row>(rows(), format, Some(&batched)).unwrap();
            let n = write_rows_each::<Row, _>(format, Some(&pushed), |push| {
                rows().map(|r| push(&r)).count()
            })
            .unwrap();
            assert_eq!(n, all.len());
            if format == TableFormat::Parquet {
                let read = |p: &Path| ParquetReader::new(File::open(p).unwrap()).finish().unwrap();
                assert!(read(&whole).equals_missing(&read(&batched)));
                assert!(read(&whole).equals_missing(&read(&pushed)));
            } else {
                let whole = std::fs::read(&whole).unwrap();
                assert_eq!(whole, std::fs::read(&batched).unwrap(), "{format:?}");
                assert_eq!(whole, std::fs::read(&pushed).unwrap(), "{format:?}");
                assert!(whole.len() > BATCH_ROWS * 20);
            }
        }
    }

    #[test]
    fn an_empty_table_keeps_its_header() {
        let dir = tempfile::tempdir().unwrap();
        let csv = dir.path().join("empty.csv");
        write_rows::<Row>(std::iter::empty::<Row>(), TableFormat::Csv, Some(&csv)).unwrap();
        assert_eq!(std::fs::read_to_string(&csv).unwrap(), "ts,note,ratio_ms\n");
        let json = dir.path().join("empty.json");
        write_rows::<Row>(std::iter::empty::<Row>(), TableFormat::Json, Some(&json)).unwrap();
        assert_eq!(std::fs::read_to_string(&json).unwrap(), "[]");
        let pushed = dir.path().join("pushed.csv");
        write_rows_each::<Row, _>(TableFormat::Csv, Some(&pushed), |_| ()).unwrap();
        assert_eq!(
            std::fs::read_to_string(&pushed).unwrap(),
            "ts,note,ratio_ms\n"
        );
    }

    #[test]
    fn the_csv_header_is_polars_own() {
        let names = [
            "ts",
            "a,b",
            "say \"hi\"",
            "two\nlines",
            "cr\rhere",
            "",
            "plain_ms",
        ];
        let columns: Vec<Column> = names
            .iter()
            .map(|&n| Column::new(n.into(), Vec::<i64>::new()))
            .collect();
        let mut df = DataFrame::new(0, columns).unwrap();
        let mut polars_own = Vec::new();
        CsvWriter::new(&mut polars_own).finish(&mut df).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let ours = dir.path().join("header.csv");
        write_table(&mut df, TableFormat::Csv, Some(&ours)).unwrap();
        assert_eq!(
            String::from_utf8(polars_own).unwrap(),
            std::fs::read_to_string(&ours).unwrap()
        );
    }

    #[test]
    fn parquet_to_stdout_is_a_usage_error() {
        let e = write_rows::<Row>(rows().take(1), TableFormat::Parquet, None).unwrap_err();
        assert!(matches!(e, Error::Usage(_)), "{e}");
    }
}
