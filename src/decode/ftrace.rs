//! `FtraceEventBundle` (TracePacket field 1) → the ftrace events ftl uses: `print` (atrace lines), the
//! thread names of `task_newtask` / `task_rename`, binder transactions, and the scheduler's events
//! ([`sched`]: switches, wakings, blocked reasons, CPU frequency, `compact_sched`). The other events that make
//! up most of a trace are skipped without decoding a varint when laid out as traced_probes writes them
//! ([`fast_event`]), and `print` events are read in one pass ([`plain_print`]); anything else goes through the
//! general field loop ([`event`]), which the fast paths agree with. Bundles are in memory, so they are read
//! through [`Bytes`] (a slice and a position) rather than the `BufRead`-generic
//! [`WireReader`](super::wire::WireReader).
//! Field numbers: `ftrace_event_bundle.proto`, `ftrace_event.proto`, `ftrace.proto`, `task.proto`, `sched.proto`
//! (google/perfetto @ ec5d16b1).

use super::binder::{
    self, BinderEvent, EVENT_BINDER_TRANSACTION, EVENT_BINDER_TRANSACTION_RECEIVED,
};
use super::event::Sched;
use super::sched::{
    self, CompactSched, Names, EVENT_CPU_FREQUENCY, EVENT_SCHED_BLOCKED_REASON, EVENT_SCHED_SWITCH,
    EVENT_SCHED_WAKING,
};
use super::wire::{prefetch, Bytes, Framing, WireError, LEN, VARINT};

const BUNDLE_CPU: u32 = 1;
const BUNDLE_EVENT: u32 = 2;
const BUNDLE_COMPACT_SCHED: u32 = 4;
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
    /// A scheduler event ([`sched`]) on the bundle's CPU ([`Walked::cpu`]).
    Sched {
        /// Raw timestamp, ns.
        ts: u64,
        /// The event.
        event: Sched,
        /// The thread names it gives.
        names: Names<'a>,
    },
    /// The bundle's `compact_sched` ([`sched::compact`]), on the bundle's CPU.
    Compact(CompactSched<'a>),
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
        /// Raw timestamp, ns.
        ts: u64,
        /// The thread.
        tid: i32,
        /// Its name (`comm`).
        name: String,
    },
}

/// What a bundle says of all its events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Walked {
    /// The builtin clock id of its timestamps, or `None` for an ftrace clock ftl cannot convert (global / local:
    /// Perfetto applies per-bundle offsets ftl does not read).
    pub clock: Option<u32>,
    /// The CPU whose events it holds (`FtraceEventBundle.cpu`).
    pub cpu: u32,
}

