//! `TraceBuilder`: writes Perfetto trace bytes from FrameTimeline events, thread names and atrace lines (ftrace
//! `print` events) for test fixtures and benchmarks, plus the re-encodings tests and benches need: gzip,
//! `compressed_packets` chunks, and replication of a real trace with rewritten cookies, tokens, vsync ids and
//! timestamps (FrameTimeline and ftrace alike).

use crate::decode::proto;
use crate::decode::wire::{Framing, WireReader};
use crate::decode::{EnumCode, FrameLabels, FrameStart, FrameTimelineEvent, JankValues, SliceKind};
use flate2::write::{GzEncoder, ZlibEncoder};
use flate2::Compression;
use prost::Message;
use std::io::Write;

/// Accumulates TracePackets and serialises them as a `Trace`.
#[derive(Debug, Default, Clone)]
pub struct TraceBuilder {
    packets: Vec<proto::TracePacket>,
}

/// Clock id of MONOTONIC (`builtin_clock.proto`).
pub const MONOTONIC: u32 = 3;

impl TraceBuilder {
    /// An empty trace.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a `ClockSnapshot` with `(clock_id, reading_ns)` pairs.
    pub fn clock_snapshot(&mut self, clocks: &[(u32, u64)]) -> &mut Self {
        let clocks = clocks
            .iter()
            .map(|(id, ts)| proto::clock_snapshot::Clock {
                clock_id: Some(*id),
                timestamp: Some(*ts),
            })
            .collect();
        self.push(proto::TracePacket {
            clock_snapshot: Some(proto::ClockSnapshot {
                clocks,
                primary_trace_clock: None,
            }),
            ..Default::default()
        })
    }

    /// Adds a `ProcessTree` packet naming one process.
    pub fn process(&mut self, pid: i32, name: &str, uid: Option<i32>) -> &mut Self {
        let process = proto::process_tree::Process {
            pid: Some(pid),
            ppid: None,
            cmdline: vec![name.into()],
            uid,
        };
        self.push(proto::TracePacket {
            process_tree: Some(proto::ProcessTree {
                threads: Vec::new(),
                processes: vec![process],
            }),
            ..Default::default()
        })
    }

    /// Adds one `ProcessTree` packet naming threads, each `(tid, tgid, name)`: the tid, its process and its
    /// name (`comm`, e.g. `RenderThread`).
    pub fn threads(&mut self, threads: &[(i32, i32, &str)]) -> &mut Self {
        let threads = threads
            .iter()
            .map(|&(tid, tgid, name)| proto::process_tree::Thread {
                tid: Some(tid),
                name: Some(name.into()),
                tgid: Some(tgid),
            })
            .collect();
        self.push(proto::TracePacket {
            process_tree: Some(proto::ProcessTree {
                threads,
                processes: Vec::new(),
            }),
            ..Default::default()
        })
    }

    /// Adds one packet with an `FtraceEventBundle` (cpu 0, ftrace clock unspecified = BOOTTIME) holding one
    /// `print` event: thread `tid` wrote the atrace `line` at `ts_ns` (ns, BOOTTIME, the default trace clock).
    /// The buffer is `line` followed by `\n`, as the kernel records it.
    pub fn atrace(&mut self, ts_ns: u64, tid: i32, line: &str) -> &mut Self {
        self.print_on(None, ts_ns, tid, line)
    }

    /// [`TraceBuilder::atrace`] in a bundle whose ftrace clock is MONO_RAW (`FtraceClock` 4, builtin clock 4), as
    /// ftrace writes with `use_monotonic_raw_clock`: `ts_ns` is on that clock, converted by the trace's
    /// `ClockSnapshot`s.
    pub fn atrace_mono_raw(&mut self, ts_ns: u64, tid: i32, line: &str) -> &mut Self {
        self.print_on(Some(4), ts_ns, tid, line)
    }

    fn print_on(&mut self, clock: Option<i32>, ts_ns: u64, tid: i32, line: &str) -> &mut Self {
        use proto::ftrace_event::Event as E;
        let print = E::Print(proto::PrintFtraceEvent {
            ip: None,
            buf: Some(format!("{line}\n")),
        });
        self.ftrace_event_on(clock, ts_ns, tid, print)
    }

    /// Adds `B|pid|name` written by `tid` at `ts_ns` (ns): a slice begins on that thread.
    pub fn begin(&mut self, ts_ns: u64, tid: i32, pid: i32, name: &str) -> &mut Self {
        self.atrace(ts_ns, tid, &format!("B|{pid}|{name}"))
    }

    /// Adds `E|pid` written by `tid` at `ts_ns` (ns): the thread's innermost open slice ends.
    pub fn end(&mut self, ts_ns: u64, tid: i32, pid: i32) -> &mut Self {
        self.atrace(ts_ns, tid, &format!("E|{pid}"))
    }

    /// Adds `S|pid|name|cookie` written by `tid` at `ts_ns` (ns): an async slice begins on the process's track
    /// `name`.
    pub fn async_begin(
        &mut self,
        ts_ns: u64,
        tid: i32,
        pid: i32,
        name: &str,
        cookie: i64,
    ) -> &mut Self {
        self.atrace(ts_ns, tid, &format!("S|{pid}|{name}|{cookie}"))
    }

    /// Adds `F|pid|name|cookie` written by `tid` at `ts_ns` (ns): the async slice with this track and cookie
    /// ends.
    pub fn async_end(
        &mut self,
        ts_ns: u64,
        tid: i32,
        pid: i32,
        name: &str,
        cookie: i64,
    ) -> &mut Self {
        self.atrace(ts_ns, tid, &format!("F|{pid}|{name}|{cookie}"))
    }

    /// Adds one ftrace `task_rename` event at `ts_ns` (ns, BOOTTIME): thread `tid` (also the writer) is now
    /// named `newcomm`.
    pub fn task_rename(&mut self, ts_ns: u64, tid: i32, newcomm: &str) -> &mut Self {
        use proto::ftrace_event::Event as E;
        self.ftrace_event(
            ts_ns,
            tid,
            E::TaskRename(proto::TaskRenameFtraceEvent {
                pid: Some(tid),
                oldcomm: None,
                newcomm: Some(newcomm.into()),
            }),
        )
    }

    /// Adds an ftrace `binder_transaction` at `ts_ns` (ns, BOOTTIME): thread `tid` sends transaction `debug_id`
    /// (a reply with `reply`, oneway with `oneway`: `flags` = TF_ONE_WAY).
    pub fn binder_transaction(
        &mut self,
        ts_ns: u64,
        tid: i32,
        debug_id: i32,
        reply: bool,
        oneway: bool,
    ) -> &mut Self {
        use proto::ftrace_event::Event as E;
        let event = proto::BinderTransactionFtraceEvent {
            debug_id: Some(debug_id),
            reply: Some(i32::from(reply)),
            flags: Some(u32::from(oneway)),
            ..Default::default()
        };
        self.ftrace_event(ts_ns, tid, E::BinderTransaction(event))
    }

