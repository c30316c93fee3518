//! Protobuf wire framing — varints, field keys, skipping and reading length-delimited bytes — through
//! [`Framing`], over a `BufRead` with a running byte offset ([`WireReader`]) and over a message in memory
//! (`Bytes`). Owns no knowledge of which message is being read.

use std::io::{self, BufRead};

/// Protobuf wire types (the low 3 bits of a field key).
pub const VARINT: u8 = 0;
/// 64-bit fixed.
pub const FIXED64: u8 = 1;
/// Length-delimited (bytes, strings, sub-messages).
pub const LEN: u8 = 2;
/// 32-bit fixed.
pub const FIXED32: u8 = 5;

/// The most [`WireReader::read_into`] reserves before the bytes arrive, bytes.
const READ_RESERVE_MAX: usize = 1 << 20;

/// How far ahead of a walk's position [`prefetch`] asks for the bytes (found by measurement: 2 KiB left half the gain
/// on the table, 8 KiB gave no more).
const PREFETCH_AHEAD_BYTES: usize = 4096;

/// Asks the CPU to start loading the cache line [`PREFETCH_AHEAD_BYTES`] past `pos` in `bytes`. The walk over an
/// ftrace bundle steps through it in small dependent steps (each event's position comes from a length just read),
/// which the hardware prefetcher does not run far enough ahead of to hide the memory's latency: on an
/// ftrace-heavy trace from the page cache this hint takes a fifth off the decoding thread's time. A hint only:
/// it changes no result, and does nothing on other architectures.
#[inline(always)]
pub(crate) fn prefetch(bytes: &[u8], pos: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let ahead = bytes.as_ptr().wrapping_add(pos + PREFETCH_AHEAD_BYTES);
        // SAFETY: a prefetch never faults and reads nothing into the program, whatever the address (here possibly
        // past the slice: `wrapping_add` makes the pointer without claiming it is in bounds).
        unsafe { _mm_prefetch::<_MM_HINT_T0>(ahead.cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (bytes, pos);
}

/// Why the framing could not be read.
#[derive(Debug)]
pub enum WireError {
    /// The stream ended inside a varint or a length-delimited field.
    Truncated,
    /// The bytes are not valid protobuf framing (the message says what).
    Malformed(String),
    /// The underlying reader failed (including a corrupt gzip stream).
    Io(io::Error),
}

impl From<io::Error> for WireError {
    fn from(e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            WireError::Truncated
        } else {
            WireError::Io(e)
        }
    }
}

/// A protobuf byte stream with its position. Reads never copy what they skip.
pub struct WireReader<R> {
    inner: R,
    offset: u64,
}

impl<R: BufRead> WireReader<R> {
    /// Wraps `inner`; offsets count from its current position.
    pub fn new(inner: R) -> Self {
        WireReader { inner, offset: 0 }
    }

    /// Bytes consumed so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// True when no byte is left.
    pub fn at_eof(&mut self) -> Result<bool, WireError> {
        Ok(self.buffer()?.is_empty())
    }

    /// The bytes the reader holds from the current position (empty at the end), to be read in place and then
    /// [`consume`](WireReader::consume)d.
    pub fn buffer(&mut self) -> Result<&[u8], WireError> {
        Ok(self.inner.fill_buf()?)
    }

    /// Moves past `n` bytes of [`WireReader::buffer`].
    pub fn consume(&mut self, n: usize) {
        self.inner.consume(n);
        self.offset += n as u64;
    }

    fn next_byte(&mut self) -> Result<u8, WireError> {
        let buf = self.inner.fill_buf()?;
        let b = *buf.first().ok_or(WireError::Truncated)?;
        self.inner.consume(1);
        self.offset += 1;
        Ok(b)
    }

    /// [`Framing::varint`] one byte at a time, for a varint that straddles the reader's buffers.
    fn varint_across_buffers(&mut self) -> Result<u64, WireError> {
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let b = self.next_byte()?;
            value |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(WireError::Malformed("varint longer than 10 bytes".into()))
    }

    /// Reads `n` bytes into `out` (cleared first).
    pub fn read_into(&mut self, n: u64, out: &mut Vec<u8>) -> Result<(), WireError> {
        out.clear();
        let n = usize::try_from(n).map_err(|_| WireError::Malformed("field too large".into()))?;
        // A length read from the file is not trusted with an allocation: the rest grows as the bytes arrive.
        out.reserve(n.min(READ_RESERVE_MAX));
        while out.len() < n {
            let buf = self.inner.fill_buf()?;
            if buf.is_empty() {
                return Err(WireError::Truncated);
            }
            let step = buf.len().min(n - out.len());
            out.extend_from_slice(&buf[..step]);
            self.inner.consume(step);
            self.offset += step as u64;
        }
        Ok(())
    }

    /// Calls `f` on the next `n` bytes and consumes them: in place when the reader's buffer holds them all, else
    /// copied into `scratch` first. Errors: those of [`WireReader::read_into`] (`f` is then not called).
    pub fn with_bytes<T>(
        &mut self,
        n: u64,
        scratch: &mut Vec<u8>,
        f: impl FnOnce(&[u8]) -> T,
    ) -> Result<T, WireError> {
        let buf = self.inner.fill_buf()?;
        if let Some(bytes) = usize::try_from(n).ok().and_then(|n| buf.get(..n)) {
            let out = f(bytes);
            self.inner.consume(n as usize);
            self.offset += n;
            return Ok(out);
        }
        self.read_into(n, scratch)?;
        Ok(f(scratch))
    }
}

/// A field key's varint as `(field number, wire type)`. Errors: field number 0 or past 2²⁹ − 1 (malformed).
#[inline(always)]
pub fn split_key(key: u64) -> Result<(u32, u8), WireError> {
    let field = key >> 3;
    if field == 0 || field > u64::from(u32::MAX >> 3) {
        return Err(WireError::Malformed(format!(
            "invalid field number {field}"
        )));
    }
    Ok((field as u32, (key & 7) as u8))
}

/// The varint of the key of `field` with `wire_type`, for matching keys as read.
pub const fn key_of(field: u32, wire_type: u8) -> u64 {
    (field as u64) << 3 | wire_type as u64
}

/// The framing reads both readers share: the two they implement their own way (a varint, a skip) and the two
/// built on them (a field key, skipping a field's value).
pub trait Framing {
    /// Reads a base-128 varint (at most 10 bytes).
    fn varint(&mut self) -> Result<u64, WireError>;

    /// Skips `n` bytes without copying them.
    fn skip(&mut self, n: u64) -> Result<(), WireError>;

    /// Reads a field key as `(field number, wire type)`.
    #[inline(always)]
    fn key(&mut self) -> Result<(u32, u8), WireError> {
        split_key(self.varint()?)
    }

    /// Skips the value of a field of `wire_type` whose key was just read.
    #[inline(always)]
    fn skip_value(&mut self, wire_type: u8) -> Result<(), WireError> {
        match wire_type {
            VARINT => self.varint().map(drop),
            FIXED64 => self.skip(8),
            LEN => {
                let n = self.varint()?;
                self.skip(n)
            }
            FIXED32 => self.skip(4),
            other => Err(WireError::Malformed(format!(
                "unsupported wire type {other}"
            ))),
        }
    }
}

impl<R: BufRead> Framing for WireReader<R> {
    /// Reads a base-128 varint (at most 10 bytes).
    fn varint(&mut self) -> Result<u64, WireError> {
        // Read where it lies when the reader's buffer holds it whole (the usual case), else byte by byte.
        let mut here = Bytes::new(self.inner.fill_buf()?);
        match here.varint() {
            Ok(value) => {
                let n = here.pos;
                self.inner.consume(n);
                self.offset += n as u64;
                Ok(value)
            }
            Err(WireError::Truncated) => self.varint_across_buffers(),
            Err(e) => Err(e),
        }
    }

    /// Skips `n` bytes without copying them.
    fn skip(&mut self, mut n: u64) -> Result<(), WireError> {
        while n > 0 {
            let available = self.inner.fill_buf()?.len();
            if available == 0 {
                return Err(WireError::Truncated);
            }
            let step = available.min(usize::try_from(n).unwrap_or(usize::MAX));
            self.inner.consume(step);
            self.offset += step as u64;
            n -= step as u64;
        }
        Ok(())
    }
}

impl Framing for Bytes<'_> {
    /// A base-128 varint (at most 10 bytes).
    #[inline(always)]
    fn varint(&mut self) -> Result<u64, WireError> {
        match self.buf.get(self.pos) {
            Some(&b) if b < 0x80 => {
                self.pos += 1;
                return Ok(u64::from(b));
            }
            None => return Err(WireError::Truncated),
            _ => {}
        }
        // Two bytes: field keys from 16 to 2047 (TracePacket's timestamp_clock_id, frame_timeline_event,
        // trusted_pid), pids, short lengths.
        if let Some(&[low, high]) = self.buf[self.pos..].first_chunk::<2>() {
            if high < 0x80 {
                self.pos += 2;
                return Ok(u64::from(low & 0x7f) | u64::from(high) << 7);
            }
        }
        // The lengths of nested messages, which Perfetto's writer pads to 4 bytes.
        if let Some(word) = self.buf[self.pos..].first_chunk::<4>() {
            let word = u32::from_le_bytes(*word);
            if word & 0x8080_8080 == 0x0080_8080 {
                self.pos += 4;
                let x = word & 0x7f7f_7f7f;
                let x = (x & 0x007f_007f) | ((x & 0x7f00_7f00) >> 1);
                return Ok(u64::from((x & 0x3fff) | ((x & 0x3fff_0000) >> 2)));
            }
        }
        // Up to 8 bytes from one load, without a branch per byte.
        if let Some(word) = self.buf[self.pos..].first_chunk::<8>() {
            let word = u64::from_le_bytes(*word);
            let ends = !word & 0x8080_8080_8080_8080;
            if ends != 0 {
                let n = ends.trailing_zeros() / 8 + 1;
                self.pos += n as usize;
                return Ok(compact_varint(word & (u64::MAX >> (64 - 8 * n))));
            }
        }
        let mut value = 0u64;
        let mut shift = 0;
        while shift < 70 {
            let Some(&b) = self.buf.get(self.pos) else {
                return Err(WireError::Truncated);
            };
            self.pos += 1;
            value |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(value);
            }
            shift += 7;
        }
        Err(WireError::Malformed("varint longer than 10 bytes".into()))
    }

    /// Skips `n` bytes.
    #[inline(always)]
    fn skip(&mut self, n: u64) -> Result<(), WireError> {
        let left = (self.buf.len() - self.pos) as u64;
        if n > left {
            self.pos = self.buf.len();
            return Err(WireError::Truncated);
        }
        self.pos += n as usize;
        Ok(())
    }
}

