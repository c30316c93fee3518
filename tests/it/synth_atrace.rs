//! The synth builder's atrace API (thread names, `print` lines, `task_rename`) read back by the decoder, and
//! `synth::replicate` on a real atrace-heavy trace: ftrace timestamps and vsync ids shifted per copy, every other
//! byte kept.

use crate::common::{ftl_ok, parse_csv, shared};
use ftl::decode::wire::{Framing, WireReader, LEN, VARINT};
use ftl::synth::{split_packets, Pipeline, TraceBuilder, APP_PID};
use std::io::Write;

const MS: u64 = 1_000_000;

fn load(bytes: &[u8]) -> ftl::LoadedTrace {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(bytes).unwrap();
    file.flush().unwrap();
    ftl::load_path(file.path()).unwrap()
}

#[test]
fn atrace_sections_and_thread_names_round_trip_through_the_decoder() {
    let (ui, render, worker) = (APP_PID, APP_PID + 1, APP_PID + 2);
    let t0 = 2_000 * MS;
    let mut t: TraceBuilder = Pipeline::default().build();
    t.threads(&[
        (ui, APP_PID, "com.example.app"),
        (render, APP_PID, "RenderThread"),
        (worker, APP_PID, "hwuiTask1"),
    ]);
    t.task_rename(t0, worker, "hwuiTask0");
    // UI thread: doFrame ⊃ "obtainView" (not kept, but counted in depth) ⊃ DrawFrame.
    t.begin(t0, ui, APP_PID, "Choreographer#doFrame 10001")
        .begin(t0 + MS, ui, APP_PID, "obtainView")
        .begin(t0 + 2 * MS, ui, APP_PID, "DrawFrame 99")
        .end(t0 + 3 * MS, ui, APP_PID)
        .end(t0 + 4 * MS, ui, APP_PID)
        .end(t0 + 5 * MS, ui, APP_PID);
    t.begin(t0 + 6 * MS, render, APP_PID, "DrawFrames 10001")
        .end(t0 + 9 * MS, render, APP_PID);
    // Never ended: dur −1.
    t.begin(t0 + 20 * MS, worker, APP_PID, "Choreographer#doFrame 10003");
    t.async_begin(t0, ui, APP_PID, "J<SCROLL>", 7)
        .async_begin(t0 + MS, ui, APP_PID, "J<CUJ2>", 8)
        .async_end(t0 + 30 * MS, ui, APP_PID, "J<SCROLL>", 7);

    let trace = load(&t.bytes());
    assert_eq!(trace.decode.atrace_parse_failures, 0);
    assert_eq!(trace.decode.unconvertible_timestamps, 0);
    let app = &trace.timeline.app;
    assert_eq!(app.lines, 12, "every print line is read");
    let t0 = t0 as i64;
    let ms = MS as i64;
    let sections: Vec<_> = app
        .sections
        .iter()
        .map(|s| (app.name(s.name), s.ts, s.dur, s.tid, s.depth))
        .collect();
    assert_eq!(
        sections,
        [
            ("Choreographer#doFrame 10001", t0, 5 * ms, ui, 0),
            ("DrawFrame 99", t0 + 2 * ms, ms, ui, 2),
            ("DrawFrames 10001", t0 + 6 * ms, 3 * ms, render, 0),
            ("Choreographer#doFrame 10003", t0 + 20 * ms, -1, worker, 0),
        ]
    );
    let async_sections: Vec<_> = app
        .async_sections
        .iter()
        .map(|s| (app.name(s.name), s.ts, s.dur, s.pid, s.cookie))
        .collect();
    assert_eq!(
        async_sections,
        [
            ("J<SCROLL>", t0, 30 * ms, APP_PID, 7),
            ("J<CUJ2>", t0 + ms, -1, APP_PID, 8),
        ]
    );
    let threads: Vec<_> = app
        .threads
        .iter()
        .map(|(&tid, info)| (tid, info.pid, info.name.as_deref()))
        .collect();
    assert_eq!(
        threads,
        [
            (ui, Some(APP_PID), Some("com.example.app")),
            (render, Some(APP_PID), Some("RenderThread")),
            // A process tree's name outranks ftrace's task_rename (Perfetto's ThreadNamePriority).
            (worker, Some(APP_PID), Some("hwuiTask1")),
        ]
    );
    // The FrameTimeline slices are still all there.
    let plain = load(&Pipeline::default().build().bytes());
    assert_eq!(trace.timeline.actual.len(), plain.timeline.actual.len());
    assert_eq!(trace.timeline.expected.len(), plain.timeline.expected.len());
}