    /// Adds an ftrace `binder_transaction_received` at `ts_ns` (ns, BOOTTIME): thread `tid` received transaction
    /// `debug_id`.
    pub fn binder_received(&mut self, ts_ns: u64, tid: i32, debug_id: i32) -> &mut Self {
        use proto::ftrace_event::Event as E;
        let event = proto::BinderTransactionReceivedFtraceEvent {
            debug_id: Some(debug_id),
        };
        self.ftrace_event(ts_ns, tid, E::BinderTransactionReceived(event))
    }

    /// Adds an ftrace `sched_switch` on `cpu` at `ts_ns`: `prev_tid` leaves in the raw task state `prev_state`
    /// (1 = S, 2 = D, 0 = R, 0x100 = R+ on kernels from 4.14), `next_tid` (named `next_comm`) runs.
    pub fn sched_switch(
        &mut self,
        ts_ns: u64,
        cpu: u32,
        prev_tid: i32,
        prev_state: i64,
        next_tid: i32,
        next_comm: &str,
    ) -> &mut Self {
        use proto::ftrace_event::Event as E;
        let event = proto::SchedSwitchFtraceEvent {
            prev_pid: Some(prev_tid),
            prev_state: Some(prev_state),
            next_pid: Some(next_tid),
            next_comm: Some(next_comm.into()),
            ..Default::default()
        };
        self.ftrace_event_in(cpu, None, ts_ns, prev_tid, E::SchedSwitch(event))
    }

    /// Adds an ftrace `sched_waking` on `cpu` at `ts_ns`: `waker` makes `tid` runnable.
    pub fn sched_waking(&mut self, ts_ns: u64, cpu: u32, waker: i32, tid: i32) -> &mut Self {
        use proto::ftrace_event::Event as E;
        let event = proto::SchedWakingFtraceEvent {
            pid: Some(tid),
            ..Default::default()
        };
        self.ftrace_event_in(cpu, None, ts_ns, waker, E::SchedWaking(event))
    }

    /// Adds an ftrace `sched_blocked_reason` at `ts_ns`: `tid`'s last blocked state waited on IO or not.
    pub fn sched_blocked_reason(&mut self, ts_ns: u64, tid: i32, io_wait: bool) -> &mut Self {
        use proto::ftrace_event::Event as E;
        let event = proto::SchedBlockedReasonFtraceEvent {
            pid: Some(tid),
            io_wait: Some(u32::from(io_wait)),
            ..Default::default()
        };
        self.ftrace_event(ts_ns, tid, E::SchedBlockedReason(event))
    }

    /// Adds an ftrace `cpu_frequency` at `ts_ns`: `cpu` runs at `khz` from then on.
    pub fn cpu_frequency(&mut self, ts_ns: u64, cpu: u32, khz: u32) -> &mut Self {
        use proto::ftrace_event::Event as E;
        let event = proto::CpuFrequencyFtraceEvent {
            state: Some(khz),
            cpu_id: Some(cpu),
        };
        self.ftrace_event_in(cpu, None, ts_ns, 0, E::CpuFrequency(event))
    }

    /// One packet with a one-event bundle on cpu 0.
    fn ftrace_event(
        &mut self,
        ts_ns: u64,
        tid: i32,
        event: proto::ftrace_event::Event,
    ) -> &mut Self {
        self.ftrace_event_in(0, None, ts_ns, tid, event)
    }

    /// One ftrace event in a bundle of its own, on `clock` (`FtraceClock`; `None` = the boot clock).
    fn ftrace_event_on(
        &mut self,
        clock: Option<i32>,
        ts_ns: u64,
        tid: i32,
        event: proto::ftrace_event::Event,
    ) -> &mut Self {
        self.ftrace_event_in(0, clock, ts_ns, tid, event)
    }

    /// One ftrace event in a bundle of its own for `cpu`, on `clock`.
    fn ftrace_event_in(
        &mut self,
        cpu: u32,
        clock: Option<i32>,
        ts_ns: u64,
        tid: i32,
        event: proto::ftrace_event::Event,
    ) -> &mut Self {
        self.push(proto::TracePacket {
            ftrace_events: Some(proto::FtraceEventBundle {
                cpu: Some(cpu),
                event: vec![proto::FtraceEvent {
                    timestamp: Some(ts_ns),
                    pid: Some(tid as u32),
                    event: Some(event),
                }],
                ftrace_clock: clock,
            }),
            ..Default::default()
        })
    }

    /// Adds a `TrackDescriptor` packet: track `uuid` under `parent`, for process `pid` if given, named `name` if
    /// given (an unnamed track takes the name of its first event).
    pub fn track_descriptor(
        &mut self,
        uuid: u64,
        parent: Option<u64>,
        pid: Option<i32>,
        name: Option<&str>,
    ) -> &mut Self {
        self.push(proto::TracePacket {
            track_descriptor: Some(proto::TrackDescriptor {
                uuid: Some(uuid),
                parent_uuid: parent,
                name: name.map(str::to_string),
                process: pid.map(|pid| proto::ProcessDescriptor {
                    pid: Some(pid),
                    process_name: None,
                }),
                ..Default::default()
            }),
            ..Default::default()
        })
    }

    /// Adds a `TrackEvent` packet at `ts_ns` (trace clock) on track `uuid`: `kind` 1 slice begin, 2 slice end,
    /// 3 instant; `name` for begins and instants.
    pub fn track_event(
        &mut self,
        ts_ns: u64,
        uuid: u64,
        kind: i32,
        name: Option<&str>,
    ) -> &mut Self {
        self.push(proto::TracePacket {
            timestamp: Some(ts_ns),
            track_event: Some(proto::TrackEvent {
                r#type: Some(kind),
                track_uuid: Some(uuid),
                name_iid: None,
                name: name.map(str::to_string),
            }),
            ..Default::default()
        })
    }

    /// Adds a `SystemInfo` packet with only the kernel's `uname` release (it decides how `prev_state` decodes).
    pub fn kernel_release(&mut self, release: &str) -> &mut Self {
        self.push(proto::TracePacket {
            system_info: Some(proto::SystemInfo {
                utsname: Some(proto::Utsname {
                    release: Some(release.into()),
                    ..Default::default()
                }),
                ..Default::default()
            }),
            ..Default::default()
        })
    }

