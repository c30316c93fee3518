//! Serde rows → polars columns, a batch at a time: a `serde::Serializer` that appends each field of a row to
//! its column as a small cell (no per-row map or per-value allocation), then types each column as
//! [`super::table::to_dataframe`] documents.

use super::table::Kind;
use polars::prelude::*;
use rustc_hash::FxHashMap;
use serde::ser::{self, Impossible, Serialize, SerializeMap, SerializeStruct, Serializer};
use serde_json::Value;

/// One value of a row, as serde handed it over; strings live in their column's text arena.
#[derive(Debug, Clone, Copy)]
enum Cell {
    Null,
    Int(i64),
    Float(f64),
    Bool(bool),
    Str { start: u32, end: u32 },
}

/// The cells of one column in the current batch.
#[derive(Default)]
struct ColumnCells {
    cells: Vec<Cell>,
    text: String,
}

impl ColumnCells {
    fn push_str(&mut self, s: &str) -> Cell {
        let start = self.text.len();
        self.text.push_str(s);
        Cell::Str {
            start: start as u32,
            end: self.text.len() as u32,
        }
    }
}

/// Rows of one type being collected into columns. The columns are the fields of the row type as serialised
/// (flattened fields included), taken from its `Default` value, so an empty table still has its schema.
pub struct Columns {
    names: Vec<String>,
    index: FxHashMap<String, usize>,
    columns: Vec<ColumnCells>,
    rows: usize,
}

impl Columns {
    /// The columns of `T`. Errors: a message if `T` does not serialise as a struct.
    pub fn of<T: Serialize + Default>() -> Result<Columns, String> {
        let names: Vec<String> = match serde_json::to_value(T::default()) {
            Ok(Value::Object(m)) => m.keys().cloned().collect(),
            _ => return Err("row type is not a struct".into()),
        };
        Ok(Columns {
            index: names.iter().cloned().zip(0..).collect(),
            columns: names.iter().map(|_| ColumnCells::default()).collect(),
            names,
            rows: 0,
        })
    }

    /// Makes room for `rows` more rows in every column, so that a batch of known size is not grown by doubling.
    pub fn reserve(&mut self, rows: usize) {
        for c in &mut self.columns {
            c.cells.reserve_exact(rows);
        }
    }

    /// Rows collected since the last [`Columns::take_frame`].
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Appends one row; fields that are not columns of the type are ignored, columns the row lacks are null.
    /// Errors: a message if the row is not a struct or a nested value cannot be written as JSON.
    pub fn push<T: Serialize>(&mut self, row: &T) -> Result<(), String> {
        row.serialize(RowSerializer {
            columns: self,
            next: 0,
            key: None,
        })
        .map_err(|e| e.0)?;
        self.rows += 1;
        for c in &mut self.columns {
            c.cells.resize(self.rows, Cell::Null);
        }
        Ok(())
    }

    /// The collected rows as a DataFrame, leaving the columns empty for the next batch. Types: integers →
    /// Int64, floats → Float64 (a column holding both → Float64), bools → Boolean, anything else or a mix →
    /// String (numbers and bools as JSON text, nested values as JSON); a column without any value in the batch
    /// takes the type its name gives ([`Kind::of_unit`]).
    ///
    /// Each column's cells are freed as soon as its polars column is built, so the batch is not held twice.
    pub fn take_frame(&mut self) -> PolarsResult<DataFrame> {
        let columns = self
            .names
            .iter()
            .zip(&mut self.columns)
            .map(|(name, c)| column(name, &std::mem::take(c)))
            .collect();
        let rows = std::mem::take(&mut self.rows);
        DataFrame::new(rows, columns)
    }

    fn resolve(&self, key: &str, next: usize) -> Option<usize> {
        match self.names.get(next) {
            Some(n) if n == key => Some(next),
            _ => self.index.get(key).copied(),
        }
    }

    fn set<T: Serialize + ?Sized>(&mut self, col: usize, value: &T) -> Result<(), String> {
        let c = &mut self.columns[col];
        if c.cells.len() > self.rows {
            return Ok(()); // a repeated key: the first value stands
        }
        let cell = match value.serialize(CellSerializer { column: c }) {
            Ok(cell) => cell,
            Err(_) => {
                let json = serde_json::to_string(value).map_err(|e| e.to_string())?;
                c.push_str(&json)
            }
        };
        c.cells.push(cell);
        Ok(())
    }
}

