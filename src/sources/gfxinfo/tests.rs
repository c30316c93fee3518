//! Unit tests of the gfxinfo reader on hand-made dumps and the real LinkADB capture.

#![allow(clippy::unwrap_used)]

use super::parser::{unknown_column, EMPTY_BLOCK, MERGED};
use super::*;
use crate::analysis::janktracker::{equals_printed, recompute, JankTrackerNumbers};
use crate::error::{Error, Result};
use crate::model::Source;
use std::path::Path;

const HEADER12: &str = "Flags,FrameTimelineVsyncId,IntendedVsync,Vsync,InputEventId,HandleInputStart,\
    AnimationStart,PerformTraversalsStart,DrawStart,FrameDeadline,FrameInterval,FrameStartTime,SyncQueued,\
    SyncStart,IssueDrawCommandsStart,SwapBuffers,FrameCompleted,DequeueBufferDuration,QueueBufferDuration,\
    GpuCompleted,SwapBuffersCompleted,DisplayPresentTime,CommandSubmissionCompleted,";

/// A 12+ row (labels swapped as on 12–14: the `FrameInterval` column holds the start time), times in ms.
fn row12(flags: i64, iv: i64, deadline: i64, fc: i64, present: i64) -> String {
    let t = |ms: i64| 1_000_000_000_000 + ms * 1_000_000;
    format!(
        "{flags},1,{},{},0,{},{},{},{},{},{},16000000,{},{},{},{},{},100,100,{},{},{},{},",
        t(iv),
        t(iv),
        t(iv),
        t(iv),
        t(iv),
        t(iv),
        t(deadline),
        t(iv),
        t(iv + 1),
        t(iv + 1),
        t(iv + 2),
        t(fc - 1),
        t(fc),
        t(fc),
        t(fc),
        present,
        t(fc)
    )
}

fn dump(rows: &[String]) -> String {
    format!(
        "Applications Graphics Acceleration Info:\r\n** Graphics info for pid 42 [com.example] **\r\n\r\n\
         Stats since: 5ns\r\nTotal frames rendered: 3\r\nJanky frames: 1 (33.33%)\r\n50th percentile: 9ms\r\n\
         Profile data in ms:\r\n\r\n\tcom.example/com.example.Main/android.view.ViewRootImpl@1 (visibility=0)\r\n\
         Window: com.example/com.example.Main\r\nStats since: 6ns\r\nTotal frames rendered: 3\r\n\r\n\
         ---PROFILEDATA---\r\n{HEADER12}\r\n{}\r\n---PROFILEDATA---\r\n\r\n\
         \tToast/android.view.ViewRootImpl@2 (visibility=8)\r\nWindow: Toast\r\nStats since: 7ns\r\n\
         Total frames rendered: 0\r\n50th percentile: 4950ms\r\n---PROFILEDATA---\r\n{HEADER12}\r\n\
         ---PROFILEDATA---\r\n\r\nView hierarchy:\r\n\r\n  com.example/com.example.Main/android.view.ViewRootImpl@1\r\n",
        rows.join("\r\n")
    )
}

fn parse(text: &str, options: &Options) -> Result<GfxinfoCapture> {
    read(text.as_bytes(), Path::new("t.txt"), options)
}

fn three_rows() -> Vec<String> {
    let present = |ms: i64| 1_000_000_000_000 + ms * 1_000_000;
    vec![
        row12(0, 0, 16, 10, present(20)),
        row12(0, 16, 32, 40, present(50)),
        row12(4, 32, 48, 70, 0),
    ]
}