    /// Adds a `SystemInfo` packet.
    pub fn system_info(&mut self, fingerprint: &str, sdk: u64) -> &mut Self {
        self.push(proto::TracePacket {
            system_info: Some(proto::SystemInfo {
                android_build_fingerprint: Some(fingerprint.into()),
                android_sdk_version: Some(sdk),
                ..Default::default()
            }),
            ..Default::default()
        })
    }

    /// Adds a `CpuInfo` packet (data source `linux.system_info`): per CPU in CPU order, its `capacity` (if
    /// recorded) and its available frequencies, kHz.
    pub fn cpu_info(&mut self, cpus: &[(Option<u32>, &[u32])]) -> &mut Self {
        let cpus = cpus
            .iter()
            .map(|&(capacity, frequencies)| proto::cpu_info::Cpu {
                processor: Some("AArch64 Processor rev 0 (aarch64)".into()),
                frequencies: frequencies.to_vec(),
                capacity,
            })
            .collect();
        self.push(proto::TracePacket {
            cpu_info: Some(proto::CpuInfo { cpus }),
            ..Default::default()
        })
    }

    /// Adds a FrameTimeline packet at `ts_ns` on `clock_id` (the trace clock if `None`), sequence 1.
    pub fn frame_event(
        &mut self,
        ts_ns: u64,
        clock_id: Option<u32>,
        event: &FrameTimelineEvent,
    ) -> &mut Self {
        self.push(proto::TracePacket {
            timestamp: Some(ts_ns),
            timestamp_clock_id: clock_id,
            trusted_packet_sequence_id: Some(1),
            frame_timeline_event: Some(encode_event(event)),
            ..Default::default()
        })
    }

    /// Adds a start event and its `FrameEnd` (both on the trace clock).
    pub fn slice(&mut self, start: FrameStart, ts_ns: u64, end_ns: u64) -> &mut Self {
        let cookie = start.cookie;
        self.frame_event(ts_ns, None, &FrameTimelineEvent::Start(start));
        self.frame_event(end_ns, None, &FrameTimelineEvent::End { cookie })
    }

    fn push(&mut self, packet: proto::TracePacket) -> &mut Self {
        self.packets.push(packet);
        self
    }

    /// The trace bytes (a `Trace` message).
    pub fn bytes(&self) -> Vec<u8> {
        proto::Trace {
            packet: self.packets.clone(),
        }
        .encode_to_vec()
    }
}

fn encode_event(event: &FrameTimelineEvent) -> proto::FrameTimelineEvent {
    use proto::frame_timeline_event as fte;
    use proto::frame_timeline_event::Event as E;
    let inner = match event {
        FrameTimelineEvent::Empty => None,
        FrameTimelineEvent::End { cookie } => Some(E::FrameEnd(fte::FrameEnd { cookie: *cookie })),
        FrameTimelineEvent::Start(s) => {
            let l: &FrameLabels = &s.labels;
            Some(match s.kind {
                SliceKind::ExpectedDisplayFrame => {
                    E::ExpectedDisplayFrameStart(fte::ExpectedDisplayFrameStart {
                        cookie: s.cookie,
                        token: s.token,
                        pid: s.pid,
                    })
                }
                SliceKind::ActualDisplayFrame => {
                    E::ActualDisplayFrameStart(fte::ActualDisplayFrameStart {
                        cookie: s.cookie,
                        token: s.token,
                        pid: s.pid,
                        present_type: l.present_type.get().map(i32::from),
                        on_time_finish: l.on_time_finish,
                        gpu_composition: l.gpu_composition,
                        jank_type: l.jank_type(),
                        prediction_type: l.prediction_type.get().map(i32::from),
                        jank_severity_type: l.jank_severity_type.get().map(i32::from),
                        present_delay_millis: None,
                        jank_severity_score: l.jank_severity_score(),
                    })
                }
                SliceKind::ExpectedSurfaceFrame => {
                    E::ExpectedSurfaceFrameStart(fte::ExpectedSurfaceFrameStart {
                        cookie: s.cookie,
                        token: s.token,
                        display_frame_token: s.display_frame_token,
                        pid: s.pid,
                        layer_name: s.layer_name.as_deref().map(str::to_string),
                    })
                }
                SliceKind::ActualSurfaceFrame => {
                    E::ActualSurfaceFrameStart(fte::ActualSurfaceFrameStart {
                        cookie: s.cookie,
                        token: s.token,
                        display_frame_token: s.display_frame_token,
                        pid: s.pid,
                        layer_name: s.layer_name.as_deref().map(str::to_string),
                        present_type: l.present_type.get().map(i32::from),
                        on_time_finish: l.on_time_finish,
                        gpu_composition: l.gpu_composition,
                        jank_type: l.jank_type(),
                        prediction_type: l.prediction_type.get().map(i32::from),
                        is_buffer: l.is_buffer,
                        jank_severity_type: l.jank_severity_type.get().map(i32::from),
                        present_delay_millis: None,
                        vsync_resynced_jitter_millis: None,
                        jank_severity_score: l.jank_severity_score(),
                    })
                }
            })
        }
    };
    proto::FrameTimelineEvent { event: inner }
}

/// Gzip-compresses bytes (a `.gz` trace).
pub fn gzip(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::default());
    enc.write_all(bytes)?;
    enc.finish()
}

/// Splits a `Trace` into its packets' raw bytes (each without the outer `packet` key and length).
pub fn split_packets(trace: &[u8]) -> Result<Vec<&[u8]>, String> {
    let mut wire = WireReader::new(trace);
    let mut out = Vec::new();
    while !wire.at_eof().map_err(|e| format!("{e:?}"))? {
        let (field, _) = wire.key().map_err(|e| format!("{e:?}"))?;
        let len = wire.varint().map_err(|e| format!("{e:?}"))?;
        let start = usize::try_from(wire.offset()).map_err(|e| e.to_string())?;
        wire.skip(len).map_err(|e| format!("{e:?}"))?;
        if field == 1 {
            let end = start + usize::try_from(len).map_err(|e| e.to_string())?;
            out.push(trace.get(start..end).ok_or("packet out of bounds")?);
        }
    }
    Ok(out)
}

fn append_packet(out: &mut Vec<u8>, packet: &[u8]) {
    prost::encoding::encode_key(1, prost::encoding::WireType::LengthDelimited, out);
    prost::encoding::encode_varint(packet.len() as u64, out);
    out.extend_from_slice(packet);
}