fn column(name: &str, c: &ColumnCells) -> Column {
    let kind = c.cells.iter().fold(None, |kind, cell| match (kind, cell) {
        (_, Cell::Null) => kind,
        (None | Some(Kind::Int), Cell::Int(_)) => Some(Kind::Int),
        (None | Some(Kind::Int) | Some(Kind::Float), Cell::Int(_) | Cell::Float(_)) => {
            Some(Kind::Float)
        }
        (None | Some(Kind::Bool), Cell::Bool(_)) => Some(Kind::Bool),
        _ => Some(Kind::Str),
    });
    let kind = kind.unwrap_or_else(|| Kind::of_unit(name));
    let name = PlSmallStr::from(name);
    let cells = c.cells.iter();
    match kind {
        Kind::Int => Int64Chunked::from_iter_options(
            name,
            cells.map(|v| match v {
                Cell::Int(i) => Some(*i),
                _ => None,
            }),
        )
        .into_column(),
        Kind::Float => Float64Chunked::from_iter_options(
            name,
            cells.map(|v| match v {
                Cell::Int(i) => Some(*i as f64),
                Cell::Float(f) => Some(*f),
                _ => None,
            }),
        )
        .into_column(),
        Kind::Bool => BooleanChunked::from_iter_options(
            name,
            cells.map(|v| match v {
                Cell::Bool(b) => Some(*b),
                _ => None,
            }),
        )
        .into_column(),
        Kind::Str => {
            let text = |v: &Cell| -> Option<std::borrow::Cow<'_, str>> {
                match *v {
                    Cell::Null => None,
                    Cell::Str { start, end } => Some(c.text[start as usize..end as usize].into()),
                    Cell::Int(i) => Some(i.to_string().into()),
                    Cell::Float(f) => Some(Value::from(f).to_string().into()),
                    Cell::Bool(b) => Some(b.to_string().into()),
                }
            };
            StringChunked::from_iter_options(name, cells.map(text)).into_column()
        }
    }
}

/// The serializer's error: a message (a row that is not a struct, or a value that is not a scalar).
#[derive(Debug)]
struct Error(String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

fn not_a_struct<T>() -> Result<T, Error> {
    Err(Error("row is not a struct".into()))
}

/// Serialises one row: a struct, or a map when the row type has flattened fields.
struct RowSerializer<'a> {
    columns: &'a mut Columns,
    /// The column the next field most likely fills (fields come in column order).
    next: usize,
    /// The column of a map entry's key (`None`: not a column), between `serialize_key` and `serialize_value`.
    key: Option<usize>,
}

impl RowSerializer<'_> {
    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), Error> {
        let col = self.columns.resolve(key, self.next);
        self.value(col, value)
    }

    fn value<T: Serialize + ?Sized>(&mut self, col: Option<usize>, value: &T) -> Result<(), Error> {
        if let Some(col) = col {
            self.next = col + 1;
            self.columns.set(col, value).map_err(Error)?;
        }
        Ok(())
    }
}

impl SerializeStruct for RowSerializer<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.field(key, value)
    }

    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

impl SerializeMap for RowSerializer<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.key = key.serialize(KeySerializer {
            columns: self.columns,
            next: self.next,
        })?;
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let col = self.key.take();
        self.value(col, value)
    }

    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}

/// Serializer methods that only refuse: each returns `$refuse()` (scalars: `fn(T)`; the rest: serde's
/// compound and variant methods, whose arguments are ignored).
macro_rules! refuse {
    ($refuse:ident; $($method:ident($($arg:ty),*);)*) => {
        $(fn $method(self, $(_: $arg),*) -> Result<Self::Ok, Error> { $refuse() })*
    };
    (compound $refuse:ident) => {
        fn serialize_newtype_variant<T: Serialize + ?Sized>(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: &T,
        ) -> Result<Self::Ok, Error> {
            $refuse()
        }
        fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Error> {
            $refuse()
        }
        fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Error> {
            $refuse()
        }
        fn serialize_tuple_struct(
            self,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleStruct, Error> {
            $refuse()
        }
        fn serialize_tuple_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeTupleVariant, Error> {
            $refuse()
        }
        fn serialize_struct_variant(
            self,
            _: &'static str,
            _: u32,
            _: &'static str,
            _: usize,
        ) -> Result<Self::SerializeStructVariant, Error> {
            $refuse()
        }
    };
}

impl<'a> Serializer for RowSerializer<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), Error>;

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Error> {
        Ok(self)
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Self, Error> {
        Ok(self)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }

    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), Error> {
        not_a_struct()
    }

    refuse! { not_a_struct;
        serialize_bool(bool); serialize_i8(i8); serialize_i16(i16); serialize_i32(i32); serialize_i64(i64);
        serialize_u8(u8); serialize_u16(u16); serialize_u32(u32); serialize_u64(u64); serialize_f32(f32);
        serialize_f64(f64); serialize_char(char); serialize_str(&str); serialize_bytes(&[u8]);
        serialize_none(); serialize_unit(); serialize_unit_struct(&'static str);
        serialize_unit_variant(&'static str, u32, &'static str);
    }
    refuse! { compound not_a_struct }
}

/// Resolves a map entry's key (a string) to its column where serde hands the key over, without copying it.
struct KeySerializer<'a> {
    columns: &'a Columns,
    next: usize,
}