/// The decoder emits ftrace events in packet order, interleaved with the packets around them, and converts
/// atrace timestamps with the clocks known at their place in the file.
#[test]
fn ftrace_events_come_out_in_packet_order_among_other_packets() {
    const MONOTONIC_RAW: u32 = 4;
    let mut t = TraceBuilder::new();
    let mut expected = Vec::new();
    for i in 0..600u64 {
        let tid = 100 + (i % 7) as i32;
        match i % 4 {
            0 => {
                t.begin(i * MS, tid, APP_PID, &format!("DrawFrame {i}"));
                expected.push(format!("B {tid} {} DrawFrame {i}", i * MS));
            }
            1 => {
                t.process(i as i32, &format!("p{i}"), None);
                expected.push(format!("process {i}"));
            }
            2 => {
                t.end(i * MS, tid, APP_PID);
                expected.push(format!("E {tid} {}", i * MS));
            }
            _ => {
                t.task_rename(i * MS, tid, &format!("t{i}"));
                expected.push(format!("name {tid} t{i}"));
            }
        }
    }
    // Two snapshots relating MONOTONIC_RAW to BOOTTIME, with a print event at the same MONOTONIC_RAW time after
    // each: each converts with the snapshots read before it.
    t.clock_snapshot(&[(MONOTONIC_RAW, 0), (ftl::decode::BOOTTIME, 5_000 * MS)]);
    t.atrace_mono_raw(2_500 * MS, 1, "E|1");
    t.clock_snapshot(&[
        (MONOTONIC_RAW, 2_000 * MS),
        (ftl::decode::BOOTTIME, 9_000 * MS),
    ]);
    t.atrace_mono_raw(2_500 * MS, 1, "E|1");
    expected.push(format!("E 1 {}", 7_500 * MS));
    expected.push(format!("E 1 {}", 9_500 * MS));
    let mut seen = Vec::new();
    ftl::decode::decode(&t.bytes()[..], &mut |e| match e {
        ftl::decode::Event::Atrace { ts_ns, tid, event } => seen.push(match event {
            ftl::decode::Atrace::Begin { name, .. } => format!("B {tid} {ts_ns} {name}"),
            ftl::decode::Atrace::End { .. } => format!("E {tid} {ts_ns}"),
            other => format!("{other:?}"),
        }),
        ftl::decode::Event::Process { pid, .. } => seen.push(format!("process {pid}")),
        ftl::decode::Event::ThreadName { tid, name } => seen.push(format!("name {tid} {name}")),
        _ => {}
    })
    .unwrap();
    assert_eq!(seen, expected);
}

/// An atrace line whose clock has no snapshot yet waits for one (the events between pass it by); lines that
/// cannot be parsed are counted whether they wait or not, and a kept line still waiting at the end is counted as
/// unconvertible.
#[test]
fn atrace_lines_before_the_first_clock_snapshot_wait_for_it() {
    const MONOTONIC_RAW: u32 = 4;
    let waiting = |then: &dyn Fn(&mut TraceBuilder)| {
        let mut t = TraceBuilder::new();
        t.atrace_mono_raw(1_000 * MS, 1, "B|1|DrawFrame 7")
            .atrace_mono_raw(1_000 * MS, 1, "not an atrace line")
            .atrace_mono_raw(1_000 * MS, 1, "C|1|counter|5")
            .process(5, "p5", None);
        then(&mut t);
        let mut seen = Vec::new();
        let summary = ftl::decode::decode(&t.bytes()[..], &mut |e| match e {
            ftl::decode::Event::Atrace { ts_ns, event, .. } => {
                seen.push(format!("{event:?} at {ts_ns}"))
            }
            ftl::decode::Event::Process { pid, .. } => seen.push(format!("process {pid}")),
            _ => {}
        })
        .unwrap();
        (seen, summary)
    };
    let (seen, summary) = waiting(&|t| {
        t.clock_snapshot(&[(MONOTONIC_RAW, 0), (ftl::decode::BOOTTIME, 5_000 * MS)])
            .atrace(7_000 * MS, 1, "E|1");
    });
    let begin = ftl::decode::Atrace::Begin {
        tgid: 1,
        name: "DrawFrame 7".into(),
    };
    let end = ftl::decode::Atrace::End { tgid: 1 };
    assert_eq!(
        seen,
        [
            "process 5".to_string(),
            format!("{begin:?} at {}", 6_000 * MS),
            format!("{end:?} at {}", 7_000 * MS),
        ]
    );
    assert_eq!(
        (summary.atrace_lines, summary.atrace_parse_failures),
        (4, 1)
    );
    assert_eq!(summary.unconvertible_timestamps, 0);
    let (seen, summary) = waiting(&|_| {});
    assert_eq!(seen, ["process 5"]);
    assert_eq!(summary.atrace_parse_failures, 1);
    assert_eq!(
        summary.unconvertible_timestamps, 1,
        "only the kept line waited"
    );
}

