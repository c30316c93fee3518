//! Bad input: every case gets a one-line message naming the file and the cause, a non-zero exit code, and
//! never a panic.

use crate::common::{ftl, random_bytes, shared};
use std::path::Path;

/// Runs `ftl analyze` on `path`, asserting a clean failure whose one-line message names the file and contains
/// `cause`.
fn assert_clean_failure(path: &Path, cause: &str) {
    let out = ftl(&["analyze", path.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(2),
        "exit code for {}: {stderr}",
        path.display()
    );
    assert!(!stderr.contains("panicked"), "panic: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    assert!(
        stderr.contains(&path.display().to_string()),
        "names the file: {stderr}"
    );
    assert!(stderr.contains(cause), "says '{cause}': {stderr}");
}

/// `frames` writes rows as the analysis makes them, but opens its output only once the trace is loaded: an input
/// that is not a trace (or a trace without FrameTimeline) fails cleanly and leaves no file behind.
#[test]
fn frames_of_a_bad_input_leaves_no_output_file() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.pftrace");
    std::fs::write(&bad, random_bytes(7, 4096)).unwrap();
    for format in ["csv", "parquet"] {
        let out = dir.path().join(format!("frames.{format}"));
        let run = ftl(&[
            "frames",
            bad.to_str().unwrap(),
            "--format",
            format,
            "-o",
            out.to_str().unwrap(),
        ]);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(bad.to_str().unwrap()), "{stderr}");
        assert!(!out.exists(), "{} was created", out.display());
    }
}

#[test]
fn empty_file() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("empty.pftrace");
    std::fs::write(&p, b"").unwrap();
    assert_clean_failure(&p, "empty file");
}

#[test]
fn text_file_is_not_a_trace() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("notes.txt");
    std::fs::write(&p, "hello, this is not a trace\n").unwrap();
    assert_clean_failure(&p, "unknown content: expected a Perfetto trace");
}

#[test]
fn random_bytes_are_not_a_trace() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("random.bin");
    std::fs::write(&p, random_bytes(0x9E37_79B9_7F4A_7C15, 4096)).unwrap();
    let out = ftl(&["analyze", p.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        !stderr.contains("panicked") && stderr.contains("random.bin"),
        "{stderr}"
    );
}

#[test]
fn corrupt_gzip_is_a_clean_error() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("broken.gz");
    std::fs::write(
        &p,
        [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0xde, 0xad, 0xbe, 0xef],
    )
    .unwrap();
    let out = ftl(&["analyze", p.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        !stderr.contains("panicked") && stderr.contains("broken.gz"),
        "{stderr}"
    );
}

#[test]
fn trace_without_frame_timeline_says_how_to_record_it() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("no_ft.pftrace");
    let mut t = ftl::synth::TraceBuilder::new();
    t.process(1, "/init", Some(0))
        .system_info("x/y/z:14/A/1:user/k", 34);
    std::fs::write(&p, t.bytes()).unwrap();
    assert_clean_failure(&p, "android.surfaceflinger.frametimeline");
}

#[test]
fn directory_and_missing_file() {
    let dir = tempfile::tempdir().unwrap();
    assert_clean_failure(dir.path(), "is a directory");
    assert_clean_failure(&dir.path().join("nope.pftrace"), "No such file");
}

