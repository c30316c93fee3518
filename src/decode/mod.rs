//! Protobuf → [`Event`] stream: streaming, bounded memory, prost types stay inside this module.
//!
//! Reads a `Trace` packet by packet from any `BufRead` (plain or already inflated gzip), keeps only the
//! TracePacket fields ftl needs — `frame_timeline_event` (76), `timestamp` (8), `timestamp_clock_id` (58),
//! `trusted_packet_sequence_id` (10), `process_tree` (2), `clock_snapshot` (6), `system_info` (45), `cpu_info` (67),
//! `trace_packet_defaults` (59), `ftrace_events` (1: only `print`, `task_newtask`, `task_rename`, `sched_switch`
//! and `compact_sched` thread names, `binder_transaction` / `binder_transaction_received`), `track_event` (11) slices and `track_descriptor` (60) — and inflates
//! `compressed_packets` (50) recursively.

pub mod atrace;
mod binder;
mod clock;
pub mod event;
mod frame_timeline;
mod ftrace;
mod packets;
mod plain;
mod sched;
mod staged;
mod tree;
pub mod wire;

/// prost types generated from `proto/` by build.rs (crate-internal: the synth builder writes traces with them,
/// `ftl record` its trace config).
#[allow(missing_docs, clippy::all)]
pub(crate) mod proto {
    include!(concat!(env!("OUT_DIR"), "/perfetto.protos.rs"));
}

pub use binder::BinderEvent;
pub use clock::BOOTTIME;
pub use event::{
    Atrace, CpuInfoCpu, EnumCode, Event, FrameLabels, FrameStart, FrameTimelineEvent, JankValues,
    Sched, SliceKind, SystemInfo, TrackEventPhase,
};

use std::collections::BTreeSet;
use std::io::BufRead;

/// What the decoder saw, beyond the events themselves.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
pub struct DecodeSummary {
    /// TracePackets read, including those inside `compressed_packets`.
    pub packets: u64,
    /// Bytes of the (inflated) top-level stream consumed.
    pub bytes: u64,
    /// `compressed_packets` chunks inflated.
    pub compressed_chunks: u64,
    /// Byte offset of the packet that the stream ended inside (a truncated trace), if any.
    pub truncated_at: Option<u64>,
    /// Packets skipped because their contents were not valid protobuf (framing intact).
    pub malformed_packets: u64,
    /// Clock ids the FrameTimeline packets were recorded on (6 = BOOTTIME, 3 = MONOTONIC).
    pub frame_timeline_clock_ids: BTreeSet<u32>,
    /// The trace clock all timestamps are converted to (6 = BOOTTIME unless the trace says otherwise).
    pub trace_clock: u32,
    /// FrameTimeline events and atrace lines dropped because no ClockSnapshot relates their clock to the trace
    /// clock (or their ftrace clock is one ftl does not convert).
    pub unconvertible_timestamps: u64,
    /// ftrace `print` events read.
    pub atrace_lines: u64,
    /// Scheduler events read (switches, wakings, new tasks, blocked reasons, CPU frequency changes).
    pub sched_events: u64,
    /// ftrace `print` events that are not atrace lines (Perfetto's `systrace_parse_failure`).
    pub atrace_parse_failures: u64,
    /// TrackEvents ftl cannot place: no `track_uuid` (a sequence's default track), or an interned name only.
    pub track_events_skipped: u64,
    /// FrameTimeline and track events dropped because their packet had no timestamp.
    pub missing_timestamps: u64,
}

/// Broken framing: the stream is not a trace, or is corrupt past recovery.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodeError {
    /// Byte offset in the (inflated) stream.
    pub offset: u64,
    /// Index of the packet being read.
    pub packet: u64,
    /// What was wrong.
    pub kind: String,
}

