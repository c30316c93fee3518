//! `FtraceEventBundle` (TracePacket field 1) → the few ftrace events ftl uses: `print` (atrace lines), the
//! thread names of `task_newtask` / `task_rename`, and — for the threads asked about — the scheduler's names of
//! the threads it switches to (`sched_switch.next_comm`, `compact_sched`). The scheduler and other events that
//! make up most of a trace are skipped without decoding a varint when laid out as traced_probes writes them
//! ([`fast_event`]), and `print` events are read in one pass ([`plain_print`]); anything else goes through the
//! general field loop ([`event`]), which the fast paths agree with. Bundles are in memory, so they are read
//! through [`Bytes`] (a slice and a position) rather than the `BufRead`-generic
//! [`WireReader`](super::wire::WireReader).
//! Field numbers: `ftrace_event_bundle.proto`, `ftrace_event.proto`, `ftrace.proto`, `task.proto`, `sched.proto`
//! (google/perfetto @ ec5d16b1).

use super::binder::{
    self, BinderEvent, EVENT_BINDER_TRANSACTION, EVENT_BINDER_TRANSACTION_RECEIVED,
};
use super::wire::{prefetch, Bytes, Framing, WireError, LEN, VARINT};

const BUNDLE_EVENT: u32 = 2;
const BUNDLE_COMPACT_SCHED: u32 = 4;
const EVENT_SCHED_SWITCH: u32 = 4;
const SWITCH_NEXT_COMM: u32 = 5;
const SWITCH_NEXT_PID: u32 = 6;
const COMPACT_NEXT_PID: u32 = 3;
const COMPACT_INTERN_TABLE: u32 = 5;
const COMPACT_NEXT_COMM_INDEX: u32 = 6;
const BUNDLE_FTRACE_CLOCK: u32 = 5;
const EVENT_TIMESTAMP: u32 = 1;
const EVENT_PID: u32 = 2;
const EVENT_PRINT: u32 = 3;
const EVENT_TASK_NEWTASK: u32 = 235;
const EVENT_TASK_RENAME: u32 = 236;
const PRINT_BUF: u32 = 2;
const NEWTASK_PID: u32 = 1;
const NEWTASK_COMM: u32 = 2;
const RENAME_PID: u32 = 1;
const RENAME_NEWCOMM: u32 = 3;

/// `FtraceClock` values ftl can convert: unspecified (the kernel's boot clock) and MONO_RAW.
const FTRACE_CLOCK_UNSPECIFIED: u64 = 0;
const FTRACE_CLOCK_MONO_RAW: u64 = 4;
/// Builtin clock ids (`builtin_clock.proto`) of those two.
const BUILTIN_BOOTTIME: u32 = 6;
const BUILTIN_MONOTONIC_RAW: u32 = 4;

/// One ftrace event ftl keeps; timestamps are raw, on the bundle's clock.
#[derive(Debug, PartialEq)]
pub(super) enum FtraceItem<'a> {
    /// A `print` event: `tid` wrote the atrace line `buf`.
    Print {
        /// Raw timestamp, ns.
        ts: u64,
        /// The writing thread (FtraceEvent.pid).
        tid: i32,
        /// The atrace line.
        buf: &'a [u8],
    },
    /// The name the scheduler gives a thread it switches to (`sched_switch.next_comm`, or `compact_sched`'s
    /// interned comm); only read when the walk is asked for names.
    Comm {
        /// The thread.
        tid: i32,
        /// Its `comm` (at most 15 bytes).
        comm: &'a [u8],
    },
    /// `binder_transaction` or `binder_transaction_received` ([`binder`]).
    Binder {
        /// Raw timestamp, ns.
        ts: u64,
        /// The thread (FtraceEvent.pid).
        tid: i32,
        /// The event.
        event: BinderEvent,
    },
    /// `task_newtask` (a thread created with this name) or `task_rename` (its new name).
    ThreadName {
        /// The thread.
        tid: i32,
        /// Its name (`comm`).
        name: String,
    },
}

