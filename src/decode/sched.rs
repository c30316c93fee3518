//! The scheduler's ftrace events in a bundle → [`Sched`] events and the thread names they give: `sched_switch`, `sched_waking`,
//! `sched_blocked_reason`, `cpu_frequency`, `task_newtask`'s parent, and `compact_sched` (switch and waking
//! arrays, timestamps delta-encoded, names interned per bundle). Field numbers: `sched.proto`,
//! `power.proto`, `task.proto`, `ftrace_event_bundle.proto` (google/perfetto @ ec5d16b1). What the events mean
//! (thread states) is the model's ([`crate::model::sched`]).

use super::event::Sched;
use super::wire::{Bytes, Framing, WireError, LEN, VARINT};

/// `FtraceEvent` payload field numbers of the events read here.
pub(super) const EVENT_SCHED_SWITCH: u32 = 4;
pub(super) const EVENT_CPU_FREQUENCY: u32 = 11;
pub(super) const EVENT_SCHED_BLOCKED_REASON: u32 = 18;
pub(super) const EVENT_SCHED_WAKING: u32 = 20;

/// The thread names an event gives (`prev_comm`, `next_comm`, a waking's `comm`), borrowed from the bundle:
/// (tid, comm) pairs, empty comms left out by the reader.
pub type Names<'a> = [Option<(i32, &'a [u8])>; 2];

/// Reads the payload `field` of an event written by `tid` into its [`Sched`] event and the thread names it
/// gives; `None` for a payload without the fields the event needs.
pub(super) fn event(
    field: u32,
    payload: &[u8],
    tid: i32,
) -> Result<Option<(Sched, Names<'_>)>, WireError> {
    let mut wire = Bytes::new(payload);
    // Up to seven numeric fields and two strings, by field number.
    let mut num = [None::<u64>; 8];
    let mut text: [&[u8]; 8] = [&[]; 8];
    while !wire.at_eof() {
        match wire.key()? {
            (f @ 1..=7, VARINT) => num[f as usize] = Some(wire.varint()?),
            (f @ 1..=7, LEN) => text[f as usize] = wire.bytes()?,
            (_, wt) => wire.skip_value(wt)?,
        }
    }
    let int = |f: usize| num[f].map(|v| v as i32);
    Ok(match field {
        EVENT_SCHED_SWITCH => {
            // prev_comm 1, prev_pid 2, prev_state 4, next_comm 5, next_pid 6.
            let (Some(prev), Some(next)) = (int(2), int(6)) else {
                return Ok(None);
            };
            let event = Sched::Switch {
                prev_tid: Some(prev),
                prev_state: num[4].unwrap_or(0) as u16,
                next_tid: next,
            };
            Some((event, [Some((prev, text[1])), Some((next, text[5]))]))
        }
        // comm 1, pid 2.
        EVENT_SCHED_WAKING => int(2).map(|woken| {
            let event = Sched::Waking {
                tid: woken,
                waker: Some(tid),
                // Perfetto's ParseSchedWaking passes no flags: irq_context is null for ftrace wakings.
                irq: None,
            };
            (event, [Some((woken, text[1])), None])
        }),
        // pid 1, io_wait 3.
        EVENT_SCHED_BLOCKED_REASON => int(1).map(|blocked| {
            let event = Sched::BlockedReason {
                tid: blocked,
                io_wait: num[3].map(|v| v != 0),
            };
            (event, [None, None])
        }),
        // state 1, cpu_id 2.
        EVENT_CPU_FREQUENCY => match (num[1], num[2]) {
            (Some(khz), Some(cpu)) => Some((
                Sched::CpuFrequency {
                    cpu: cpu as u32,
                    khz: khz as u32,
                },
                [None, None],
            )),
            _ => None,
        },
        _ => None,
    })
}

/// `CompactSched` field numbers.
const SWITCH_TIMESTAMP: u32 = 1;
const SWITCH_PREV_STATE: u32 = 2;
const SWITCH_NEXT_PID: u32 = 3;
const INTERN_TABLE: u32 = 5;
const SWITCH_NEXT_COMM_INDEX: u32 = 6;
const WAKING_TIMESTAMP: u32 = 7;
const WAKING_PID: u32 = 8;
const WAKING_COMMON_FLAGS: u32 = 12;
/// `common_flags` bits of a waking in hard (0x08) or soft (0x10) IRQ context (`TRACE_FLAG_HARDIRQ`,
/// `TRACE_FLAG_SOFTIRQ`; Perfetto's `irq_context`).
const IRQ_FLAGS: u64 = 0x08 | 0x10;

/// The chunks of a packed repeated varint field (a writer may split one; usually there is one), read in place.
type Chunks<'a> = smallvec::SmallVec<[&'a [u8]; 1]>;

/// A packed field's bytes: its one chunk in place, or its chunks joined.
fn joined<'a>(chunks: &Chunks<'a>) -> std::borrow::Cow<'a, [u8]> {
    match chunks.as_slice() {
        [] => std::borrow::Cow::Borrowed(&[]),
        [one] => std::borrow::Cow::Borrowed(one),
        many => std::borrow::Cow::Owned(many.concat()),
    }
}

/// The varints of a packed field, in order; a malformed varint ends the field.
struct Varints<'a>(Bytes<'a>);

impl Iterator for Varints<'_> {
    type Item = u64;

    #[inline(always)]
    fn next(&mut self) -> Option<u64> {
        if self.0.at_eof() {
            return None;
        }
        self.0.varint().ok()
    }
}

