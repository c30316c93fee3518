//! `Trace.packet` framing: walks the packet stream, keeps only the TracePacket fields ftl needs (skipping every
//! other field without copying it), inflates `compressed_packets` (field 50, zlib) recursively, and turns the
//! kept fields into [`Event`]s (ftrace bundles and FrameTimeline events read in place, other small messages via
//! prost), leaving the atrace lines triage does not settle and the process trees to the batch's taker.

use super::atrace::{self, Atrace, Triage};
use super::clock::ClockConverter;
use super::event::{
    BinderEvent, CpuInfoCpu, Event, FrameTimelineEvent, Sched, SystemInfo, TrackEventPhase,
};
use super::frame_timeline;
use super::ftrace::{self, FtraceItem};
use super::proto;
use super::staged::Batch;
use super::wire::{key_of, split_key, Bytes, Framing, WireError, WireReader, LEN, VARINT};
use super::{DecodeError, DecodeSummary};
use flate2::bufread::ZlibDecoder;
use prost::Message;
use std::collections::HashMap;
use std::io::{BufRead, BufReader};

/// Largest packet ftl accepts; Perfetto's own writer caps chunks far below this.
const MAX_PACKET_BYTES: u64 = 512 * 1024 * 1024;

// TracePacket field numbers (trace_packet.proto).
const F_FTRACE_EVENTS: u32 = 1;
const F_PROCESS_TREE: u32 = 2;
const F_CLOCK_SNAPSHOT: u32 = 6;
const F_TIMESTAMP: u32 = 8;
const F_SEQUENCE_ID: u32 = 10;
const F_SYSTEM_INFO: u32 = 45;
const F_CPU_INFO: u32 = 67;
const F_COMPRESSED_PACKETS: u32 = 50;
const F_TIMESTAMP_CLOCK_ID: u32 = 58;
const F_PACKET_DEFAULTS: u32 = 59;
const F_FRAME_TIMELINE_EVENT: u32 = 76;
const F_TRACK_EVENT: u32 = 11;
const F_TRACK_DESCRIPTOR: u32 = 60;
/// The length-delimited fields ftl reads: any other wire type on them makes the packet malformed.
const LEN_FIELDS: [u32; 10] = [
    F_FTRACE_EVENTS,
    F_PROCESS_TREE,
    F_CLOCK_SNAPSHOT,
    F_SYSTEM_INFO,
    F_CPU_INFO,
    F_COMPRESSED_PACKETS,
    F_PACKET_DEFAULTS,
    F_FRAME_TIMELINE_EVENT,
    F_TRACK_EVENT,
    F_TRACK_DESCRIPTOR,
];

/// The fields of one TracePacket that ftl keeps (`None` = absent), borrowed from the packet's bytes. Unneeded
/// fields are skipped, and `ftrace_events` (most of a trace's bytes) is walked as it is read ([`read_fields`]).
#[derive(Default)]
struct PacketFields<'a> {
    timestamp: Option<u64>,
    clock_id: Option<u32>,
    sequence_id: Option<u32>,
    frame_timeline: Option<&'a [u8]>,
    process_tree: Option<&'a [u8]>,
    clock_snapshot: Option<&'a [u8]>,
    system_info: Option<&'a [u8]>,
    cpu_info: Option<&'a [u8]>,
    compressed: Option<&'a [u8]>,
    defaults: Option<&'a [u8]>,
    track_event: Option<&'a [u8]>,
    track_descriptor: Option<&'a [u8]>,
}

/// An event waiting for a ClockSnapshot that relates its clock to the trace clock.
enum Timed {
    FrameTimeline(FrameTimelineEvent),
    Atrace {
        tid: i32,
        event: Atrace,
    },
    TrackEvent {
        track_uuid: u64,
        phase: TrackEventPhase,
        name: Option<String>,
    },
    Binder {
        tid: i32,
        event: BinderEvent,
    },
    Sched {
        cpu: u32,
        event: Sched,
    },
}