/// A protobuf message in memory and a read position: the framing reads of [`WireReader`] (same errors) without
/// its `BufRead` calls, for messages read whole (ftrace bundles) and for the varints a [`WireReader`]'s buffer
/// holds whole.
pub(crate) struct Bytes<'a> {
    /// The message.
    pub(crate) buf: &'a [u8],
    /// The read position in it.
    pub(crate) pos: usize,
}

impl<'a> Bytes<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Bytes { buf, pos: 0 }
    }

    #[inline(always)]
    pub(crate) fn at_eof(&self) -> bool {
        self.pos >= self.buf.len()
    }

    /// The next byte.
    #[inline(always)]
    pub(crate) fn byte(&mut self) -> Option<u8> {
        let b = *self.buf.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    /// Skips a varint without reading its value (a kernel address takes 10 bytes); `None` if it does not end
    /// within the message or 10 bytes.
    #[inline(always)]
    pub(crate) fn skip_varint(&mut self) -> Option<()> {
        let rest = self.buf.get(self.pos..)?;
        let len = rest.iter().take(10).position(|&b| b < 0x80)? + 1;
        self.pos += len;
        Some(())
    }

    /// The value of a length-delimited field whose key was just read; its length must fit in the message.
    #[inline(always)]
    pub(crate) fn bytes(&mut self) -> Result<&'a [u8], WireError> {
        let n = self.varint()?;
        if n > (self.buf.len() - self.pos) as u64 {
            return Err(WireError::Malformed("field overruns its message".into()));
        }
        let start = self.pos;
        self.pos += n as usize;
        Ok(&self.buf[start..self.pos])
    }
}

