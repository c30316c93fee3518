//! The synth builder's atrace API (thread names, `print` lines, `task_rename`) read back by the decoder.

use ftl::synth::{Pipeline, TraceBuilder, APP_PID};
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
    // UI thread: doFrame ⊃ "animation" (not kept, but counted in depth) ⊃ DrawFrame.
    t.begin(t0, ui, APP_PID, "Choreographer#doFrame 10001")
        .begin(t0 + MS, ui, APP_PID, "animation")
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
            (worker, Some(APP_PID), Some("hwuiTask0")),
        ]
    );
    // The FrameTimeline slices are still all there.
    let plain = load(&Pipeline::default().build().bytes());
    assert_eq!(trace.timeline.actual.len(), plain.timeline.actual.len());
    assert_eq!(trace.timeline.expected.len(), plain.timeline.expected.len());
}