/// Walks one bundle. Returns the builtin clock id of its timestamps, or `None` for an ftrace clock ftl cannot
/// convert (global / local: Perfetto applies per-bundle offsets ftl does not read); items are emitted either way.
///
/// With `names`, the scheduler's names of these threads are read too (`sched_switch` events and
/// `compact_sched`), as [`FtraceItem::Comm`]; without, those events are skipped like any other.
pub(super) fn walk<'a>(
    bundle: &'a [u8],
    names: Option<&[i32]>,
    emit: &mut dyn FnMut(FtraceItem<'a>),
) -> Result<Option<u32>, WireError> {
    let mut clock = FTRACE_CLOCK_UNSPECIFIED;
    let mut wire = Bytes::new(bundle);
    while !wire.at_eof() {
        prefetch(bundle, wire.pos);
        // Most events are skipped whole without decoding a varint, and `print` events read in one pass.
        match fast_event(bundle, wire.pos, names.is_some()) {
            Some(Fast::Skip(next)) => {
                wire.pos = next;
                continue;
            }
            Some(Fast::Print { next, ts, tid, buf }) => {
                wire.pos = next;
                emit(FtraceItem::Print { ts, tid, buf });
                continue;
            }
            None => {}
        }
        let (field, wire_type) = wire.key()?;
        match (field, wire_type) {
            (BUNDLE_EVENT, LEN) => event(wire.bytes()?, names, emit)?,
            (BUNDLE_FTRACE_CLOCK, VARINT) => clock = wire.varint()?,
            (BUNDLE_COMPACT_SCHED, LEN) => match names {
                Some(wanted) => compact_sched(wire.bytes()?, wanted, emit)?,
                None => wire.skip_value(LEN)?,
            },
            _ => wire.skip_value(wire_type)?,
        }
    }
    Ok(match clock {
        FTRACE_CLOCK_UNSPECIFIED => Some(BUILTIN_BOOTTIME),
        FTRACE_CLOCK_MONO_RAW => Some(BUILTIN_MONOTONIC_RAW),
        _ => None,
    })
}

/// Keys of `FtraceEvent.timestamp` and `.pid` (varints).
const KEY_TIMESTAMP: u8 = (EVENT_TIMESTAMP as u8) << 3 | VARINT;
const KEY_PID: u8 = (EVENT_PID as u8) << 3 | VARINT;

/// The length of the varint `b` starts with, if it has 8 bytes to look at and the varint fits in them: one load
/// and no branch per byte.
#[inline(always)]
fn varint_len8(b: &[u8]) -> Option<usize> {
    let word = u64::from_le_bytes(*b.first_chunk::<8>()?);
    let ends = !word & 0x8080_8080_8080_8080;
    (ends != 0).then(|| ends.trailing_zeros() as usize / 8 + 1)
}

/// Key of `FtraceEventBundle.event`.
const KEY_EVENT: u8 = (BUNDLE_EVENT as u8) << 3 | LEN;

/// What [`fast_event`] found at a position of a bundle.
enum Fast<'a> {
    /// An event ftl skips (see [`payload_field`]), ending at this position.
    Skip(usize),
    /// A plain `print` event (see [`plain_print`]) ending at `next`.
    Print {
        next: usize,
        ts: u64,
        tid: i32,
        buf: &'a [u8],
    },
}

/// The event at `pos` of `bundle` if it is one the fast paths read: skipped, or a plain `print`; `None` means
/// "read the field the general way" ([`event`]), which gives the same result.
#[inline(always)]
fn fast_event(bundle: &[u8], pos: usize, names: bool) -> Option<Fast<'_>> {
    if *bundle.get(pos)? != KEY_EVENT {
        return None;
    }
    // The length: Perfetto's writer pads it to 4 bytes.
    let mut wire = Bytes {
        buf: bundle,
        pos: pos + 1,
    };
    let n = usize::try_from(wire.varint().ok()?).ok()?;
    let next = wire.pos.checked_add(n)?;
    let bytes = bundle.get(wire.pos..next)?;
    match payload_field(bytes)? {
        EVENT_PRINT => {
            let (ts, tid, buf) = plain_print(bytes)?;
            Some(Fast::Print { next, ts, tid, buf })
        }
        EVENT_TASK_NEWTASK | EVENT_TASK_RENAME => None,
        EVENT_BINDER_TRANSACTION | EVENT_BINDER_TRANSACTION_RECEIVED => None,
        EVENT_SCHED_SWITCH if names => None,
        _ => Some(Fast::Skip(next)),
    }
}