/// The fields of a message as (field number, wire type, value bytes) — a varint's value is its decoded number in
/// little-endian bytes.
fn fields(msg: &[u8]) -> Vec<(u32, u8, Vec<u8>)> {
    let mut wire = WireReader::new(msg);
    let mut out = Vec::new();
    while !wire.at_eof().unwrap() {
        let (field, wire_type) = wire.key().unwrap();
        let start = wire.offset() as usize;
        let value = match wire_type {
            VARINT => wire.varint().unwrap().to_le_bytes().to_vec(),
            LEN => {
                let n = wire.varint().unwrap();
                let from = wire.offset() as usize;
                wire.skip(n).unwrap();
                msg[from..wire.offset() as usize].to_vec()
            }
            _ => {
                wire.skip_value(wire_type).unwrap();
                msg[start..wire.offset() as usize].to_vec()
            }
        };
        out.push((field, wire_type, value));
    }
    out
}

fn varint(v: &[u8]) -> u64 {
    u64::from_le_bytes(v.try_into().unwrap())
}

/// What `replicate` may change in an ftrace event's print buffer: the vsync id after these names.
fn vsync_line(buf: &[u8]) -> Option<(String, i64, String)> {
    let line = std::str::from_utf8(buf).ok()?;
    let mut parts = line.splitn(3, '|');
    let head = format!("{}|{}|", parts.next()?, parts.next()?);
    let name = parts.next()?;
    for prefix in ["Choreographer#doFrame ", "DrawFrames ", "DrawFrame "] {
        if let Some(rest) = name.strip_prefix(prefix) {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            let id = rest[..digits].parse().ok()?;
            return Some((format!("{head}{prefix}"), id, rest[digits..].to_string()));
        }
    }
    None
}

/// Counts of what copy `k` of a packet kept: (ftrace events, print events whose vsync id moved).
#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Seen {
    events: usize,
    compact_sched: usize,
    other_fields: usize,
    shifted_ids: usize,
    binder: usize,
    frame_timeline: usize,
}

/// Checks that a `compact_sched` copy has the first (absolute) delta of its switch (1) and waking (7) timestamp
/// arrays shifted by `shift`, every other byte kept.
fn check_compact_sched(original: &[u8], copy: &[u8], shift: u64) {
    let (a, b) = (fields(original), fields(copy));
    assert_eq!(a.len(), b.len(), "same compact_sched fields");
    let packed = |bytes: &[u8]| {
        let mut out = Vec::new();
        let mut rest = bytes;
        while !rest.is_empty() {
            let v = prost::encoding::decode_varint(&mut rest).expect("packed varint");
            out.push(v);
        }
        out
    };
    let mut shifted = [false; 2];
    for (x, y) in a.iter().zip(&b) {
        let array = match x.0 {
            1 => Some(0),
            7 => Some(1),
            _ => None,
        };
        match array {
            Some(i) if !shifted[i] => {
                shifted[i] = true;
                let (u, v) = (packed(&x.2), packed(&y.2));
                assert_eq!(u.len(), v.len());
                assert_eq!(v[0], u[0] + shift, "first timestamp shifted");
                assert_eq!(u[1..], v[1..], "later deltas kept");
            }
            _ => assert_eq!(x, y, "compact_sched field {} kept", x.0),
        }
    }
}