impl Timed {
    fn at(self, ts_ns: i64) -> Event {
        match self {
            Timed::FrameTimeline(event) => Event::FrameTimeline { ts_ns, event },
            Timed::Atrace { tid, event } => Event::Atrace { ts_ns, tid, event },
            Timed::TrackEvent {
                track_uuid,
                phase,
                name,
            } => Event::TrackEvent {
                ts_ns,
                track_uuid,
                phase,
                name,
            },
            Timed::Binder { tid, event } => Event::Binder { ts_ns, tid, event },
            Timed::Sched { cpu, event } => Event::Sched {
                cpu,
                events: vec![(ts_ns, event)],
            },
        }
    }
}

/// Walks packets and hands on what they hold in [`Batch`]es; one per trace.
pub(super) struct PacketDecoder<'s> {
    /// Takes each full batch (and the last), leaving it empty.
    out: &'s mut dyn FnMut(&mut Batch),
    batch: Batch,
    /// Which atrace `B` names to copy (see [`super::decode_keeping`]).
    keep_name: &'s dyn Fn(&[u8]) -> bool,
    clock: ClockConverter,
    /// Per-sequence default clock from `trace_packet_defaults`.
    default_clock: HashMap<u32, u32>,
    /// Events waiting for a clock snapshot: (clock, raw ts, event).
    pending: Vec<(u32, u64, Timed)>,
    /// The latest ftrace name per thread and its raw time: names are handed on in time order per thread
    /// (Perfetto parses them sorted), and only when they change.
    comms: rustc_hash::FxHashMap<i32, (Box<[u8]>, u64)>,
    /// The items of the last ftrace bundle, emptied: its memory serves the next bundle.
    items: Vec<FtraceItem<'static>>,
    /// The layer names of the FrameTimeline events read here (those waiting for a clock snapshot).
    layer_names: frame_timeline::LayerNames,
    summary: DecodeSummary,
}

impl<'s> PacketDecoder<'s> {
    pub(super) fn new(
        out: &'s mut dyn FnMut(&mut Batch),
        keep_name: &'s dyn Fn(&[u8]) -> bool,
    ) -> Self {
        PacketDecoder {
            out,
            batch: Batch::default(),
            keep_name,
            clock: ClockConverter::default(),
            default_clock: HashMap::new(),
            pending: Vec::new(),
            comms: Default::default(),
            items: Vec::new(),
            layer_names: Default::default(),
            summary: DecodeSummary::default(),
        }
    }

    /// Decodes a whole `Trace` stream and returns its summary. A stream that ends inside a packet is not an
    /// error: what was read is kept and `truncated_at` says where it ended.
    pub(super) fn run<R: BufRead>(mut self, reader: R) -> Result<DecodeSummary, DecodeError> {
        let mut wire = WireReader::new(reader);
        let outcome = self.packets(&mut wire, 0);
        self.summary.bytes = wire.offset();
        self.summary.trace_clock = self.clock.trace_clock();
        self.summary.unconvertible_timestamps += self.pending.len() as u64;
        if !self.batch.is_empty() {
            (self.out)(&mut self.batch);
        }
        outcome.map(|()| self.summary)
    }