#[test]
fn hand_made_dump_reads_windows_summaries_and_rows() {
    let text = format!("\u{feff}{}", dump(&three_rows()));
    assert!(looks_like(&text));
    let cap = parse(&text, &Options::default()).unwrap();
    assert_eq!(cap.processes.len(), 1);
    let p = &cap.processes[0];
    assert_eq!(
        (p.pid, p.process_name.as_deref()),
        (Some(42), Some("com.example"))
    );
    assert_eq!(p.summary.as_ref().unwrap().janky_pct, Some(33.33));
    assert_eq!(p.windows.len(), 2);
    let w = &p.windows[0];
    assert_eq!(w.name, "com.example/com.example.Main");
    assert_eq!(w.summary.as_ref().unwrap().stats_since_ns, Some(6));
    assert_eq!(w.rows.len(), 3);
    assert!(w.interval_labels_swapped);
    assert_eq!(w.rows[0].frame_interval_ns, Some(16_000_000));
    assert_eq!(w.rows[0].frame_start_time_ns, Some(1_000_000_000_000));
    assert_eq!((w.rows[2].flags, w.rows[2].line), (4, 19));
    let toast = &p.windows[1];
    assert_eq!(toast.name, "Toast");
    assert_eq!(
        toast.summary.as_ref().unwrap().total_frames_rendered,
        Some(0)
    );
    assert_eq!(toast.summary.as_ref().unwrap().percentile_50_ms, Some(4950));
    assert!(toast.rows.is_empty() && !toast.columns.is_empty());
    // GPU done at FrameCompleted: row 2 (40 >= 32) is janky, row 3 is SurfaceCanvas.
    let n = recompute(&w.rows, None);
    assert_eq!((n.total_frames, n.janky_frames), (Some(3), Some(1)));
    let s = w.series(p.pid, p.process_name.as_deref());
    assert_eq!(
        (s.source, s.layer_name.as_str()),
        (Source::Gfxinfo, "com.example/com.example.Main")
    );
    assert_eq!(
        (s.period_ns, s.period_from),
        (Some(16_000_000), "FrameInterval")
    );
    assert_eq!(s.presents_from, "DisplayPresentTime");
    assert_eq!(s.frames.get(2).unwrap().present_ns, None);
    assert_eq!(
        s.frames.get(1).unwrap().expected_end_ns,
        Some(1_000_000_000_000 + 32_000_000)
    );
    assert_eq!(cap.series().len(), 1);
}

#[test]
fn flagged_rows_dropped_only_on_request() {
    let cap = parse(
        &dump(&three_rows()),
        &Options {
            drop_flagged_rows: true,
        },
    )
    .unwrap();
    assert_eq!(cap.processes[0].windows[0].rows.len(), 2);
    assert_eq!(
        cap.diagnostics
            .count("rows with Flags != 0 dropped (drop_flagged_rows)"),
        1
    );
}

#[test]
fn a_frame_in_two_concatenated_dumps_is_one_frame() {
    let rows = three_rows();
    let first = dump(&rows[..2]);
    let second = dump(&rows[1..]);
    let cap = parse(&format!("{first}{second}"), &Options::default()).unwrap();
    assert_eq!(cap.processes.len(), 1);
    let w = &cap.processes[0].windows[0];
    let ivs: Vec<i64> = w.rows.iter().map(|r| r.intended_vsync_ns).collect();
    assert_eq!(
        ivs,
        vec![1_000_000_000_000, 1_000_016_000_000, 1_000_032_000_000]
    );
    assert_eq!(cap.diagnostics.count(MERGED), 1);
}

#[test]
fn header_without_intended_vsync_is_an_error_with_its_line() {
    let text = "---PROFILEDATA---\nFlags,Vsync,SyncQueued,SyncStart,IssueDrawCommandsStart,FrameCompleted,\n";
    let err = parse(text, &Options::default()).unwrap_err();
    match err {
        Error::Capture { line, cause, .. } => {
            assert_eq!(line, 2);
            assert!(cause.contains("IntendedVsync"), "{cause}");
        }
        other => panic!("{other}"),
    }
}

#[test]
fn short_and_non_numeric_rows_are_counted() {
    let mut rows = three_rows();
    rows.insert(1, "0,1,2,3,".to_string());
    rows.insert(2, rows[0].replace(",100,100,", ",x,100,"));
    let cap = parse(&dump(&rows), &Options::default()).unwrap();
    assert_eq!(cap.processes[0].windows[0].rows.len(), 3);
    let d = &cap.diagnostics;
    assert_eq!(
        d.counts["PROFILEDATA rows with fewer fields than the header skipped"].lines,
        vec![18]
    );
    assert_eq!(
        d.counts["PROFILEDATA rows with a non-numeric field skipped"].lines,
        vec![19]
    );
}

