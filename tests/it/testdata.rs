//! The committed synthetic traces in testdata/ are exactly what `ftl::synth` builds today (set FTL_BLESS=1 to
//! rewrite them), and their analysis gives the hand-derivable numbers of the simulated pipeline.

use ftl::synth::{compress_packets, gzip, Pipeline};
use std::path::PathBuf;

fn testdata(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(name)
}

fn fixtures() -> Vec<(&'static str, Vec<u8>)> {
    let plain = Pipeline::default().build().bytes();
    let compressed = compress_packets(&plain, 4096).unwrap();
    vec![
        ("synthetic_60hz.pftrace", plain.clone()),
        ("synthetic_60hz.pftrace.gz", gzip(&plain).unwrap()),
        ("synthetic_60hz_compressed_packets.pftrace", compressed),
    ]
}

#[test]
fn committed_testdata_matches_the_synth_builder() {
    for (name, bytes) in fixtures() {
        let path = testdata(name);
        if std::env::var_os("FTL_BLESS").is_some() {
            std::fs::write(&path, &bytes).unwrap();
        }
        let committed = std::fs::read(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (FTL_BLESS=1 writes it)", path.display()));
        assert!(
            committed == bytes,
            "{name} drifted from ftl::synth; rerun with FTL_BLESS=1 and review"
        );
    }
}

#[test]
fn synthetic_pipeline_numbers_are_the_simulated_ones() {
    let mut reports = Vec::new();
    for (name, _) in fixtures() {
        let trace = ftl::load_path(&testdata(name)).unwrap();
        reports.push(ftl::analysis::analyze(trace, "", &Default::default()));
    }
    let r = &reports[0];
    // 120 vsync slots: 120 DisplayFrames; 3 late frames each make the app skip one slot → 117 SurfaceFrames.
    assert_eq!(r.trace.display_frames, 120);
    assert_eq!(r.trace.surface_frames, 117);
    let app = r
        .processes
        .iter()
        .find(|p| p.pid == ftl::synth::APP_PID)
        .unwrap();
    assert_eq!(
        (app.total_frames, app.missed_app_frames, app.missed_frames),
        (117, 3, 3)
    );
    assert_eq!(
        app.frame_dur_max,
        Some(16_600_000 - 500_000 + 16_666_667 / 2)
    );
    let layer = &r.layers[0];
    assert_eq!(
        (layer.frames, layer.janky_frames, layer.app_janky_frames),
        (117, 3, 3)
    );
    // Presents: every slot except the 3 whose frame was late (they present in the next slot): 117 presents,
    // 3 gaps of two vsyncs → Chromium jank_count 3, max_frame_delay 2.
    assert_eq!(layer.pacing.presented_frames, 117);
    assert_eq!(
        (layer.pacing.jank_count, layer.pacing.max_frame_delay),
        (Some(3), Some(2))
    );
    assert_eq!(r.vsync.period_ns, Some(16_666_667));
    for other in &reports[1..] {
        assert_eq!(other.processes, r.processes);
        assert_eq!(other.layers, r.layers);
        assert_eq!(other.frames, r.frames);
    }
}