/// Walks one bundle, emitting its items (whatever its clock).
pub(super) fn walk<'a>(
    bundle: &'a [u8],
    emit: &mut dyn FnMut(FtraceItem<'a>),
) -> Result<Walked, WireError> {
    let (mut clock, mut cpu) = (FTRACE_CLOCK_UNSPECIFIED, 0);
    let mut wire = Bytes::new(bundle);
    while !wire.at_eof() {
        prefetch(bundle, wire.pos);
        // Most events are skipped whole without decoding a varint, and `print` events read in one pass.
        match fast_event(bundle, wire.pos) {
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
            (BUNDLE_EVENT, LEN) => event(wire.bytes()?, emit)?,
            (BUNDLE_CPU, VARINT) => cpu = wire.varint()? as u32,
            (BUNDLE_FTRACE_CLOCK, VARINT) => clock = wire.varint()?,
            (BUNDLE_COMPACT_SCHED, LEN) => {
                emit(FtraceItem::Compact(sched::compact(wire.bytes()?)?))
            }
            _ => wire.skip_value(wire_type)?,
        }
    }
    let clock = match clock {
        FTRACE_CLOCK_UNSPECIFIED => Some(BUILTIN_BOOTTIME),
        FTRACE_CLOCK_MONO_RAW => Some(BUILTIN_MONOTONIC_RAW),
        _ => None,
    };
    Ok(Walked { clock, cpu })
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
fn fast_event(bundle: &[u8], pos: usize) -> Option<Fast<'_>> {
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
        EVENT_TASK_NEWTASK
        | EVENT_TASK_RENAME
        | EVENT_BINDER_TRANSACTION
        | EVENT_BINDER_TRANSACTION_RECEIVED
        | EVENT_SCHED_SWITCH
        | EVENT_SCHED_WAKING
        | EVENT_SCHED_BLOCKED_REASON
        | EVENT_CPU_FREQUENCY => None,
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
fn event<'a>(bytes: &'a [u8], emit: &mut dyn FnMut(FtraceItem<'a>)) -> Result<(), WireError> {
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
                    EVENT_TASK_NEWTASK => {
                        if let Some(new) =
                            thread_name(ts, payload, NEWTASK_PID, NEWTASK_COMM, emit)?
                        {
                            // Perfetto's ParseTaskNewTask: the swapper's children (tid 0) are no threads.
                            if new != 0 {
                                let event = Sched::NewTask {
                                    tid: new,
                                    parent: tid,
                                };
                                let names = [None, None];
                                emit(FtraceItem::Sched { ts, event, names });
                            }
                        }
                    }
                    _ => {
                        thread_name(ts, payload, RENAME_PID, RENAME_NEWCOMM, emit)?;
                    }
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
            (
                EVENT_SCHED_SWITCH
                | EVENT_SCHED_WAKING
                | EVENT_SCHED_BLOCKED_REASON
                | EVENT_CPU_FREQUENCY,
                LEN,
            ) => {
                if let Some((event, names)) = sched::event(field, wire.bytes()?, tid)? {
                    emit(FtraceItem::Sched { ts, event, names });
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

fn thread_name<'a>(
    ts: u64,
    payload: &[u8],
    pid_field: u32,
    name_field: u32,
    emit: &mut dyn FnMut(FtraceItem<'a>),
) -> Result<Option<i32>, WireError> {
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
        emit(FtraceItem::ThreadName { ts, tid, name });
    }
    Ok(tid)
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
    fn walk_general(bundle: &[u8]) -> Result<(Walked, Vec<FtraceItem<'_>>), String> {
        let mut items = Vec::new();
        let (mut clock, mut cpu) = (FTRACE_CLOCK_UNSPECIFIED, 0);
        let mut wire = Bytes::new(bundle);
        let err = |e: WireError| format!("{e:?}");
        while !wire.at_eof() {
            let (field, wire_type) = wire.key().map_err(err)?;
            match (field, wire_type) {
                (BUNDLE_EVENT, LEN) => {
                    event(wire.bytes().map_err(err)?, &mut |i| items.push(i)).map_err(err)?
                }
                (BUNDLE_CPU, VARINT) => cpu = wire.varint().map_err(err)? as u32,
                (BUNDLE_FTRACE_CLOCK, VARINT) => clock = wire.varint().map_err(err)?,
                (BUNDLE_COMPACT_SCHED, LEN) => items.push(FtraceItem::Compact(
                    sched::compact(wire.bytes().map_err(err)?).map_err(err)?,
                )),
                _ => wire.skip_value(wire_type).map_err(err)?,
            }
        }
        let clock = match clock {
            FTRACE_CLOCK_UNSPECIFIED => Some(BUILTIN_BOOTTIME),
            FTRACE_CLOCK_MONO_RAW => Some(BUILTIN_MONOTONIC_RAW),
            _ => None,
        };
        Ok((Walked { clock, cpu }, items))
    }

    fn walk_fast(bundle: &[u8]) -> Result<(Walked, Vec<FtraceItem<'_>>), String> {
        let mut items = Vec::new();
        let walked = walk(bundle, &mut |i| items.push(i)).map_err(|e| format!("{e:?}"))?;
        Ok((walked, items))
    }

    fn key(out: &mut Vec<u8>, field: u32, wire_type: u8) {
        prost::encoding::encode_varint(u64::from(field << 3 | u32::from(wire_type)), out);
    }

    fn varint(out: &mut Vec<u8>, field: u32, v: u64) {
        key(out, field, VARINT);
        prost::encoding::encode_varint(v, out);
    }

    /// The body of a packed repeated varint field.
    pub(in crate::decode) fn packed(values: &[u64]) -> Vec<u8> {
        let mut out = Vec::new();
        values
            .iter()
            .for_each(|&v| prost::encoding::encode_varint(v, &mut out));
        out
    }

    /// A length-delimited field, its length padded to 4 bytes if `padded` (as Perfetto writes nested messages).
    pub(in crate::decode) fn len(out: &mut Vec<u8>, field: u32, bytes: &[u8], padded: bool) {
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

    /// `sched_switch {prev_comm "a", prev_pid 1, prev_state 1, next_comm "RenderThread", next_pid 42}` at 100
    /// by thread 1, then a `compact_sched` switching to 0 then 43 (delta timestamps 200, +5) and waking 42
    /// (at 210, flags 0x10), on CPU 3.
    fn sched_bundle() -> Vec<u8> {
        let mut switch = Vec::new();
        len(&mut switch, 1, b"a", false);
        varint(&mut switch, 2, 1);
        varint(&mut switch, 4, 1);
        len(&mut switch, 5, b"RenderThread", false);
        varint(&mut switch, 6, 42);
        let mut event = Vec::new();
        varint(&mut event, EVENT_TIMESTAMP, 100);
        varint(&mut event, EVENT_PID, 1);
        len(&mut event, EVENT_SCHED_SWITCH, &switch, false);
        let mut compact = Vec::new();
        len(&mut compact, 5, b"swapper", false);
        len(&mut compact, 5, b"RenderThread", false);
        // Timestamps split in two chunks, as a writer may.
        len(&mut compact, 1, &packed(&[200]), false);
        len(&mut compact, 1, &packed(&[5]), false);
        len(&mut compact, 2, &packed(&[0, 1]), false);
        len(&mut compact, 3, &packed(&[0, 43]), false);
        len(&mut compact, 6, &packed(&[0, 1]), false);
        len(&mut compact, 7, &packed(&[210]), false);
        len(&mut compact, 8, &packed(&[42]), false);
        len(&mut compact, 11, &packed(&[1]), false);
        len(&mut compact, 12, &packed(&[0x10]), false);
        let mut bundle = Vec::new();
        len(&mut bundle, BUNDLE_EVENT, &event, true);
        len(&mut bundle, BUNDLE_COMPACT_SCHED, &compact, false);
        // The CPU written last: it still applies to every event of the bundle.
        varint(&mut bundle, BUNDLE_CPU, 3);
        bundle
    }

    #[test]
    fn scheduler_events_and_compact_sched_are_decoded() {
        let bundle = sched_bundle();
        let mut items = Vec::new();
        let walked = walk(&bundle, &mut |i| items.push(i)).unwrap();
        assert_eq!(walked.cpu, 3);
        let switch = |prev_tid, prev_state, next_tid| Sched::Switch {
            prev_tid,
            prev_state,
            next_tid,
        };
        let name = |tid, comm: &'static [u8]| Some((tid, comm));
        assert_eq!(
            items,
            [
                FtraceItem::Sched {
                    ts: 100,
                    event: switch(Some(1), 1, 42),
                    names: [name(1, b"a"), name(42, b"RenderThread")]
                },
                FtraceItem::Compact(CompactSched {
                    events: vec![
                        (200, switch(None, 0, 0)),
                        (205, switch(None, 1, 43)),
                        (
                            210,
                            Sched::Waking {
                                tid: 42,
                                waker: None,
                                irq: Some(true)
                            }
                        ),
                    ],
                    names: vec![(0, 200, b"swapper"), (43, 205, b"RenderThread")],
                }),
            ]
        );
        assert_eq!(walk_fast(&bundle).unwrap(), walk_general(&bundle).unwrap());
    }

    #[test]
    fn compact_sched_of_a_real_trace_is_decoded_whole() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/traces/pixel6a_a13_startup_warm_60hz.perfetto-trace");
        let trace = std::fs::read(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        let (mut switches, mut wakings, mut named) = (0, 0, 0);
        for bundle in bundles(&trace) {
            walk(bundle, &mut |i| {
                if let FtraceItem::Compact(c) = i {
                    for (_, event) in &c.events {
                        match event {
                            Sched::Switch { .. } => switches += 1,
                            Sched::Waking { .. } => wakings += 1,
                            _ => {}
                        }
                    }
                    // Each thread switched to is named once, by its last name in the bundle.
                    let mut tids: Vec<i32> = c.names.iter().map(|n| n.0).collect();
                    tids.sort_unstable();
                    tids.dedup();
                    assert_eq!(tids.len(), c.names.len());
                    assert!(c.names.iter().all(|n| !n.2.is_empty()));
                    named += c.names.len();
                }
            })
            .unwrap();
        }
        assert!(switches > 10_000 && wakings > 5_000, "{switches} {wakings}");
        assert!(named > 100, "{named}");
    }
}