/// The value of a varint of at most 8 bytes held in `word` (little-endian, bytes past the varint zeroed): the
/// 7-bit groups packed together.
#[inline(always)]
fn compact_varint(word: u64) -> u64 {
    let x = word & 0x7f7f_7f7f_7f7f_7f7f;
    let x = (x & 0x007f_007f_007f_007f) | ((x & 0x7f00_7f00_7f00_7f00) >> 1);
    let x = (x & 0x0000_3fff_0000_3fff) | ((x & 0x3fff_0000_3fff_0000) >> 2);
    (x & 0x0000_0000_0fff_ffff) | ((x & 0x0fff_ffff_0000_0000) >> 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(v: u64) -> Vec<u8> {
        let mut out = Vec::new();
        prost::encoding::encode_varint(v, &mut out);
        out
    }

    #[test]
    fn varints_read_alike_in_one_buffer_and_across_buffers() {
        let values = [0, 1, 127, 128, 300, 1 << 35, u64::MAX - 1, u64::MAX, 42];
        let bytes: Vec<u8> = values.iter().flat_map(|&v| encode(v)).collect();
        for capacity in 1..=12 {
            let mut wire = WireReader::new(io::BufReader::with_capacity(capacity, &bytes[..]));
            for &v in &values {
                assert_eq!(wire.varint().unwrap(), v, "buffer of {capacity}");
            }
            assert_eq!(wire.offset(), bytes.len() as u64);
            assert!(wire.at_eof().unwrap());
        }
    }

    #[test]
    fn overlong_and_cut_varints_are_errors_in_one_buffer_and_across_buffers() {
        let overlong = [0x80u8; 11];
        let cut = [0x80u8, 0x80];
        for capacity in [1, 4, 64] {
            let read = |bytes: &[u8]| {
                WireReader::new(io::BufReader::with_capacity(capacity, bytes)).varint()
            };
            assert!(matches!(read(&overlong), Err(WireError::Malformed(_))));
            assert!(matches!(read(&cut), Err(WireError::Truncated)));
        }
    }

    #[test]
    fn varints_read_as_protobuf_encodes_them_with_and_without_the_word_path() {
        let values = [
            0,
            1,
            127,
            128,
            300,
            16_383,
            16_384,
            (1 << 35) - 1,
            157_479_316_678_737,
            (1 << 56) - 1,
            1 << 56,
            u64::MAX - 1,
            u64::MAX,
        ];
        for v in values {
            let bytes = encode(v);
            let n = bytes.len();
            // Alone (the byte loop) and followed by padding (the word path).
            for tail in [0, 9] {
                let mut buf = bytes.clone();
                buf.resize(n + tail, 0xff);
                let mut wire = Bytes::new(&buf);
                assert_eq!(wire.varint().unwrap(), v, "{v} + {tail}");
                assert_eq!(wire.pos, n);
            }
        }
        // Perfetto's padded lengths: 4 bytes for a small number.
        let mut wire = Bytes::new(&[0xa7, 0x80, 0x80, 0x00, 1, 2, 3, 4, 5]);
        assert_eq!(wire.varint().unwrap(), 0x27);
        assert_eq!(wire.pos, 4);
        assert!(matches!(
            Bytes::new(&[0x80; 4]).varint(),
            Err(WireError::Truncated)
        ));
        assert!(matches!(
            Bytes::new(&[0x80; 12]).varint(),
            Err(WireError::Malformed(_))
        ));
    }
}
