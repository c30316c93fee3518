//! Opens a trace file as a buffered byte stream, transparently inflating gzip (sniffed by magic bytes, not by
//! file extension). No protobuf here.

use crate::error::{Error, Result};
use flate2::bufread::MultiGzDecoder;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// Buffer size of the reader: large enough that skipping big ftrace bundles costs a few syscalls.
const BUFFER_BYTES: usize = 256 * 1024;

/// How the bytes of a trace file are stored.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    /// A plain protobuf `Trace`.
    #[default]
    None,
    /// A gzip file (magic `1f 8b`) holding a `Trace`.
    Gzip,
}

/// An opened trace: its byte stream (already inflated) and facts about the file.
pub struct TraceInput {
    /// The (inflated) `Trace` bytes.
    pub reader: Box<dyn BufRead + Send>,
    /// Size of the file on disk in bytes.
    pub file_bytes: u64,
    /// The file's compression.
    pub compression: Compression,
}

/// Opens `path` for decoding.
///
/// Errors: [`Error::IsDirectory`], [`Error::Empty`], [`Error::Io`] (missing file, permission denied, ...).
pub fn open(path: &Path) -> Result<TraceInput> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if meta.is_dir() {
        return Err(Error::IsDirectory {
            path: path.to_path_buf(),
        });
    }
    let file = File::open(path).map_err(io)?;
    let mut reader = BufReader::with_capacity(BUFFER_BYTES, file);
    let head = reader.fill_buf().map_err(io)?;
    if head.is_empty() {
        return Err(Error::Empty {
            path: path.to_path_buf(),
        });
    }
    let gzip = head.starts_with(&[0x1f, 0x8b]);
    let (reader, compression): (Box<dyn BufRead + Send>, _) = if gzip {
        let inflated = MultiGzDecoder::new(reader);
        (
            Box::new(BufReader::with_capacity(BUFFER_BYTES, inflated)),
            Compression::Gzip,
        )
    } else {
        (Box::new(reader), Compression::None)
    };
    Ok(TraceInput {
        reader,
        file_bytes: meta.len(),
        compression,
    })
}

/// True if the first bytes of `path` look like a trace ftl can read: gzip, or a protobuf `Trace` whose first
/// field is `packet` (tag 1, length-delimited: byte `0x0a`). Used by `ftl batch` to recognise traces by content.
pub fn looks_like_trace(path: &Path) -> std::io::Result<bool> {
    let mut head = [0u8; 2];
    let n = File::open(path)?.read(&mut head)?;
    Ok(n >= 1 && (head[0] == 0x0a || (n == 2 && head == [0x1f, 0x8b])))
}
