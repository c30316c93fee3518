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

/// The varints of a packed field's chunks, in order; a malformed varint ends the field.
fn varints<'c>(chunks: &'c Chunks<'_>) -> impl Iterator<Item = u64> + 'c {
    chunks.iter().flat_map(|chunk| {
        let mut w = Bytes::new(chunk);
        std::iter::from_fn(move || (!w.at_eof()).then(|| w.varint().ok()).flatten())
    })
}

/// `FtraceEventBundle.compact_sched`: its switches, then its wakings (each array in time order; the caller
/// sorts all events by time), with their raw timestamps. An event whose arrays are shorter than its
/// timestamps' is dropped. The packed arrays are read in place, without a copy.
pub(super) fn compact<'a>(
    msg: &'a [u8],
    emit: &mut dyn FnMut(u64, Sched, Names<'a>),
) -> Result<(), WireError> {
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
    let name = |index: Option<u64>| -> &'a [u8] {
        index
            .and_then(|i| table.get(usize::try_from(i).ok()?))
            .copied()
            .unwrap_or(&[])
    };
    let field = |f: u32| varints(&fields[f as usize]);
    let (mut states, mut pids, mut comms) = (
        field(SWITCH_PREV_STATE),
        field(SWITCH_NEXT_PID),
        field(SWITCH_NEXT_COMM_INDEX),
    );
    let mut ts = 0u64;
    for delta in field(SWITCH_TIMESTAMP) {
        ts = ts.wrapping_add(delta);
        let (Some(state), Some(next)) = (states.next(), pids.next()) else {
            break;
        };
        let next = next as i32;
        let event = Sched::Switch {
            prev_tid: None,
            // Packed int64: the varint is the two's complement, of which Perfetto reads 16 bits.
            prev_state: state as u16,
            next_tid: next,
        };
        emit(ts, event, [Some((next, name(comms.next()))), None]);
    }
    // Perfetto names no thread from compact_sched's wakings: their comms are not read.
    let (mut pids, mut flags) = (field(WAKING_PID), field(WAKING_COMMON_FLAGS));
    let mut ts = 0u64;
    for delta in field(WAKING_TIMESTAMP) {
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
        emit(ts, event, [None, None]);
    }
    Ok(())
}