/// Re-encodes a trace so that its packets travel inside `compressed_packets` (TracePacket field 50, zlib),
/// about `chunk_bytes` of packets per chunk — as Perfetto's `compress_trace` does.
pub fn compress_packets(trace: &[u8], chunk_bytes: usize) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut chunk = Vec::new();
    let flush = |chunk: &mut Vec<u8>, out: &mut Vec<u8>| -> Result<(), String> {
        if chunk.is_empty() {
            return Ok(());
        }
        let mut enc = ZlibEncoder::new(Vec::new(), Compression::default());
        enc.write_all(chunk).map_err(|e| e.to_string())?;
        let compressed = enc.finish().map_err(|e| e.to_string())?;
        let packet = proto::TracePacket {
            compressed_packets: Some(compressed),
            ..Default::default()
        };
        append_packet(out, &packet.encode_to_vec());
        chunk.clear();
        Ok(())
    };
    for packet in split_packets(trace)? {
        append_packet(&mut chunk, packet);
        if chunk.len() >= chunk_bytes {
            flush(&mut chunk, &mut out)?;
        }
    }
    flush(&mut chunk, &mut out)?;
    Ok(out)
}

/// Writes `copies` copies of a trace to `out` so that they read as one long trace (benchmarks). Copy `k` is shifted
/// by `k × shift_ns` (ns) and `k × id_stride`:
/// - FrameTimeline packets: the packet `timestamp` is shifted, and the cookies, tokens and display frame tokens
///   are offset;
/// - ftrace packets (`ftrace_events`): every `FtraceEvent.timestamp` and the `compact_sched` timestamps are
///   shifted, and in `print` buffers the vsync id of `Choreographer#doFrame <id>`, `DrawFrame <id>` and
///   `DrawFrames <id>` is offset, so that each copy's app sections join its own FrameTimeline slices;
/// - binder events: the `debug_id` of `binder_transaction` and `binder_transaction_received` is offset by
///   `k × 2²⁰` (wrapping as the kernel's int32 does), so that, as in one long capture, each copy's transactions
///   have ids of their own.
///
/// The rewrite is done at the protobuf wire level: every other field, known to ftl or not, is copied byte for
/// byte (the fields of sched events, interned data,
/// `ProcessTree`, clock snapshots ...), and only the lengths of the rewritten messages are re-encoded, as wide as
/// they were (Perfetto's writer pads them to 4 bytes) unless the new length needs more. Packets inside
/// `compressed_packets` are not rewritten. Copy 0 is the original, byte for byte. Copies are written one at a
/// time: memory stays at one copy.
///
/// With [`Copies::FrameTimelineOnly`], copies after the first hold only the packets that carry a
/// `frame_timeline_event`: the densest FrameTimeline input a trace can be (every byte a frame event).
///
/// Errors: `trace` is not a sequence of TracePackets, a rewritten message is not valid protobuf framing, or
/// writing to `out` failed.
pub fn replicate<W: Write>(
    trace: &[u8],
    copies: u64,
    shift_ns: u64,
    id_stride: i64,
    later: Copies,
    out: &mut W,
) -> Result<(), String> {
    let packets = split_packets(trace)?;
    let mut copy = Vec::with_capacity(trace.len() + trace.len() / 16);
    let mut scratch = Scratch::default();
    for k in 0..copies {
        copy.clear();
        let shift = Shift {
            ns: k.wrapping_mul(shift_ns),
            id: (k as i64).wrapping_mul(id_stride),
            binder_id: (k as i32).wrapping_mul(BINDER_ID_STRIDE),
        };
        for raw in &packets {
            if k == 0 {
                append_packet(&mut copy, raw);
                continue;
            }
            let frame_timeline = is_frame_timeline(raw)?;
            if later == Copies::FrameTimelineOnly && !frame_timeline {
                continue;
            }
            scratch.packet.clear();
            shift_packet(raw, frame_timeline, shift, &mut scratch)
                .map_err(|e| format!("replicate: {e}"))?;
            append_packet(&mut copy, &scratch.packet);
        }
        out.write_all(&copy).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// What the copies of a [`replicate`] replica after the first hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Copies {
    /// Every packet of the original.
    Whole,
    /// Only the FrameTimeline packets (TracePacket field 76).
    FrameTimelineOnly,
}

/// True when `packet` carries a `frame_timeline_event`.
fn is_frame_timeline(packet: &[u8]) -> Result<bool, String> {
    let mut found = false;
    for_each_field(packet, |field, _, _| {
        found |= field == PACKET_FRAME_TIMELINE_EVENT;
        Ok(())
    })?;
    Ok(found)
}

/// What one replica copy adds: to timestamps (ns), to ids (cookies, tokens, vsync ids) and to binder debug ids.
#[derive(Debug, Clone, Copy)]
struct Shift {
    ns: u64,
    id: i64,
    binder_id: i32,
}

/// How far apart two replica copies' binder `debug_id`s are: more transactions than a capture of minutes holds.
const BINDER_ID_STRIDE: i32 = 1 << 20;

/// Reused output buffers, one per nesting level of the rewrite.
#[derive(Debug, Default)]
struct Scratch {
    packet: Vec<u8>,
    inner: Vec<u8>,
    event: Vec<u8>,
    print: Vec<u8>,
}

// Field numbers of the messages `replicate` rewrites (trace_packet.proto, ftrace_event_bundle.proto,
// ftrace_event.proto, ftrace.proto, frameworks_native_trace_packet.proto, compact_sched in
// ftrace_event_bundle.proto).
const PACKET_FTRACE_EVENTS: u32 = 1;
const PACKET_TIMESTAMP: u32 = 8;
const PACKET_FRAME_TIMELINE_EVENT: u32 = 76;
const BUNDLE_EVENT: u32 = 2;
const BUNDLE_COMPACT_SCHED: u32 = 4;
const COMPACT_SWITCH_TIMESTAMP: u32 = 1;
const COMPACT_WAKING_TIMESTAMP: u32 = 7;
const EVENT_TIMESTAMP: u32 = 1;
const EVENT_PRINT: u32 = 3;
const PRINT_BUF: u32 = 2;
const EVENT_BINDER_TRANSACTION: u32 = 50;
const EVENT_BINDER_TRANSACTION_RECEIVED: u32 = 51;
const BINDER_DEBUG_ID: u32 = 1;

/// One field of a message: its number, its value if varint or length-delimited, and its raw bytes (key included).
enum Value<'a> {
    Varint(u64),
    Len(&'a [u8]),
    Other,
}

/// Calls `f(field, value, raw bytes)` for each field of `msg` in order.
fn for_each_field<'a>(
    msg: &'a [u8],
    mut f: impl FnMut(u32, Value<'a>, &'a [u8]) -> Result<(), String>,
) -> Result<(), String> {
    use crate::decode::wire::{LEN, VARINT};
    let err = |e| format!("{e:?}");
    let mut wire = WireReader::new(msg);
    while !wire.at_eof().map_err(err)? {
        let start = wire.offset() as usize;
        let (field, wire_type) = wire.key().map_err(err)?;
        let value = match wire_type {
            VARINT => Value::Varint(wire.varint().map_err(err)?),
            LEN => {
                let n = wire.varint().map_err(err)?;
                let from = wire.offset() as usize;
                wire.skip(n).map_err(err)?;
                Value::Len(&msg[from..wire.offset() as usize])
            }
            _ => {
                wire.skip_value(wire_type).map_err(err)?;
                Value::Other
            }
        };
        f(field, value, &msg[start..wire.offset() as usize])?;
    }
    Ok(())
}

