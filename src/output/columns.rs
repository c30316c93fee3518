//! Serde rows → polars columns, a batch at a time: a `serde::Serializer` that appends each field of a row to its
//! column's polars builder as it comes (no per-row map, no per-value allocation, no second copy of the batch),
//! each column kept in the type its values have so far, as [`super::table::to_dataframe`] documents.

use super::table::Kind;
use polars::prelude::*;
use polars_arrow::array::{MutableBinaryViewArray, View};
use polars_buffer::Buffer;
use rustc_hash::{FxBuildHasher, FxHashMap};
use serde::ser::{self, Impossible, Serialize, SerializeMap, SerializeStruct, Serializer};
use serde_json::Value;
use std::borrow::Cow;

/// The distinct long values a text column stores once per batch: labels, layer and process names have a few.
/// A column with more (names, reasons) copies its values from then on, as polars does.
const INTERNED: usize = 64;

/// A text column's values. A value too long to sit inside its 16-byte view (over 12 bytes) is stored once per
/// batch and every row holding it points at that copy, while the column has at most [`INTERNED`] of them;
/// otherwise each value is copied as it comes. Either way the column holds the same strings.
struct Text {
    array: MutableBinaryViewArray<str>,
    /// The long values stored so far, each in a buffer of its own; `None` once there were too many.
    interned: Option<hashbrown::HashMap<Box<str>, Buffer<u8>, FxBuildHasher>>,
}

impl Text {
    fn with_capacity(capacity: usize) -> Self {
        Text {
            array: MutableBinaryViewArray::with_capacity(capacity),
            interned: Some(Default::default()),
        }
    }

    fn push(&mut self, s: &str) {
        let bytes = s.as_bytes();
        let Some(interned) = self
            .interned
            .as_mut()
            .filter(|_| bytes.len() > View::MAX_INLINE_SIZE as usize)
        else {
            return self.array.push_value(s);
        };
        if interned.len() == INTERNED && !interned.contains_key(s) {
            self.interned = None;
            return self.array.push_value(s);
        }
        // One lookup for a value seen before; the key is allocated only for a new one.
        let buffer = interned
            .entry_ref(s)
            .or_insert_with(|| Buffer::from(bytes.to_vec()));
        self.array.push_view(
            View::new_from_bytes(bytes, 0, 0),
            std::slice::from_ref(buffer),
        );
    }
}

/// One value of a row, as serde handed it over: `S` is `&str` while it is appended, `String` in a mixed column.
#[derive(Clone, Copy)]
enum Scalar<S> {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(S),
}

impl<S: AsRef<str>> Scalar<S> {
    fn kind(&self) -> Kind {
        match self {
            Scalar::Int(_) => Kind::Int,
            Scalar::Float(_) => Kind::Float,
            Scalar::Bool(_) => Kind::Bool,
            Scalar::Str(_) => Kind::Str,
        }
    }

    /// The value in a float column.
    fn float(&self) -> Option<f64> {
        match *self {
            Scalar::Int(i) => Some(i as f64),
            Scalar::Float(f) => Some(f),
            Scalar::Bool(_) | Scalar::Str(_) => None,
        }
    }

    /// The value in a text column: numbers and bools as JSON writes them.
    fn text(&self) -> Cow<'_, str> {
        match self {
            Scalar::Str(s) => s.as_ref().into(),
            Scalar::Int(i) => i.to_string().into(),
            Scalar::Float(f) => Value::from(*f).to_string().into(),
            Scalar::Bool(b) => b.to_string().into(),
        }
    }

    fn to_owned(&self) -> Scalar<String> {
        match self {
            Scalar::Int(i) => Scalar::Int(*i),
            Scalar::Float(f) => Scalar::Float(*f),
            Scalar::Bool(b) => Scalar::Bool(*b),
            Scalar::Str(s) => Scalar::Str(s.as_ref().to_owned()),
        }
    }
}

