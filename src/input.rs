//! Opens a trace file as a buffered byte stream, transparently inflating gzip (sniffed by magic bytes, not by
//! file extension), and tells trace files from other files by their first bytes. No protobuf decoding here.

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

/// Largest first-packet length (bytes) the content sniffer accepts as plausible. Perfetto's tracing service
/// writes packets in chunks far below this; a bigger value means the `0x0a` was not a `Trace.packet` key.
const MAX_FIRST_PACKET_BYTES: u64 = 256 << 20;

/// Why a file does not look like a trace, or `None` if it does: gzip magic `1f 8b`, or the `Trace.packet` key
/// `0x0a` followed by a plausible varint length (1 byte .. 256 MiB). An empty file counts as a trace (a failed
/// capture, reported as an error rather than skipped). Errors: the file cannot be opened or read.
pub fn sniff(path: &Path) -> std::io::Result<Option<String>> {
    let mut head = Vec::with_capacity(11);
    std::fs::File::open(path)?.take(11).read_to_end(&mut head)?;
    let (first, rest) = match head.split_first() {
        None => return Ok(None),
        Some(split) => split,
    };
    if head.starts_with(&[0x1f, 0x8b]) {
        return Ok(None);
    }
    let shown: Vec<String> = head.iter().take(4).map(|b| format!("{b:02x}")).collect();
    if *first != 0x0a {
        return Ok(Some(format!(
            "not a Perfetto trace: starts with bytes {} (neither gzip magic 1f 8b nor the Trace.packet key 0a)",
            shown.join(" ")
        )));
    }
    let mut len = 0u64;
    for (i, b) in rest.iter().take(10).enumerate() {
        len |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Ok((len == 0 || len > MAX_FIRST_PACKET_BYTES).then(|| {
                format!(
                    "not a Perfetto trace: key 0a followed by an implausible packet length {len}"
                )
            }));
        }
    }
    Ok(Some(
        "not a Perfetto trace: key 0a without a complete packet length".into(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniff_recognises_traces_by_content() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, bytes: &[u8]| {
            let p = dir.path().join(name);
            std::fs::write(&p, bytes).unwrap();
            sniff(&p).unwrap()
        };
        assert_eq!(write("gz.txt", &[0x1f, 0x8b, 8, 0]), None);
        assert_eq!(write("t.bin", &[0x0a, 0x85, 0x01, 0x12]), None);
        assert_eq!(write("empty", &[]), None);
        let text = write("a.pftrace", b"hello").unwrap();
        assert!(text.contains("starts with bytes 68 65 6c 6c"), "{text}");
        let zero = write("z", &[0x0a, 0x00]).unwrap();
        assert!(zero.contains("implausible packet length 0"), "{zero}");
        let huge = write("h", &[0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]).unwrap();
        assert!(huge.contains("implausible"), "{huge}");
        let cut = write("c", &[0x0a, 0x85]).unwrap();
        assert!(cut.contains("without a complete packet length"), "{cut}");
    }
}