#[test]
fn truncated_real_trace_reports_what_was_read() {
    let bytes = std::fs::read(
        shared().join("traces/pixel7pro_a13_nowinandroid_launch_120hz.perfetto-trace"),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("cut.perfetto-trace");
    let cut = bytes.len() * 2 / 3 + 7;
    std::fs::write(&p, &bytes[..cut]).unwrap();
    let out = ftl(&["analyze", p.to_str().unwrap(), "--format", "json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let at = report["diagnostics"]["truncated_at_byte"]
        .as_u64()
        .expect("truncation reported");
    assert!(at < cut as u64);
    assert!(report["trace"]["surface_frames"].as_u64().unwrap() > 0);
}

#[test]
fn truncated_head_of_a_trace_is_a_clean_error() {
    // The first 3000 bytes hold no FrameTimeline event: say so, don't panic.
    let bytes =
        std::fs::read(shared().join("traces/emulator_a12_cpu_sampling_60hz.pftrace")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("head.pftrace");
    std::fs::write(&p, &bytes[..3000]).unwrap();
    assert_clean_failure(&p, "no FrameTimeline events");
    assert_clean_failure(
        &p,
        "the file is truncated: it ends inside the packet at byte",
    );
}

#[test]
fn corruption_inside_packets_is_counted_not_fatal() {
    // Flip the bytes of one FrameTimeline packet's payload: the framing stays intact.
    let mut t = on_time(10);
    t.frame_event(
        5,
        None,
        &ftl::decode::FrameTimelineEvent::End {
            cookie: Some(99_999),
        },
    );
    let mut bytes = t.bytes();
    let packets = ftl::synth::split_packets(&bytes).unwrap();
    let last = packets.last().unwrap();
    let offset = last.as_ptr() as usize - bytes.as_ptr() as usize;
    let len = last.len();
    for b in &mut bytes[offset..offset + len] {
        *b = 0xff;
    }
    let trace = ftl::load_path(&write_tmp(&bytes)).unwrap();
    assert_eq!(trace.decode.malformed_packets, 1);
}

#[test]
fn a_field_running_past_its_packet_is_malformed_and_the_next_packets_are_read() {
    let good = on_time(10).bytes();
    let alone = ftl::load_path(&write_tmp(&good)).unwrap();
    // A 3-byte packet whose timestamp varint (field 8) is still open at the packet's end, then the trace.
    let mut bytes = vec![0x0a, 3, 0x40, 0x80, 0x80];
    bytes.extend(&good);
    let trace = ftl::load_path(&write_tmp(&bytes)).unwrap();
    assert_eq!(trace.decode.malformed_packets, 1);
    assert_eq!(trace.decode.packets, alone.decode.packets + 1);
    assert_eq!(trace.timeline.actual, alone.timeline.actual);
    assert_eq!(trace.timeline.expected, alone.timeline.expected);
}

#[test]
fn lengths_past_any_file_are_malformed_or_truncated_not_a_crash() {
    let good = on_time(10).bytes();
    // A 14-byte packet whose SystemInfo field (45, length-delimited) claims u64::MAX bytes: offset + length
    // overflowed (a fuzzer's find). The packet is malformed; the trace goes on.
    let mut field_overflow = good.clone();
    field_overflow.extend([0x0a, 14, 0xea, 0x02]);
    field_overflow.extend([0xff; 9]);
    field_overflow.extend([0x01, 0, 0]);
    let trace = ftl::load_path(&write_tmp(&field_overflow)).unwrap();
    assert_eq!(trace.decode.malformed_packets, 1);
    assert_eq!(trace.decode.truncated_at, None);
    // A 256 MiB packet whose field claims 2⁶² bytes, or 255 MiB, in a file that ends there: truncated either
    // way, without reserving the claimed bytes first.
    let packet = [0x0a, 0x80, 0x80, 0x80, 0x80, 0x01, 0xea, 0x02];
    let huge: [&[u8]; 2] = [
        &[0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40],
        &[0x80, 0x80, 0x80, 0x7f],
    ];
    for field_len in huge {
        let mut bytes = good.clone();
        bytes.extend(packet);
        bytes.extend(field_len);
        bytes.extend([1, 2, 3]);
        let trace = ftl::load_path(&write_tmp(&bytes)).unwrap();
        assert_eq!(trace.decode.truncated_at, Some(good.len() as u64));
        // The same packet alone is not a trace: a clean error.
        assert_clean_failure(&write_tmp(&bytes[good.len()..]), "truncated");
    }
}

/// The synthetic pipeline of `slots` vsync slots, every frame on time.
fn on_time(slots: i64) -> ftl::synth::TraceBuilder {
    ftl::synth::Pipeline {
        frames: slots,
        late: vec![],
        ..Default::default()
    }
    .build()
}

fn write_tmp(bytes: &[u8]) -> std::path::PathBuf {
    let dir = tempfile::tempdir().unwrap().keep();
    let p = dir.join("t.pftrace");
    std::fs::write(&p, bytes).unwrap();
    p
}

/// Every prefix of the smallest real trace (cut at each 4 KiB boundary, and at seeded random bytes inside
/// packets) analyses to a partial report that says where the file ended, or fails with one line naming the
/// file; never a panic. With `FTL_SWEEP_ALL_TRACES` set (`fuzz/run.sh` does), every real trace is swept.
#[test]
fn every_prefix_of_a_real_trace_is_a_partial_report_or_a_clean_error() {
    let mut names = vec!["pixel7pro_a13_nowinandroid_launch_120hz.perfetto-trace"];
    if std::env::var_os("FTL_SWEEP_ALL_TRACES").is_some() {
        names.extend([
            "pixel6a_a13_startup_warm_60hz.perfetto-trace",
            "emulator_a12_cpu_sampling_60hz.pftrace",
        ]);
    }
    for name in names {
        sweep_prefixes(&std::fs::read(shared().join("traces").join(name)).unwrap());
    }
}

fn sweep_prefixes(bytes: &[u8]) {
    let packets = ftl::synth::split_packets(bytes).unwrap();
    // Where each packet's payload starts (offsets into `bytes`) and, from the seeded generator, a byte inside
    // each of 64 packets.
    let starts: Vec<usize> = packets
        .iter()
        .map(|p| p.as_ptr() as usize - bytes.as_ptr() as usize)
        .collect();
    let noise = random_bytes(0x9e37_79b9_7f4a_7c15, 64 * 8);
    let inside = noise.chunks(8).map(|c| {
        let r = u64::from_le_bytes(c.try_into().unwrap()) as usize;
        let (start, len) = {
            let i = r % packets.len();
            (starts[i], packets[i].len())
        };
        start + (r >> 20) % len.max(1)
    });
    let ends: Vec<usize> = starts
        .iter()
        .zip(&packets)
        .map(|(s, p)| s + p.len())
        .collect();
    let mut cuts: Vec<usize> = (4096..bytes.len()).step_by(4096).chain(inside).collect();
    cuts.sort_unstable();
    let dir = tempfile::tempdir().unwrap();
    // Per cut, in order: a partial report (true) or a clean error (false).
    let mut reports = Vec::new();
    for cut in cuts {
        let path = dir.path().join(format!("cut_{cut}.perfetto-trace"));
        std::fs::write(&path, &bytes[..cut]).unwrap();
        let analysed = std::panic::catch_unwind(|| {
            ftl::analyze_path(&path, &ftl::analysis::Config::default())
        })
        .unwrap_or_else(|_| panic!("panic on the first {cut} bytes"));
        match analysed {
            Ok(ftl::analysis::Analysis::Trace(report)) => {
                let at = report.diagnostics.truncated_at_byte;
                // A cut on a packet boundary is a complete (shorter) trace.
                let on_boundary = ends.contains(&cut);
                assert!(
                    at.is_some_and(|at| at < cut as u64) || on_boundary,
                    "cut at {cut}: truncated_at_byte {at:?}"
                );
                reports.push(true);
            }
            Ok(other) => panic!("cut at {cut}: read as {other:?}"),
            Err(e) => {
                let message = e.to_string();
                assert_eq!(message.lines().count(), 1, "cut at {cut}: {message}");
                assert!(
                    message.contains(&path.display().to_string()),
                    "cut at {cut}: {message}"
                );
                reports.push(false);
            }
        }
    }
    // Prefixes before the first FrameTimeline event fail (no FrameTimeline); every longer one is a report.
    let first_report = reports
        .iter()
        .position(|&r| r)
        .expect("some prefix is a report");
    assert!(
        reports[first_report..].iter().all(|&r| r),
        "a longer prefix failed after a report: {reports:?}"
    );
    assert!(first_report > 0, "the shortest prefixes hold no frames");
}

#[test]
fn events_thousands_behind_the_others_are_paired_as_if_all_were_sorted_first() {
    // 6,000 vsync slots: 48,000 FrameTimeline events, more than the model keeps back before pairing early.
    let good = on_time(6000).bytes();
    // An early actual SurfaceFrame start moved to the end of the file, its timestamp kept: Perfetto sorts it
    // back before its FrameEnd.
    let packets = ftl::synth::split_packets(&good).unwrap();
    let is_actual_start = |packet: &[u8]| {
        let mut framed = vec![0x0a];
        prost::encoding::encode_varint(packet.len() as u64, &mut framed);
        framed.extend_from_slice(packet);
        let mut found = false;
        ftl::decode::decode(&framed[..], &mut |e| {
            found |= matches!(e, ftl::decode::Event::FrameTimeline {
                event: ftl::decode::FrameTimelineEvent::Start(s), ..
            } if s.kind == ftl::decode::SliceKind::ActualSurfaceFrame)
        })
        .unwrap();
        found
    };
    let k = (packets.len() / 10..)
        .find(|&i| is_actual_start(packets[i]))
        .unwrap();
    let mut moved = Vec::new();
    for p in packets[..k]
        .iter()
        .chain(&packets[k + 1..])
        .chain([&packets[k]])
    {
        moved.push(0x0a);
        prost::encoding::encode_varint(p.len() as u64, &mut moved);
        moved.extend_from_slice(p);
    }
    let mut early = ftl::model::TimelineBuilder::new();
    ftl::decode::decode(&moved[..], &mut |e| early.push(e)).unwrap();
    assert!(early.paired_out_of_order(), "the case needs the fallback");
    let want = ftl::load_path(&write_tmp(&good)).unwrap().timeline;
    let got = ftl::load_path(&write_tmp(&moved)).unwrap().timeline;
    assert_eq!(got.stats, want.stats);
    assert_eq!(got.stats.unpaired_ends, 0);
    assert_eq!(got.actual, want.actual);
    assert_eq!(got.expected, want.expected);
}

/// The device's own failure lines (AOSP `ActivityManagerService.dumpGraphicsHardwareUsage`,
/// `DumpUtils.checkDumpPermission`): a file holding only such a failure is recognised, and `analyze` exits 2
/// quoting the device's words and saying what to do; `batch` gives the row that error.
#[test]
fn the_devices_own_gfxinfo_failures_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "Applications Graphics Acceleration Info:\nUptime: 1 Realtime: 2\n\n\
             ** Graphics info for pid 123 [com.example] **\n\
             Failure while dumping the app: ProcessRecord{1a2b3c 123:com.example/u0a77}\n",
            "Failure while dumping the app: ProcessRecord{1a2b3c 123:com.example/u0a77}",
            "start the app again",
        ),
        (
            "No process found for: com.example\n",
            "No process found for: com.example",
            "the app was not running",
        ),
        (
            "Permission Denial: can't dump gfxinfo from from pid=4242, uid=10077 due to missing \
             android.permission.DUMP permission\n",
            "Permission Denial: can't dump gfxinfo from from pid=4242",
            "android.permission.DUMP",
        ),
    ];
    for (i, (body, words, advice)) in cases.iter().enumerate() {
        let path = dir.path().join(format!("failed{i}.txt"));
        std::fs::write(&path, body).unwrap();
        assert_clean_failure(&path, words);
        assert_clean_failure(&path, advice);
        let out = ftl(&["batch", "--format", "json", "-q", path.to_str().unwrap()]);
        let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let status = rows[0]["status"].as_str().unwrap_or_default();
        assert!(status.contains(words), "batch row: {rows}");
    }
}

/// When other processes were dumped, a failed one is a diagnostic with its line, not an error.
#[test]
fn a_failed_process_beside_a_dumped_one_is_a_diagnostic() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mixed.txt");
    std::fs::write(
        &path,
        "Applications Graphics Acceleration Info:\n\n** Graphics info for pid 1 [a] **\n\
         Failure while dumping the app: ProcessRecord{1 1:a/u0a1}\n\n** Graphics info for pid 2 [b] **\n\
         Stats since: 5ns\nTotal frames rendered: 0\nJanky frames: 0 (0.00%)\n",
    )
    .unwrap();
    let out = ftl(&["analyze", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.status.code(), Some(0));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let diag = report["diagnostics"].as_object().unwrap();
    let (what, n) = diag
        .iter()
        .find(|(k, _)| k.contains("Failure while dumping the app"))
        .expect("the failure noted");
    assert!(what.contains("start the app again"), "{what}");
    assert_eq!(n["lines"][0], 4);
}

/// `dumpsys SurfaceFlinger --latency` with only its period line: the layer name matched no layer.
#[test]
fn a_latency_dump_with_only_its_period_line_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("period_only.txt");
    std::fs::write(&path, "16666666\n").unwrap();
    assert_clean_failure(&path, "16666666");
    assert_clean_failure(&path, "matched no layer");
}