    /// Reads packets until the end of `wire`; `depth` > 0 inside `compressed_packets`. The packets lying whole
    /// in the reader's buffer are read there, one call into the reader for all of them
    /// ([`PacketDecoder::packets_in_buffer`]); a packet that straddles two buffers is copied first, and bad
    /// framing is reported, one packet at a time.
    fn packets<R: BufRead>(
        &mut self,
        wire: &mut WireReader<R>,
        depth: u32,
    ) -> Result<(), DecodeError> {
        let mut scratch = Vec::new();
        loop {
            if self.packets_in_buffer(wire, depth)? {
                continue;
            }
            let packet = self.summary.packets;
            let start = wire.offset();
            let fail = |offset: u64, kind: String| DecodeError {
                offset,
                packet,
                kind,
            };
            match wire.at_eof() {
                Ok(true) => return Ok(()),
                Ok(false) => {}
                Err(e) => return Err(fail(start, describe(e))),
            }
            let len = match read_packet_header(wire) {
                Ok(len) => len,
                Err(WireError::Truncated) => return self.truncated(start, depth),
                Err(e) => {
                    let what = if packet == 0 {
                        "not a Perfetto trace: "
                    } else {
                        "broken packet framing: "
                    };
                    return Err(fail(start, format!("{what}{}", describe(e))));
                }
            };
            self.summary.packets += 1;
            match wire.with_bytes(len, &mut scratch, |bytes| self.packet(bytes, depth)) {
                Ok(handled) => handled?,
                Err(WireError::Truncated) => return self.truncated(start, depth),
                Err(e) => return Err(fail(wire.offset(), describe(e))),
            }
        }
    }

    /// Reads the packets that lie whole at the start of the reader's buffer and consumes them; false when there
    /// is none (the next packet straddles the buffer's end, its framing is bad, or the stream ends or fails: the
    /// caller reads or reports it).
    fn packets_in_buffer<R: BufRead>(
        &mut self,
        wire: &mut WireReader<R>,
        depth: u32,
    ) -> Result<bool, DecodeError> {
        let Ok(buf) = wire.buffer() else {
            return Ok(false);
        };
        let mut at = 0;
        while let Some((from, to)) = whole_packet(&buf[at..]) {
            self.summary.packets += 1;
            self.packet(&buf[at + from..at + to], depth)?;
            at += to;
        }
        wire.consume(at);
        Ok(at > 0)
    }

    /// One packet's bytes: its fields read (a malformed packet is counted and skipped), then handled.
    fn packet(&mut self, bytes: &[u8], depth: u32) -> Result<(), DecodeError> {
        let mut ftrace = |bundle: &[u8]| self.ftrace(bundle);
        match read_fields(bytes, &mut ftrace) {
            Ok(fields) => self.handle(&fields, depth),
            Err(_) => {
                self.summary.malformed_packets += 1;
                Ok(())
            }
        }
    }

    fn truncated(&mut self, offset: u64, depth: u32) -> Result<(), DecodeError> {
        if depth == 0 {
            self.summary.truncated_at = Some(offset);
        } else {
            self.summary.malformed_packets += 1;
        }
        Ok(())
    }