fn put_varint(out: &mut Vec<u8>, field: u32, v: u64) {
    prost::encoding::encode_key(field, prost::encoding::WireType::Varint, out);
    prost::encoding::encode_varint(v, out);
}

/// Writes a rewritten length-delimited field: the key bytes of `raw` (the original field, whose value was `old`),
/// then the length of `new` as wide as the original length was when it fits — Perfetto's writer pads the lengths
/// of nested messages to 4 bytes, and a replica keeps that layout — else minimal, then `new`.
fn put_len_like(out: &mut Vec<u8>, raw: &[u8], old: &[u8], new: &[u8]) {
    let key = raw.iter().position(|b| b & 0x80 == 0).map_or(0, |i| i + 1);
    let width = raw.len() - old.len() - key;
    out.extend_from_slice(&raw[..key]);
    let mut n = new.len() as u64;
    let fits = (1..=9).contains(&width) && n >> (7 * width) == 0;
    if !fits {
        prost::encoding::encode_varint(n, out);
    } else {
        for _ in 1..width {
            out.push((n & 0x7f) as u8 | 0x80);
            n >>= 7;
        }
        out.push(n as u8);
    }
    out.extend_from_slice(new);
}

#[cfg(test)]
fn put_len(out: &mut Vec<u8>, field: u32, bytes: &[u8]) {
    prost::encoding::encode_key(field, prost::encoding::WireType::LengthDelimited, out);
    prost::encoding::encode_varint(bytes.len() as u64, out);
    out.extend_from_slice(bytes);
}

/// One TracePacket of copy `shift` into `s.packet`; `frame_timeline`: it carries a `frame_timeline_event` (its
/// `timestamp` is then shifted too).
fn shift_packet(
    packet: &[u8],
    frame_timeline: bool,
    shift: Shift,
    s: &mut Scratch,
) -> Result<(), String> {
    let Scratch {
        packet: out,
        inner,
        event,
        print,
    } = s;
    for_each_field(packet, |field, value, raw| {
        match (field, value) {
            (PACKET_TIMESTAMP, Value::Varint(ts)) if frame_timeline => {
                put_varint(out, field, ts.wrapping_add(shift.ns))
            }
            (PACKET_FRAME_TIMELINE_EVENT, Value::Len(msg)) => {
                inner.clear();
                shift_frame_timeline_event(msg, shift.id, inner)?;
                put_len_like(out, raw, msg, inner);
            }
            (PACKET_FTRACE_EVENTS, Value::Len(bundle)) => {
                inner.clear();
                shift_bundle(bundle, shift, inner, event, print)?;
                put_len_like(out, raw, bundle, inner);
            }
            _ => out.extend_from_slice(raw),
        }
        Ok(())
    })
}

/// A `FrameTimelineEvent`: offsets the cookie (field 1 of every kind), the token (2, starts) and the display
/// frame token (3, SurfaceFrame starts; field 3 of a DisplayFrame start is its pid).
fn shift_frame_timeline_event(msg: &[u8], d: i64, out: &mut Vec<u8>) -> Result<(), String> {
    for_each_field(msg, |kind, value, raw| {
        let ids = match kind {
            1 | 2 => 2, // Expected / Actual DisplayFrameStart: cookie, token
            3 | 4 => 3, // Expected / Actual SurfaceFrameStart: cookie, token, display_frame_token
            5 => 1,     // FrameEnd: cookie
            _ => 0,
        };
        let Value::Len(start) = value else {
            out.extend_from_slice(raw);
            return Ok(());
        };
        if ids == 0 {
            out.extend_from_slice(raw);
            return Ok(());
        }
        let mut body = Vec::with_capacity(start.len() + 8);
        for_each_field(start, |field, value, raw| {
            match value {
                Value::Varint(v) if field <= ids => {
                    put_varint(&mut body, field, (v as i64).wrapping_add(d) as u64)
                }
                _ => body.extend_from_slice(raw),
            }
            Ok(())
        })?;
        put_len_like(out, raw, start, &body);
        Ok(())
    })
}

/// An `FtraceEventBundle`: each event rewritten, every other field (cpu, clock, `compact_sched`, ...) as is.
fn shift_bundle(
    bundle: &[u8],
    shift: Shift,
    out: &mut Vec<u8>,
    event: &mut Vec<u8>,
    print: &mut Vec<u8>,
) -> Result<(), String> {
    for_each_field(bundle, |field, value, raw| {
        match (field, value) {
            (BUNDLE_EVENT, Value::Len(msg)) => {
                event.clear();
                shift_ftrace_event(msg, shift, event, print)?;
                put_len_like(out, raw, msg, event);
            }
            (BUNDLE_COMPACT_SCHED, Value::Len(msg)) => {
                event.clear();
                shift_compact_sched(msg, shift, event)?;
                put_len_like(out, raw, msg, event);
            }
            _ => out.extend_from_slice(raw),
        }
        Ok(())
    })
}

/// A `CompactSched`: the first (absolute) delta of its switch and waking timestamp arrays shifted, every other
/// field as is.
fn shift_compact_sched(msg: &[u8], shift: Shift, out: &mut Vec<u8>) -> Result<(), String> {
    let mut shifted = [false; 2];
    for_each_field(msg, |field, value, raw| {
        let array = match field {
            COMPACT_SWITCH_TIMESTAMP => Some(0),
            COMPACT_WAKING_TIMESTAMP => Some(1),
            _ => None,
        };
        match (array, value) {
            (Some(i), Value::Len(packed)) if !shifted[i] && !packed.is_empty() => {
                shifted[i] = true;
                let mut wire = WireReader::new(packed);
                let first = wire.varint().map_err(|e| format!("{e:?}"))?;
                let mut body = Vec::with_capacity(packed.len() + 2);
                prost::encoding::encode_varint(first.wrapping_add(shift.ns), &mut body);
                body.extend_from_slice(&packed[wire.offset() as usize..]);
                put_len_like(out, raw, packed, &body);
            }
            _ => out.extend_from_slice(raw),
        }
        Ok(())
    })
}

