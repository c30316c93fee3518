//! Opens an input file as a buffered byte stream (a trace) or as UTF-8 text (a capture), transparently inflating
//! gzip and transcoding UTF-16, and tells what a file holds by its first bytes, never its name. No parsing here.

use crate::error::{Error, Result};
use crate::model::Source;
use crate::sources::{gfxinfo, logcat, sf_latency};
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
        (
            Box::new(read_ahead(MultiGzDecoder::new(reader))),
            Compression::Gzip,
        )
    } else {
        let reader: Box<dyn BufRead + Send> = match mapped(reader.get_ref(), meta.len()) {
            Some(mapped) => Box::new(mapped),
            None => Box::new(read_ahead(reader)),
        };
        (reader, Compression::None)
    };
    Ok(TraceInput {
        reader,
        file_bytes: meta.len(),
        compression,
    })
}

/// The decoder's side of a thread that makes a file's bytes ahead of it, a block at a time (read and inflated by
/// [`read_ahead`], mapped by [`mapped`]), so that this work overlaps the decoding on another core: the blocks come
/// in file order through a channel (an error ends the file, a closed channel is its end), and each block read
/// through goes back to that thread, to be reused or unmapped there.
struct Ahead<B> {
    blocks: std::sync::mpsc::Receiver<std::io::Result<B>>,
    /// Blocks read through, handed back to the producing thread.
    spent: std::sync::mpsc::Sender<B>,
    block: B,
    pos: usize,
}

impl<B: std::ops::Deref<Target = [u8]>> Read for Ahead<B> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        read_buffered(self, out)
    }
}

impl<B: std::ops::Deref<Target = [u8]>> BufRead for Ahead<B> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.pos == self.block.len() {
            // A closed channel is the end of the file.
            if let Ok(next) = self.blocks.recv() {
                let done = std::mem::replace(&mut self.block, next?);
                // The producing thread may have finished: then the block is dropped (unmapped) here.
                let _ = self.spent.send(done);
                self.pos = 0;
            }
        }
        Ok(&self.block[self.pos..])
    }

    fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.block.len());
    }
}

/// Bytes [`mapped`] maps at a time: a multiple of any page size, and small beside the model's memory (mapped pages
/// count towards the resident set until they are unmapped; two windows are mapped at a time).
const MAP_WINDOW_BYTES: u64 = 1 << 20;

/// A plain file read through a memory map that slides over it [`MAP_WINDOW_BYTES`] at a time: the decoder reads
/// the page cache in place, without the kernel's copy into a buffer (the largest single cost of reading a trace
/// from the page cache). Each window's pages are mapped in one call, one window ahead and unmapped after use on a
/// mapping thread of its own ([`map_ahead`]), so that the decoding thread spends no time in the kernel. `None`
/// where the file cannot be mapped (a pipe, a special file): the caller reads it instead. A file shortened by
/// another process while it is read ends the process with SIGBUS, as with any reader of a mapped file (ripgrep's
/// trade-off too).
fn mapped(file: &File, len: u64) -> Option<Ahead<memmap2::Mmap>> {
    let file = file.try_clone().ok()?;
    let block = map_window(&file, len, 0).ok()?;
    let (ready, blocks) = std::sync::mpsc::sync_channel(1);
    let (spent, used) = std::sync::mpsc::channel::<memmap2::Mmap>();
    // A file one window holds needs no mapping thread: its channels close here, saying there is nothing more.
    if len > MAP_WINDOW_BYTES {
        std::thread::spawn(move || map_ahead(&file, len, ready, used));
    }
    Some(Ahead {
        blocks,
        spent,
        block,
        pos: 0,
    })
}

/// The mapping thread of [`mapped`]: maps the windows of `file` after the first, in order, into `ready` (an error
/// ends the file), each once the window two before it has come back through `used`, and unmaps the windows that
/// come back. Returning closes `ready`: the reader then sees the end of the file after the last window, which it
/// unmaps itself.
fn map_ahead(
    file: &File,
    len: u64,
    ready: std::sync::mpsc::SyncSender<std::io::Result<memmap2::Mmap>>,
    used: std::sync::mpsc::Receiver<memmap2::Mmap>,
) {
    let mut offset = MAP_WINDOW_BYTES;
    while offset < len {
        let next = map_window(file, len, offset);
        let failed = next.is_err();
        // The receiver is gone when the decoder stopped early: nothing more to map.
        if ready.send(next).is_err() || failed {
            return;
        }
        // Waits for the window before the one just sent to be read through: two are mapped at a time. Dropping
        // it unmaps it.
        if used.recv().is_err() {
            return;
        }
        offset += MAP_WINDOW_BYTES;
    }
}