    /// Turns the kept fields of one packet into events.
    fn handle(&mut self, fields: &PacketFields<'_>, depth: u32) -> Result<(), DecodeError> {
        if let (Some(bytes), Some(seq)) = (&fields.defaults, fields.sequence_id) {
            if let Ok(d) = proto::TracePacketDefaults::decode(*bytes) {
                if let Some(clock) = d.timestamp_clock_id {
                    self.default_clock.insert(seq, clock);
                }
            }
        }
        if let Some(bytes) = &fields.clock_snapshot {
            match proto::ClockSnapshot::decode(*bytes) {
                Ok(s) => {
                    let clocks = s
                        .clocks
                        .iter()
                        .filter_map(|c| Some((c.clock_id?, c.timestamp?)))
                        .collect();
                    self.clock.add_snapshot(clocks, s.primary_trace_clock);
                    self.flush_pending();
                }
                Err(_) => self.summary.malformed_packets += 1,
            }
        }
        if let Some(bytes) = &fields.process_tree {
            // Decoded where the batch is finished.
            let full = self.batch.process_tree(bytes);
            self.hand_on_if(full);
        }
        if let Some(bytes) = &fields.system_info {
            match proto::SystemInfo::decode(*bytes) {
                Ok(info) => self.emit(Event::SystemInfo(system_info(info))),
                Err(_) => self.summary.malformed_packets += 1,
            }
        }
        if let Some(bytes) = &fields.cpu_info {
            match proto::CpuInfo::decode(*bytes) {
                Ok(info) => self.emit(Event::CpuInfo(cpu_info(info))),
                Err(_) => self.summary.malformed_packets += 1,
            }
        }
        if let Some(bytes) = fields.frame_timeline {
            // Read where the batch is finished when its time converts now; read here otherwise (to wait for a
            // clock snapshot, or be counted).
            let converted = fields
                .timestamp
                .and_then(|_| self.packet_time(fields))
                .and_then(|(clock, raw)| Some((clock, self.clock.to_trace(clock, raw)?)));
            match converted {
                Some((clock, ts_ns)) => {
                    let full = self.batch.frame_timeline(ts_ns, clock, bytes);
                    self.hand_on_if(full);
                }
                None => match frame_timeline::decode(bytes, &mut self.layer_names) {
                    Some(event) => self.frame_timeline(fields, event),
                    None => self.summary.malformed_packets += 1,
                },
            }
        }
        if let Some(bytes) = &fields.track_descriptor {
            match proto::TrackDescriptor::decode(*bytes) {
                Ok(d) => {
                    if let Some(uuid) = d.uuid {
                        let thread = d.thread.as_ref();
                        self.emit(Event::TrackDescriptor {
                            uuid,
                            parent_uuid: d.parent_uuid,
                            name: d.name.or(d.static_name),
                            pid: thread
                                .and_then(|t| t.pid)
                                .or(d.process.as_ref().and_then(|p| p.pid)),
                            tid: thread
                                .and_then(|t| t.tid)
                                .and_then(|t| i32::try_from(t).ok()),
                        });
                    }
                }
                Err(_) => self.summary.malformed_packets += 1,
            }
        }
        if let Some(bytes) = &fields.track_event {
            match proto::TrackEvent::decode(*bytes) {
                Ok(e) => self.track_event(fields, e),
                Err(_) => self.summary.malformed_packets += 1,
            }
        }
        if let Some(bytes) = &fields.compressed {
            self.summary.compressed_chunks += 1;
            let inflated = BufReader::new(ZlibDecoder::new(*bytes));
            let mut inner = WireReader::new(inflated);
            let outer_packet = self.summary.packets.saturating_sub(1);
            self.packets(&mut inner, depth + 1)
                .map_err(|e| DecodeError {
                    kind: format!(
                        "in compressed_packets of packet #{outer_packet}: {}",
                        e.kind
                    ),
                    ..e
                })?;
        }
        Ok(())
    }

    /// The atrace lines and thread names of one ftrace bundle.
    fn ftrace(&mut self, bundle: &[u8]) {
        let mut items = recycled(std::mem::take(&mut self.items));
        let (clock, cpu) = match ftrace::walk(bundle, &mut |item| items.push(item)) {
            Ok(walked) => (walked.clock, walked.cpu),
            Err(_) => {
                self.summary.malformed_packets += 1;
                self.items = recycled(items);
                return;
            }
        };
        // The bundle's scheduler events whose time converts go on together (those waiting for a clock
        // snapshot, one by one).
        let mut sched = Vec::new();
        for item in items.drain(..) {
            match item {
                FtraceItem::ThreadName { ts, tid, name } => self.comm(ts, tid, name.as_bytes()),
                FtraceItem::Sched { ts, event, names } => {
                    for (tid, comm) in names.into_iter().flatten() {
                        self.comm(ts, tid, comm);
                    }
                    self.sched_event(clock, cpu, ts, event, &mut sched);
                }
                FtraceItem::Compact(compact) => {
                    for (tid, ts, comm) in compact.names {
                        self.comm(ts, tid, comm);
                    }
                    sched.reserve(compact.events.len());
                    for (ts, event) in compact.events {
                        self.sched_event(clock, cpu, ts, event, &mut sched);
                    }
                }
                FtraceItem::Binder { ts, tid, event } => match clock {
                    Some(clock) => self.timed(clock, ts, Timed::Binder { tid, event }),
                    None => self.summary.unconvertible_timestamps += 1,
                },
                FtraceItem::Print { ts, tid, buf } => {
                    self.summary.atrace_lines += 1;
                    let triage = atrace::triage(buf, self.keep_name);
                    if triage == Triage::Unused {
                        // Nothing to hand on, whatever its time.
                        continue;
                    }
                    match clock.and_then(|clock| self.clock.to_trace(clock, ts)) {
                        // Parsed where the batch is finished, if triage did not settle it.
                        Some(ts_ns) => {
                            let full = self.batch.line(ts_ns, tid, buf, triage);
                            self.hand_on_if(full);
                        }
                        None => self.print_without_time(clock, ts, tid, buf),
                    }
                }
            }
        }
        self.items = recycled(items);
        if !sched.is_empty() {
            self.emit(Event::Sched { cpu, events: sched });
        }
    }