/// The field number of an event's payload if `bytes` is laid out as traced_probes writes events: timestamp, pid,
/// then a length-delimited payload. Found without decoding the two varints; `None` means "read it fully".
#[inline(always)]
fn payload_field(bytes: &[u8]) -> Option<u32> {
    if bytes.first() != Some(&KEY_TIMESTAMP) {
        return None;
    }
    let pid = 1 + varint_len8(&bytes[1..])?;
    if bytes.get(pid) != Some(&KEY_PID) {
        return None;
    }
    let payload = pid + 1 + varint_len8(&bytes[pid + 1..])?;
    // The payload's key, 1 or 2 bytes (fields up to 2047).
    let key = match *bytes.get(payload..payload + 2)? {
        [k0, _] if k0 < 0x80 => u32::from(k0),
        [k0, k1] if k1 < 0x80 => u32::from(k0 & 0x7f) | u32::from(k1) << 7,
        _ => return None,
    };
    let (field, wire_type) = (key >> 3, (key & 7) as u8);
    (wire_type == LEN && field > EVENT_PID).then_some(field)
}

/// Keys of `FtraceEvent.print`, `PrintFtraceEvent.ip` and `.buf`.
const KEY_PRINT: u8 = (EVENT_PRINT as u8) << 3 | LEN;
const KEY_IP: u8 = 1 << 3 | VARINT;
const KEY_BUF: u8 = (PRINT_BUF as u8) << 3 | LEN;

/// `(timestamp, tid, buf)` of a `print` event laid out as traced_probes writes it — timestamp, pid, then
/// `print { ip, buf }` and nothing else — read in one pass; `None` means "read it the general way" ([`event`]),
/// which gives the same result for this layout.
#[inline(always)]
fn plain_print(bytes: &[u8]) -> Option<(u64, i32, &[u8])> {
    let mut event = Bytes::new(bytes);
    if event.byte()? != KEY_TIMESTAMP {
        return None;
    }
    let ts = event.varint().ok()?;
    if event.byte()? != KEY_PID {
        return None;
    }
    let tid = event.varint().ok()? as i32;
    if event.byte()? != KEY_PRINT {
        return None;
    }
    let mut print = Bytes::new(event.bytes().ok()?);
    if !event.at_eof() {
        return None;
    }
    let mut key = print.byte()?;
    if key == KEY_IP {
        print.skip_varint()?;
        key = print.byte()?;
    }
    if key != KEY_BUF {
        return None;
    }
    let buf = print.bytes().ok()?;
    print.at_eof().then_some((ts, tid, buf))
}

/// One `FtraceEvent`: header fields, then the payload if it is one ftl keeps.
fn event<'a>(
    bytes: &'a [u8],
    names: Option<&[i32]>,
    emit: &mut dyn FnMut(FtraceItem<'a>),
) -> Result<(), WireError> {
    let mut wire = Bytes::new(bytes);
    let (mut ts, mut tid) = (0u64, 0i32);
    while !wire.at_eof() {
        let (field, wire_type) = wire.key()?;
        match (field, wire_type) {
            (EVENT_TIMESTAMP, VARINT) => ts = wire.varint()?,
            (EVENT_PID, VARINT) => tid = wire.varint()? as i32,
            (EVENT_PRINT | EVENT_TASK_NEWTASK | EVENT_TASK_RENAME, LEN) => {
                let payload = wire.bytes()?;
                match field {
                    EVENT_PRINT => {
                        if let Some(buf) = string_field(payload, PRINT_BUF)? {
                            emit(FtraceItem::Print { ts, tid, buf });
                        }
                    }
                    EVENT_TASK_NEWTASK => thread_name(payload, NEWTASK_PID, NEWTASK_COMM, emit)?,
                    _ => thread_name(payload, RENAME_PID, RENAME_NEWCOMM, emit)?,
                }
            }
            (EVENT_BINDER_TRANSACTION | EVENT_BINDER_TRANSACTION_RECEIVED, LEN) => {
                let payload = wire.bytes()?;
                let event = match field {
                    EVENT_BINDER_TRANSACTION => binder::transaction(payload)?,
                    _ => binder::received(payload)?,
                };
                emit(FtraceItem::Binder { ts, tid, event });
            }
            (EVENT_SCHED_SWITCH, LEN) if names.is_some() => {
                let payload = wire.bytes()?;
                let mut w = Bytes::new(payload);
                let (mut next_tid, mut comm) = (None, None);
                while !w.at_eof() {
                    match w.key()? {
                        (SWITCH_NEXT_COMM, LEN) => comm = Some(w.bytes()?),
                        (SWITCH_NEXT_PID, VARINT) => next_tid = Some(w.varint()? as i32),
                        (_, wt) => w.skip_value(wt)?,
                    }
                }
                let wanted = |tid: &i32| names.is_some_and(|want| want.contains(tid));
                if let (Some(tid), Some(comm)) =
                    (next_tid.filter(wanted), comm.filter(|c| !c.is_empty()))
                {
                    emit(FtraceItem::Comm { tid, comm });
                }
                return Ok(());
            }
            // The payload of any other event: nothing after it matters.
            (_, LEN) if field > EVENT_PID => return Ok(()),
            _ => wire.skip_value(wire_type)?,
        }
    }
    Ok(())
}