/// Checks that `copy` is `original` shifted by (`shift`, `stride`, `binder_id`): FrameTimeline timestamps and ids,
/// every ftrace event's timestamp, vsync ids in print buffers, binder debug ids; every other field identical.
fn check_copy(
    original: &[u8],
    copy: &[u8],
    (shift, stride, binder_id): (u64, i64, i32),
    seen: &mut Seen,
) {
    let (a, b) = (fields(original), fields(copy));
    assert_eq!(a.len(), b.len(), "same packet fields");
    let frame_timeline = a.iter().any(|f| f.0 == 76);
    for (fa, fb) in a.iter().zip(&b) {
        assert_eq!((fa.0, fa.1), (fb.0, fb.1), "same field order");
        match fa.0 {
            8 if frame_timeline => assert_eq!(varint(&fb.2), varint(&fa.2) + shift),
            76 => {
                seen.frame_timeline += 1;
                let (ka, kb) = (fields(&fa.2), fields(&fb.2));
                assert_eq!(ka.len(), 1);
                let kind = ka[0].0;
                let ids = match kind {
                    1 | 2 => 2,
                    3 | 4 => 3,
                    _ => 1,
                };
                for (x, y) in fields(&ka[0].2).iter().zip(&fields(&kb[0].2)) {
                    if x.0 <= ids && x.1 == VARINT {
                        assert_eq!(varint(&y.2) as i64, varint(&x.2) as i64 + stride);
                    } else {
                        assert_eq!(x, y);
                    }
                }
            }
            1 => {
                let (ba, bb) = (fields(&fa.2), fields(&fb.2));
                assert_eq!(ba.len(), bb.len(), "same bundle fields");
                for (x, y) in ba.iter().zip(&bb) {
                    if x.0 == 4 {
                        seen.compact_sched += 1;
                        check_compact_sched(&x.2, &y.2, shift);
                        continue;
                    }
                    if x.0 != 2 {
                        assert_eq!(x, y, "bundle field {} kept", x.0);
                        continue;
                    }
                    seen.events += 1;
                    let (ea, eb) = (fields(&x.2), fields(&y.2));
                    assert_eq!(ea.len(), eb.len());
                    for (u, v) in ea.iter().zip(&eb) {
                        assert_eq!((u.0, u.1), (v.0, v.1));
                        match u.0 {
                            1 => assert_eq!(varint(&v.2), varint(&u.2) + shift),
                            3 => {
                                let (pa, pb) = (fields(&u.2), fields(&v.2));
                                for (p, q) in pa.iter().zip(&pb) {
                                    match (p.0, vsync_line(&p.2)) {
                                        (2, Some((head, id, tail))) => {
                                            seen.shifted_ids += 1;
                                            let want = format!("{head}{}{tail}", id + stride);
                                            assert_eq!(q.2, want.as_bytes());
                                        }
                                        _ => assert_eq!(p, q),
                                    }
                                }
                            }
                            2 => assert_eq!(u, v),
                            50 | 51 => {
                                seen.binder += 1;
                                for (p, q) in fields(&u.2).iter().zip(&fields(&v.2)) {
                                    if p.0 == 1 {
                                        let id = (varint(&p.2) as i32).wrapping_add(binder_id);
                                        assert_eq!(varint(&q.2), i64::from(id) as u64);
                                    } else {
                                        assert_eq!(p, q);
                                    }
                                }
                            }
                            _ => {
                                seen.other_fields += 1;
                                assert_eq!(u, v, "payload of event field {}", u.0);
                            }
                        }
                    }
                }
            }
            _ => assert_eq!(fa, fb, "packet field {} kept", fa.0),
        }
    }
}