/// Decodes a trace stream, calling `sink` for every event in packet order.
///
/// A stream that ends inside a packet (a truncated file) is not an error: the events read are kept and
/// [`DecodeSummary::truncated_at`] is set. Errors: bytes that are not a `Trace` (first packet), broken framing
/// later on, read errors (including corrupt gzip).
pub fn decode<R: BufRead>(
    reader: R,
    sink: &mut dyn FnMut(Event),
) -> Result<DecodeSummary, DecodeError> {
    decode_keeping(reader, &|_| true, sink)
}

/// [`decode`], giving [`Atrace::Begin`] names only where `keep_name` says so (the others arrive empty): the
/// model keeps a few section names out of the many an atrace-heavy trace holds, and most need no copy.
pub fn decode_keeping<R: BufRead>(
    reader: R,
    keep_name: &dyn Fn(&[u8]) -> bool,
    sink: &mut dyn FnMut(Event),
) -> Result<DecodeSummary, DecodeError> {
    let mut finisher = staged::Finisher::new(keep_name);
    let mut out = |batch: &mut staged::Batch| finisher.finish(batch, sink);
    let mut summary = packets::PacketDecoder::new(&mut out, keep_name).run(reader)?;
    finisher.count_into(&mut summary);
    Ok(summary)
}

/// Batches [`decode_beside`]'s decoding thread may have ready beyond the one being taken.
const READY_BATCHES: usize = 4;

/// Batches waiting for the caller's thread from which on the decoding thread parses the next batch itself: with
/// two waiting the caller's thread is the slower one. (Parsing only once all [`READY_BATCHES`] waited left the
/// decoding thread blocked a quarter of the time on the FrameTimeline-dense replica while the caller's was busy.)
const BEHIND_BATCHES: usize = 2;

/// [`decode_keeping`] on a thread of its own, `sink` called on the caller's thread with the same events in the
/// same order. Decoding (framing, ftrace walks, atrace line triage) and what the caller builds from the events
/// run on two cores; the FrameTimeline events whose time is known, the few atrace lines triage does not settle and
/// the process trees are read on the caller's thread, or on the decoding thread when the caller's falls behind
/// (two batches waiting), so that either load is shared. Memory: at most 6 batches in flight, each of at
/// most 2,048 events, lines and messages and about 128 KiB of their bytes. Errors: those of [`decode_keeping`]; a
/// panic on the decoding thread is resumed on the caller's.
pub fn decode_beside<R: BufRead + Send>(
    reader: R,
    keep_name: &(dyn Fn(&[u8]) -> bool + Sync),
    sink: &mut dyn FnMut(Event),
) -> Result<DecodeSummary, DecodeError> {
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
    use std::sync::mpsc;
    // Batches handed on and not taken yet.
    let waiting = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let (ready, taken) = mpsc::sync_channel::<staged::Batch>(READY_BATCHES);
        let (spent, recycled) = mpsc::channel::<staged::Batch>();
        let waiting = &waiting;
        let decoder = scope.spawn(move || {
            let mut finisher = staged::Finisher::new(keep_name);
            let mut out = |batch: &mut staged::Batch| {
                let next = recycled.try_recv().unwrap_or_default();
                let mut batch = std::mem::replace(batch, next);
                if waiting.load(Relaxed) >= BEHIND_BATCHES {
                    finisher.parse_in_place(&mut batch);
                }
                waiting.fetch_add(1, Relaxed);
                // A closed channel means the caller's side has gone (it only stops on a panic).
                let _ = ready.send(batch);
            };
            let mut summary = packets::PacketDecoder::new(&mut out, keep_name).run(reader)?;
            finisher.count_into(&mut summary);
            Ok(summary)
        });
        let mut finisher = staged::Finisher::new(keep_name);
        for mut batch in taken {
            waiting.fetch_sub(1, Relaxed);
            finisher.finish(&mut batch, sink);
            let _ = spent.send(batch);
        }
        let mut summary = crate::joined(decoder)?;
        finisher.count_into(&mut summary);
        Ok(summary)
    })
}