/// An `FtraceEvent`: its timestamp shifted and, for a `print`, the vsync id in its buffer offset, for a binder
/// event its `debug_id`.
fn shift_ftrace_event(
    msg: &[u8],
    shift: Shift,
    out: &mut Vec<u8>,
    print: &mut Vec<u8>,
) -> Result<(), String> {
    for_each_field(msg, |field, value, raw| {
        match (field, value) {
            (EVENT_TIMESTAMP, Value::Varint(ts)) => {
                put_varint(out, field, ts.wrapping_add(shift.ns))
            }
            (EVENT_PRINT, Value::Len(body)) => {
                print.clear();
                for_each_field(body, |field, value, raw| {
                    match (field, value) {
                        (PRINT_BUF, Value::Len(buf)) => match shift_vsync_id(buf, shift.id) {
                            Some(new) => put_len_like(print, raw, buf, &new),
                            None => print.extend_from_slice(raw),
                        },
                        _ => print.extend_from_slice(raw),
                    }
                    Ok(())
                })?;
                put_len_like(out, raw, body, print);
            }
            (EVENT_BINDER_TRANSACTION | EVENT_BINDER_TRANSACTION_RECEIVED, Value::Len(body)) => {
                print.clear();
                for_each_field(body, |field, value, raw| {
                    match (field, value) {
                        (BINDER_DEBUG_ID, Value::Varint(id)) => {
                            let id = (id as i32).wrapping_add(shift.binder_id);
                            put_varint(print, field, i64::from(id) as u64)
                        }
                        _ => print.extend_from_slice(raw),
                    }
                    Ok(())
                })?;
                put_len_like(out, raw, body, print);
            }
            _ => out.extend_from_slice(raw),
        }
        Ok(())
    })
}

/// Section names whose second word is a vsync id (the frame id Perfetto's stdlib joins on).
const VSYNC_ID_NAMES: [&[u8]; 3] = [b"Choreographer#doFrame ", b"DrawFrame ", b"DrawFrames "];