    /// A scheduler event of `cpu` at raw time `ts` on `clock`: into `sched` (the bundle's events) with its time
    /// converted, or kept until a clock snapshot allows, or counted if its clock never converts.
    fn sched_event(
        &mut self,
        clock: Option<u32>,
        cpu: u32,
        ts: u64,
        event: Sched,
        sched: &mut Vec<(i64, Sched)>,
    ) {
        self.summary.sched_events += 1;
        match clock {
            Some(clock) => match self.clock.to_trace(clock, ts) {
                Some(ts_ns) => sched.push((ts_ns, event)),
                None => self.pending.push((clock, ts, Timed::Sched { cpu, event })),
            },
            None => self.summary.unconvertible_timestamps += 1,
        }
    }

    /// An ftrace name `comm` of `tid` at raw time `ts` (`task_newtask`, `task_rename`, a scheduler event): a
    /// [`Event::ThreadName`] when it is later than the thread's latest ftrace name and differs from it
    /// (Perfetto's `UpdateThreadName` at ftrace priority, in time order: bundles of several CPUs interleave);
    /// empty comms are not recorded.
    fn comm(&mut self, ts: u64, tid: i32, comm: &[u8]) {
        if comm.is_empty() {
            return;
        }
        match self.comms.get_mut(&tid) {
            Some((_, latest)) if *latest > ts => return,
            Some((name, latest)) if **name == *comm => {
                *latest = ts;
                return;
            }
            _ => {}
        }
        self.comms.insert(tid, (comm.into(), ts));
        self.emit(Event::ThreadName {
            tid,
            name: String::from_utf8_lossy(comm).into_owned(),
        });
    }

    /// An atrace line whose time cannot be converted yet (no clock snapshot so far: it waits for one) or at all
    /// (counted): parsed here, as only kept lines wait or count.
    fn print_without_time(&mut self, clock: Option<u32>, ts: u64, tid: i32, buf: &[u8]) {
        let parsed = atrace::parse(buf, self.keep_name);
        let Some(event) = parsed.kept(&mut self.summary.atrace_parse_failures) else {
            return;
        };
        match clock {
            Some(clock) => self.timed(clock, ts, Timed::Atrace { tid, event }),
            None => self.summary.unconvertible_timestamps += 1,
        }
    }

    /// Hands on a finished event.
    fn emit(&mut self, event: Event) {
        let full = self.batch.event(event);
        self.hand_on_if(full);
    }

    /// Hands the batch on when it is full.
    fn hand_on_if(&mut self, full: bool) {
        if full {
            (self.out)(&mut self.batch);
        }
    }

    /// Emits `event` at `raw` on `clock` converted to the trace clock, or keeps it until a snapshot allows.
    fn timed(&mut self, clock: u32, raw: u64, event: Timed) {
        match self.clock.to_trace(clock, raw) {
            Some(ts_ns) => self.emit(event.at(ts_ns)),
            None => self.pending.push((clock, raw, event)),
        }
    }