#[test]
fn pre12_block_without_deadline_or_presents() {
    let header = "Flags,IntendedVsync,Vsync,OldestInputEvent,NewestInputEvent,HandleInputStart,AnimationStart,\
                  PerformTraversalsStart,DrawStart,SyncQueued,SyncStart,IssueDrawCommandsStart,SwapBuffers,\
                  FrameCompleted,";
    let row = |iv: i64| {
        let v: Vec<String> = (0..13).map(|k| (iv + k * 1_000_000).to_string()).collect();
        format!("0,{},", v.join(","))
    };
    let text = format!(
        "\tapp/Main/android.view.ViewRootImpl@3 (visibility=0)\n---PROFILEDATA---\n{header}\n{}\n{}\n{}\n\
         ---PROFILEDATA---\n",
        row(100_000_000_000),
        row(100_016_600_000),
        row(100_050_000_000)
    );
    let cap = parse(&text, &Options::default()).unwrap();
    let p = &cap.processes[0];
    assert_eq!((p.pid, p.windows[0].name.as_str()), (None, "app/Main"));
    let s = p.windows[0].series(None, None);
    assert_eq!(
        (s.period_ns, s.period_from),
        (Some(16_600_000), "smallest IntendedVsync delta")
    );
    assert_eq!(
        s.presents_from,
        "FrameCompleted (no present times in this capture)"
    );
    assert_eq!(s.frames.get(0).unwrap().present_ns, Some(100_012_000_000));
    assert_eq!(s.frames.get(0).unwrap().expected_end_ns, None);
}

#[test]
fn nothing_recognisable_is_an_error_for_the_whole_file() {
    let err = parse("hello\nworld\n", &Options::default()).unwrap_err();
    assert!(matches!(err, Error::Capture { line: 0, .. }), "{err}");
    assert!(!looks_like("hello"));
}

#[test]
fn garbage_never_panics() {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let pieces = [
        "---PROFILEDATA---\n",
        HEADER12,
        "\n",
        "** Graphics info for pid 1 [a] **\n",
        "Window: w\n",
        "HISTOGRAM: 5ms=1 x=y 6ms=\n",
        "Janky frames: (%)\n",
        "Number : \n",
        "\tw/android.view.ViewRootImpl@1 (visibility=0)\n",
        "1,2,3,-9223372036854775808,9223372036854775807,",
        ",,,,\n",
        "Stats since: nsns\n",
    ];
    for _ in 0..300 {
        let mut bytes = Vec::new();
        for _ in 0..(next() % 40) {
            if next() % 3 == 0 {
                bytes.extend((0..next() % 20).map(|_| next() as u8));
            } else {
                bytes.extend_from_slice(pieces[(next() % pieces.len() as u64) as usize].as_bytes());
            }
        }
        if let Ok(cap) = read(&bytes[..], Path::new("g"), &Options::default()) {
            for p in &cap.processes {
                for w in &p.windows {
                    let _ = recompute(&w.rows, None);
                    let _ = w.series(p.pid, None);
                }
            }
        }
    }
}