/// The type of a column holding values of both types: integers and floats make floats, any other mix text.
fn joined(a: Kind, b: Kind) -> Kind {
    match (a, b) {
        (Kind::Int, Kind::Int) => Kind::Int,
        (Kind::Int | Kind::Float, Kind::Int | Kind::Float) => Kind::Float,
        (Kind::Bool, Kind::Bool) => Kind::Bool,
        _ => Kind::Str,
    }
}

/// The values of one column in the current batch: typed by the first value, or kept as they came once values
/// of another type joined them (a field that is not of one type, such as a JSON value).
enum Values {
    /// Only nulls (as many as the column's length).
    Nulls,
    Int(PrimitiveChunkedBuilder<Int64Type>),
    Float(PrimitiveChunkedBuilder<Float64Type>),
    Bool(BooleanChunkedBuilder),
    Str(Text),
    Mixed(Vec<Option<Scalar<String>>>),
}

/// One column of the current batch.
struct ColumnValues {
    name: PlSmallStr,
    /// Values so far in this batch, nulls included.
    len: usize,
    values: Values,
}

impl ColumnValues {
    fn new(name: &str) -> Self {
        ColumnValues {
            name: name.into(),
            len: 0,
            values: Values::Nulls,
        }
    }

    fn push_null(&mut self) {
        match &mut self.values {
            Values::Nulls => {}
            Values::Int(b) => b.append_null(),
            Values::Float(b) => b.append_null(),
            Values::Bool(b) => b.append_null(),
            Values::Str(t) => t.array.push_null(),
            Values::Mixed(v) => v.push(None),
        }
        self.len += 1;
    }

    /// Appends a value. `capacity`: the rows the batch is expected to hold.
    fn push(&mut self, v: Scalar<&str>, capacity: usize) {
        match (&mut self.values, v) {
            (Values::Int(b), Scalar::Int(i)) => b.append_value(i),
            (Values::Float(b), Scalar::Float(f)) => b.append_value(f),
            (Values::Bool(b), Scalar::Bool(x)) => b.append_value(x),
            // Text takes any value as text, which is what the mix would make of it.
            (Values::Str(t), v) => t.push(&v.text()),
            (Values::Mixed(values), v) => values.push(Some(v.to_owned())),
            (Values::Nulls, v) => {
                self.start(v.kind(), capacity.max(self.len + 1));
                return self.push(v, capacity);
            }
            (_, v) => {
                let mut values = self
                    .take()
                    .as_materialized_series()
                    .iter()
                    .map(|v| match v {
                        AnyValue::Int64(i) => Some(Scalar::Int(i)),
                        AnyValue::Float64(f) => Some(Scalar::Float(f)),
                        AnyValue::Boolean(b) => Some(Scalar::Bool(b)),
                        _ => None,
                    })
                    .collect::<Vec<_>>();
                self.len = values.len();
                values.push(Some(v.to_owned()));
                self.values = Values::Mixed(values);
            }
        }
        self.len += 1;
    }

    /// Turns a column of nulls into a column of `kind`, with room for `capacity` values.
    fn start(&mut self, kind: Kind, capacity: usize) {
        let name = self.name.clone();
        self.values = match kind {
            Kind::Int => Values::Int(PrimitiveChunkedBuilder::new(name, capacity)),
            Kind::Float => Values::Float(PrimitiveChunkedBuilder::new(name, capacity)),
            Kind::Bool => Values::Bool(BooleanChunkedBuilder::new(name, capacity)),
            Kind::Str => Values::Str(Text::with_capacity(capacity)),
        };
        let nulls = std::mem::take(&mut self.len);
        (0..nulls).for_each(|_| self.push_null());
    }