#[test]
fn replicate_shifts_ftrace_and_vsync_ids_of_a_real_trace_and_keeps_every_other_byte() {
    const COPIES: u64 = 3;
    const SHIFT: u64 = 60_000_000_000;
    const STRIDE: i64 = 1 << 32;
    const BINDER_STRIDE: i32 = 1 << 20;
    let path = shared().join("traces/pixel6a_a13_startup_warm_60hz.perfetto-trace");
    let original = std::fs::read(&path).unwrap();
    let mut replica = Vec::new();
    ftl::synth::replicate(
        &original,
        COPIES,
        SHIFT,
        STRIDE,
        ftl::synth::Copies::Whole,
        &mut replica,
    )
    .unwrap();

    // Packet by packet: copy k is the original shifted by k.
    let (a, b) = (
        split_packets(&original).unwrap(),
        split_packets(&replica).unwrap(),
    );
    assert_eq!(b.len(), a.len() * COPIES as usize);
    let mut per_copy = Vec::new();
    for k in 0..COPIES as usize {
        let mut seen = Seen::default();
        for (i, packet) in a.iter().enumerate() {
            let copy = b[k * a.len() + i];
            if k == 0 {
                assert_eq!(*packet, copy, "copy 0 is the original");
            }
            let by = (
                k as u64 * SHIFT,
                k as i64 * STRIDE,
                k as i32 * BINDER_STRIDE,
            );
            check_copy(packet, copy, by, &mut seen);
        }
        per_copy.push(seen);
    }
    // Copy 0 is identical, so its "shifted" ids are the frame lines themselves.
    let seen = per_copy[0];
    assert!(per_copy.iter().all(|s| *s == seen), "{per_copy:?}");
    assert!(seen.events > 10_000, "{seen:?}");
    assert!(
        seen.other_fields > 1_000,
        "sched and other event payloads: {seen:?}"
    );
    assert!(seen.shifted_ids > 10, "{seen:?}");
    assert!(seen.frame_timeline > 10, "{seen:?}");
    assert!(seen.compact_sched > 100, "{seen:?}");
    assert!(seen.binder > 100, "{seen:?}");
    // Sizes: copy 0 is the original; a later copy differs by the rewritten varints only (lengths keep the
    // original's padded width).
    assert_eq!(&replica[..original.len()], &original[..]);
    let later = (replica.len() - original.len()) as f64 / (COPIES - 1) as f64;
    let ratio = later / original.len() as f64;
    assert!((0.999..1.001).contains(&ratio), "{ratio}");

    // The app frames of copy k are the original's, k × stride ids and k × shift later.
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(&replica).unwrap();
    file.flush().unwrap();
    let table =
        |p: &std::path::Path| parse_csv(&ftl_ok(&["table", p.to_str().unwrap(), "android_frames"]));
    let (header, rows) = table(&path);
    let (replica_header, replica_rows) = table(file.path());
    assert_eq!(header, replica_header);
    assert!(rows.len() >= 5, "{rows:?}");
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (id, ts) = (col("frame_id"), col("ts"));
    let mut want = Vec::new();
    for k in 0..COPIES as i64 {
        for row in &rows {
            let mut row = row.clone();
            row[id] = (row[id].parse::<i64>().unwrap() + k * STRIDE).to_string();
            row[ts] = (row[ts].parse::<i64>().unwrap() + k * SHIFT as i64).to_string();
            want.push(row);
        }
    }
    assert_eq!(replica_rows, want);

    // Same for the sections and threads the library reads.
    let (one, three) = (
        ftl::load_path(&path).unwrap(),
        ftl::load_path(file.path()).unwrap(),
    );
    let (one, three) = (&one.timeline.app, &three.timeline.app);
    assert_eq!(three.sections.len(), 3 * one.sections.len());
    assert_eq!(three.async_sections.len(), 3 * one.async_sections.len());
    assert_eq!(three.lines, 3 * one.lines);
    // Every thread keeps its process and name. The replica may know more names: ftl reads a thread's scheduler
    // names from its first kept atrace line or binder event on, and the later copies' scheduler events come after
    // the first copy's (so such a thread may also end with a later name).
    let mut scheduler_named: std::collections::BTreeSet<i32> =
        one.sections.iter().map(|s| s.tid).collect();
    let bytes = std::fs::read(&path).unwrap();
    ftl::decode::decode(&bytes[..], &mut |e| {
        if let ftl::decode::Event::Binder { tid, .. } = e {
            scheduler_named.insert(tid);
        }
    })
    .unwrap();
    for (tid, info) in &one.threads {
        let other = &three.threads[tid];
        assert_eq!(info.pid, other.pid, "thread {tid}");
        if info.name.is_some() && !scheduler_named.contains(tid) {
            assert_eq!(info.name, other.name, "thread {tid}");
        }
    }
    assert!(three.threads.len() >= one.threads.len());
}

