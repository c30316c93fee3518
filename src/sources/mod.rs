//! Text captures testers already collect — `dumpsys SurfaceFlinger --latency`, `dumpsys gfxinfo`, Choreographer
//! logcat — read line by line into the model's [`FrameSeries`](crate::model::FrameSeries) (and, for the sources
//! with analyses of their own, their own records). One reader per format; the format is chosen by content.

pub mod gfxinfo;
pub mod logcat;
pub mod sf_latency;

use crate::error::{Error, Result};
use std::io::BufRead;
use std::ops::ControlFlow;
use std::path::Path;

/// How the header lines of a capture written by `ftl record` / `ftl watch` begin (`# ftl record: …`, `# device:
/// …` follow it): readers skip them; no device prints a line like it.
pub const RECORDED_HEADER: &str = "# ftl record";

/// True if `line` is a comment line of a recorded capture's header (`#` first).
pub fn is_header_line(line: &[u8]) -> bool {
    line.first() == Some(&b'#')
}

/// Longest line handed to a reader, bytes (a logcat entry is at most ~4 KiB, a gfxinfo histogram line ~3 KiB);
/// the rest of a longer line is discarded, so a file without line ends cannot fill memory.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// One line of a capture as [`for_each_line`] hands it over.
#[derive(Debug, Clone, Copy)]
pub struct Line<'a> {
    /// 1-based line number.
    pub no: u64,
    /// The bytes, without the line end (`\n`, `\r\n`) and, on line 1, without a UTF-8 BOM; at most
    /// [`MAX_LINE_BYTES`].
    pub bytes: &'a [u8],
    /// True if the line was longer than [`MAX_LINE_BYTES`] and cut.
    pub cut: bool,
}

/// Calls `f` for every line of `reader`, in place in the reader's buffer: only a line that straddles two buffer
/// fills is copied. `f` stops the reading early with `ControlFlow::Break`, or fails it with an error.
///
/// Errors: `f`'s, and [`Error::Io`] naming `path` when reading fails.
pub fn for_each_line<R: BufRead>(
    mut reader: R,
    path: &Path,
    mut f: impl FnMut(Line) -> Result<ControlFlow<()>>,
) -> Result<()> {
    let mut no = 0u64;
    let mut carry: Vec<u8> = Vec::new();
    let mut cut = false;
    let mut handle = |bytes: &[u8], cut: bool, no: &mut u64| {
        *no += 1;
        let mut bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        if *no == 1 {
            bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(bytes);
        }
        f(Line {
            no: *no,
            bytes,
            cut,
        })
    };
    loop {
        let chunk = match reader.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(source) => {
                return Err(Error::Io {
                    path: path.to_path_buf(),
                    source,
                })
            }
        };
        if chunk.is_empty() {
            if !carry.is_empty() || cut {
                let _ = handle(&carry, cut, &mut no)?;
            }
            return Ok(());
        }
        let filled = chunk.len();
        let mut rest = chunk;
        while let Some(end) = memchr::memchr(b'\n', rest) {
            let (line, tail) = rest.split_at(end);
            let flow = if carry.is_empty() && !cut {
                let kept = line.get(..MAX_LINE_BYTES).unwrap_or(line);
                handle(kept, kept.len() < line.len(), &mut no)?
            } else {
                cut |= keep(&mut carry, line);
                let flow = handle(&carry, cut, &mut no)?;
                carry.clear();
                cut = false;
                flow
            };
            if flow.is_break() {
                return Ok(());
            }
            rest = tail.get(1..).unwrap_or_default();
        }
        cut |= keep(&mut carry, rest);
        reader.consume(filled);
    }
}

/// Appends `bytes` to the line being carried over, up to [`MAX_LINE_BYTES`] in all; true if some were dropped.
fn keep(carry: &mut Vec<u8>, bytes: &[u8]) -> bool {
    let room = MAX_LINE_BYTES.saturating_sub(carry.len());
    carry.extend_from_slice(bytes.get(..room).unwrap_or(bytes));
    bytes.len() > room
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &[u8], capacity: usize) -> Vec<(u64, String, bool)> {
        let mut seen = Vec::new();
        let reader = std::io::BufReader::with_capacity(capacity, text);
        for_each_line(reader, Path::new("t"), |l| {
            seen.push((l.no, String::from_utf8_lossy(l.bytes).into_owned(), l.cut));
            Ok(ControlFlow::Continue(()))
        })
        .unwrap();
        seen
    }

    #[test]
    fn lines_straddling_buffer_fills_read_as_whole_lines() {
        let text = "\u{feff}16666666\r\n1 100 1\n\n\t2 200 2  \r\n3 300 3".as_bytes();
        let want: Vec<(u64, String, bool)> = [
            (1, "16666666"),
            (2, "1 100 1"),
            (3, ""),
            (4, "\t2 200 2  "),
            (5, "3 300 3"),
        ]
        .iter()
        .map(|(n, l)| (*n, l.to_string(), false))
        .collect();
        for capacity in [1, 2, 3, 5, 7, 64] {
            assert_eq!(lines(text, capacity), want, "buffer of {capacity} bytes");
        }
    }

    #[test]
    fn an_endless_line_is_cut_not_kept_whole() {
        let mut text = b"a\n".to_vec();
        text.extend(std::iter::repeat_n(b'7', 3 * MAX_LINE_BYTES));
        text.extend_from_slice(b"\nb\n");
        for capacity in [4096, 8 * MAX_LINE_BYTES] {
            let seen = lines(&text, capacity);
            let shape: Vec<(u64, usize, bool)> =
                seen.iter().map(|(n, l, c)| (*n, l.len(), *c)).collect();
            assert_eq!(
                shape,
                [(1, 1, false), (2, MAX_LINE_BYTES, true), (3, 1, false)],
                "buffer of {capacity} bytes"
            );
        }
    }

    #[test]
    fn break_stops_and_errors_propagate() {
        let mut n = 0;
        let reader = std::io::BufReader::new(&b"a\nb\nc\n"[..]);
        for_each_line(reader, Path::new("t"), |_| {
            n += 1;
            Ok(if n == 2 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            })
        })
        .unwrap();
        assert_eq!(n, 2);
        let reader = std::io::BufReader::new(&b"a\nb\n"[..]);
        let err = for_each_line(reader, Path::new("t"), |l| {
            Err(Error::Capture {
                path: "t".into(),
                line: l.no,
                cause: "no".into(),
            })
        });
        assert_eq!(err.unwrap_err().to_string(), "t: line 1: no");
    }
}
