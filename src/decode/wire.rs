//! Protobuf wire framing over a `BufRead`: varints, field keys, skipping and reading length-delimited bytes,
//! with a running byte offset. Owns no knowledge of which message is being read.

use std::io::{self, BufRead};

/// Protobuf wire types (the low 3 bits of a field key).
pub const VARINT: u8 = 0;
/// 64-bit fixed.
pub const FIXED64: u8 = 1;
/// Length-delimited (bytes, strings, sub-messages).
pub const LEN: u8 = 2;
/// 32-bit fixed.
pub const FIXED32: u8 = 5;

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
        Ok(self.inner.fill_buf()?.is_empty())
    }

    fn next_byte(&mut self) -> Result<u8, WireError> {
        let buf = self.inner.fill_buf()?;
        let b = *buf.first().ok_or(WireError::Truncated)?;
        self.inner.consume(1);
        self.offset += 1;
        Ok(b)
    }

    /// Reads a base-128 varint (at most 10 bytes).
    pub fn varint(&mut self) -> Result<u64, WireError> {
        // Read where it lies when the reader's buffer holds it whole (the usual case), else byte by byte.
        let buf = self.inner.fill_buf()?;
        let mut value = 0u64;
        for (i, &b) in buf.iter().take(10).enumerate() {
            value |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                self.inner.consume(i + 1);
                self.offset += i as u64 + 1;
                return Ok(value);
            }
        }
        if buf.len() >= 10 {
            return Err(WireError::Malformed("varint longer than 10 bytes".into()));
        }
        self.varint_across_buffers()
    }

    /// [`WireReader::varint`] one byte at a time, for a varint that straddles the reader's buffers.
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

    /// Reads a field key as `(field number, wire type)`.
    pub fn key(&mut self) -> Result<(u32, u8), WireError> {
        let key = self.varint()?;
        let field = key >> 3;
        let wire_type = (key & 7) as u8;
        if field == 0 || field > u64::from(u32::MAX >> 3) {
            return Err(WireError::Malformed(format!(
                "invalid field number {field}"
            )));
        }
        Ok((field as u32, wire_type))
    }

    /// Skips `n` bytes without copying them.
    pub fn skip(&mut self, mut n: u64) -> Result<(), WireError> {
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

    /// Reads `n` bytes into `out` (cleared first).
    pub fn read_into(&mut self, n: u64, out: &mut Vec<u8>) -> Result<(), WireError> {
        out.clear();
        let n = usize::try_from(n).map_err(|_| WireError::Malformed("field too large".into()))?;
        out.reserve(n);
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

    /// Skips the value of a field of `wire_type` whose key was just read.
    pub fn skip_value(&mut self, wire_type: u8) -> Result<(), WireError> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `v` as a base-128 varint.
    fn encode(mut v: u64) -> Vec<u8> {
        let mut out = Vec::new();
        while v >= 0x80 {
            out.push(v as u8 | 0x80);
            v >>= 7;
        }
        out.push(v as u8);
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
}