    /// A TrackEvent slice begin / end / instant on a described track (counters and default tracks are skipped).
    fn track_event(&mut self, fields: &PacketFields<'_>, e: proto::TrackEvent) {
        let phase = match e.r#type {
            Some(1) => TrackEventPhase::Begin,
            Some(2) => TrackEventPhase::End,
            Some(3) => TrackEventPhase::Instant,
            _ => return,
        };
        let unnamed = phase != TrackEventPhase::End && e.name.is_none();
        let (Some(track_uuid), false) = (e.track_uuid, unnamed) else {
            self.summary.track_events_skipped += 1;
            return;
        };
        let Some((clock, raw)) = self.packet_time(fields) else {
            return;
        };
        self.timed(
            clock,
            raw,
            Timed::TrackEvent {
                track_uuid,
                phase,
                name: e.name,
            },
        );
    }

    /// The packet's timestamp and its clock (packet, sequence default, else the trace clock); `None` (counted)
    /// for a packet without timestamp.
    fn packet_time(&mut self, fields: &PacketFields<'_>) -> Option<(u32, u64)> {
        let Some(raw) = fields.timestamp else {
            self.summary.missing_timestamps += 1;
            return None;
        };
        let clock = fields
            .clock_id
            .or_else(|| {
                let seq = fields.sequence_id?;
                self.default_clock.get(&seq).copied()
            })
            .unwrap_or(self.clock.trace_clock());
        Some((clock, raw))
    }

    fn frame_timeline(&mut self, fields: &PacketFields<'_>, event: FrameTimelineEvent) {
        let Some((clock, raw)) = self.packet_time(fields) else {
            return;
        };
        self.summary.frame_timeline_clock_ids.insert(clock);
        self.timed(clock, raw, Timed::FrameTimeline(event));
    }

    fn flush_pending(&mut self) {
        for (clock, raw, event) in std::mem::take(&mut self.pending) {
            self.timed(clock, raw, event);
        }
    }
}

/// `items` emptied, its allocation kept for items borrowed from another bundle (an in-place collect of an empty
/// vector of a same-sized type reuses the allocation; std does not promise it, a test checks it).
fn recycled<'b>(mut items: Vec<FtraceItem<'_>>) -> Vec<FtraceItem<'b>> {
    items.clear();
    items.into_iter().map(|_| unreachable!("emptied")).collect()
}

/// Where the body of the `Trace.packet` at the start of `buf` lies in it, `from..to`; `None` when the packet is
/// not whole in `buf` or its framing is bad.
#[inline(always)]
fn whole_packet(buf: &[u8]) -> Option<(usize, usize)> {
    // Most packets are shorter than 16 KiB: their key (field 1, length-delimited) and length take 2 or 3 bytes.
    if let Some(&[0x0a, low, high]) = buf.first_chunk::<3>() {
        let (from, len) = if low < 0x80 {
            (2, usize::from(low))
        } else if high < 0x80 {
            (3, usize::from(low & 0x7f) | usize::from(high) << 7)
        } else {
            return whole_packet_framed(buf);
        };
        return (from + len <= buf.len()).then_some((from, from + len));
    }
    whole_packet_framed(buf)
}

/// [`whole_packet`] for any framing: a longer length, a bad key, or fewer than 3 bytes.
fn whole_packet_framed(buf: &[u8]) -> Option<(usize, usize)> {
    let mut head = Bytes::new(buf);
    let len = usize::try_from(read_packet_header(&mut head).ok()?).ok()?;
    let to = head.pos.checked_add(len)?;
    (to <= buf.len()).then_some((head.pos, to))
}