#[test]
fn real_capture_linkadb_qq() {
    let bytes =
        std::fs::read("../shared/text/linkadb_qq_gfxinfo_framestats.utf16le_crlf.txt").unwrap();
    let units: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect();
    let text = String::from_utf16(&units).unwrap();
    assert!(looks_like(&text[..text.len().min(65536)]));
    let cap = parse(&text, &Options::default()).unwrap();
    assert_eq!(cap.processes.len(), 1);
    let p = &cap.processes[0];
    assert_eq!(
        (p.pid, p.process_name.as_deref()),
        (Some(13893), Some("com.tencent.mobileqq"))
    );
    let s = p.summary.as_ref().unwrap();
    assert_eq!(
        (s.total_frames_rendered, s.janky_frames, s.janky_pct),
        (Some(188), Some(25), Some(13.30))
    );
    assert_eq!(
        (s.janky_frames_legacy, s.janky_legacy_pct),
        (Some(35), Some(18.62))
    );
    let pct = (
        s.percentile_50_ms,
        s.percentile_90_ms,
        s.percentile_95_ms,
        s.percentile_99_ms,
    );
    assert_eq!(pct, (Some(8), Some(42), Some(73), Some(550)));
    assert_eq!(s.histogram.len(), 154);
    assert_eq!(s.histogram.iter().map(|e| e.1).sum::<u64>(), 188);
    assert_eq!(s.gpu_histogram.len(), 26);
    let dumped = JankTrackerNumbers::from(s);
    assert_eq!(
        (
            dumped.missed_deadline_count,
            dumped.high_input_latency_count
        ),
        (Some(25), Some(265))
    );
    assert_eq!(p.windows.len(), 2);
    let w = &p.windows[0];
    assert_eq!(
        w.name,
        "com.tencent.mobileqq/com.tencent.mobileqq.activity.Alias5SplashActivity"
    );
    assert_eq!(w.summary.as_ref().unwrap().total_frames_rendered, Some(188));
    // 120 rows printed; line 172 is a frame HWUI had not finished (its FrameCompleted, 4 s before its
    // IntendedVsync, is a stale value of the slot's previous frame): left out, its line in the diagnostics.
    assert_eq!((w.rows.len(), w.unfinished_rows), (119, 1));
    assert_eq!(
        cap.diagnostics.counts[Unfinished::NotCompleted.diagnostic()].lines,
        vec![172]
    );
    assert!(w.unknown_columns.is_empty());
    assert!(w.interval_labels_swapped);
    assert!(w.rows.iter().all(|r| r
        .frame_interval_ns
        .is_some_and(|v| INTERVAL_RANGE_NS.contains(&v))));
    assert!(w
        .rows
        .iter()
        .all(|r| r.frame_start_time_ns.is_some_and(|v| v > 1_000_000_000_000)));
    let toast = &p.windows[1];
    assert_eq!(toast.name, "Toast");
    let ts = toast.summary.as_ref().unwrap();
    assert_eq!(
        (ts.total_frames_rendered, ts.percentile_99_ms),
        (Some(0), Some(4950))
    );
    assert!(toast.rows.is_empty());
    let series = w.series(p.pid, p.process_name.as_deref());
    assert_eq!(series.presents_from, "DisplayPresentTime");
    assert_eq!(series.period_from, "FrameInterval");
    assert!(series
        .period_ns
        .is_some_and(|v| (16_000_000..17_000_000).contains(&v)));
    let n = recompute(&w.rows, None);
    eprintln!(
        "recomputed: {n:?}\ndiagnostics: {:?}\nperiod: {:?}",
        cap.diagnostics, series.period_ns
    );
    assert_eq!(n.total_frames, Some(119));
    let janky = n.janky_frames.unwrap();
    assert!(janky <= 25 && n.missed_deadline_count == Some(janky));
    let p50 = n.frame_time_ms_p50.unwrap();
    assert!((5..=12).contains(&p50), "{p50}");
    // The window printed 188 frames, more than its rows hold: no oracle.
    let printed = JankTrackerNumbers::from(w.summary.as_ref().unwrap());
    assert_eq!(equals_printed(&n, &printed, w.rows.len()), None);
}

/// `T` + `ms` milliseconds, ns.
fn at(ms: i64) -> i64 {
    1_000_000_000_000 + ms * 1_000_000
}

/// A PROFILEDATA row for `header` (names as printed, trailing comma allowed): each column takes the value named
/// in `values`, 0 otherwise.
fn row_for(header: &str, values: &[(&str, i64)]) -> String {
    let fields: Vec<String> = header
        .split(',')
        .filter(|c| !c.is_empty())
        .map(|c| {
            let v = values.iter().find(|(n, _)| *n == c).map_or(0, |(_, v)| *v);
            v.to_string()
        })
        .collect();
    format!("{},", fields.join(","))
}

/// The stamps of a 12+ frame, ms after `T`: intended vsync, vsync, sync queued, sync start, issue draw commands,
/// frame completed, deadline, GPU completed; the 12–14 label swap (interval under `FrameStartTime`).
fn frame12(flags: i64, ms: [i64; 8]) -> Vec<(&'static str, i64)> {
    let [iv, vsync, sq, ss, idcs, fc, deadline, gpu] = ms;
    vec![
        ("Flags", flags),
        ("FrameTimelineVsyncId", 7 + iv),
        ("IntendedVsync", at(iv)),
        ("Vsync", at(vsync)),
        ("HandleInputStart", at(vsync)),
        ("AnimationStart", at(vsync)),
        ("PerformTraversalsStart", at(vsync)),
        ("DrawStart", at(vsync)),
        ("FrameDeadline", at(deadline)),
        ("FrameInterval", at(vsync)),
        ("FrameStartTime", 16_000_000),
        ("SyncQueued", at(sq)),
        ("SyncStart", at(ss)),
        ("IssueDrawCommandsStart", at(idcs)),
        ("SwapBuffers", at(idcs + 1)),
        ("FrameCompleted", fc),
        ("GpuCompleted", gpu),
        ("SwapBuffersCompleted", at(idcs + 1)),
    ]
}

fn one_window(header: &str, rows: &[String]) -> String {
    format!(
        "\tapp/Main/android.view.ViewRootImpl@3 (visibility=0)\n---PROFILEDATA---\n{header}\n{}\n\
         ---PROFILEDATA---\n",
        rows.join("\n")
    )
}