fn key_not_a_string<T>() -> Result<T, Error> {
    Err(Error("row key is not a string".into()))
}

impl Serializer for KeySerializer<'_> {
    type Ok = Option<usize>;
    type Error = Error;
    type SerializeSeq = Impossible<Option<usize>, Error>;
    type SerializeTuple = Impossible<Option<usize>, Error>;
    type SerializeTupleStruct = Impossible<Option<usize>, Error>;
    type SerializeTupleVariant = Impossible<Option<usize>, Error>;
    type SerializeMap = Impossible<Option<usize>, Error>;
    type SerializeStruct = Impossible<Option<usize>, Error>;
    type SerializeStructVariant = Impossible<Option<usize>, Error>;

    fn serialize_str(self, v: &str) -> Result<Option<usize>, Error> {
        Ok(self.columns.resolve(v, self.next))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<Option<usize>, Error> {
        key_not_a_string()
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<Option<usize>, Error> {
        value.serialize(self)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        key_not_a_string()
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        key_not_a_string()
    }
    refuse! { key_not_a_string;
        serialize_bool(bool); serialize_i8(i8); serialize_i16(i16); serialize_i32(i32); serialize_i64(i64);
        serialize_u8(u8); serialize_u16(u16); serialize_u32(u32); serialize_u64(u64); serialize_f32(f32);
        serialize_f64(f64); serialize_char(char); serialize_bytes(&[u8]);
        serialize_none(); serialize_unit(); serialize_unit_struct(&'static str);
        serialize_unit_variant(&'static str, u32, &'static str);
    }
    refuse! { compound key_not_a_string }
}

/// Serialises one field value to a cell; a nested value (sequence, map, struct, enum with data) is an error,
/// which the caller answers by writing the value as JSON text.
struct CellSerializer<'a> {
    column: &'a mut ColumnCells,
}

macro_rules! int_cells {
    ($($method:ident($t:ty);)*) => {
        $(fn $method(self, v: $t) -> Result<Cell, Error> { Ok(Cell::Int(v.into())) })*
    };
}

fn nested<T>() -> Result<T, Error> {
    Err(Error("nested value".into()))
}

impl<'a> Serializer for CellSerializer<'a> {
    type Ok = Cell;
    type Error = Error;
    type SerializeSeq = Impossible<Cell, Error>;
    type SerializeTuple = Impossible<Cell, Error>;
    type SerializeTupleStruct = Impossible<Cell, Error>;
    type SerializeTupleVariant = Impossible<Cell, Error>;
    type SerializeMap = Impossible<Cell, Error>;
    type SerializeStruct = Impossible<Cell, Error>;
    type SerializeStructVariant = Impossible<Cell, Error>;

    fn serialize_bool(self, v: bool) -> Result<Cell, Error> {
        Ok(Cell::Bool(v))
    }
    int_cells! {
        serialize_i8(i8); serialize_i16(i16); serialize_i32(i32); serialize_i64(i64);
        serialize_u8(u8); serialize_u16(u16); serialize_u32(u32);
    }
    /// Above `i64::MAX` a float, as serde_json's numbers have it.
    fn serialize_u64(self, v: u64) -> Result<Cell, Error> {
        Ok(i64::try_from(v).map_or(Cell::Float(v as f64), Cell::Int))
    }
    fn serialize_f32(self, v: f32) -> Result<Cell, Error> {
        self.serialize_f64(v.into())
    }
    /// NaN and infinities are null, as in JSON.
    fn serialize_f64(self, v: f64) -> Result<Cell, Error> {
        Ok(if v.is_finite() {
            Cell::Float(v)
        } else {
            Cell::Null
        })
    }
    fn serialize_char(self, v: char) -> Result<Cell, Error> {
        Ok(self.column.push_str(v.encode_utf8(&mut [0; 4])))
    }
    fn serialize_str(self, v: &str) -> Result<Cell, Error> {
        Ok(self.column.push_str(v))
    }
    fn serialize_none(self) -> Result<Cell, Error> {
        Ok(Cell::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Cell, Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Cell, Error> {
        Ok(Cell::Null)
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<Cell, Error> {
        Ok(Cell::Null)
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<Cell, Error> {
        Ok(self.column.push_str(variant))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<Cell, Error> {
        value.serialize(self)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Error> {
        nested()
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Error> {
        nested()
    }
    refuse! { nested; serialize_bytes(&[u8]); }
    refuse! { compound nested }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Serialize;

    #[derive(Serialize)]
    enum Tag {
        Self_,
    }

    #[derive(Serialize, Default)]
    struct Inner {
        dur_ns: Option<i64>,
    }

    #[derive(Serialize, Default)]
    struct Row {
        ts: i64,
        big: u64,
        ratio_ms: f64,
        name: Option<String>,
        is_buffer: Option<bool>,
        tag: Option<Tag>,
        lines: Vec<u64>,
        #[serde(flatten)]
        inner: Inner,
    }

    fn frame(rows: &[Row]) -> DataFrame {
        let mut columns = Columns::of::<Row>().unwrap();
        for r in rows {
            columns.push(r).unwrap();
        }
        columns.take_frame().unwrap()
    }

    #[test]
    fn values_become_typed_columns_in_field_order() {
        let df = frame(&[
            Row {
                ts: -5,
                big: u64::MAX,
                ratio_ms: f64::NAN,
                name: Some("a,b".into()),
                is_buffer: Some(true),
                tag: Some(Tag::Self_),
                lines: vec![3, 4],
                inner: Inner { dur_ns: Some(7) },
            },
            Row::default(),
        ]);
        let names: Vec<&str> = df.get_column_names().iter().map(|n| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "ts",
                "big",
                "ratio_ms",
                "name",
                "is_buffer",
                "tag",
                "lines",
                "dur_ns"
            ]
        );
        let dtypes: Vec<DataType> = df.dtypes();
        use DataType::*;
        assert_eq!(
            dtypes,
            [Int64, Float64, Float64, String, Boolean, String, String, Int64]
        );
        let get = |c: &str, i: usize| df.column(c).unwrap().get(i).unwrap().into_static();
        assert_eq!(get("ts", 0), AnyValue::Int64(-5));
        assert_eq!(get("big", 0), AnyValue::Float64(u64::MAX as f64));
        assert_eq!(get("big", 1), AnyValue::Float64(0.0));
        assert_eq!(
            get("ratio_ms", 0),
            AnyValue::Null,
            "NaN is null, as in JSON"
        );
        assert_eq!(get("tag", 0), AnyValue::StringOwned("Self_".into()));
        assert_eq!(get("lines", 0), AnyValue::StringOwned("[3,4]".into()));
        assert_eq!(get("lines", 1), AnyValue::StringOwned("[]".into()));
        assert_eq!(get("dur_ns", 0), AnyValue::Int64(7));
        assert_eq!(get("dur_ns", 1), AnyValue::Null);
        assert_eq!(get("name", 1), AnyValue::Null);
    }

    #[test]
    fn an_empty_batch_keeps_the_schema_and_all_null_columns_take_the_type_of_their_name() {
        let df = frame(&[]);
        assert_eq!(df.height(), 0);
        assert_eq!(df.width(), 8);
        // `dur_ns` never holds a value: `_ns` says integer; `name` says string.
        assert_eq!(df.column("dur_ns").unwrap().dtype(), &DataType::Int64);
        assert_eq!(df.column("name").unwrap().dtype(), &DataType::String);
    }

    #[test]
    fn a_column_holding_integers_and_floats_is_float_and_one_holding_text_too_is_text() {
        #[derive(Serialize, Default)]
        struct Mixed {
            a: serde_json::Value,
            b: serde_json::Value,
        }
        let rows = [
            Mixed {
                a: 1.into(),
                b: 2.into(),
            },
            Mixed {
                a: 1.5.into(),
                b: "x".into(),
            },
        ];
        let mut columns = Columns::of::<Mixed>().unwrap();
        for r in &rows {
            columns.push(r).unwrap();
        }
        let df = columns.take_frame().unwrap();
        assert_eq!(df.column("a").unwrap().dtype(), &DataType::Float64);
        let b = df.column("b").unwrap();
        assert_eq!(b.get(0).unwrap(), AnyValue::String("2"));
        assert_eq!(b.get(1).unwrap(), AnyValue::String("x"));
    }

    #[test]
    fn a_row_that_is_not_a_struct_is_an_error() {
        let mut columns = Columns::of::<Row>().unwrap();
        assert!(columns.push(&5_i64).is_err());
        assert!(Columns::of::<i64>().is_err());
    }
}