/// The window of `file` (`len` bytes long) at `offset` (a multiple of [`MAP_WINDOW_BYTES`]), its pages mapped.
fn map_window(file: &File, len: u64, offset: u64) -> std::io::Result<memmap2::Mmap> {
    let bytes = (len - offset).min(MAP_WINDOW_BYTES) as usize;
    // SAFETY: the map is read-only and private to this reader; see [`mapped`]'s doc for a file shortened
    // meanwhile.
    unsafe {
        memmap2::MmapOptions::new()
            .offset(offset)
            .len(bytes)
            .populate()
            .map(file)
    }
}

/// Blocks [`read_ahead`] may hold ready beyond the one being decoded.
const READ_AHEAD_BLOCKS: usize = 2;

/// Reads (and inflates) a file on its own thread, a block ahead of the decoder, so that the kernel's copy and
/// gzip's inflation overlap the decoding on another core. Memory: a few [`BUFFER_BYTES`] blocks, recycled.
fn read_ahead<R: Read + Send + 'static>(mut inner: R) -> Ahead<Vec<u8>> {
    let (tx, blocks) = std::sync::mpsc::sync_channel(READ_AHEAD_BLOCKS);
    let (spent, recycled) = std::sync::mpsc::channel::<Vec<u8>>();
    std::thread::spawn(move || loop {
        let mut block = recycled.try_recv().unwrap_or_default();
        block.resize(BUFFER_BYTES, 0);
        // Fill the block (short reads are common), so that the decoder sees few small blocks.
        let mut filled = 0;
        let result = loop {
            match inner.read(&mut block[filled..]) {
                Ok(0) => break Ok(()),
                Ok(n) => {
                    filled += n;
                    if filled == block.len() {
                        break Ok(());
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        block.truncate(filled);
        let message = match result {
            Ok(()) if filled == 0 => break,
            Ok(()) => Ok(block),
            Err(e) => Err(e),
        };
        let failed = message.is_err();
        // The receiver is gone when the decoder stopped early: nothing more to do.
        if tx.send(message).is_err() || failed {
            break;
        }
    });
    Ahead {
        blocks,
        spent,
        block: Vec::new(),
        pos: 0,
    }
}

/// `Read::read` of a reader whose bytes come from its own `BufRead` buffer.
fn read_buffered(reader: &mut impl BufRead, out: &mut [u8]) -> std::io::Result<usize> {
    let available = reader.fill_buf()?;
    let n = available.len().min(out.len());
    out[..n].copy_from_slice(&available[..n]);
    reader.consume(n);
    Ok(n)
}

/// Largest first-packet length (bytes) the content sniffer accepts as plausible. Perfetto's tracing service
/// writes packets in chunks far below this; a bigger value means the `0x0a` was not a `Trace.packet` key.
const MAX_FIRST_PACKET_BYTES: u64 = 256 << 20;

/// How much of a file [`detect`] reads to decide what it holds.
const HEAD_BYTES: u64 = 64 * 1024;

/// What ftl reads, for messages: every kind of input [`detect`] recognises.
pub const EXPECTED: &str =
    "expected a Perfetto trace, `dumpsys SurfaceFlinger --latency` output, `dumpsys \
                            gfxinfo` output or an `adb logcat` capture";

/// What a file holds, decided by its content (never its name): `Ok(source)`, or `Err(why)` when it is none of
/// the inputs ftl reads. Text captures may be UTF-8 (with or without BOM) or UTF-16 with BOM, CRLF or LF, and
/// gzip-compressed; a Perfetto trace is gzip magic `1f 8b` over a trace, or the `Trace.packet` key `0x0a` followed
/// by a plausible varint length. An empty file counts as a Perfetto trace (a failed capture, reported as an
/// error rather than skipped). Errors: the file cannot be opened or read.
pub fn detect(path: &Path) -> std::io::Result<std::result::Result<Source, String>> {
    let mut raw = Vec::new();
    File::open(path)?.take(HEAD_BYTES).read_to_end(&mut raw)?;
    let head = if raw.starts_with(&[0x1f, 0x8b]) {
        let mut inflated = Vec::new();
        // A cut gzip stream inflates as far as it goes; what came out is enough to recognise the content.
        let _ = MultiGzDecoder::new(raw.as_slice())
            .take(HEAD_BYTES)
            .read_to_end(&mut inflated);
        if inflated.is_empty() {
            return Ok(Ok(Source::Perfetto));
        }
        inflated
    } else {
        raw
    };
    if head.is_empty() {
        return Ok(Ok(Source::Perfetto));
    }
    // Text has no NUL characters; a protobuf head practically always does (zero varints, fixed64 fields), so a
    // trace that happens to carry a capture's words in its first packets is never taken for a capture.
    let Some(text) = text_head(&head) else {
        return Ok(trace_like(&head).map(|()| Source::Perfetto));
    };
    if sf_latency::looks_like(&text) {
        return Ok(Ok(Source::SfLatency));
    }
    if gfxinfo::looks_like(&text) {
        return Ok(Ok(Source::Gfxinfo));
    }
    if logcat::looks_like(&text) {
        return Ok(Ok(Source::Logcat));
    }
    Ok(trace_like(&head).map(|()| Source::Perfetto))
}

/// The head of a text capture as UTF-8: decoded by its BOM (UTF-8, UTF-16LE, UTF-16BE), else as UTF-8 with
/// invalid bytes replaced (a head may end inside a character); `None` when it holds a NUL character. A UTF-8
/// head is searched for a NUL byte (the same thing) before it is decoded, so that a trace's head, which is no
/// text, is not decoded at all.
fn text_head(head: &[u8]) -> Option<String> {
    let (encoding, bom) = encoding_rs::Encoding::for_bom(head).unwrap_or((encoding_rs::UTF_8, 0));
    let body = head.get(bom..).unwrap_or_default();
    if encoding == encoding_rs::UTF_8 && memchr::memchr(0, body).is_some() {
        return None;
    }
    let text = encoding.decode_without_bom_handling(body).0.into_owned();
    (!text.contains('\0')).then_some(text)
}

/// `Ok` if `head` starts like a Perfetto `Trace`, else why not. Empty packets first (`0a 00`, as Perfetto's own
/// test generator writes them) are a trace's; what follows them decides.
fn trace_like(mut head: &[u8]) -> std::result::Result<(), String> {
    while let Some(rest) = head.strip_prefix(&[0x0a, 0x00]) {
        head = rest;
    }
    let Some((first, rest)) = head.split_first() else {
        return Ok(());
    };
    let shown: Vec<String> = head.iter().take(4).map(|b| format!("{b:02x}")).collect();
    if *first != 0x0a {
        return Err(format!(
            "unknown content: {EXPECTED} (it starts with bytes {}: neither gzip magic 1f 8b, the Trace.packet key \
             0a, nor a text capture ftl recognises)",
            shown.join(" ")
        ));
    }
    let mut len = 0u64;
    for (i, b) in rest.iter().take(10).enumerate() {
        len |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return if len == 0 || len > MAX_FIRST_PACKET_BYTES {
                Err(format!(
                    "unknown content: {EXPECTED} (key 0a followed by an implausible packet length {len})"
                ))
            } else {
                Ok(())
            };
        }
    }
    Err(format!(
        "unknown content: {EXPECTED} (key 0a without a complete packet length)"
    ))
}

/// Opens a text capture as UTF-8 lines: gzip inflated, UTF-16 (by its BOM) transcoded, a UTF-8 BOM dropped,
/// other bytes passed through unchanged (readers handle CRLF). Errors: as [`open`].
pub fn open_text(path: &Path) -> Result<Box<dyn BufRead + Send>> {
    let TraceInput { reader, .. } = open(path)?;
    let decoded = encoding_rs_io::DecodeReaderBytesBuilder::new()
        .bom_sniffing(true)
        .utf8_passthru(true)
        .strip_bom(true)
        .build(reader);
    Ok(Box::new(BufReader::with_capacity(BUFFER_BYTES, decoded)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_ahead_gives_the_bytes_in_order_and_passes_errors_on() {
        let data: Vec<u8> = (0..3 * BUFFER_BYTES + 17)
            .map(|i| (i % 251) as u8)
            .collect();
        let mut out = Vec::new();
        read_ahead(std::io::Cursor::new(data.clone()))
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, data);
        // A source that fails after its first bytes.
        let failing = std::io::Cursor::new(vec![1u8; 10]).chain(FailingRead);
        let mut r = read_ahead(failing);
        let mut out = Vec::new();
        assert!(r.read_to_end(&mut out).is_err());
    }

    #[test]
    fn mapped_gives_the_file_in_order_across_windows() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.bin");
        let len = 2 * MAP_WINDOW_BYTES as usize + 4097;
        let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &data).unwrap();
        let file = File::open(&path).unwrap();
        let mut reader = mapped(&file, data.len() as u64).unwrap();
        // Read in odd steps so that reads straddle the windows.
        let mut out = Vec::new();
        let mut step = vec![0u8; 1_000_003];
        loop {
            let n = reader.read(&mut step).unwrap();
            if n == 0 {
                break;
            }
            out.extend_from_slice(&step[..n]);
        }
        assert_eq!(out.len(), data.len());
        assert!(out == data);
        assert!(reader.fill_buf().unwrap().is_empty());
        // The reader `open` gives a plain file is the mapped one, with the same bytes.
        let mut opened = Vec::new();
        open(&path)
            .unwrap()
            .reader
            .read_to_end(&mut opened)
            .unwrap();
        assert!(opened == data);
    }

    struct FailingRead;

    impl Read for FailingRead {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk gone"))
        }
    }

    #[test]
    fn detect_recognises_inputs_by_content() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, bytes: &[u8]| {
            let p = dir.path().join(name);
            std::fs::write(&p, bytes).unwrap();
            detect(&p).unwrap()
        };
        let perfetto = Ok(Source::Perfetto);
        assert_eq!(write("gz.txt", &[0x1f, 0x8b, 8, 0]), perfetto);
        assert_eq!(write("t.bin", &[0x0a, 0x85, 0x01, 0x12]), perfetto);
        assert_eq!(write("empty", &[]), perfetto);
        let text = write("a.pftrace", b"hello").unwrap_err();
        assert!(text.contains("starts with bytes 68 65 6c 6c"), "{text}");
        assert!(text.contains("dumpsys gfxinfo"), "{text}");
        // Empty packets, then a packet: a trace; empty packets then text: not one.
        assert_eq!(
            write("z", &[0x0a, 0x00, 0x0a, 0x00, 0x0a, 0x85, 0x01]),
            perfetto
        );
        let zero_text = write("zt", &[0x0a, 0x00, b'h', b'i']).unwrap_err();
        assert!(zero_text.contains("starts with bytes 68 69"), "{zero_text}");
        let huge = write("h", &[0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]).unwrap_err();
        assert!(huge.contains("implausible"), "{huge}");
        let cut = write("c", &[0x0a, 0x85]).unwrap_err();
        assert!(cut.contains("without a complete packet length"), "{cut}");
        // Text captures, whatever the name, encoding and compression.
        let latency = "16666666\r\n1 2 3\r\n4 5 6\r\n";
        assert_eq!(
            write("x.pftrace", latency.as_bytes()),
            Ok(Source::SfLatency)
        );
        let utf16: Vec<u8> = [0xff, 0xfe]
            .into_iter()
            .chain(latency.encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        assert_eq!(write("y", &utf16), Ok(Source::SfLatency));
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, latency.as_bytes()).unwrap();
        assert_eq!(write("z.gz", &gz.finish().unwrap()), Ok(Source::SfLatency));
        // A trace whose first packet carries a capture's words is still a trace.
        let words =
            b"\n** Graphics info for pid 1 [x] **\nTotal frames rendered: 5\nJanky frames: 1\n";
        let mut trace = vec![0x0a, words.len() as u8 + 2, 0x08, 0x00];
        trace.extend_from_slice(words);
        assert_eq!(write("t2", &trace), perfetto);
        // A NUL character makes any head no text, in UTF-8 (found before decoding) and in UTF-16 (after).
        let with_nul = "16666666\n1 2 3\n\0\n";
        assert!(write("n8", with_nul.as_bytes()).is_err());
        let bom8: Vec<u8> = [0xef, 0xbb, 0xbf]
            .into_iter()
            .chain(with_nul.bytes())
            .collect();
        assert!(write("n8b", &bom8).is_err());
        let nul16: Vec<u8> = [0xff, 0xfe]
            .into_iter()
            .chain(with_nul.encode_utf16().flat_map(u16::to_le_bytes))
            .collect();
        assert!(write("n16", &nul16).is_err());
        let clean16: Vec<u8> = [0xff, 0xfe]
            .into_iter()
            .chain(
                with_nul
                    .replace('\0', "")
                    .encode_utf16()
                    .flat_map(u16::to_le_bytes),
            )
            .collect();
        assert_eq!(write("c16", &clean16), Ok(Source::SfLatency));
    }

    #[test]
    fn text_captures_open_as_utf8_lines() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("cap");
        let utf16: Vec<u8> = [0xff, 0xfe]
            .into_iter()
            .chain(
                "16666666\r\nä\r\n"
                    .encode_utf16()
                    .flat_map(u16::to_le_bytes),
            )
            .collect();
        std::fs::write(&p, utf16).unwrap();
        let mut text = String::new();
        open_text(&p).unwrap().read_to_string(&mut text).unwrap();
        assert_eq!(text, "16666666\r\nä\r\n");
        std::fs::write(&p, b"\xef\xbb\xbf1 2 3\n").unwrap();
        text.clear();
        open_text(&p).unwrap().read_to_string(&mut text).unwrap();
        assert_eq!(text, "1 2 3\n");
    }
}
