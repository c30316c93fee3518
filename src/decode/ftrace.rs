//! `FtraceEventBundle` (TracePacket field 1) → the few ftrace events ftl uses: `print` (atrace lines) and the
//! thread names of `task_newtask` / `task_rename`. Every other event is skipped after its two header fields, so
//! the scheduler events that make up most of a trace cost a few varint reads each.
//! Field numbers: `ftrace_event_bundle.proto`, `ftrace_event.proto`, `ftrace.proto`, `task.proto` (google/perfetto
//! @ ec5d16b1).

use super::wire::{WireError, WireReader, LEN, VARINT};

const BUNDLE_EVENT: u32 = 2;
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
pub(super) fn walk<'a>(
    bundle: &'a [u8],
    emit: &mut dyn FnMut(FtraceItem<'a>),
) -> Result<Option<u32>, WireError> {
    let mut clock = FTRACE_CLOCK_UNSPECIFIED;
    let mut wire = WireReader::new(bundle);
    while !wire.at_eof()? {
        let (field, wire_type) = wire.key()?;
        match (field, wire_type) {
            (BUNDLE_EVENT, LEN) => {
                let n = len(&mut wire, bundle)?;
                let start = wire.offset() as usize;
                event(&bundle[start..start + n], emit)?;
                wire.skip(n as u64)?;
            }
            (BUNDLE_FTRACE_CLOCK, VARINT) => clock = wire.varint()?,
            _ => wire.skip_value(wire_type)?,
        }
    }
    Ok(match clock {
        FTRACE_CLOCK_UNSPECIFIED => Some(BUILTIN_BOOTTIME),
        FTRACE_CLOCK_MONO_RAW => Some(BUILTIN_MONOTONIC_RAW),
        _ => None,
    })
}

/// Reads a length and checks it fits in `within`.
fn len(wire: &mut WireReader<&[u8]>, within: &[u8]) -> Result<usize, WireError> {
    let n = wire.varint()?;
    let end = wire.offset().saturating_add(n);
    if end > within.len() as u64 {
        return Err(WireError::Malformed(
            "ftrace field overruns its bundle".into(),
        ));
    }
    Ok(n as usize)
}

/// One `FtraceEvent`: header fields, then the payload if it is one ftl keeps.
fn event<'a>(bytes: &'a [u8], emit: &mut dyn FnMut(FtraceItem<'a>)) -> Result<(), WireError> {
    let mut wire = WireReader::new(bytes);
    let (mut ts, mut tid) = (0u64, 0i32);
    while !wire.at_eof()? {
        let (field, wire_type) = wire.key()?;
        match (field, wire_type) {
            (EVENT_TIMESTAMP, VARINT) => ts = wire.varint()?,
            (EVENT_PID, VARINT) => tid = wire.varint()? as i32,
            (EVENT_PRINT | EVENT_TASK_NEWTASK | EVENT_TASK_RENAME, LEN) => {
                let n = len(&mut wire, bytes)?;
                let start = wire.offset() as usize;
                let payload = &bytes[start..start + n];
                wire.skip(n as u64)?;
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
            // The payload of any other event: nothing after it matters.
            (_, LEN) if field > EVENT_PID => return Ok(()),
            _ => wire.skip_value(wire_type)?,
        }
    }
    Ok(())
}

fn thread_name<'a>(
    payload: &[u8],
    pid_field: u32,
    name_field: u32,
    emit: &mut dyn FnMut(FtraceItem<'a>),
) -> Result<(), WireError> {
    let mut wire = WireReader::new(payload);
    let (mut tid, mut name) = (None, None);
    while !wire.at_eof()? {
        let (field, wire_type) = wire.key()?;
        if field == pid_field && wire_type == VARINT {
            tid = Some(wire.varint()? as i32);
        } else if field == name_field && wire_type == LEN {
            let n = len(&mut wire, payload)?;
            let start = wire.offset() as usize;
            name = Some(String::from_utf8_lossy(&payload[start..start + n]).into_owned());
            wire.skip(n as u64)?;
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
    let mut wire = WireReader::new(msg);
    let mut found = None;
    while !wire.at_eof()? {
        let (f, wire_type) = wire.key()?;
        if f == field && wire_type == LEN {
            let n = len(&mut wire, msg)?;
            let start = wire.offset() as usize;
            found = Some(&msg[start..start + n]);
            wire.skip(n as u64)?;
        } else {
            wire.skip_value(wire_type)?;
        }
    }
    Ok(found)
}