#[test]
fn unfinished_and_garbage_slots_are_left_out_with_their_lines() {
    // AOSP CanvasContext::prepareTree reuses a ring-buffer slot without clearing it: until the frame is
    // finished, FrameCompleted/GpuCompleted hold the previous occupant's values (1 s earlier here) or garbage.
    let garbage = 1 << 58;
    let rows = [
        row_for(HEADER12, &frame12(0, [0, 0, 2, 2, 3, at(10), 16, at(10)])),
        row_for(
            HEADER12,
            &frame12(0, [16, 16, 18, 18, 19, at(-1000), 32, at(-1000)]),
        ),
        row_for(
            HEADER12,
            &frame12(0, [32, 32, 34, 34, 35, garbage, 48, garbage]),
        ),
        row_for(HEADER12, &frame12(8, [48, 48, 50, 50, 0, 0, 64, 0])),
    ];
    let cap = parse(&one_window(HEADER12, &rows), &Options::default()).unwrap();
    let w = &cap.processes[0].windows[0];
    assert_eq!((w.rows.len(), w.unfinished_rows), (1, 3));
    assert_eq!(w.rows[0].line, 4);
    let d = &cap.diagnostics;
    assert_eq!(
        d.counts[Unfinished::NotCompleted.diagnostic()].lines,
        vec![5, 7]
    );
    assert_eq!(
        d.counts[Unfinished::ImplausibleTime.diagnostic()].lines,
        vec![6]
    );
    let s = w.series(None, None);
    assert_eq!(s.frames.len(), 1);
    let n = recompute(&w.rows, None);
    assert_eq!((n.total_frames, n.frame_time_ms_p99), (Some(1), Some(10)));
}

#[test]
fn a_redraw_sharing_intended_vsync_is_a_second_frame() {
    // An RT-animation frame (Flags 2, AOSP CanvasContext::prepareAndDraw: IntendedVsync = Vsync = the latest
    // vsync) and the UI frame meant for the same vsync: two frames JankTracker counts, in either dump order.
    let ui = row_for(
        HEADER12,
        &frame12(0, [16, 18, 30, 31, 32, at(40), 32, at(40)]),
    );
    let rt = row_for(
        HEADER12,
        &frame12(2, [16, 16, 20, 20, 21, at(27), 32, at(27)]),
    );
    let cap = parse(&one_window(HEADER12, &[ui, rt]), &Options::default()).unwrap();
    let w = &cap.processes[0].windows[0];
    let flags: Vec<i64> = w.rows.iter().map(|r| r.flags).collect();
    assert_eq!(
        flags,
        vec![2, 0],
        "ordered by IntendedVsync, then SyncStart"
    );
    assert_eq!(cap.diagnostics.count(MERGED), 0);
    assert_eq!(recompute(&w.rows, None).total_frames, Some(2));
}

#[test]
fn a_frame_unfinished_in_one_dump_and_finished_in_the_next_is_one_finished_frame() {
    let started = frame12(0, [16, 16, 18, 18, 19, at(-1000), 32, at(-1000)]);
    let mut finished = frame12(0, [16, 16, 18, 18, 19, at(30), 48, at(29)]);
    finished.push(("DisplayPresentTime", at(40)));
    for (first, second) in [(&started, &finished), (&finished, &started)] {
        let text = format!(
            "{}{}",
            one_window(HEADER12, &[row_for(HEADER12, first)]),
            one_window(HEADER12, &[row_for(HEADER12, second)])
        );
        let cap = parse(&text, &Options::default()).unwrap();
        let w = &cap.processes[0].windows[0];
        assert_eq!((w.rows.len(), w.unfinished_rows), (1, 0));
        let kept = &w.rows[0];
        assert_eq!(
            (
                kept.frame_completed_ns,
                kept.frame_deadline_ns,
                kept.present_ns()
            ),
            (at(30), Some(at(48)), Some(at(40)))
        );
        let other_line = if kept.line == 4 { 9 } else { 4 };
        assert_eq!(cap.diagnostics.counts[MERGED].lines, vec![other_line]);
    }
}