/// Reads the key and length of the next `Trace.packet`.
#[inline]
fn read_packet_header(wire: &mut impl Framing) -> Result<u64, WireError> {
    let (field, wire_type) = wire.key()?;
    if (field, wire_type) != (1, LEN) {
        return Err(WireError::Malformed(format!(
            "expected a TracePacket (field 1, length-delimited), found field {field} wire type {wire_type}"
        )));
    }
    let len = wire.varint()?;
    if len > MAX_PACKET_BYTES {
        return Err(WireError::Malformed(format!(
            "implausible packet length {len}"
        )));
    }
    Ok(len)
}

/// Reads the fields of one packet, keeping only the ones ftl needs; `ftrace` is given each `ftrace_events`
/// bundle as it is read. Each key is matched as read, kept fields with their wire type in one comparison; other
/// keys are checked and their values skipped. Errors: a field that overruns the packet, a bad field number, or a
/// kept length-delimited field with another wire type (malformed).
fn read_fields<'a>(
    packet: &'a [u8],
    ftrace: &mut dyn FnMut(&[u8]),
) -> Result<PacketFields<'a>, WireError> {
    const fn len(field: u32) -> u64 {
        key_of(field, LEN)
    }
    const fn varint(field: u32) -> u64 {
        key_of(field, VARINT)
    }
    let mut f = PacketFields::default();
    let mut wire = Bytes::new(packet);
    while !wire.at_eof() {
        let key = wire.varint()?;
        let slot = match key {
            k if k == varint(F_TIMESTAMP) => {
                f.timestamp = Some(wire.varint()?);
                continue;
            }
            k if k == varint(F_TIMESTAMP_CLOCK_ID) => {
                f.clock_id = u32::try_from(wire.varint()?).ok();
                continue;
            }
            k if k == varint(F_SEQUENCE_ID) => {
                f.sequence_id = u32::try_from(wire.varint()?).ok();
                continue;
            }
            k if k == len(F_FTRACE_EVENTS) => {
                ftrace(wire.bytes()?);
                continue;
            }
            k if k == len(F_FRAME_TIMELINE_EVENT) => &mut f.frame_timeline,
            k if k == len(F_TRACK_EVENT) => &mut f.track_event,
            k if k == len(F_TRACK_DESCRIPTOR) => &mut f.track_descriptor,
            k if k == len(F_PROCESS_TREE) => &mut f.process_tree,
            k if k == len(F_CLOCK_SNAPSHOT) => &mut f.clock_snapshot,
            k if k == len(F_SYSTEM_INFO) => &mut f.system_info,
            k if k == len(F_CPU_INFO) => &mut f.cpu_info,
            k if k == len(F_COMPRESSED_PACKETS) => &mut f.compressed,
            k if k == len(F_PACKET_DEFAULTS) => &mut f.defaults,
            _ => {
                let (field, wire_type) = split_key(key)?;
                if LEN_FIELDS.contains(&field) {
                    return Err(WireError::Malformed(format!(
                        "field {field} has wire type {wire_type}"
                    )));
                }
                wire.skip_value(wire_type)?;
                continue;
            }
        };
        *slot = Some(wire.bytes()?);
    }
    Ok(f)
}

fn describe(e: WireError) -> String {
    match e {
        WireError::Truncated => "unexpected end of data".into(),
        WireError::Malformed(m) => m,
        WireError::Io(e) => format!("read error: {e}"),
    }
}

fn system_info(info: proto::SystemInfo) -> SystemInfo {
    let uts = info.utsname.unwrap_or_default();
    SystemInfo {
        // Android 12 builds whose fingerprint exceeds 91 characters record bionic's error text instead of it.
        android_build_fingerprint: info
            .android_build_fingerprint
            .filter(|f| !f.starts_with("Must use __system_property_read_callback")),
        android_sdk_version: info.android_sdk_version,
        android_soc_model: info.android_soc_model,
        kernel_release: uts.release,
        machine: uts.machine,
    }
}