/// A FrameTimeline-only replica (the throughput benchmark's FrameTimeline-dense input): copy 0 is the original,
/// every later copy holds exactly the FrameTimeline packets of a whole replica's same copy, and the replica loads
/// as that many copies of the original's slices.
#[test]
fn frame_timeline_only_replica_keeps_only_the_later_copies_frame_timeline_packets() {
    use ftl::synth::Copies;
    const COPIES: u64 = 3;
    let path = shared().join("traces/pixel7pro_a13_nowinandroid_launch_120hz.perfetto-trace");
    let original = std::fs::read(&path).unwrap();
    let replica = |later| {
        let mut out = Vec::new();
        ftl::synth::replicate(&original, COPIES, 60_000_000_000, 1 << 32, later, &mut out).unwrap();
        out
    };
    let (whole, frame_timeline) = (replica(Copies::Whole), replica(Copies::FrameTimelineOnly));
    let packets = split_packets(&original).unwrap();
    let (whole, dense) = (
        split_packets(&whole).unwrap(),
        split_packets(&frame_timeline).unwrap(),
    );
    let is_frame_timeline = |p: &[u8]| fields(p).iter().any(|(field, _, _)| *field == 76);
    let frame_packets = packets.iter().filter(|p| is_frame_timeline(p)).count();
    assert!(frame_packets > 1_000 && frame_packets < packets.len());
    assert_eq!(
        dense[..packets.len()],
        packets[..],
        "copy 0 is the original"
    );
    let later: Vec<&[u8]> = whole[packets.len()..]
        .iter()
        .copied()
        .filter(|p| is_frame_timeline(p))
        .collect();
    assert_eq!(dense[packets.len()..], later[..]);
    assert_eq!(later.len(), (COPIES as usize - 1) * frame_packets);

    let (one, dense) = (load(&original).timeline, load(&frame_timeline).timeline);
    assert_eq!(dense.actual.len(), COPIES as usize * one.actual.len());
    assert_eq!(dense.expected.len(), COPIES as usize * one.expected.len());
    assert_eq!(dense.stats.unpaired_ends, one.stats.unpaired_ends);
}

/// Decoding on a thread of its own (`decode_beside`, what `ftl` runs) gives the events and summary of decoding in
/// line, and bundles read in place or copied because they straddle the reader's buffers decode alike: on every
/// real trace, through a whole-file slice and through a 1,000-byte buffered reader.
#[test]
fn decoding_beside_and_through_small_buffers_gives_the_same_events() {
    let keep = |name: &[u8]| ftl::model::SectionFilter::default().keeps_bytes(name);
    for (_, file) in crate::common::REAL_TRACES {
        let bytes = std::fs::read(crate::common::shared().join("traces").join(file)).unwrap();
        let mut inline = Vec::new();
        let summary =
            ftl::decode::decode_keeping(&bytes[..], &keep, &mut |e| inline.push(e)).unwrap();
        assert!(
            summary.atrace_lines > 0 || !file.starts_with("pixel6a"),
            "{file}"
        );
        let mut beside = Vec::new();
        let small = std::io::BufReader::with_capacity(1000, &bytes[..]);
        let summary_beside =
            ftl::decode::decode_beside(small, &keep, &mut |e| beside.push(e)).unwrap();
        assert_eq!(summary_beside, summary, "{file}");
        assert_eq!(beside.len(), inline.len(), "{file}");
        assert!(beside == inline, "{file}: events differ");
    }
}

/// When the taker of `decode_beside`'s batches stalls, the decoding thread runs ahead until its batches wait,
/// then parses the atrace lines and process trees of the next batches itself: the events and summary are those
/// of decoding in line.
#[test]
fn decoding_beside_a_stalled_taker_gives_the_same_events() {
    let mut t = TraceBuilder::new();
    for i in 0..20_000u64 {
        let tid = 100 + (i % 3) as i32;
        t.begin(i * MS, tid, APP_PID, &format!("DrawFrame {i}"))
            .atrace(i * MS, tid, "not an atrace line")
            .end(i * MS + 1, tid, APP_PID);
        if i % 1000 == 0 {
            t.process(i as i32, &format!("p{i}"), None);
        }
    }
    let bytes = t.bytes();
    let keep = |name: &[u8]| ftl::model::SectionFilter::default().keeps_bytes(name);
    let mut inline = Vec::new();
    let summary = ftl::decode::decode_keeping(&bytes[..], &keep, &mut |e| inline.push(e)).unwrap();
    assert_eq!(summary.atrace_parse_failures, 20_000);
    let mut stalled = Vec::new();
    let summary_stalled = ftl::decode::decode_beside(&bytes[..], &keep, &mut |e| {
        if stalled.is_empty() {
            std::thread::sleep(std::time::Duration::from_millis(300));
        }
        stalled.push(e)
    })
    .unwrap();
    assert_eq!(summary_stalled, summary);
    assert_eq!(stalled.len(), inline.len());
    assert!(stalled == inline, "events differ after a stall");
}