/// `FtraceEventBundle.compact_sched`: each switch to one of the `wanted` threads, with its interned comm. The
/// packed `next_pid` array is searched for the wanted threads' varints (a varint starts at the array's start or
/// after a byte without the continuation bit) rather than decoded whole: the wanted threads are a few of the
/// many the scheduler switches to. The n-th `next_comm_index` goes with the n-th `next_pid`. `wanted` holds
/// distinct threads.
fn compact_sched<'a>(
    msg: &'a [u8],
    wanted: &[i32],
    emit: &mut dyn FnMut(FtraceItem<'a>),
) -> Result<(), WireError> {
    let mut wire = Bytes::new(msg);
    // Sized for a usual bundle (tens of interned names, one chunk per array): no growth.
    let mut table = Vec::with_capacity(64);
    let (mut pids, mut comms) = (Chunks::default(), Chunks::default());
    while !wire.at_eof() {
        match wire.key()? {
            (COMPACT_INTERN_TABLE, LEN) => table.push(wire.bytes()?),
            (COMPACT_NEXT_PID, LEN) => pids.push(wire.bytes()?),
            (COMPACT_NEXT_COMM_INDEX, LEN) => comms.push(wire.bytes()?),
            (_, wt) => wire.skip_value(wt)?,
        }
    }
    let (pids, comms) = (pids.joined(), comms.joined());
    // (byte offset in next_pid, tid) of every switch to a wanted thread, in switch order.
    let mut found = Vec::new();
    for &tid in wanted {
        let mut bytes = [0u8; 10];
        let len = {
            let mut out = &mut bytes[..];
            prost::encoding::encode_varint(i64::from(tid) as u64, &mut out);
            10 - out.len()
        };
        let varint = &bytes[..len];
        // Found by its last byte (the one without the continuation bit): a needle of a few bytes is not worth
        // a substring searcher's set-up, once per bundle.
        let last = varint.len() - 1;
        let starts = memchr::memchr_iter(varint[last], &pids)
            .filter_map(|end| end.checked_sub(last))
            .filter(|&at| pids[at..at + last] == varint[..last])
            .filter(|&at| at == 0 || pids[at - 1] < 0x80);
        found.extend(starts.map(|at| (at, tid)));
    }
    found.sort_unstable();
    let ends = |b: &[u8]| b.iter().filter(|&&b| b < 0x80).count();
    let (mut pid_from, mut comm) = (0, Bytes::new(&comms));
    for (at, tid) in found {
        // Past as many comm indexes as there are switches between the last switch found and this one.
        for _ in 0..ends(&pids[pid_from..at]) {
            if comm.at_eof() {
                return Ok(());
            }
            comm.varint()?;
        }
        pid_from = at;
        let Ok(index) = Bytes { ..comm }.varint() else {
            return Ok(());
        };
        let name = usize::try_from(index).ok().and_then(|i| table.get(i));
        if let Some(&comm) = name.filter(|c| !c.is_empty()) {
            emit(FtraceItem::Comm { tid, comm });
        }
    }
    Ok(())
}

/// The chunks of a packed repeated field (a writer may split it): usually one, kept without an allocation.
#[derive(Default)]
struct Chunks<'a> {
    first: &'a [u8],
    more: Vec<&'a [u8]>,
}

impl<'a> Chunks<'a> {
    fn push(&mut self, chunk: &'a [u8]) {
        match self.first.is_empty() {
            true => self.first = chunk,
            false => self.more.push(chunk),
        }
    }

