//! `TraceBuilder`: writes Perfetto trace bytes from FrameTimeline events, thread names and atrace lines (ftrace
//! `print` events) for test fixtures and benchmarks, plus the re-encodings tests and benches need: gzip,
//! `compressed_packets` chunks, and replication of a real trace with rewritten cookies, tokens and timestamps.

use crate::decode::proto;
use crate::decode::wire::WireReader;
use crate::decode::{FrameLabels, FrameStart, FrameTimelineEvent, SliceKind};
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
        use proto::ftrace_event::Event as E;
        self.ftrace_event(
            ts_ns,
            tid,
            E::Print(proto::PrintFtraceEvent {
                ip: None,
                buf: Some(format!("{line}\n")),
            }),
        )
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

    /// One packet with a one-event bundle on cpu 0.
    fn ftrace_event(
        &mut self,
        ts_ns: u64,
        tid: i32,
        event: proto::ftrace_event::Event,
    ) -> &mut Self {
        self.push(proto::TracePacket {
            ftrace_events: Some(proto::FtraceEventBundle {
                cpu: Some(0),
                event: vec![proto::FtraceEvent {
                    timestamp: Some(ts_ns),
                    pid: Some(tid as u32),
                    event: Some(event),
                }],
                ftrace_clock: None,
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
                        present_type: l.present_type,
                        on_time_finish: l.on_time_finish,
                        gpu_composition: l.gpu_composition,
                        jank_type: l.jank_type,
                        prediction_type: l.prediction_type,
                        jank_severity_type: l.jank_severity_type,
                        present_delay_millis: l.present_delay_millis,
                        jank_severity_score: l.jank_severity_score,
                    })
                }
                SliceKind::ExpectedSurfaceFrame => {
                    E::ExpectedSurfaceFrameStart(fte::ExpectedSurfaceFrameStart {
                        cookie: s.cookie,
                        token: s.token,
                        display_frame_token: s.display_frame_token,
                        pid: s.pid,
                        layer_name: s.layer_name.clone(),
                    })
                }
                SliceKind::ActualSurfaceFrame => {
                    E::ActualSurfaceFrameStart(fte::ActualSurfaceFrameStart {
                        cookie: s.cookie,
                        token: s.token,
                        display_frame_token: s.display_frame_token,
                        pid: s.pid,
                        layer_name: s.layer_name.clone(),
                        present_type: l.present_type,
                        on_time_finish: l.on_time_finish,
                        gpu_composition: l.gpu_composition,
                        jank_type: l.jank_type,
                        prediction_type: l.prediction_type,
                        is_buffer: l.is_buffer,
                        jank_severity_type: l.jank_severity_type,
                        present_delay_millis: l.present_delay_millis,
                        vsync_resynced_jitter_millis: None,
                        jank_severity_score: l.jank_severity_score,
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

/// Writes `copies` copies of a trace to `out`, shifting every FrameTimeline copy `k` by `k × shift_ns` and
/// offsetting its cookies and tokens by `k × id_stride`, so the copies read as one long trace (benchmarks). Other
/// packets are copied byte for byte. Copies are written one at a time: memory stays at one copy.
///
/// Errors: `trace` is not a sequence of TracePackets, or writing to `out` failed.
pub fn replicate<W: Write>(
    trace: &[u8],
    copies: u64,
    shift_ns: u64,
    id_stride: i64,
    out: &mut W,
) -> Result<(), String> {
    let packets = split_packets(trace)?;
    let mut copy = Vec::with_capacity(trace.len());
    for k in 0..copies {
        copy.clear();
        for raw in &packets {
            let mut p = proto::TracePacket::decode(*raw).map_err(|e| e.to_string())?;
            let Some(event) = p
                .frame_timeline_event
                .as_mut()
                .and_then(|e| e.event.as_mut())
            else {
                append_packet(&mut copy, raw);
                continue;
            };
            shift_ids(event, k as i64 * id_stride);
            p.timestamp = p.timestamp.map(|t| t + k * shift_ns);
            append_packet(&mut copy, &p.encode_to_vec());
        }
        out.write_all(&copy).map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn shift_ids(event: &mut proto::frame_timeline_event::Event, d: i64) {
    use proto::frame_timeline_event::Event as E;
    let add = |v: &mut Option<i64>| *v = v.map(|x| x + d);
    match event {
        E::ExpectedDisplayFrameStart(e) => {
            add(&mut e.cookie);
            add(&mut e.token);
        }
        E::ActualDisplayFrameStart(e) => {
            add(&mut e.cookie);
            add(&mut e.token);
        }
        E::ExpectedSurfaceFrameStart(e) => {
            add(&mut e.cookie);
            add(&mut e.token);
            add(&mut e.display_frame_token);
        }
        E::ActualSurfaceFrameStart(e) => {
            add(&mut e.cookie);
            add(&mut e.token);
            add(&mut e.display_frame_token);
        }
        E::FrameEnd(e) => add(&mut e.cookie),
    }
}

/// A simulated pipeline (60 Hz by default): SurfaceFlinger composes a DisplayFrame every vsync and one app layer
/// draws a SurfaceFrame per vsync; a frame whose slot is in `late` finishes half a vsync after its deadline, is
/// presented one vsync later (Late Present, App Deadline Missed) and the app skips the next slot. Labels are the
/// ones SurfaceFlinger would give.
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
}

impl Default for Pipeline {
    fn default() -> Self {
        Pipeline {
            period_ns: 16_666_667,
            sf_work_ns: 10_500_000,
            app_work_ns: 16_600_000,
            frames: 120,
            late: vec![30, 52, 75],
            start_ns: 1_000_000_000,
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
        let mut cookie = 1;
        let mut next_cookie = || {
            cookie += 1;
            Some(cookie)
        };
        let labels = |present, finish: bool, jank| FrameLabels {
            present_type: Some(present),
            on_time_finish: Some(finish),
            gpu_composition: Some(false),
            jank_type: Some(jank),
            prediction_type: Some(1),
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
            let mut actual = display(SliceKind::ActualDisplayFrame, labels(1, true, 1));
            actual.cookie = next_cookie();
            t.slice(actual, sf_start + 300_000, (vsync(slot) + 1_000_000) as u64);
            // The app draws for this vsync unless it is still busy with a late frame.
            if std::mem::take(&mut skip_next) {
                continue;
            }
            let late = self.late.contains(&slot);
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
            } else {
                labels(1, true, 1)
            };
            let mut expected = surface(SliceKind::ExpectedSurfaceFrame, FrameLabels::default());
            expected.cookie = next_cookie();
            t.slice(expected, exp_start as u64, exp_end as u64);
            let mut actual = surface(SliceKind::ActualSurfaceFrame, app_labels);
            actual.cookie = next_cookie();
            t.slice(actual, (exp_start + 500_000) as u64, act_end as u64);
        }
        t
    }
}
