//! JSON output: serde_json's pretty layout, byte for byte, with fewer writes.

use serde::Serialize;
use std::io::{self, Write};

/// Writes `value` as `serde_json::to_writer_pretty` does (two-space indent, `": "` after keys), then a newline.
/// serde_json's own pretty printer writes each line's comma, line break and every indent level as separate
/// writes; here each is one write, which matters for reports holding per-frame lists (a million numbers on the
/// FrameTimeline-dense benchmark input). Errors: the writer's, or serde_json's for a value it cannot serialise.
pub fn write_pretty<W: Write, T: Serialize + ?Sized>(w: &mut W, value: &T) -> io::Result<()> {
    let mut serializer = serde_json::Serializer::with_formatter(&mut *w, Pretty::default());
    value.serialize(&mut serializer)?;
    w.write_all(b"\n")
}

/// A comma, a line break and indentation for the levels that fit ([`Pretty::line`] writes the rest).
const LINE: &[u8] = b",\n                                                                ";

/// serde_json's `PrettyFormatter` with a two-space indent, writing each line start in one call.
#[derive(Debug, Default)]
struct Pretty {
    level: usize,
    has_value: bool,
}

impl Pretty {
    /// A line break (after a comma unless `first`) and the current level's indent.
    fn line<W: ?Sized + Write>(&self, w: &mut W, first: bool) -> io::Result<()> {
        let skip = usize::from(first);
        let end = 2 + 2 * self.level;
        match LINE.get(skip..end) {
            Some(line) => w.write_all(line),
            None => {
                w.write_all(&LINE[skip..])?;
                (LINE.len()..end).try_for_each(|_| w.write_all(b" "))
            }
        }
    }

    /// An array's or object's opening bracket.
    fn open<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.level += 1;
        self.has_value = false;
        w.write_all(bracket)
    }

    /// Its closing bracket, on a line of its own if it held anything.
    fn close<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        self.level -= 1;
        if self.has_value {
            self.line(w, true)?;
        }
        w.write_all(bracket)
    }
}

impl serde_json::ser::Formatter for Pretty {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.line(w, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.open(w, b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.close(w, b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.line(w, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn writes_what_serde_json_pretty_writes() {
        // Nested deeper than the indent buffer holds (33 levels), empty containers, numbers, strings, nulls.
        let mut deep = json!([1.5, "x"]);
        for i in 0..40 {
            deep = json!({ "level": i, "inner": deep, "empty": [], "none": {}, "v": [null, true, -3] });
        }
        for value in [
            json!(null),
            json!([]),
            json!({}),
            json!([[]]),
            json!({"a": {}}),
            deep,
        ] {
            let mut ours = Vec::new();
            write_pretty(&mut ours, &value).unwrap();
            let theirs = serde_json::to_string_pretty(&value).unwrap() + "\n";
            assert_eq!(String::from_utf8(ours).unwrap(), theirs);
        }
    }
}