fn cpu_info(info: proto::CpuInfo) -> Vec<CpuInfoCpu> {
    info.cpus
        .into_iter()
        .map(|c| CpuInfoCpu {
            capacity: c.capacity,
            max_frequency_khz: c.frequencies.into_iter().max(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_packets_are_found_at_every_length_form() {
        for len in [0usize, 1, 127, 128, 300, 16_383, 16_384, 70_000] {
            let mut buf = vec![0x0a];
            prost::encoding::encode_varint(len as u64, &mut buf);
            let from = buf.len();
            buf.resize(from + len, 7);
            assert_eq!(whole_packet(&buf), Some((from, from + len)), "{len}");
            buf.pop();
            assert_eq!(whole_packet(&buf), None, "{len} cut");
        }
        // A two-byte length that is not minimal reads as protobuf reads it.
        assert_eq!(whole_packet(&[0x0a, 0x81, 0x00, 9]), Some((3, 4)));
        // Not a packet (field 2), a length cut short.
        assert_eq!(whole_packet(&[0x12, 0x00]), None);
        assert_eq!(whole_packet(&[0x0a, 0x81]), None);
    }

    #[test]
    fn fields_are_kept_skipped_or_refused_by_key() {
        use prost::encoding::{encode_key, encode_varint, WireType};
        let varint = |out: &mut Vec<u8>, field: u32, v: u64| {
            encode_key(field, WireType::Varint, out);
            encode_varint(v, out);
        };
        let bytes = |out: &mut Vec<u8>, field: u32, v: &[u8]| {
            encode_key(field, WireType::LengthDelimited, out);
            encode_varint(v.len() as u64, out);
            out.extend_from_slice(v);
        };
        let mut p = Vec::new();
        varint(&mut p, F_TIMESTAMP_CLOCK_ID, 6);
        varint(&mut p, F_TIMESTAMP, 1 << 40);
        bytes(&mut p, F_FRAME_TIMELINE_EVENT, b"ft");
        varint(&mut p, 3, 1000); // trusted_uid: skipped
        varint(&mut p, F_SEQUENCE_ID, 7);
        bytes(&mut p, 999, b"unknown"); // skipped
        bytes(&mut p, F_TIMESTAMP, b"x"); // a varint field written length-delimited: skipped, value unread
        bytes(&mut p, F_COMPRESSED_PACKETS, b"z");
        let mut bundles = Vec::new();
        bytes(&mut p, F_FTRACE_EVENTS, b"bundle");
        let f = read_fields(&p, &mut |b| bundles.push(b.to_vec())).unwrap();
        assert_eq!(f.timestamp, Some(1 << 40));
        assert_eq!((f.clock_id, f.sequence_id), (Some(6), Some(7)));
        assert_eq!(f.frame_timeline, Some(&b"ft"[..]));
        assert_eq!(f.compressed, Some(&b"z"[..]));
        assert_eq!(bundles, [b"bundle".to_vec()]);
        assert!(f.track_event.is_none() && f.process_tree.is_none());

        // A kept length-delimited field as a varint, field number 0, a value overrunning the packet: malformed.
        for bad in [
            {
                let mut p = Vec::new();
                varint(&mut p, F_FRAME_TIMELINE_EVENT, 1);
                p
            },
            vec![0x00, 0x01],
            vec![0xe2, 0x04, 0x09, 0x01],
        ] {
            let got = read_fields(&bad, &mut |_| {});
            assert!(matches!(got, Err(WireError::Malformed(_))), "{bad:?}");
        }
    }

    #[test]
    fn recycled_items_keep_their_allocation() {
        let line = b"B|1|DrawFrame 7".to_vec();
        let mut items = Vec::with_capacity(100);
        items.push(FtraceItem::Print {
            ts: 1,
            tid: 2,
            buf: &line,
        });
        let (at, capacity) = (items.as_ptr() as usize, items.capacity());
        let reused: Vec<FtraceItem<'static>> = recycled(items);
        assert!(reused.is_empty());
        assert_eq!(
            (reused.as_ptr() as usize, reused.capacity()),
            (at, capacity)
        );
    }
}