/// `FtraceEventBundle.compact_sched` decoded: its switches, then its wakings (each array in time order; the
/// caller sorts all events by time), with their raw timestamps; and the thread names its switches give.
#[derive(Debug, Default, PartialEq)]
pub struct CompactSched<'a> {
    /// (raw timestamp, event).
    pub events: Vec<(u64, Sched)>,
    /// Per thread switched to under a name, in the order first met: the last (tid, raw timestamp, `next_comm`).
    /// Only a thread's last name in a bundle can outlast the others (its names are in time order), so the
    /// earlier ones are left out.
    pub names: Vec<(i32, u64, &'a [u8])>,
}

/// Decodes `compact_sched` (`msg`). An event whose arrays are shorter than its timestamps' is dropped. The
/// packed arrays are read in place unless a writer split one.
pub(super) fn compact(msg: &[u8]) -> Result<CompactSched<'_>, WireError> {
    let mut wire = Bytes::new(msg);
    let mut table: smallvec::SmallVec<[&[u8]; 32]> = smallvec::SmallVec::new();
    let mut fields: [Chunks<'_>; 13] = Default::default();
    while !wire.at_eof() {
        match wire.key()? {
            (INTERN_TABLE, LEN) => table.push(wire.bytes()?),
            (f @ 1..=12, LEN) => fields[f as usize].push(wire.bytes()?),
            (_, wt) => wire.skip_value(wt)?,
        }
    }
    let field = |f: u32| joined(&fields[f as usize]);
    let (timestamps, states, pids, comms) = (
        field(SWITCH_TIMESTAMP),
        field(SWITCH_PREV_STATE),
        field(SWITCH_NEXT_PID),
        field(SWITCH_NEXT_COMM_INDEX),
    );
    let (mut states, mut pids, mut comms) = (
        Varints(Bytes::new(&states)),
        Varints(Bytes::new(&pids)),
        Varints(Bytes::new(&comms)),
    );
    // Each varint takes a byte at least: the bytes bound the events.
    let mut out = CompactSched {
        events: Vec::with_capacity(
            timestamps.len()
                + fields[WAKING_TIMESTAMP as usize]
                    .iter()
                    .map(|c| c.len())
                    .sum::<usize>(),
        ),
        names: Vec::with_capacity(table.len()),
    };
    // Index into `out.names` of each thread named so far (a bundle's CPU runs a few dozen threads).
    let mut named: rustc_hash::FxHashMap<i32, usize> =
        rustc_hash::FxHashMap::with_capacity_and_hasher(4 * table.len(), Default::default());
    let mut ts = 0u64;
    for delta in Varints(Bytes::new(&timestamps)) {
        ts = ts.wrapping_add(delta);
        let (Some(state), Some(next)) = (states.next(), pids.next()) else {
            break;
        };
        let next = next as i32;
        out.events.push((
            ts,
            Sched::Switch {
                prev_tid: None,
                // Packed int64: the varint is the two's complement, of which Perfetto reads 16 bits.
                prev_state: state as u16,
                next_tid: next,
            },
        ));
        let comm = comms
            .next()
            .and_then(|i| table.get(usize::try_from(i).ok()?))
            .copied()
            .unwrap_or(&[]);
        // An empty name names nothing (the reader leaves empty comms out).
        if !comm.is_empty() {
            let at = *named.entry(next).or_insert(out.names.len());
            match out.names.get_mut(at) {
                Some(last) => *last = (next, ts, comm),
                None => out.names.push((next, ts, comm)),
            }
        }
    }
    // Perfetto names no thread from compact_sched's wakings: their comms are not read.
    let (pids, flags) = (field(WAKING_PID), field(WAKING_COMMON_FLAGS));
    let (mut pids, mut flags) = (Varints(Bytes::new(&pids)), Varints(Bytes::new(&flags)));
    let mut ts = 0u64;
    for delta in Varints(Bytes::new(&field(WAKING_TIMESTAMP))) {
        ts = ts.wrapping_add(delta);
        let Some(pid) = pids.next() else {
            break;
        };
        let event = Sched::Waking {
            tid: pid as i32,
            waker: None,
            // Perfetto reads an absent flags array as 0; hard or soft IRQ bits make irq_context.
            irq: Some(flags.next().is_some_and(|f| f & IRQ_FLAGS != 0)),
        };
        out.events.push((ts, event));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::ftrace::tests::{len, packed};

    #[test]
    fn compact_sched_names_each_thread_by_its_last_non_empty_name() {
        let mut msg = Vec::new();
        for name in [&b"a"[..], b"b", b""] {
            len(&mut msg, INTERN_TABLE, name, false);
        }
        // Thread 43 switched to as "a" (t=10), "b" (t=11), "" (t=12); thread 44 as "a" (t=13).
        len(&mut msg, SWITCH_TIMESTAMP, &packed(&[10, 1, 1, 1]), false);
        len(&mut msg, SWITCH_PREV_STATE, &packed(&[0, 0, 0, 0]), false);
        len(&mut msg, SWITCH_NEXT_PID, &packed(&[43, 43, 43, 44]), false);
        len(
            &mut msg,
            SWITCH_NEXT_COMM_INDEX,
            &packed(&[0, 1, 2, 0]),
            false,
        );
        let c = compact(&msg).unwrap();
        assert_eq!(c.events.len(), 4);
        assert_eq!(c.names, [(43, 11, &b"b"[..]), (44, 13, b"a")]);
    }
}
