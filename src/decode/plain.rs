//! Protobuf as prost reads it, for the readers that skip prost's messages on the hot paths ([`super::tree`],
//! [`super::frame_timeline`]): each function reads what prost would read the same way, and gives `None` for
//! anything prost might read differently or reject (an overlong varint, a field number 0, a group, text that is
//! not UTF-8, a value running past its message), so that the caller leaves the message to prost.

use super::wire::{Bytes, Framing, LEN, VARINT};

/// A varint prost also accepts: a tenth byte may only hold the 64th bit. One byte (every key and most values
/// of the messages read here) takes the inlined path.
#[inline(always)]
pub(super) fn varint(wire: &mut Bytes<'_>) -> Option<u64> {
    match wire.buf.get(wire.pos) {
        Some(&b) if b < 0x80 => {
            wire.pos += 1;
            Some(u64::from(b))
        }
        _ => longer_varint(wire),
    }
}

/// [`varint`] of two bytes or more.
fn longer_varint(wire: &mut Bytes<'_>) -> Option<u64> {
    let start = wire.pos;
    let value = wire.varint().ok()?;
    let overlong = wire.pos - start == 10 && wire.buf[wire.pos - 1] > 1;
    (!overlong).then_some(value)
}

/// A field's key as prost reads it: a field number of at least 1 in a key that fits 32 bits.
#[inline(always)]
pub(super) fn key(wire: &mut Bytes<'_>) -> Option<(u32, u8)> {
    let key = u32::try_from(varint(wire)?).ok()?;
    let (field, wire_type) = (key >> 3, (key & 7) as u8);
    (field >= 1).then_some((field, wire_type))
}

/// The value of a length-delimited field (its key just read).
#[inline]
pub(super) fn len_value<'a>(wire: &mut Bytes<'a>) -> Option<&'a [u8]> {
    let n = usize::try_from(varint(wire)?).ok()?;
    let end = wire.pos.checked_add(n)?;
    let value = wire.buf.get(wire.pos..end)?;
    wire.pos = end;
    Some(value)
}

/// A length-delimited field that is UTF-8 text.
#[inline]
pub(super) fn text<'a>(wire: &mut Bytes<'a>) -> Option<&'a str> {
    std::str::from_utf8(len_value(wire)?).ok()
}

/// Skips an unknown field as prost would; groups are left to prost.
#[inline]
pub(super) fn skip(wire: &mut Bytes<'_>, wire_type: u8) -> Option<()> {
    match wire_type {
        VARINT => varint(wire).map(drop),
        LEN => len_value(wire).map(drop),
        _ => wire.skip_value(wire_type).ok(),
    }
}

/// A 32-bit fixed value (its key just read), as prost reads a `float`.
#[inline]
pub(super) fn fixed32(wire: &mut Bytes<'_>) -> Option<f32> {
    let end = wire.pos.checked_add(4)?;
    let value = wire.buf.get(wire.pos..end)?;
    wire.pos = end;
    Some(f32::from_le_bytes(value.try_into().ok()?))
}

#[cfg(test)]
pub(super) mod tests {
    use rand::{RngExt, SeedableRng};

    /// Runs a reader of this module's kind beside prost on `runs` damaged copies of `originals` (each copy damaged
    /// 1 to 3 times: a byte replaced, its high bit flipped, the copy cut, a byte inserted). Every copy the reader
    /// reads must read as prost decodes it. Returns how many it read and how many it declined.
    pub(in crate::decode) fn beside_prost<T: PartialEq + std::fmt::Debug>(
        originals: &[&[u8]],
        runs: usize,
        seed: u64,
        reader: impl Fn(&[u8]) -> Option<T>,
        prost: impl Fn(&[u8]) -> Option<T>,
    ) -> (usize, usize) {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let (mut read, mut declined) = (0, 0);
        for _ in 0..runs {
            let mut bytes = originals[rng.random_range(0..originals.len())].to_vec();
            for _ in 0..rng.random_range(1..4) {
                if bytes.is_empty() {
                    break;
                }
                let at = rng.random_range(0..bytes.len());
                match rng.random_range(0..4) {
                    0 => bytes[at] = rng.random(),
                    1 => bytes[at] ^= 0x80,
                    2 => bytes.truncate(at),
                    _ => bytes.insert(at, rng.random()),
                }
            }
            match reader(&bytes) {
                Some(got) => {
                    assert_eq!(Some(got), prost(&bytes), "{bytes:?}");
                    read += 1;
                }
                None => declined += 1,
            }
        }
        (read, declined)
    }
}