#[test]
fn implausible_present_is_not_presented_and_span_comes_from_valid_frames() {
    let mut a = frame12(0, [0, 0, 2, 2, 3, at(10), 16, at(10)]);
    a.push(("DisplayPresentTime", at(20)));
    let mut b = frame12(0, [16, 16, 18, 18, 19, at(26), 32, at(26)]);
    b.push(("DisplayPresentTime", 1 << 57)); // garbage present: the frame counts, not presented
    let mut c = frame12(0, [32, 32, 34, 34, 35, at(42), 48, at(42)]);
    c.push(("DisplayPresentTime", at(32) + 2 * 86_400_000_000_000)); // two days later
    let mut d = frame12(0, [48, 48, 50, 50, 51, at(58), 64, at(58)]);
    d.push(("DisplayPresentTime", -1));
    let rows: Vec<String> = [a, b, c, d].iter().map(|r| row_for(HEADER12, r)).collect();
    let cap = parse(&one_window(HEADER12, &rows), &Options::default()).unwrap();
    let w = &cap.processes[0].windows[0];
    assert_eq!(w.rows.len(), 4);
    let s = w.series(None, None);
    let presents: Vec<Option<i64>> = s.frames.iter().map(|f| f.present_ns).collect();
    assert_eq!(presents, vec![Some(at(20)), None, None, None]);
    assert_eq!(
        cap.diagnostics
            .counts
            .iter()
            .find(|(k, _)| k.contains("DisplayPresentTime"))
            .unwrap()
            .1
            .lines,
        vec![5, 6]
    );
    assert_eq!(recompute(&w.rows, None).total_frames, Some(4));
}

#[test]
fn android_15_and_16_headers_are_read_by_name_and_unknown_columns_kept() {
    // AOSP FrameInfo.cpp FrameInfoNames: 15 fixes the FrameStartTime/FrameInterval labels and adds
    // WorkloadTarget; 16 adds AnimationTime. A column no release names is kept by name, not read.
    let h15 = "Flags,FrameTimelineVsyncId,IntendedVsync,Vsync,InputEventId,HandleInputStart,AnimationStart,\
        PerformTraversalsStart,DrawStart,FrameDeadline,FrameStartTime,FrameInterval,WorkloadTarget,SyncQueued,\
        SyncStart,IssueDrawCommandsStart,SwapBuffers,FrameCompleted,DequeueBufferDuration,QueueBufferDuration,\
        GpuCompleted,SwapBuffersCompleted,DisplayPresentTime,CommandSubmissionCompleted,";
    let h16 = h15.replace("WorkloadTarget,", "WorkloadTarget,AnimationTime,");
    let h_future = format!("{h16}VendorHint,");
    for (header, animation, unknown) in [
        (h15.to_string(), None, vec![]),
        (h16.clone(), Some(at(1)), vec![]),
        (h_future, Some(at(1)), vec!["VendorHint".to_string()]),
    ] {
        let mut v = frame12(0, [0, 0, 2, 2, 3, at(10), 16, at(10)]);
        // 15+ print the labels in the order of the values: FrameStartTime is a time, FrameInterval an interval.
        v.retain(|(n, _)| *n != "FrameInterval" && *n != "FrameStartTime");
        v.extend([
            ("FrameStartTime", at(0)),
            ("FrameInterval", 11_111_111),
            ("WorkloadTarget", 9_000_000),
            ("AnimationTime", at(1)),
            ("VendorHint", 5),
        ]);
        let cap = parse(
            &one_window(&header, &[row_for(&header, &v)]),
            &Options::default(),
        )
        .unwrap();
        let w = &cap.processes[0].windows[0];
        let r = &w.rows[0];
        assert!(!w.interval_labels_swapped);
        assert_eq!(
            (
                r.frame_interval_ns,
                r.frame_start_time_ns,
                r.workload_target
            ),
            (Some(11_111_111), Some(at(0)), Some(9_000_000))
        );
        assert_eq!(
            (r.frame_completed_ns, r.animation_time_ns),
            (at(10), animation)
        );
        assert_eq!(w.unknown_columns, unknown);
        for c in &unknown {
            assert_eq!(cap.diagnostics.counts[&unknown_column(c)].lines, vec![3]);
        }
        assert_eq!(
            cap.diagnostics.counts.len(),
            unknown.len(),
            "{:?}",
            cap.diagnostics
        );
        let s = w.series(None, None);
        assert_eq!(
            (s.period_ns, s.period_from),
            (Some(11_111_111), "FrameInterval")
        );
    }
}

#[test]
fn an_empty_block_says_nothing_was_drawn_since_the_reset() {
    let cap = parse(&one_window(HEADER12, &[]), &Options::default()).unwrap();
    let w = &cap.processes[0].windows[0];
    assert!(w.rows.is_empty());
    assert_eq!(w.empty_blocks, 1);
    assert_eq!(cap.diagnostics.counts[EMPTY_BLOCK].lines, vec![3]);
}