/// An atrace line `X|pid|<name>...` whose name is `Choreographer#doFrame <id>`, `DrawFrame <id>` or
/// `DrawFrames <id>` with `<id>` offset by `d`; `None` if the line has no such id (or `d` is 0).
fn shift_vsync_id(buf: &[u8], d: i64) -> Option<Vec<u8>> {
    if d == 0 {
        return None;
    }
    let mut bars = buf.iter().enumerate().filter(|(_, &b)| b == b'|');
    let name = bars.nth(1)?.0 + 1;
    let prefix = VSYNC_ID_NAMES.iter().find(|p| buf[name..].starts_with(p))?;
    let digits = name + prefix.len();
    let end = digits
        + buf[digits..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
    let id: i64 = std::str::from_utf8(&buf[digits..end]).ok()?.parse().ok()?;
    let mut out = Vec::with_capacity(buf.len() + 8);
    out.extend_from_slice(&buf[..digits]);
    out.extend_from_slice(id.wrapping_add(d).to_string().as_bytes());
    out.extend_from_slice(&buf[end..]);
    Some(out)
}

/// Makes every `every`-th actual SurfaceFrame of layer `layer` (the `every`-th, `2·every`-th ... in packet order)
/// end `delay_ns` later: the `timestamp` of its `FrameEnd` packet (matched by cookie) is moved, every other byte
/// is kept. An injected regression for `ftl diff` tests: those frames get longer durations and overruns, their
/// jank labels are SurfaceFlinger's as recorded. Returns the new trace and how many frames were delayed. Packets
/// inside `compressed_packets` are not rewritten. Errors: `trace` is not a sequence of TracePackets.
pub fn delay_frame_ends(
    trace: &[u8],
    layer: &str,
    every: usize,
    delay_ns: u64,
) -> Result<(Vec<u8>, usize), String> {
    const ACTUAL_SURFACE_FRAME_START: u32 = 4;
    const FRAME_END: u32 = 5;
    let packets = split_packets(trace)?;
    // (kind, cookie, layer name) of a packet's FrameTimelineEvent.
    let event = |packet: &[u8]| -> Result<Option<(u32, u64, Vec<u8>)>, String> {
        let mut found = None;
        for_each_field(packet, |field, value, _| {
            if let (PACKET_FRAME_TIMELINE_EVENT, Value::Len(msg)) = (field, value) {
                for_each_field(msg, |kind, value, _| {
                    if let Value::Len(body) = value {
                        let (mut cookie, mut name) = (0, Vec::new());
                        for_each_field(body, |f, v, _| {
                            match (f, v) {
                                (1, Value::Varint(c)) => cookie = c,
                                (5, Value::Len(n)) => name = n.to_vec(),
                                _ => {}
                            }
                            Ok(())
                        })?;
                        found = Some((kind, cookie, name));
                    }
                    Ok(())
                })?;
            }
            Ok(())
        })?;
        Ok(found)
    };
    let mut delayed = std::collections::HashSet::new();
    let mut seen = 0usize;
    for p in &packets {
        if let Some((ACTUAL_SURFACE_FRAME_START, cookie, name)) = event(p)? {
            if name == layer.as_bytes() {
                seen += 1;
                if every > 0 && seen.is_multiple_of(every) {
                    delayed.insert(cookie);
                }
            }
        }
    }
    let mut out = Vec::with_capacity(trace.len());
    let mut packet = Vec::new();
    for p in &packets {
        let late = matches!(event(p)?, Some((FRAME_END, cookie, _)) if delayed.contains(&cookie));
        if !late {
            append_packet(&mut out, p);
            continue;
        }
        packet.clear();
        for_each_field(p, |field, value, raw| {
            match (field, value) {
                (PACKET_TIMESTAMP, Value::Varint(ts)) => {
                    put_varint(&mut packet, field, ts.wrapping_add(delay_ns))
                }
                _ => packet.extend_from_slice(raw),
            }
            Ok(())
        })?;
        append_packet(&mut out, &packet);
    }
    Ok((out, delayed.len()))
}

/// `frames` slots drawn independently with probability `share` from a ChaCha generator seeded with `seed`
/// (ascending): the `late` or `causes` slots of a [`Pipeline`] that differ from seed to seed like two recordings.
pub fn random_slots(seed: u64, frames: i64, share: f64) -> Vec<i64> {
    use rand::{RngExt, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    (0..frames)
        .filter(|_| rng.random_bool(share.clamp(0.0, 1.0)))
        .collect()
}

/// A simulated pipeline (60 Hz by default): SurfaceFlinger composes a DisplayFrame every vsync and one app layer
/// draws a SurfaceFrame per vsync; a frame whose slot is in `late` finishes half a vsync after its deadline, is
/// presented one vsync later (Late Present, App Deadline Missed) and the app skips the next slot. Labels are the
/// ones SurfaceFlinger would give.
///
/// With `app_sections`, the app also writes its atrace sections: `Choreographer#doFrame <token>` on its main
/// thread (4 ms from 0.5 ms after the expected start) and `DrawFrame <token>` on its `RenderThread` (3 ms from the
/// doFrame's end). `causes` makes a slot late for a known reason: the app's stages for [`Cause::UiThread`] (a
/// doFrame as long as the whole budget), [`Cause::RenderThread`] (a DrawFrame ending just before the late buffer),
/// [`Cause::Gpu`] (on-time sections, late buffer: also what a `late` slot without a cause gets), or
/// [`Cause::SurfaceFlinger`] (the app on time; SurfaceFlinger's CPU misses the vsync, so the DisplayFrame and the
/// frame are presented one vsync late with `SurfaceFlinger CPU Deadline Missed`).
#[derive(Debug, Clone)]
pub struct Pipeline {
    /// Vsync period, ns.
    pub period_ns: i64,
    /// SF work duration (expected DisplayFrame length), ns.
    pub sf_work_ns: i64,
    /// App work duration (expected SurfaceFrame length), ns.
    pub app_work_ns: i64,
    /// Number of vsync slots (DisplayFrames).
    pub frames: i64,
    /// Slots whose app frame misses its deadline.
    pub late: Vec<i64>,
    /// Time of the first vsync, ns.
    pub start_ns: i64,
    /// Whether the app writes its doFrame / DrawFrame sections.
    pub app_sections: bool,
    /// Slots made late by a known cause.
    pub causes: Vec<(i64, Cause)>,
}

/// Why a [`Pipeline`] slot is late.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// The UI thread's doFrame takes the whole app budget.
    UiThread,
    /// The RenderThread's DrawFrame runs past the deadline.
    RenderThread,
    /// The sections are on time; the buffer is ready late.
    Gpu,
    /// The app is on time; SurfaceFlinger's CPU work misses the vsync.
    SurfaceFlinger,
}

/// The app's main thread and RenderThread in [`Pipeline::build`].
pub const APP_RENDER_TID: i32 = APP_PID + 7;

impl Default for Pipeline {
    fn default() -> Self {
        Pipeline {
            period_ns: 16_666_667,
            sf_work_ns: 10_500_000,
            app_work_ns: 16_600_000,
            frames: 120,
            late: vec![30, 52, 75],
            start_ns: 1_000_000_000,
            app_sections: false,
            causes: Vec::new(),
        }
    }
}

/// Process ids used by [`Pipeline::build`].
pub const SF_PID: i32 = 600;
/// App pid used by [`Pipeline::build`].
pub const APP_PID: i32 = 4242;
/// App layer name used by [`Pipeline::build`].
pub const APP_LAYER: &str = "TX - com.example.app/com.example.app.MainActivity#7";

impl Pipeline {
    /// Builds the trace.
    pub fn build(&self) -> TraceBuilder {
        let mut t = TraceBuilder::new();
        t.system_info("ftl/synth/pipeline:14/FTL.0/1:user/test-keys", 34);
        t.process(SF_PID, "/system/bin/surfaceflinger", Some(1000));
        t.process(APP_PID, "com.example.app", Some(10123));
        if self.app_sections {
            t.threads(&[
                (APP_PID, APP_PID, "com.example.app"),
                (APP_RENDER_TID, APP_PID, "RenderThread"),
            ]);
        }
        let cause = |slot: i64| self.causes.iter().find(|(s, _)| *s == slot).map(|c| c.1);
        let app_late = |slot: i64| {
            self.late.contains(&slot)
                || matches!(
                    cause(slot),
                    Some(Cause::UiThread | Cause::RenderThread | Cause::Gpu)
                )
        };
        let sf_late = |slot: i64| cause(slot) == Some(Cause::SurfaceFlinger);
        let mut cookie = 1;
        let mut next_cookie = || {
            cookie += 1;
            Some(cookie)
        };
        let labels = |present, finish: bool, jank| FrameLabels {
            present_type: EnumCode::new(Some(present)),
            on_time_finish: Some(finish),
            gpu_composition: Some(false),
            prediction_type: EnumCode::new(Some(1)),
            jank: JankValues::new(Some(jank), None),
            ..Default::default()
        };
        let df_token = |slot: i64| Some(10_000 + 2 * slot);
        let vsync = |slot: i64| self.start_ns + (slot + 2) * self.period_ns;
        let mut skip_next = false;
        for slot in 0..self.frames {
            // SurfaceFlinger composes every vsync.
            let sf_start = (vsync(slot) - self.sf_work_ns) as u64;
            let display = |kind, labels| FrameStart {
                kind,
                cookie: None,
                token: df_token(slot),
                display_frame_token: None,
                pid: Some(SF_PID),
                layer_name: None,
                labels,
            };
            let mut expected = display(SliceKind::ExpectedDisplayFrame, FrameLabels::default());
            expected.cookie = next_cookie();
            t.slice(expected, sf_start, vsync(slot) as u64);
            let (df_labels, df_end) = if sf_late(slot) {
                (
                    labels(2, false, 16),
                    vsync(slot) + self.period_ns + 1_000_000,
                )
            } else {
                (labels(1, true, 1), vsync(slot) + 1_000_000)
            };
            let mut actual = display(SliceKind::ActualDisplayFrame, df_labels);
            actual.cookie = next_cookie();
            t.slice(actual, sf_start + 300_000, df_end as u64);
            // The app draws for this vsync unless it is still busy with a late frame.
            if std::mem::take(&mut skip_next) {
                continue;
            }
            let late = app_late(slot);
            skip_next = late;
            let presented_in = if late { slot + 1 } else { slot };
            let surface = |kind, labels| FrameStart {
                kind,
                cookie: None,
                token: Some(10_001 + 2 * slot),
                display_frame_token: df_token(presented_in),
                pid: Some(APP_PID),
                layer_name: Some(APP_LAYER.into()),
                labels,
            };
            let exp_end = vsync(slot) - self.sf_work_ns;
            let exp_start = exp_end - self.app_work_ns;
            let act_end = if late {
                exp_end + self.period_ns / 2
            } else {
                exp_end - 4_000_000
            };
            let app_labels = if late {
                labels(2, false, 64)
            } else if sf_late(slot) {
                labels(2, true, 16)
            } else {
                labels(1, true, 1)
            };
            let mut expected = surface(SliceKind::ExpectedSurfaceFrame, FrameLabels::default());
            expected.cookie = next_cookie();
            t.slice(expected, exp_start as u64, exp_end as u64);
            let mut actual = surface(SliceKind::ActualSurfaceFrame, app_labels);
            actual.cookie = next_cookie();
            t.slice(actual, (exp_start + 500_000) as u64, act_end as u64);
            if self.app_sections {
                let token = 10_001 + 2 * slot;
                let ui_start = exp_start + 500_000;
                let ui_end = match cause(slot) {
                    Some(Cause::UiThread) => ui_start + self.app_work_ns,
                    _ => ui_start + 4_000_000,
                };
                let rt_end = match cause(slot) {
                    Some(Cause::RenderThread) => act_end - 500_000,
                    Some(Cause::UiThread) => ui_end + 2_000_000,
                    _ => ui_end + 3_000_000,
                };
                t.begin(
                    ui_start as u64,
                    APP_PID,
                    APP_PID,
                    &format!("Choreographer#doFrame {token}"),
                );
                t.end(ui_end as u64, APP_PID, APP_PID);
                t.begin(
                    ui_end as u64,
                    APP_RENDER_TID,
                    APP_PID,
                    &format!("DrawFrame {token}"),
                );
                t.end(rt_end as u64, APP_RENDER_TID, APP_PID);
            }
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shifted(line: &str, d: i64) -> Option<String> {
        shift_vsync_id(line.as_bytes(), d).map(|b| String::from_utf8(b).unwrap())
    }

    #[test]
    fn vsync_ids_of_frame_sections_are_offset_and_nothing_else() {
        let d = 1 << 32;
        assert_eq!(
            shifted("B|12|Choreographer#doFrame 191058\n", d).as_deref(),
            Some("B|12|Choreographer#doFrame 4295158354\n")
        );
        assert_eq!(
            shifted("B|12|DrawFrame 7 extra|x", 10).as_deref(),
            Some("B|12|DrawFrame 17 extra|x")
        );
        assert_eq!(
            shifted("B|12|DrawFrames 7\n", 10).as_deref(),
            Some("B|12|DrawFrames 17\n")
        );
        for unchanged in [
            "B|12|Choreographer#doFrame - resynced to 5 in 0.1ms\n",
            "B|12|Choreographer#doFrame\n",
            "B|12|traversal 5\n",
            "E|12\n",
            "DrawFrame 5",
        ] {
            assert_eq!(shifted(unchanged, 10), None, "{unchanged}");
        }
        // Whatever the phase: the name is the field after the pid.
        assert_eq!(
            shifted("S|12|DrawFrame 5|3", 10).as_deref(),
            Some("S|12|DrawFrame 15|3")
        );
        assert_eq!(shifted("B|12|DrawFrame 7", 0), None);
    }

    #[test]
    fn replicated_ftrace_events_keep_unknown_fields() {
        // An event with an unknown field (99) before its print, a print with an unknown field (7), a binder
        // transaction and a compact_sched.
        let mut print = Vec::new();
        put_varint(&mut print, 7, 5);
        put_len(&mut print, PRINT_BUF, b"B|1|DrawFrame 40\n");
        let mut event = Vec::new();
        put_varint(&mut event, EVENT_TIMESTAMP, 1_000);
        put_varint(&mut event, 99, 1);
        put_len(&mut event, EVENT_PRINT, &print);
        // A binder_transaction: debug_id 7, target_node 3.
        let binder = |ts: u64, debug_id: u64| {
            let (mut txn, mut event) = (Vec::new(), Vec::new());
            put_varint(&mut txn, BINDER_DEBUG_ID, debug_id);
            put_varint(&mut txn, 2, 3);
            put_varint(&mut event, EVENT_TIMESTAMP, ts);
            put_len(&mut event, EVENT_BINDER_TRANSACTION, &txn);
            event
        };
        let mut bundle = Vec::new();
        put_varint(&mut bundle, 1, 3);
        put_len(&mut bundle, BUNDLE_EVENT, &event);
        put_len(&mut bundle, BUNDLE_EVENT, &binder(0, 7));
        put_len(&mut bundle, 4, b"\x0a\x02\x01\x02");
        let mut packet = Vec::new();
        put_len(&mut packet, PACKET_FTRACE_EVENTS, &bundle);
        put_varint(&mut packet, 10, 42);
        let mut trace = Vec::new();
        append_packet(&mut trace, &packet);

        let mut out = Vec::new();
        replicate(&trace, 2, 500, 10, Copies::Whole, &mut out).unwrap();
        let (mut print, mut event, mut bundle, mut packet) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        put_varint(&mut print, 7, 5);
        put_len(&mut print, PRINT_BUF, b"B|1|DrawFrame 50\n");
        put_varint(&mut event, EVENT_TIMESTAMP, 1_500);
        put_varint(&mut event, 99, 1);
        put_len(&mut event, EVENT_PRINT, &print);
        put_varint(&mut bundle, 1, 3);
        put_len(&mut bundle, BUNDLE_EVENT, &event);
        put_len(&mut bundle, BUNDLE_EVENT, &binder(500, 7 + (1 << 20)));
        // compact_sched's switch timestamps: deltas 1, 2 → the first shifted by 500 (501 = 0xf5 0x03).
        put_len(&mut bundle, 4, b"\x0a\x03\xf5\x03\x02");
        put_len(&mut packet, PACKET_FTRACE_EVENTS, &bundle);
        put_varint(&mut packet, 10, 42);
        let mut want = trace.clone();
        append_packet(&mut want, &packet);
        assert_eq!(out, want);
    }

    #[test]
    fn replicated_lengths_keep_their_padded_width() {
        // Perfetto pads nested lengths to 4 bytes: `0x8b 0x80 0x80 0x00` is 11.
        let event = [
            &[0x08, 0xe8, 0x07][..],         // timestamp 1000
            &[0x1a, 0x8b, 0x80, 0x80, 0x00], // print, 11 bytes
            &[0x12, 0x86, 0x80, 0x80, 0x00], // buf, 6 bytes
            b"B|1|x\n",                      // not a frame line: kept as is
        ]
        .concat();
        let bundle = [
            &[0x12, 0x80 | event.len() as u8, 0x80, 0x80, 0x00][..],
            &event,
        ]
        .concat();
        let mut packet = Vec::new();
        put_len(&mut packet, PACKET_FTRACE_EVENTS, &bundle);
        let mut trace = Vec::new();
        append_packet(&mut trace, &packet);
        let mut out = Vec::new();
        replicate(&trace, 2, 1, 0, Copies::Whole, &mut out).unwrap();
        let (first, second) = out.split_at(trace.len());
        assert_eq!(first, trace);
        // Only the timestamp changed (1000 → 1001), every length as wide as before.
        let mut want = trace.clone();
        let at = want
            .windows(3)
            .position(|w| w == [0x08, 0xe8, 0x07])
            .unwrap();
        want[at + 1] = 0xe9;
        assert_eq!(second, want);
    }
}