    /// The batch's values as a polars column, leaving this column empty; a column without any value takes the
    /// type its name gives ([`Kind::of_unit`]).
    fn take(&mut self) -> Column {
        if let Values::Nulls = self.values {
            self.start(Kind::of_unit(&self.name), self.len);
        }
        let name = self.name.clone();
        self.len = 0;
        match std::mem::replace(&mut self.values, Values::Nulls) {
            Values::Nulls => unreachable!("started above"),
            Values::Int(b) => b.finish().into_column(),
            Values::Float(b) => b.finish().into_column(),
            Values::Bool(b) => b.finish().into_column(),
            Values::Str(t) => StringChunked::with_chunk(name, t.array.freeze()).into_column(),
            Values::Mixed(values) => {
                let kinds = values.iter().flatten().map(Scalar::kind);
                match kinds.reduce(joined) {
                    Some(Kind::Float) => {
                        let floats = values.iter().map(|v| v.as_ref().and_then(Scalar::float));
                        Float64Chunked::from_iter_options(name, floats).into_column()
                    }
                    _ => {
                        let texts = values.iter().map(|v| v.as_ref().map(Scalar::text));
                        StringChunked::from_iter_options(name, texts).into_column()
                    }
                }
            }
        }
    }
}

/// Rows of one type being collected into columns. The columns are the fields of the row type as serialised
/// (flattened fields included), taken from its `Default` value, so an empty table still has its schema.
pub struct Columns {
    index: FxHashMap<String, usize>,
    columns: Vec<ColumnValues>,
    rows: usize,
    /// The rows the current batch is expected to hold: the room a column is given at its first value.
    capacity: usize,
}

impl Columns {
    /// The columns of `T`. Errors: a message if `T` does not serialise as a struct.
    pub fn of<T: Serialize + Default>() -> Result<Columns, String> {
        let names: Vec<String> = match serde_json::to_value(T::default()) {
            Ok(Value::Object(m)) => m.keys().cloned().collect(),
            _ => return Err("row type is not a struct".into()),
        };
        Ok(Columns {
            columns: names.iter().map(|n| ColumnValues::new(n)).collect(),
            index: names.into_iter().zip(0..).collect(),
            rows: 0,
            capacity: 0,
        })
    }

    /// Expects `rows` rows in the current batch, so that its columns are not grown by doubling.
    pub fn reserve(&mut self, rows: usize) {
        self.capacity = rows;
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
            if c.len < self.rows {
                c.push_null();
            }
        }
        Ok(())
    }

    /// The collected rows as a DataFrame, leaving the columns empty for the next batch. Types: integers →
    /// Int64, floats → Float64 (a column holding both → Float64), bools → Boolean, anything else or a mix →
    /// String (numbers and bools as JSON text, nested values as JSON); a column without any value in the batch
    /// takes the type its name gives ([`Kind::of_unit`]).
    pub fn take_frame(&mut self) -> PolarsResult<DataFrame> {
        let columns = self.columns.iter_mut().map(ColumnValues::take).collect();
        let rows = std::mem::take(&mut self.rows);
        DataFrame::new(rows, columns)
    }

    fn resolve(&self, key: &str, next: usize) -> Option<usize> {
        match self.columns.get(next) {
            Some(c) if c.name == key => Some(next),
            _ => self.index.get(key).copied(),
        }
    }

    fn set<T: Serialize + ?Sized>(&mut self, col: usize, value: &T) -> Result<(), String> {
        let c = &mut self.columns[col];
        if c.len > self.rows {
            return Ok(()); // a repeated key: the first value stands
        }
        let capacity = self.capacity;
        if value
            .serialize(CellSerializer {
                column: &mut *c,
                capacity,
            })
            .is_err()
        {
            let json = serde_json::to_string(value).map_err(|e| e.to_string())?;
            c.push(Scalar::Str(&json), capacity);
        }
        Ok(())
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

/// Appends one field value to its column; a nested value (sequence, map, struct, enum with data) is an error
/// before anything is appended, which the caller answers by writing the value as JSON text.
struct CellSerializer<'a> {
    column: &'a mut ColumnValues,
    capacity: usize,
}

impl CellSerializer<'_> {
    fn push(self, v: Scalar<&str>) -> Result<(), Error> {
        self.column.push(v, self.capacity);
        Ok(())
    }

    fn null(self) -> Result<(), Error> {
        self.column.push_null();
        Ok(())
    }
}