    /// The field's bytes: its one chunk, or its chunks joined.
    fn joined(&self) -> std::borrow::Cow<'a, [u8]> {
        match self.more.is_empty() {
            true => std::borrow::Cow::Borrowed(self.first),
            false => {
                let mut all = self.first.to_vec();
                self.more.iter().for_each(|c| all.extend_from_slice(c));
                std::borrow::Cow::Owned(all)
            }
        }
    }
}

fn thread_name<'a>(
    payload: &[u8],
    pid_field: u32,
    name_field: u32,
    emit: &mut dyn FnMut(FtraceItem<'a>),
) -> Result<(), WireError> {
    let mut wire = Bytes::new(payload);
    let (mut tid, mut name) = (None, None);
    while !wire.at_eof() {
        let (field, wire_type) = wire.key()?;
        if field == pid_field && wire_type == VARINT {
            tid = Some(wire.varint()? as i32);
        } else if field == name_field && wire_type == LEN {
            name = Some(String::from_utf8_lossy(wire.bytes()?).into_owned());
        } else {
            wire.skip_value(wire_type)?;
        }
    }
    if let (Some(tid), Some(name)) = (tid, name) {
        emit(FtraceItem::ThreadName { tid, name });
    }
    Ok(())
}

/// The bytes of length-delimited `field` in `msg` (the last occurrence), if present.
fn string_field(msg: &[u8], field: u32) -> Result<Option<&[u8]>, WireError> {
    let mut wire = Bytes::new(msg);
    let mut found = None;
    while !wire.at_eof() {
        let (f, wire_type) = wire.key()?;
        if f == field && wire_type == LEN {
            found = Some(wire.bytes()?);
        } else {
            wire.skip_value(wire_type)?;
        }
    }
    Ok(found)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// `walk` without its fast paths: every event through [`event`].
    fn walk_general(bundle: &[u8]) -> Result<(Option<u32>, Vec<FtraceItem<'_>>), String> {
        let mut items = Vec::new();
        let mut clock = FTRACE_CLOCK_UNSPECIFIED;
        let mut wire = Bytes::new(bundle);
        let err = |e: WireError| format!("{e:?}");
        while !wire.at_eof() {
            let (field, wire_type) = wire.key().map_err(err)?;
            match (field, wire_type) {
                (BUNDLE_EVENT, LEN) => {
                    event(wire.bytes().map_err(err)?, None, &mut |i| items.push(i)).map_err(err)?
                }
                (BUNDLE_FTRACE_CLOCK, VARINT) => clock = wire.varint().map_err(err)?,
                _ => wire.skip_value(wire_type).map_err(err)?,
            }
        }
        let clock = match clock {
            FTRACE_CLOCK_UNSPECIFIED => Some(BUILTIN_BOOTTIME),
            FTRACE_CLOCK_MONO_RAW => Some(BUILTIN_MONOTONIC_RAW),
            _ => None,
        };
        Ok((clock, items))
    }

    fn walk_fast(bundle: &[u8]) -> Result<(Option<u32>, Vec<FtraceItem<'_>>), String> {
        let mut items = Vec::new();
        let clock = walk(bundle, None, &mut |i| items.push(i)).map_err(|e| format!("{e:?}"))?;
        Ok((clock, items))
    }

    fn key(out: &mut Vec<u8>, field: u32, wire_type: u8) {
        prost::encoding::encode_varint(u64::from(field << 3 | u32::from(wire_type)), out);
    }

    fn varint(out: &mut Vec<u8>, field: u32, v: u64) {
        key(out, field, VARINT);
        prost::encoding::encode_varint(v, out);
    }

    /// A length-delimited field, its length padded to 4 bytes if `padded` (as Perfetto writes nested messages).
    fn len(out: &mut Vec<u8>, field: u32, bytes: &[u8], padded: bool) {
        key(out, field, LEN);
        let n = bytes.len() as u64;
        if padded {
            out.extend([
                (n & 0x7f) as u8 | 0x80,
                (n >> 7 & 0x7f) as u8 | 0x80,
                (n >> 14 & 0x7f) as u8 | 0x80,
                (n >> 21) as u8,
            ]);
        } else {
            prost::encoding::encode_varint(n, out);
        }
        out.extend_from_slice(bytes);
    }

    #[test]
    fn fast_paths_read_what_the_general_path_reads() {
        let ts = 157_479_316_678_737;
        let print = |ip: Option<u64>, buf: &[u8], padded| {
            let mut p = Vec::new();
            if let Some(ip) = ip {
                varint(&mut p, 1, ip);
            }
            len(&mut p, PRINT_BUF, buf, padded);
            p
        };
        let event = |fields: &[Field], padded| {
            let mut e = Vec::new();
            for (field, v, bytes) in fields {
                match v {
                    Some(v) => varint(&mut e, *field, *v),
                    None => len(&mut e, *field, bytes, padded),
                }
            }
            e
        };
        let kernel_ip = 0xffff_ffc0_0812_3456;
        let sched = vec![0x0a, 0x03, b'a', b'b', b'c', 0x10, 0x05];
        let mut rename = Vec::new();
        varint(&mut rename, RENAME_PID, 77);
        len(&mut rename, RENAME_NEWCOMM, b"RenderThread", false);
        // (field, varint value, or the bytes of a length-delimited field)
        type Field = (u32, Option<u64>, Vec<u8>);
        let events: Vec<Vec<Field>> = vec![
            // The usual layouts.
            vec![
                (1, Some(ts), vec![]),
                (2, Some(4242), vec![]),
                (3, None, print(Some(kernel_ip), b"B|1|x\n", true)),
            ],
            vec![
                (1, Some(ts), vec![]),
                (2, Some(4242), vec![]),
                (4, None, sched.clone()),
            ],
            vec![
                (1, Some(ts), vec![]),
                (2, Some(4242), vec![]),
                (313, None, sched.clone()),
            ],
            vec![
                (1, Some(ts), vec![]),
                (2, Some(9), vec![]),
                (236, None, rename.clone()),
            ],
            // Unusual ones, for the general path.
            vec![
                (1, Some(ts), vec![]),
                (2, Some(1), vec![]),
                (3, None, print(None, b"E|1", false)),
            ],
            vec![
                (2, Some(1), vec![]),
                (1, Some(5), vec![]),
                (3, None, print(Some(1), b"E|2", false)),
            ],
            vec![
                (1, Some(ts), vec![]),
                (2, Some(1), vec![]),
                (3, None, print(Some(1), b"E|3", false)),
                (3, None, print(Some(1), b"E|4", false)),
            ],
            vec![
                (1, Some(ts), vec![]),
                (2, Some(1), vec![]),
                (3, None, print(Some(1), b"E|5", false)),
                (2, Some(8), vec![]),
            ],
            vec![
                (1, Some(ts), vec![]),
                (2, Some(1), vec![]),
                (5, Some(3), vec![]),
                (4, None, sched.clone()),
            ],
            vec![(1, Some(1), vec![]), (2, Some(1), vec![])],
            vec![
                (1, Some(1), vec![]),
                (2, Some(1), vec![]),
                (3, None, vec![]),
            ],
            vec![
                (1, Some(u64::MAX), vec![]),
                (2, Some(u64::from(u32::MAX)), vec![]),
                (4, None, vec![]),
            ],
            vec![],
        ];
        for padded in [false, true] {
            let mut bundle = Vec::new();
            varint(&mut bundle, 1, 3);
            for e in &events {
                len(&mut bundle, BUNDLE_EVENT, &event(e, padded), padded);
            }
            varint(&mut bundle, BUNDLE_FTRACE_CLOCK, 4);
            let general = walk_general(&bundle).unwrap();
            assert_eq!(walk_fast(&bundle).unwrap(), general);
            assert_eq!(general.1.len(), 7, "{general:?}");
            // Cut anywhere: the same items or the same failure.
            for cut in 0..bundle.len() {
                let part = &bundle[..cut];
                assert_eq!(
                    walk_fast(part).is_ok(),
                    walk_general(part).is_ok(),
                    "cut at {cut}"
                );
                if let (Ok(a), Ok(b)) = (walk_fast(part), walk_general(part)) {
                    assert_eq!(a, b, "cut at {cut}");
                }
            }
        }
    }

    #[test]
    fn fast_paths_read_what_the_general_path_reads_on_real_traces() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/traces");
        let mut prints = 0;
        for name in [
            "pixel6a_a13_startup_warm_60hz.perfetto-trace",
            "emulator_a12_cpu_sampling_60hz.pftrace",
            "pixel7pro_a13_nowinandroid_launch_120hz.perfetto-trace",
        ] {
            let trace = std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
            for bundle in bundles(&trace) {
                let general = walk_general(bundle).unwrap();
                prints += general.1.len();
                assert_eq!(walk_fast(bundle).unwrap(), general, "{name}");
            }
        }
        assert!(prints > 13_000, "{prints}");
    }

    /// The values of length-delimited field `field` in `msg`.
    fn len_fields(msg: &[u8], field: u32) -> Vec<&[u8]> {
        let mut wire = Bytes::new(msg);
        let mut found = Vec::new();
        while !wire.at_eof() {
            match wire.key().unwrap() {
                (f, LEN) if f == field => found.push(wire.bytes().unwrap()),
                (_, wire_type) => wire.skip_value(wire_type).unwrap(),
            }
        }
        found
    }

    /// The values of length-delimited TracePacket field `field` throughout a trace.
    pub(in crate::decode) fn packet_fields(trace: &[u8], field: u32) -> Vec<&[u8]> {
        let packets = crate::synth::split_packets(trace).unwrap();
        packets
            .into_iter()
            .flat_map(|p| len_fields(p, field))
            .collect()
    }

    /// The ftrace bundles of a trace.
    pub(in crate::decode) fn bundles(trace: &[u8]) -> Vec<&[u8]> {
        packet_fields(trace, 1)
    }

    /// Every (next_pid, comm) pair of a `compact_sched`, decoded whole.
    fn all_switches(msg: &[u8]) -> Vec<(i32, &[u8])> {
        let mut wire = Bytes::new(msg);
        let (mut table, mut pids, mut comms) = (Vec::new(), Vec::new(), Vec::new());
        let packed = |bytes: &[u8], out: &mut Vec<u64>| {
            let mut w = Bytes::new(bytes);
            while !w.at_eof() {
                out.push(w.varint().unwrap());
            }
        };
        while !wire.at_eof() {
            match wire.key().unwrap() {
                (COMPACT_INTERN_TABLE, LEN) => table.push(wire.bytes().unwrap()),
                (COMPACT_NEXT_PID, LEN) => packed(wire.bytes().unwrap(), &mut pids),
                (COMPACT_NEXT_COMM_INDEX, LEN) => packed(wire.bytes().unwrap(), &mut comms),
                (_, wt) => wire.skip_value(wt).unwrap(),
            }
        }
        pids.iter()
            .zip(&comms)
            .map(|(&pid, &i)| (pid as i32, table[i as usize]))
            .collect()
    }

    #[test]
    fn compact_sched_finds_the_switches_a_whole_decode_finds() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/traces/pixel6a_a13_startup_warm_60hz.perfetto-trace");
        let trace = std::fs::read(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        let (mut compact, mut switches) = (0, 0);
        for bundle in bundles(&trace) {
            for msg in len_fields(bundle, BUNDLE_COMPACT_SCHED) {
                let all = all_switches(msg);
                // The most and least frequent threads of the bundle, one of them with a multi-byte varint,
                // and one thread that never runs.
                let mut counts = std::collections::BTreeMap::new();
                for &(pid, _) in &all {
                    *counts.entry(pid).or_insert(0) += 1;
                }
                let mut by_count: Vec<_> = counts.into_iter().collect();
                by_count.sort_by_key(|&(pid, n)| (std::cmp::Reverse(n), pid));
                let mut wanted: Vec<i32> = by_count.iter().take(2).map(|&(p, _)| p).collect();
                wanted.extend(by_count.last().map(|&(p, _)| p));
                wanted.push(i32::MAX);
                wanted.sort_unstable();
                wanted.dedup();
                let expected: Vec<_> = all
                    .iter()
                    .filter(|(pid, comm)| wanted.contains(pid) && !comm.is_empty())
                    .map(|&(tid, comm)| FtraceItem::Comm { tid, comm })
                    .collect();
                let mut items = Vec::new();
                compact_sched(msg, &wanted, &mut |i| items.push(i)).unwrap();
                assert_eq!(items, expected, "wanted {wanted:?}");
                compact += 1;
                switches += items.len();
            }
        }
        assert!(compact > 100 && switches > 1000, "{compact} {switches}");
    }

    #[test]
    fn compact_sched_joins_packed_arrays_split_into_chunks() {
        let packed = |values: &[u64]| {
            let mut out = Vec::new();
            values
                .iter()
                .for_each(|&v| prost::encoding::encode_varint(v, &mut out));
            out
        };
        // Switches to 0 (swapper), 43, 7, 43, 20000 (RenderThread); 43 and 20000 wanted.
        let (pids, comms) = (packed(&[0, 43, 7, 43, 20_000]), packed(&[0, 1, 0, 1, 1]));
        let message = |pid_chunks: &[&[u8]], comm_chunks: &[&[u8]]| {
            let mut m = Vec::new();
            len(&mut m, COMPACT_INTERN_TABLE, b"swapper", false);
            len(&mut m, COMPACT_INTERN_TABLE, b"RenderThread", false);
            pid_chunks
                .iter()
                .for_each(|c| len(&mut m, COMPACT_NEXT_PID, c, false));
            comm_chunks
                .iter()
                .for_each(|c| len(&mut m, COMPACT_NEXT_COMM_INDEX, c, false));
            m
        };
        let read = |msg: &[u8]| {
            let mut items = Vec::new();
            compact_sched(msg, &[43, 20_000], &mut |i| items.push(format!("{i:?}"))).unwrap();
            items
        };
        let whole = read(&message(&[&pids], &[&comms]));
        assert_eq!(whole.len(), 3, "{whole:?}");
        // Split after the second switch, and after an empty first chunk.
        let split = message(&[&pids[..2], &pids[2..]], &[&[], &comms[..3], &comms[3..]]);
        assert_eq!(read(&split), whole);
    }

    #[test]
    fn scheduler_names_are_read_only_when_asked() {
        // sched_switch {prev_comm "a", prev_pid 1, next_comm "RenderThread", next_pid 42}.
        let mut switch = Vec::new();
        len(&mut switch, 1, b"a", false);
        varint(&mut switch, 2, 1);
        len(&mut switch, SWITCH_NEXT_COMM, b"RenderThread", false);
        varint(&mut switch, SWITCH_NEXT_PID, 42);
        let mut event = Vec::new();
        varint(&mut event, EVENT_TIMESTAMP, 100);
        varint(&mut event, EVENT_PID, 1);
        len(&mut event, EVENT_SCHED_SWITCH, &switch, false);
        // compact_sched: intern table ["swapper", "RenderThread"], switches to 0 then 43 (index 1).
        let mut packed_pids = Vec::new();
        prost::encoding::encode_varint(0, &mut packed_pids);
        prost::encoding::encode_varint(43, &mut packed_pids);
        let mut packed_comms = Vec::new();
        prost::encoding::encode_varint(0, &mut packed_comms);
        prost::encoding::encode_varint(1, &mut packed_comms);
        let mut compact = Vec::new();
        len(&mut compact, COMPACT_INTERN_TABLE, b"swapper", false);
        len(&mut compact, COMPACT_INTERN_TABLE, b"RenderThread", false);
        len(&mut compact, COMPACT_NEXT_PID, &packed_pids, false);
        len(&mut compact, COMPACT_NEXT_COMM_INDEX, &packed_comms, false);
        let mut bundle = Vec::new();
        len(&mut bundle, BUNDLE_EVENT, &event, true);
        len(&mut bundle, BUNDLE_COMPACT_SCHED, &compact, false);
        let read = |names: Option<&[i32]>| {
            let mut items = Vec::new();
            walk(&bundle, names, &mut |i| items.push(i)).unwrap();
            items
        };
        assert_eq!(read(None), []);
        assert_eq!(
            read(Some(&[42, 43])),
            [
                FtraceItem::Comm {
                    tid: 42,
                    comm: b"RenderThread"
                },
                FtraceItem::Comm {
                    tid: 43,
                    comm: b"RenderThread"
                },
            ]
        );
        assert_eq!(
            read(Some(&[0, 42, 43])),
            [
                FtraceItem::Comm {
                    tid: 42,
                    comm: b"RenderThread"
                },
                FtraceItem::Comm {
                    tid: 0,
                    comm: b"swapper"
                },
                FtraceItem::Comm {
                    tid: 43,
                    comm: b"RenderThread"
                },
            ]
        );
    }
}