macro_rules! int_cells {
    ($($method:ident($t:ty);)*) => {
        $(fn $method(self, v: $t) -> Result<(), Error> { self.push(Scalar::Int(v.into())) })*
    };
}

fn nested<T>() -> Result<T, Error> {
    Err(Error("nested value".into()))
}

impl<'a> Serializer for CellSerializer<'a> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.push(Scalar::Bool(v))
    }
    int_cells! {
        serialize_i8(i8); serialize_i16(i16); serialize_i32(i32); serialize_i64(i64);
        serialize_u8(u8); serialize_u16(u16); serialize_u32(u32);
    }
    /// Above `i64::MAX` a float, as serde_json's numbers have it.
    fn serialize_u64(self, v: u64) -> Result<(), Error> {
        self.push(i64::try_from(v).map_or(Scalar::Float(v as f64), Scalar::Int))
    }
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        self.serialize_f64(v.into())
    }
    /// NaN and infinities are null, as in JSON.
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        if v.is_finite() {
            self.push(Scalar::Float(v))
        } else {
            self.null()
        }
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        self.push(Scalar::Str(v.encode_utf8(&mut [0; 4])))
    }
    fn serialize_str(self, v: &str) -> Result<(), Error> {
        self.push(Scalar::Str(v))
    }
    fn serialize_none(self) -> Result<(), Error> {
        self.null()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Error> {
        self.null()
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Error> {
        self.null()
    }
    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        self.push(Scalar::Str(variant))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Error> {
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
    fn a_column_that_changes_type_keeps_its_earlier_values_and_nulls_in_place() {
        #[derive(Serialize, Default)]
        struct Loose {
            a: serde_json::Value,
            b: serde_json::Value,
        }
        let a: [Value; 5] = [Value::Null, 1.into(), Value::Null, 2.5.into(), Value::Null];
        let b: [Value; 5] = [Value::Null, 1.into(), 2.5.into(), true.into(), "x".into()];
        let mut columns = Columns::of::<Loose>().unwrap();
        for (a, b) in a.into_iter().zip(b) {
            columns.push(&Loose { a, b }).unwrap();
        }
        let df = columns.take_frame().unwrap();
        let a = df.column("a").unwrap().f64().unwrap();
        let a: Vec<Option<f64>> = a.iter().collect();
        assert_eq!(a, [None, Some(1.0), None, Some(2.5), None]);
        let b = df.column("b").unwrap().str().unwrap();
        let b: Vec<Option<&str>> = b.iter().collect();
        assert_eq!(b, [None, Some("1"), Some("2.5"), Some("true"), Some("x")]);
    }

    #[test]
    fn text_columns_hold_every_value_whether_stored_once_or_copied() {
        #[derive(Serialize, Default)]
        struct Labelled {
            label: Option<String>,
        }
        // Short values, a few long ones repeated, nulls, then more distinct long values than are stored once.
        let values: Vec<Option<String>> = (0..10 * INTERNED)
            .map(|i| match i % 5 {
                0 => None,
                1 => Some(format!("short {}", i % 3)),
                2 | 3 => Some(format!("a label long enough to need a buffer {}", i % 4)),
                _ => Some(format!("a distinct value long enough for a buffer {i}")),
            })
            .collect();
        let mut columns = Columns::of::<Labelled>().unwrap();
        for label in &values {
            columns
                .push(&Labelled {
                    label: label.clone(),
                })
                .unwrap();
        }
        let df = columns.take_frame().unwrap();
        let got: Vec<Option<&str>> = df.column("label").unwrap().str().unwrap().iter().collect();
        let want: Vec<Option<&str>> = values.iter().map(Option::as_deref).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_row_that_is_not_a_struct_is_an_error() {
        let mut columns = Columns::of::<Row>().unwrap();
        assert!(columns.push(&5_i64).is_err());
        assert!(Columns::of::<i64>().is_err());
    }
}
