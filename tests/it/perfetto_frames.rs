//! Perfetto's own diff tests of the stdlib `android.frames` tables and the CUJ summary, replayed on ftl.
//!
//! Source: google/perfetto @ ec5d16b14b743ba6063d720956d6d6af6610fd72,
//! `test/trace_processor/diff_tests/stdlib/android/frames_tests.py` (the `Frames` suite). Its traces come from
//! two Python generators, `test/trace_processor/diff_tests/metrics/graphics/android_jank_cuj.py` and
//! `android_doframe_depth.py` (helpers in `test/synth_common.py`); [`jank_cuj_trace`] and
//! [`doframe_depth_trace`] rebuild them event by event with ftl's `synth::TraceBuilder` (same pids, tids,
//! thread names, timestamps, atrace lines, track descriptors, track events and FrameTimeline events, in the same
//! order). Each test below compares `ftl table TRACE NAME` with the suite's expected CSV, kept verbatim, projected
//! onto ftl's columns: trace processor's `upid` / `utid` become the pid / tid they stand for (ids assigned in
//! creation order, see [`UPIDS`] / [`UTIDS`]); other internal `*_id` columns, which ftl does not have, are dropped.
//!
//! What the generators write that ftl's builder cannot, and why it does not matter: the empty first packet and the
//! `packages_list` packet (ftl reads neither; the generator's `add_process` even overwrites the package list
//! with the process tree, see `synth_common.add_process`), the processes' `ppid`, and `sched_switch` events
//! (ftl's decoder skips them; trace processor makes no slices of them). Encoding differs where it carries no
//! meaning: one `ProcessTree` packet per process, one ftrace bundle per atrace line (trace processor sorts
//! ftrace events by timestamp either way), lines ending in `\n` (stripped by both parsers), FrameTimeline
//! packets on sequence 1 and track events without a sequence id.

use crate::common::{ftl_ok, parse_csv};
use ftl::decode::{EnumCode, FrameLabels, FrameStart, JankValues, SliceKind};
use ftl::synth::TraceBuilder;
use std::io::Write;

// ---------------------------------------------------------------------------------------------------------------
// android_jank_cuj.py

/// com.android.systemui.
const PID: i32 = 1000;
/// Its RenderThread.
const RTID: i32 = 1555;
/// Its "GPU completion" thread.
const GPU_TID: i32 = 1666;
/// Its "Jit thread pool".
const JITID: i32 = 1777;
const LAYER: &str = "TX - NotificationShade#0";
/// /system/bin/surfaceflinger.
const SF_PID: i32 = 1050;
/// SurfaceFlinger's RenderEngine thread.
const SF_RETID: i32 = 1055;

const PROCESS_TRACK: u64 = 1234;
const FIRST_CUJ_TRACK: u64 = 321;
const SHADE_CUJ_TRACK: u64 = 654;
const CANCELED_CUJ_TRACK: u64 = 987;

/// TrackEvent types.
const SLICE_BEGIN: i32 = 1;
const SLICE_END: i32 = 2;

/// The generators' helpers over a [`TraceBuilder`], named as in the Python.
struct Gen(TraceBuilder);

/// One `add_actual_surface_frame_events(...)` call: the keyword arguments the generator passes.
#[derive(Clone, Copy)]
struct ActualSurface {
    ts: u64,
    dur: u64,
    token: i64,
    cookie: Option<i64>,
    jank: Option<i32>,
    jank_score: i32,
    on_time_finish_override: Option<bool>,
    display_frame_token_override: Option<i64>,
    layer_name: &'static str,
}

/// `add_actual_surface_frame_events(ts, dur, token)`: no jank.
const fn surface(ts: u64, dur: u64, token: i64) -> ActualSurface {
    ActualSurface {
        ts,
        dur,
        token,
        cookie: None,
        jank: None,
        jank_score: 0,
        on_time_finish_override: None,
        display_frame_token_override: None,
        layer_name: LAYER,
    }
}

/// `add_actual_surface_frame_events(ts, dur, token, jank=…, jank_score=…)`.
const fn janky(ts: u64, dur: u64, token: i64, jank: i32, jank_score: i32) -> ActualSurface {
    ActualSurface {
        jank: Some(jank),
        jank_score,
        ..surface(ts, dur, token)
    }
}

impl Gen {
    fn atrace_begin(&mut self, ts: u64, tid: i32, pid: i32, buf: &str) {
        self.0.begin(ts, tid, pid, buf);
    }

    fn atrace_end(&mut self, ts: u64, tid: i32, pid: i32) {
        self.0.end(ts, tid, pid);
    }

    fn atrace_for_thread(&mut self, ts: u64, ts_end: u64, buf: &str, tid: i32, pid: i32) {
        self.atrace_begin(ts, tid, pid, buf);
        self.atrace_end(ts_end, tid, pid);
    }

    /// `add_atrace_counter`: `C|pid|buf|cnt`.
    fn atrace_counter(&mut self, ts: u64, tid: i32, pid: i32, buf: &str, cnt: i64) {
        self.0.atrace(ts, tid, &format!("C|{pid}|{buf}|{cnt}"));
    }

    /// `add_atrace_instant`: `I|pid|buf` (an instant on the writing thread).
    fn atrace_instant(&mut self, ts: u64, tid: i32, pid: i32, buf: &str) {
        self.0.atrace(ts, tid, &format!("I|{pid}|{buf}"));
    }

    fn main_thread(&mut self, ts: u64, ts_end: u64, buf: &str) {
        self.atrace_for_thread(ts, ts_end, buf, PID, PID);
    }

    fn render_thread_begin(&mut self, ts: u64, buf: &str) {
        self.atrace_begin(ts, RTID, PID, buf);
    }

    fn render_thread_end(&mut self, ts_end: u64) {
        self.atrace_end(ts_end, RTID, PID);
    }

    fn render_thread(&mut self, ts: u64, ts_end: u64, buf: &str) {
        self.atrace_for_thread(ts, ts_end, buf, RTID, PID);
    }

    fn gpu_thread(&mut self, ts: u64, ts_end: u64, buf: &str) {
        self.atrace_for_thread(ts, ts_end, buf, GPU_TID, PID);
    }

    fn jit_thread(&mut self, ts: u64, ts_end: u64, buf: &str) {
        self.atrace_for_thread(ts, ts_end, buf, JITID, PID);
    }

    fn sf_main_thread(&mut self, ts: u64, ts_end: u64, buf: &str) {
        self.atrace_for_thread(ts, ts_end, buf, SF_PID, SF_PID);
    }

    fn sf_render_engine(&mut self, ts: u64, ts_end: u64, buf: &str) {
        self.atrace_for_thread(ts, ts_end, buf, SF_RETID, SF_PID);
    }

    /// The RenderThread half of `add_frame` / `add_frame_from_depth`: `DrawFrames <vsync>` around its GPU fence
    /// slice (`Trace GPU completion fence N` when the frame has a GPU wait, else `GPU completion fence N has
    /// signaled`), ending 100 ns before the DrawFrames does.
    fn draw_frames(&mut self, vsync: i64, draw: (u64, u64), traced_gpu: bool) -> i64 {
        let gpu_idx = 1000 + vsync * 10 + 1;
        let fence = if traced_gpu {
            format!("Trace GPU completion fence {gpu_idx}")
        } else {
            format!("GPU completion fence {gpu_idx} has signaled")
        };
        self.render_thread_begin(draw.0, &format!("DrawFrames {vsync}"));
        self.render_thread(draw.1 - 100, draw.1 - 1, &fence);
        self.render_thread_end(draw.1);
        gpu_idx
    }

    /// `add_frame`: `Choreographer#doFrame <vsync>` (and its resync twin) on the main thread, the DrawFrames,
    /// and the GPU completion wait if the frame has one.
    fn frame(
        &mut self,
        vsync: i64,
        do_frame: (u64, u64),
        draw: (u64, u64),
        gpu: Option<(u64, u64)>,
        resync: bool,
    ) {
        let (ts, ts_end) = do_frame;
        self.main_thread(ts, ts_end, &format!("Choreographer#doFrame {vsync}"));
        if resync {
            let resynced = format!("Choreographer#doFrame - resynced to {} in 0.0s", vsync + 1);
            self.main_thread(ts, ts_end, &resynced);
        }
        let gpu_idx = self.draw_frames(vsync, draw, gpu.is_some());
        if let Some((ts, ts_end)) = gpu {
            self.gpu_thread(ts, ts_end, &format!("waiting for GPU completion {gpu_idx}"));
        }
    }

    /// `add_sf_frame`: `commit <vsync>`, then `composite <vsync>` (around `composeSurfaces` if given) on
    /// SurfaceFlinger's main thread.
    fn sf_frame(
        &mut self,
        vsync: i64,
        commit: (u64, u64),
        composite: (u64, u64),
        compose_surfaces: Option<(u64, u64)>,
    ) {
        self.sf_main_thread(commit.0, commit.1, &format!("commit {vsync}"));
        self.atrace_begin(composite.0, SF_PID, SF_PID, &format!("composite {vsync}"));
        if let Some((ts, ts_end)) = compose_surfaces {
            self.sf_main_thread(ts, ts_end, "composeSurfaces");
        }
        self.atrace_end(composite.1, SF_PID, SF_PID);
    }

    /// `add_instant_for_track`: `add_track_event_slice(dur=0)`, a SLICE_BEGIN and a SLICE_END at the same ts.
    fn instant_for_track(&mut self, ts: u64, track: u64, name: &str) {
        self.0.track_event(ts, track, SLICE_BEGIN, Some(name));
        self.0.track_event(ts, track, SLICE_END, None);
    }

    /// `add_track_event_slice_begin` + `add_track_event_slice_end`.
    fn track_slice(&mut self, ts: u64, ts_end: u64, track: u64, name: &str) {
        self.0.track_event(ts, track, SLICE_BEGIN, Some(name));
        self.0.track_event(ts_end, track, SLICE_END, None);
    }

    /// `add_expected_display_frame_events`.
    fn expected_display_frame(&mut self, ts: u64, dur: u64, token: i64) {
        let start = FrameStart {
            kind: SliceKind::ExpectedDisplayFrame,
            cookie: Some(token),
            token: Some(100 + token),
            display_frame_token: None,
            pid: Some(SF_PID),
            layer_name: None,
            labels: FrameLabels::default(),
        };
        self.0.slice(start, ts, ts + dur);
    }

    /// `add_actual_display_frame_events`.
    fn actual_display_frame(&mut self, ts: u64, dur: u64, token: i64, jank: Option<i32>) {
        let start = FrameStart {
            kind: SliceKind::ActualDisplayFrame,
            cookie: Some(token + 1),
            token: Some(100 + token),
            display_frame_token: None,
            pid: Some(SF_PID),
            layer_name: None,
            labels: FrameLabels {
                present_type: EnumCode::new(Some(if jank.is_some() { 2 } else { 1 })),
                on_time_finish: Some(jank.is_none()),
                gpu_composition: Some(false),
                jank: JankValues::new(Some(jank.unwrap_or(1)), None),
                prediction_type: EnumCode::new(Some(3)),
                ..FrameLabels::default()
            },
        };
        self.0.slice(start, ts, ts + dur);
    }

    /// `add_expected_surface_frame_events` (layer name set, to the empty string).
    fn expected_surface_frame(&mut self, ts: u64, dur: u64, token: i64) {
        let start = FrameStart {
            kind: SliceKind::ExpectedSurfaceFrame,
            cookie: Some(100_000 + token),
            token: Some(token),
            display_frame_token: Some(100 + token),
            pid: Some(PID),
            layer_name: Some("".into()),
            labels: FrameLabels::default(),
        };
        self.0.slice(start, ts, ts + dur);
    }

    /// `add_actual_surface_frame_events`.
    fn actual_surface_frame(&mut self, a: ActualSurface) {
        let cookie = a.cookie.unwrap_or(a.token + 1);
        let jank_type = a.jank.unwrap_or(1);
        let start = FrameStart {
            kind: SliceKind::ActualSurfaceFrame,
            cookie: Some(100_002 + cookie),
            token: Some(a.token),
            display_frame_token: Some(a.display_frame_token_override.unwrap_or(a.token + 100)),
            pid: Some(PID),
            layer_name: Some(a.layer_name.into()),
            labels: FrameLabels {
                present_type: EnumCode::new(Some(if a.jank.is_some() { 2 } else { 1 })),
                on_time_finish: Some(a.on_time_finish_override.unwrap_or(a.jank.is_none())),
                gpu_composition: Some(false),
                prediction_type: EnumCode::new(Some(3)),
                // synth_common: severity None (1) without jank, else Unknown (0); the score as given.
                jank_severity_type: EnumCode::new(Some(i32::from(jank_type == 1))),
                jank: JankValues::new(Some(jank_type), Some(a.jank_score as f32)),
                ..FrameLabels::default()
            },
        };
        self.0.slice(start, a.ts, a.ts + a.dur);
    }
}

/// android_jank_cuj.py, call for call (one line per call of the generator; `rustfmt::skip` keeps it so).
#[rustfmt::skip]
fn jank_cuj_trace() -> TraceBuilder {
    let (first_cuj, shade_cuj) = ("J<FIRST_CUJ>", "J<SHADE_ROW_EXPAND>");
    let mut g = Gen(TraceBuilder::new());

    g.0.process(PID, "com.android.systemui", Some(10001));
    g.0.process(SF_PID, "/system/bin/surfaceflinger", Some(1000));
    g.0.threads(&[
        (RTID, PID, "RenderThread"),
        (GPU_TID, PID, "GPU completion"),
        (JITID, PID, "Jit thread pool"),
        (SF_RETID, SF_PID, "RenderEngine"),
    ]);
    g.0.track_descriptor(PROCESS_TRACK, None, Some(PID), None);
    g.0.track_descriptor(FIRST_CUJ_TRACK, Some(PROCESS_TRACK), None, None);
    g.0.track_descriptor(SHADE_CUJ_TRACK, Some(PROCESS_TRACK), None, None);
    g.0.track_descriptor(CANCELED_CUJ_TRACK, Some(PROCESS_TRACK), None, None);

    g.atrace_instant(6, PID, PID, &format!("{first_cuj}#UIThread"));
    g.atrace_instant(11, PID, PID, &format!("{shade_cuj}#UIThread"));
    g.instant_for_track(7, FIRST_CUJ_TRACK, "FT#beginVsync#10");
    g.instant_for_track(15, FIRST_CUJ_TRACK, "FT#layerId#0");
    g.instant_for_track(100_000_000 - 1, FIRST_CUJ_TRACK, "FT#endVsync#90");
    g.instant_for_track(12, SHADE_CUJ_TRACK, "FT#beginVsync#10");
    g.instant_for_track(20, SHADE_CUJ_TRACK, "FT#layerId#0");
    g.instant_for_track(900_000_000 - 1, SHADE_CUJ_TRACK, "FT#endVsync#160");
    g.instant_for_track(950_100_000, SHADE_CUJ_TRACK, "FT#MissedHWUICallback#150");
    g.instant_for_track(950_100_000, SHADE_CUJ_TRACK, "FT#MissedSFCallback#150");
    g.track_slice(5, 100_000_000, FIRST_CUJ_TRACK, first_cuj);
    g.track_slice(10, 901_000_010, SHADE_CUJ_TRACK, shade_cuj);
    g.track_slice(100_100_000, 999_000_000, CANCELED_CUJ_TRACK, "J<CANCELED>");

    for (ts, buf, cnt) in [
        (150_000_000, "J<FIRST_CUJ>#totalFrames", 6),
        (150_100_000, "J<FIRST_CUJ>#missedFrames", 5),
        (150_200_000, "J<FIRST_CUJ>#missedAppFrames", 5),
        (150_300_000, "J<FIRST_CUJ>#missedSfFrames", 1),
        (150_300_000, "J<FIRST_CUJ>#totalAnimTime", 500),
        (150_300_000, "J<FIRST_CUJ>#weightedAppJank", 225),
        (150_300_000, "J<FIRST_CUJ>#weightedSfJank", 421),
        (150_300_000, "J<FIRST_CUJ>#weightedJank", 520),
        (150_400_000, "J<FIRST_CUJ>#maxFrameTimeMillis", 40),
        (950_000_000, "J<SHADE_ROW_EXPAND>#totalFrames", 13),
        (950_100_000, "J<SHADE_ROW_EXPAND>#missedFrames", 8),
        (950_200_000, "J<SHADE_ROW_EXPAND>#missedAppFrames", 7),
        (950_300_000, "J<SHADE_ROW_EXPAND>#missedSfFrames", 2),
        (950_300_000, "J<SHADE_ROW_EXPAND>#maxSuccessiveMissedFrames", 5),
        (950_300_000, "J<SHADE_ROW_EXPAND>#totalAnimTime", 250),
        (950_300_000, "J<SHADE_ROW_EXPAND>#weightedAppJank", 1025),
        (950_300_000, "J<SHADE_ROW_EXPAND>#weightedSfJank", 142),
        (950_300_000, "J<SHADE_ROW_EXPAND>#weightedJank", 1800),
        (950_400_000, "J<SHADE_ROW_EXPAND>#maxFrameTimeMillis", 62),
    ] {
        g.atrace_counter(ts, PID, PID, buf, cnt);
    }

    // g.frame(vsync, doFrame, DrawFrames, GPU wait, resync)
    g.frame(10, (0, 5_000_000), (4_000_000, 5_000_000), Some((10_000_000, 15_000_000)), true);
    g.main_thread(1_500_000, 2_000_000, "binder transaction");
    g.render_thread(4_500_000, 4_800_000, "flush layers");
    g.sf_frame(110, (1_006_000_500, 1_006_500_000), (1_007_000_000, 1_008_000_000), None);
    // main thread binder call that delays the start of work on this frame
    g.sf_main_thread(900_000_000, 1_006_000_000, "sf binder");

    g.frame(20, (20_000_000, 23_000_000), (22_000_000, 26_000_000), Some((27_500_000, 35_000_000)), false);
    g.main_thread(9_000_000, 19_000_000, "binder transaction");
    g.render_thread(24_000_000, 25_000_000, "flush layers");
    g.sf_frame(120, (1_016_000_000, 1_018_000_000), (1_020_500_000, 1_025_000_000), None);

    g.frame(30, (30_000_000, 33_000_000), (31_000_000, 50_000_000), Some((51_500_000, 52_000_000)), false);
    for ts in (31_000_000..=31_800_000).step_by(100_000) {
        g.main_thread(ts, ts + 50_000, "binder transaction");
    }
    g.render_thread(38_000_000, 50_000_000, "flush layers");
    g.sf_frame(130, (1_032_000_000, 1_033_000_000), (1_034_000_000, 1_045_000_000), None);

    g.frame(40, (40_000_000, 53_000_000), (52_000_000, 59_000_000), Some((66_500_000, 78_000_000)), false);
    g.jit_thread(39_000_000, 45_000_000, "JIT compiling void aa.aa(java.lang.Object, bb) (kind=Baseline)");
    g.jit_thread(46_000_000, 47_000_000, "Lock contention on Jit code cache (owner tid: 12345)");
    g.jit_thread(52_500_000, 54_000_000, "JIT compiling void cc.bb(java.lang.Object, bb) (kind=Osr)");
    g.jit_thread(56_500_000, 60_000_000, "JIT compiling void ff.zz(java.lang.Object, bb) (kind=Baseline)");
    // (sched_switch, not written: main thread Running 39-53 ms, RenderThread 54-59 ms.)
    g.sf_frame(140, (1_048_000_000, 1_049_000_000), (1_055_000_000, 1_060_000_000), None);

    g.frame(60, (70_000_000, 80_000_000), (78_000_000, 87_000_000), Some((86_500_000, 88_000_000)), false);
    // (sched_switch, not written: main thread Running 70-71 ms, RenderThread 78-78.5 ms and 88-88.5 ms.)
    g.sf_frame(160, (1_070_000_000, 1_071_000_000), (1_072_000_000, 1_080_000_000), None);

    g.frame(90, (100_000_000, 115_000_000), (102_000_000, 104_000_000), Some((108_000_000, 115_600_000)), false);
    g.render_thread_begin(108_000_000, "DrawFrames 90");
    g.render_thread(113_000_000, 113_500_000, "Trace GPU completion fence 1902");
    g.render_thread_end(114_000_000);
    g.gpu_thread(121_500_000, 122_000_000, "waiting for GPU completion 1902");
    g.sf_frame(190, (1_100_000_000, 1_101_000_000), (1_102_000_000, 1_110_000_000), Some((1_104_000_000, 1_108_000_000)));
    g.sf_render_engine(1_104_500_000, 1_107_500_000, "REThreaded::drawLayers");
    g.sf_render_engine(1_105_000_000, 1_107_000_000, "shader compile");

    g.frame(100, (200_000_000, 215_000_000), (202_000_000, 204_000_000), Some((208_000_000, 210_000_000)), false);
    g.render_thread(208_000_000, 214_000_000, "DrawFrames 100");
    g.sf_frame(200, (1_200_000_000, 1_202_000_000), (1_203_000_000, 1_232_000_000), Some((1_205_000_000, 1_230_000_000)));
    // shader compile from outside the frame that delays REThreaded::drawLayers
    g.sf_render_engine(1_150_000_000, 1_207_000_000, "shader compile");
    g.sf_render_engine(1_208_000_000, 1_229_000_000, "REThreaded::drawLayers");
    g.sf_render_engine(1_209_000_000, 1_228_000_000, "shader compile");

    g.frame(110, (300_000_000, 315_000_000), (302_000_000, 304_000_000), None, false);
    g.render_thread(305_000_000, 308_000_000, "dispatchFrameCallbacks");
    g.frame(120, (400_000_000, 415_000_000), (402_000_000, 404_000_000), Some((408_000_000, 410_000_000)), false);
    g.render_thread(415_000_000, 418_000_000, "dispatchFrameCallbacks");
    // Frame start delayed by 50ms by a long binder transaction
    g.main_thread(500_000_000, 549_500_000, "binder transaction");
    g.frame(130, (550_000_000, 555_000_000), (552_000_000, 556_000_000), None, false);
    // Frame start delayed by 8ms by a long binder transaction
    g.main_thread(600_000_000, 608_049_000, "binder transaction");
    g.frame(140, (608_500_000, 610_000_000), (609_000_000, 626_000_000), None, false);
    g.frame(145, (655_000_000, 675_000_000), (657_000_000, 660_000_000), None, false);
    // Actual timeline slice starts 0.5ms after doFrame
    g.frame(150, (700_000_000, 702_000_000), (701_200_000, 715_000_000), None, false);
    // Frame without a matching actual timeline slice
    g.frame(160, (800_000_000, 802_000_000), (801_000_000, 802_000_000), None, false);
    // One more frame after the CUJ is finished
    g.frame(1000, (1_100_000_000, 1_200_000_000), (1_150_000_000, 1_300_000_000), Some((1_400_000_000, 1_500_000_000)), false);

    g.instant_for_track(990_000_000, CANCELED_CUJ_TRACK, "FT#cancel#0");

    g.expected_display_frame(1_000_000_000, 16_000_000, 10);
    g.actual_display_frame(1_000_000_000, 16_000_000, 10, None);
    g.expected_surface_frame(0, 16_000_000, 10);
    g.actual_surface_frame(surface(0, 16_000_000, 10));

    g.expected_display_frame(1_016_000_000, 20_000_000, 20);
    g.actual_display_frame(1_016_000_000, 10_000_000, 20, None);
    g.expected_surface_frame(8_000_000, 20_000_000, 20);
    g.actual_surface_frame(janky(8_000_000, 28_000_000, 20, 66, 10));

    g.expected_display_frame(1_032_000_000, 16_000_000, 30);
    g.actual_display_frame(1_032_000_000, 16_000_000, 30, None);
    g.expected_surface_frame(30_000_000, 20_000_000, 30);
    g.actual_surface_frame(janky(30_000_000, 25_000_000, 30, 64, 2));

    g.expected_display_frame(1_048_000_000, 16_000_000, 40);
    g.actual_display_frame(1_048_000_000, 16_000_000, 40, None);
    g.expected_surface_frame(40_000_000, 20_000_000, 40);
    g.actual_surface_frame(janky(40_000_000, 40_000_000, 40, 64, 3));

    g.expected_display_frame(1_070_000_000, 16_000_000, 60);
    g.actual_display_frame(1_070_000_000, 16_000_000, 60, None);
    g.expected_surface_frame(70_000_000, 20_000_000, 60);
    g.actual_surface_frame(janky(70_000_000, 10_000_000, 60, 64, 4));
    // second layer produced frame later so was picked up by the next SF frame
    g.actual_surface_frame(ActualSurface { cookie: Some(62), display_frame_token_override: Some(190), ..janky(70_000_000, 20_000_000, 60, 64, 5) });

    g.expected_display_frame(1_100_000_000, 16_000_000, 90);
    g.actual_display_frame(1_100_000_000, 16_000_000, 90, None);
    g.expected_surface_frame(100_000_000, 20_000_000, 90);
    g.actual_surface_frame(janky(100_000_000, 23_000_000, 90, 64, 6));

    g.expected_display_frame(1_200_000_000, 16_000_000, 100);
    g.actual_display_frame(1_200_000_000, 32_000_000, 100, Some(16));
    g.expected_surface_frame(200_000_000, 20_000_000, 100);
    g.actual_surface_frame(janky(200_000_000, 22_000_000, 100, 34, 7));

    g.expected_surface_frame(300_000_000, 20_000_000, 110);
    g.actual_surface_frame(ActualSurface { cookie: Some(112), ..surface(300_000_000, 61_000_000, 110) });
    g.actual_surface_frame(ActualSurface { cookie: Some(114), layer_name: "TX - JankyLayer#1", ..janky(300_000_000, 80_000_000, 110, 64, 8) });

    g.expected_surface_frame(400_000_000, 20_000_000, 120);
    g.actual_surface_frame(ActualSurface { on_time_finish_override: Some(true), ..janky(400_000_000, 61_000_000, 120, 128, 9) });

    // Multiple layers but only one of them janked (the one we care about)
    g.expected_surface_frame(500_000_000, 20_000_000, 130);
    g.actual_surface_frame(surface(500_000_000, 2_000_000, 130));
    g.actual_surface_frame(ActualSurface { cookie: Some(132), ..janky(550_000_000, 6_000_000, 130, 64, 1) });

    // Single layer but actual frame event is slighly after doFrame start
    g.expected_surface_frame(600_000_000, 20_000_000, 140);
    g.actual_surface_frame(janky(608_600_000, 17_000_000, 140, 64, 11));

    // Surface flinger stuffing frame not classified as missed
    g.expected_surface_frame(650_000_000, 20_000_000, 145);
    g.actual_surface_frame(janky(650_000_000, 20_000_000, 145, 512, 12));

    g.expected_surface_frame(700_000_000, 20_000_000, 150);
    g.actual_surface_frame(surface(700_500_000, 14_500_000, 150));

    // No matching actual timeline
    g.expected_surface_frame(800_000_000, 20_000_000, 160);

    g.expected_surface_frame(1_100_000_000, 20_000_000, 1000);
    g.actual_surface_frame(janky(1_100_000_000, 500_000_000, 1000, 64, 13));
    g.0
}

// ---------------------------------------------------------------------------------------------------------------
// android_doframe_depth.py

impl Gen {
    /// `add_main_thread_atrace_from_depth`: the slice under `depth` enclosing slices, each begun 1 ns earlier
    /// and ended 1 ns later than the one inside it. The generator's `'<depth %d>'.format(i)` is the literal
    /// `<depth %d>`.
    fn main_thread_from_depth(&mut self, ts: u64, ts_end: u64, buf: &str, depth: u64) {
        for i in 0..depth {
            self.atrace_begin(ts - (depth - i), PID, PID, "<depth %d>");
        }
        self.atrace_begin(ts, PID, PID, buf);
        self.atrace_end(ts_end, PID, PID);
        for i in 0..depth {
            self.atrace_end(ts_end + (i + 1), PID, PID);
        }
    }

    /// `add_frame_from_depth`. Its GPU wait is only a `B` (the generator's `add_gpu_thread_atrace` here writes
    /// no `E`).
    fn frame_from_depth(
        &mut self,
        vsync: i64,
        do_frame: (u64, u64),
        draw: (u64, u64),
        gpu: Option<u64>,
        resync: bool,
        depth: u64,
    ) {
        let (ts, ts_end) = do_frame;
        let name = format!("Choreographer#doFrame {vsync}");
        self.main_thread_from_depth(ts, ts_end, &name, depth);
        if resync {
            let resynced = format!("Choreographer#doFrame - resynced to {} in 0.0s", vsync + 1);
            self.main_thread_from_depth(ts, ts_end, &resynced, depth);
        }
        let gpu_idx = self.draw_frames(vsync, draw, gpu.is_some());
        if let Some(ts) = gpu {
            self.atrace_begin(
                ts,
                GPU_TID,
                PID,
                &format!("waiting for GPU completion {gpu_idx}"),
            );
        }
    }
}

/// android_doframe_depth.py, call for call.
#[rustfmt::skip]
fn doframe_depth_trace() -> TraceBuilder {
    let mut g = Gen(TraceBuilder::new());
    g.0.process(PID, "com.android.systemui", Some(10001));
    g.0.threads(&[(RTID, PID, "RenderThread")]);
    g.0.track_descriptor(PROCESS_TRACK, None, Some(PID), None);
    // g.frame_from_depth(vsync, doFrame, DrawFrames, GPU wait start, resync, depth)
    g.frame_from_depth(10, (1_000_000, 5_000_000), (5_000_000, 10_000_000), None, false, 0);
    g.frame_from_depth(11, (30_000_000, 35_000_000), (33_000_000, 38_000_000), None, false, 1);
    // 6_500_000 is the generator's `65_00_000`.
    g.frame_from_depth(12, (60_000_000, 65_000_000), (6_500_000, 70_000_000), None, true, 2);
    g.frame_from_depth(13, (90_000_000, 98_000_000), (96_000_000, 102_000_000), Some(100_000_000), false, 3);
    g.0
}

// ---------------------------------------------------------------------------------------------------------------
// Expectations

/// upid → pid in the jank_cuj trace: 0 swapper, then the process tree in order, each process after its parent
/// (pid 1 → 1, systemui → 2, surfaceflinger → 3). Confirmed by the suite's `upid` 2 for systemui.
const UPIDS: [(&str, &str); 4] = [("0", "0"), ("1", "1"), ("2", "1000"), ("3", "1050")];
/// utid → tid: 0 swapper, 1 init, 2 and 3 the main threads of systemui and surfaceflinger, then the threads of
/// the process tree in order. Confirmed by the suite's `ui_thread_utid` 2 and `render_thread_utid` 4.
const UTIDS: [(&str, &str); 8] = [
    ("0", "0"),
    ("1", "1"),
    ("2", "1000"),
    ("3", "1050"),
    ("4", "1555"),
    ("5", "1666"),
    ("6", "1777"),
    ("7", "1055"),
];

/// Where an ftl column comes from in Perfetto's expected CSV.
#[derive(Clone, Copy)]
enum Col {
    /// The same column.
    Same(&'static str),
    /// This `upid` column, as a pid.
    Upid(&'static str),
    /// This `utid` column, as a tid.
    Utid(&'static str),
}

/// `csv` (trace processor's output, `"[NULL]"` for NULL) projected onto ftl's columns `cols` (ftl name, source),
/// rows in their order. Returns (header, rows) in [`parse_csv`]'s form (NULL → empty field).
fn project(csv: &str, cols: &[(&str, Col)]) -> (Vec<String>, Vec<Vec<String>>) {
    let csv: String = csv.lines().map(|l| l.trim().to_string() + "\n").collect();
    let (header, rows) = parse_csv(csv.trim_start());
    let index = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name} in {header:?}"))
    };
    let map = |ids: &[(&str, &str)], v: &str| -> String {
        if v.is_empty() {
            return String::new();
        }
        ids.iter()
            .find(|(id, _)| *id == v)
            .unwrap_or_else(|| panic!("unknown id {v}"))
            .1
            .to_string()
    };
    let rows = rows
        .iter()
        .map(|row| {
            cols.iter()
                .map(|(_, col)| match *col {
                    Col::Same(c) => row[index(c)].clone(),
                    Col::Upid(c) => map(&UPIDS, &row[index(c)]),
                    Col::Utid(c) => map(&UTIDS, &row[index(c)]),
                })
                .collect()
        })
        .collect();
    (cols.iter().map(|(n, _)| n.to_string()).collect(), rows)
}

/// Columns passed through unchanged.
fn same(names: &[&'static str]) -> Vec<(&'static str, Col)> {
    names.iter().map(|&n| (n, Col::Same(n))).collect()
}

fn int(s: &str) -> i64 {
    s.parse()
        .unwrap_or_else(|_| panic!("not an integer: {s:?}"))
}

/// A built trace on disk for the ftl binary.
fn write(trace: &TraceBuilder) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(&trace.bytes()).unwrap();
    file.flush().unwrap();
    file
}

/// `ftl table <jank_cuj trace> <name>`, parsed.
fn ftl_table(name: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let file = write(&jank_cuj_trace());
    parse_csv(&ftl_ok(&["table", file.path().to_str().unwrap(), name]))
}

// ---------------------------------------------------------------------------------------------------------------
// The suite's expected CSVs, verbatim.

const ANDROID_FRAMES: &str = r#"
        "frame_id","ts","dur","do_frame_id","draw_frame_id","actual_frame_timeline_id","expected_frame_timeline_id","render_thread_utid","ui_thread_utid","actual_frame_timeline_count","expected_frame_timeline_count","draw_frame_count","upid","process_name"
        10,0,16000000,2,13,1,0,4,2,1,1,1,2,"com.android.systemui"
        20,8000000,28000000,20,21,17,16,4,2,1,1,1,2,"com.android.systemui"
        30,30000000,25000000,27,28,26,25,4,2,1,1,1,2,"com.android.systemui"
        40,40000000,40000000,40,46,42,41,4,2,1,1,1,2,"com.android.systemui"
        60,70000000,20000000,51,55,53,52,4,2,2,1,1,2,"com.android.systemui"
        90,100000000,23000000,61,63,60,59,4,2,1,1,2,2,"com.android.systemui"
        100,200000000,22000000,69,72,71,70,4,2,1,1,2,2,"com.android.systemui"
        110,300000000,80000000,79,80,77,76,4,2,2,1,1,2,"com.android.systemui"
        120,400000000,61000000,85,86,84,83,4,2,1,1,1,2,"com.android.systemui"
        130,500000000,6000000,93,95,91,90,4,2,2,1,1,2,"com.android.systemui"
        140,608600000,17000000,99,101,100,97,4,2,1,1,1,2,"com.android.systemui"
        145,650000000,20000000,105,106,104,103,4,2,1,1,1,2,"com.android.systemui"
        150,700500000,14500000,108,111,110,109,4,2,1,1,1,2,"com.android.systemui"
        160,800000000,2000000,114,115,"[NULL]",113,4,2,0,1,1,2,"com.android.systemui"
        1000,1100000000,500000000,147,153,145,144,4,2,1,1,1,2,"com.android.systemui"
"#;

const ANDROID_FRAMES_LAYERS: &str = r#"
          "frame_id","ts","dur","ts_end","do_frame_id","draw_frame_id","actual_frame_timeline_id","expected_frame_timeline_id","render_thread_utid","ui_thread_utid","layer_id","layer_name","upid","process_name"
          10,0,16000000,16000000,2,13,1,0,4,2,0,"TX - NotificationShade#0",2,"com.android.systemui"
          20,8000000,28000000,36000000,20,21,17,16,4,2,0,"TX - NotificationShade#0",2,"com.android.systemui"
          30,30000000,25000000,55000000,27,28,26,25,4,2,0,"TX - NotificationShade#0",2,"com.android.systemui"
          40,40000000,40000000,80000000,40,46,42,41,4,2,0,"TX - NotificationShade#0",2,"com.android.systemui"
          60,70000000,10000000,80000000,51,55,53,52,4,2,0,"TX - NotificationShade#0",2,"com.android.systemui"
          60,70000000,20000000,90000000,51,55,54,52,4,2,0,"TX - NotificationShade#0",2,"com.android.systemui"
          90,100000000,23000000,123000000,61,63,60,59,4,2,0,"TX - NotificationShade#0",2,"com.android.systemui"
          90,100000000,23000000,123000000,61,66,60,59,4,2,0,"TX - NotificationShade#0",2,"com.android.systemui"
          100,200000000,22000000,222000000,69,72,71,70,4,2,0,"TX - NotificationShade#0",2,"com.android.systemui"
          100,200000000,22000000,222000000,69,75,71,70,4,2,0,"TX - NotificationShade#0",2,"com.android.systemui"
          110,300000000,61000000,361000000,79,80,77,76,4,2,0,"TX - NotificationShade#0",2,"com.android.systemui"
          110,300000000,80000000,380000000,79,80,78,76,4,2,1,"TX - JankyLayer#1",2,"com.android.systemui"
          120,400000000,61000000,461000000,85,86,84,83,4,2,0,"TX - NotificationShade#0",2,"com.android.systemui"
          130,500000000,2000000,502000000,93,95,91,90,4,2,0,"TX - NotificationShade#0",2,"com.android.systemui"
          130,550000000,6000000,556000000,93,95,94,90,4,2,0,"TX - NotificationShade#0",2,"com.android.systemui"
          140,608600000,17000000,625600000,99,101,100,97,4,2,0,"TX - NotificationShade#0",2,"com.android.systemui"
          145,650000000,20000000,670000000,105,106,104,103,4,2,0,"TX - NotificationShade#0",2,"com.android.systemui"
          150,700500000,14500000,715000000,108,111,110,109,4,2,0,"TX - NotificationShade#0",2,"com.android.systemui"
          160,800000000,2000000,802000000,114,115,"[NULL]",113,4,2,"[NULL]","[NULL]",2,"com.android.systemui"
          1000,1100000000,500000000,1600000000,147,153,145,144,4,2,0,"TX - NotificationShade#0",2,"com.android.systemui"
"#;

const ANDROID_FRAMES_OVERRUN: &str = r#"
        "frame_id","overrun"
        10,0
        20,8000000
        30,5000000
        40,20000000
        60,-10000000
        90,3000000
        100,2000000
        110,41000000
        120,41000000
        130,-18000000
        140,5600000
        145,0
        150,-5000000
        160,266000000
        190,0
        200,16000000
        1000,480000000
"#;

const ANDROID_APP_VSYNC_DELAY_PER_FRAME: &str = r#"
        "frame_id","app_vsync_delay"
        10,0
        20,0
        30,0
        40,0
        60,0
        90,0
        100,0
        110,0
        120,0
        130,0
        140,8600000
        145,0
        150,500000
        1000,0
"#;

const ANDROID_CPU_TIME_PER_FRAME: &str = r#"
        "frame_id","app_vsync_delay","do_frame_dur","draw_frame_dur","cpu_time"
        10,0,5000000,1000000,6000000
        20,0,3000000,4000000,7000000
        30,0,3000000,19000000,22000000
        40,0,13000000,7000000,20000000
        60,0,10000000,9000000,19000000
        90,0,15000000,8000000,23000000
        100,0,15000000,8000000,23000000
        110,0,15000000,2000000,17000000
        120,0,15000000,2000000,17000000
        130,0,5000000,4000000,9000000
        140,8600000,1500000,17000000,27100000
        145,0,20000000,3000000,23000000
        150,500000,2000000,13800000,16300000
        1000,0,100000000,150000000,250000000
"#;

const ANDROID_FRAME_STATS: &str = r#"
        "frame_id","overrun","cpu_time","ui_time","was_jank","was_slow_frame","was_big_jank","was_huge_jank"
        10,0,6000000,5000000,"[NULL]","[NULL]","[NULL]","[NULL]"
        20,8000000,7000000,3000000,1,"[NULL]","[NULL]","[NULL]"
        30,5000000,22000000,3000000,1,1,"[NULL]","[NULL]"
        40,20000000,20000000,13000000,1,"[NULL]","[NULL]","[NULL]"
        60,-10000000,19000000,10000000,"[NULL]","[NULL]","[NULL]","[NULL]"
        90,3000000,23000000,15000000,1,1,"[NULL]","[NULL]"
        100,2000000,23000000,15000000,1,1,"[NULL]","[NULL]"
        110,41000000,17000000,15000000,1,"[NULL]","[NULL]","[NULL]"
        120,41000000,17000000,15000000,1,"[NULL]","[NULL]","[NULL]"
        130,-18000000,9000000,5000000,"[NULL]","[NULL]","[NULL]","[NULL]"
        140,5600000,27100000,1500000,1,1,"[NULL]","[NULL]"
        145,0,23000000,20000000,"[NULL]",1,"[NULL]","[NULL]"
        150,-5000000,16300000,2000000,"[NULL]","[NULL]","[NULL]","[NULL]"
        160,266000000,7000000,2000000,1,"[NULL]","[NULL]","[NULL]"
        1000,480000000,250000000,100000000,1,1,1,1
"#;

const ANDROID_JANK_CUJ_SLICE_SUMMARY: &str = r#"
        "name","process_name","state","total_frames","missed_app_frames","missed_sf_frames","layer_name","ts","dur"
        "J<CANCELED>","com.android.systemui","canceled","[NULL]","[NULL]","[NULL]","[NULL]",100100000,898900000
        "J<FIRST_CUJ>","com.android.systemui","completed",6,5,1,"TX - NotificationShade#0",0,115000000
        "J<SHADE_ROW_EXPAND>","com.android.systemui","completed",13,7,2,"TX - NotificationShade#0",0,802000000
"#;

const ANDROID_FRAMES_CHOREOGRAPHER_DO_FRAME: &str = r#"
        "id","frame_id","ui_thread_utid","upid","ts"
        2,10,2,2,0
        20,20,2,2,20000000
        27,30,2,2,30000000
        40,40,2,2,40000000
        51,60,2,2,70000000
        61,90,2,2,100000000
        69,100,2,2,200000000
        79,110,2,2,300000000
        85,120,2,2,400000000
        93,130,2,2,550000000
        99,140,2,2,608500000
        105,145,2,2,655000000
        108,150,2,2,700000000
        114,160,2,2,800000000
        147,1000,2,2,1100000000
"#;

const ANDROID_FRAMES_DRAW_FRAME: &str = r#"
        "id","frame_id","render_thread_utid","upid"
        13,10,4,2
        21,20,4,2
        28,30,4,2
        46,40,4,2
        55,60,4,2
        63,90,4,2
        66,90,4,2
        72,100,4,2
        75,100,4,2
        80,110,4,2
        86,120,4,2
        95,130,4,2
        101,140,4,2
        106,145,4,2
        111,150,4,2
        115,160,4,2
        153,1000,4,2
"#;

/// test_android_frames_get_frame_table_with_id (android_doframe_depth trace).
const FRAME_TABLE_WITH_ID: &str = r#"
        "frame_id","name","depth"
        10,"Choreographer#doFrame 10",0
        11,"Choreographer#doFrame 11",1
        12,"Choreographer#doFrame 12",4
        13,"Choreographer#doFrame 13",3
"#;

// ---------------------------------------------------------------------------------------------------------------
// Tests

#[test]
fn android_frames_equals_test_android_frames() {
    let (header, mut rows) = project(
        ANDROID_FRAMES,
        &[
            ("frame_id", Col::Same("frame_id")),
            ("ts", Col::Same("ts")),
            ("dur", Col::Same("dur")),
            (
                "actual_frame_timeline_count",
                Col::Same("actual_frame_timeline_count"),
            ),
            (
                "expected_frame_timeline_count",
                Col::Same("expected_frame_timeline_count"),
            ),
            ("draw_frame_count", Col::Same("draw_frame_count")),
            ("pid", Col::Upid("upid")),
            ("process_name", Col::Same("process_name")),
            ("ui_thread_tid", Col::Utid("ui_thread_utid")),
            ("render_thread_tid", Col::Utid("render_thread_utid")),
        ],
    );
    // The query has no ORDER BY (trace processor gives GROUP BY order, frame id); ftl orders by (ts, frame_id).
    rows.sort_by_key(|r| (int(&r[1]), int(&r[0])));
    assert_eq!(ftl_table("android_frames"), (header, rows));
}

#[test]
fn android_frames_layers_equals_test_android_frames_layers() {
    let (header, mut rows) = project(
        ANDROID_FRAMES_LAYERS,
        &[
            ("frame_id", Col::Same("frame_id")),
            ("ts", Col::Same("ts")),
            ("dur", Col::Same("dur")),
            ("ts_end", Col::Same("ts_end")),
            ("layer_name", Col::Same("layer_name")),
            ("pid", Col::Upid("upid")),
            ("process_name", Col::Same("process_name")),
        ],
    );
    // No ORDER BY (trace processor: UNION order); ftl orders by (ts, frame_id, layer_name NULL first, dur). Rows
    // that differ only in draw_frame_id (frames 90 and 100: two DrawFrames) stay two identical rows.
    rows.sort_by(|a, b| {
        (int(&a[1]), int(&a[0]), &a[4], int(&a[2])).cmp(&(
            int(&b[1]),
            int(&b[0]),
            &b[4],
            int(&b[2]),
        ))
    });
    assert_eq!(ftl_table("android_frames_layers"), (header, rows));
}

#[test]
fn android_frames_overrun_equals_test_android_frames_overrun() {
    // No ORDER BY; trace processor's order is frame id order, which is ftl's (frame_id, overrun).
    let want = project(ANDROID_FRAMES_OVERRUN, &same(&["frame_id", "overrun"]));
    assert_eq!(ftl_table("android_frames_overrun"), want);
}

#[test]
fn android_app_vsync_delay_per_frame_equals_test_android_app_vsync_delay_per_frame() {
    // No ORDER BY; trace processor's order is frame id order, which is ftl's.
    let want = project(
        ANDROID_APP_VSYNC_DELAY_PER_FRAME,
        &same(&["frame_id", "app_vsync_delay"]),
    );
    assert_eq!(ftl_table("android_app_vsync_delay_per_frame"), want);
}

#[test]
fn android_cpu_time_per_frame_equals_test_android_cpu_time_per_frame() {
    // No ORDER BY; trace processor's order is frame id order, which is ftl's.
    let want = project(
        ANDROID_CPU_TIME_PER_FRAME,
        &same(&[
            "frame_id",
            "app_vsync_delay",
            "do_frame_dur",
            "draw_frame_dur",
            "cpu_time",
        ]),
    );
    assert_eq!(ftl_table("android_cpu_time_per_frame"), want);
}

#[test]
fn android_frame_stats_equals_test_android_frame_stats() {
    // No ORDER BY; trace processor's order is frame id order, which is ftl's.
    let want = project(
        ANDROID_FRAME_STATS,
        &same(&[
            "frame_id",
            "overrun",
            "cpu_time",
            "ui_time",
            "was_jank",
            "was_slow_frame",
            "was_big_jank",
            "was_huge_jank",
        ]),
    );
    assert_eq!(ftl_table("android_frame_stats"), want);
}

#[test]
fn android_jank_cuj_equals_test_android_jank_cuj_slice_summary() {
    // The query orders by (name, ts), as ftl does.
    let want = project(
        ANDROID_JANK_CUJ_SLICE_SUMMARY,
        &same(&[
            "name",
            "process_name",
            "state",
            "total_frames",
            "missed_app_frames",
            "missed_sf_frames",
            "layer_name",
            "ts",
            "dur",
        ]),
    );
    assert_eq!(ftl_table("android_jank_cuj"), want);
}

#[test]
fn first_frame_after_equals_test_android_first_frame_after() {
    // `android_first_frame_after(ts)` is `SELECT … FROM android_frames WHERE ts > $ts ORDER BY ts LIMIT 1`; ftl
    // has no such function, so the same filter runs over ftl's android_frames.
    let (header, rows) = ftl_table("android_frames");
    let (id, ts) = (0, 1);
    assert_eq!((&header[id][..], &header[ts][..]), ("frame_id", "ts"));
    let first = rows
        .iter()
        .filter(|r| int(&r[ts]) > 100_000_000)
        .min_by_key(|r| int(&r[ts]))
        .unwrap();
    assert_eq!(first[id], "100");
}

/// A built trace read into ftl's model, with the decoder's summary: `ftl::load_path`, or for a trace without
/// FrameTimeline (which `load_path` refuses: ftl analyses FrameTimeline) the decoder and model builder it runs.
fn read(trace: &TraceBuilder) -> (ftl::model::Timeline, ftl::decode::DecodeSummary) {
    let file = write(trace);
    match ftl::load_path(file.path()) {
        Ok(loaded) => (loaded.timeline, loaded.decode),
        Err(ftl::Error::NoFrameTimeline { .. }) => {
            let mut builder = ftl::model::TimelineBuilder::new();
            let summary =
                ftl::decode::decode(&trace.bytes()[..], &mut |e| builder.push(e)).unwrap();
            (builder.build(), summary)
        }
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn rebuilt_traces_hold_what_the_generators_write() {
    // android_jank_cuj.py: 2 + 236 ftrace events, 11 of them sched_switch (not written), the other 227 atrace
    // lines, every one valid; the 19 `C|` counters among them are valid lines ftl does not use, so the model
    // counts 208. 46 FrameTimeline slices (7 + 15 expected, 7 + 17 actual). android_doframe_depth.py: 43 atrace
    // lines.
    let (timeline, decode) = read(&jank_cuj_trace());
    assert_eq!(timeline.app.lines, 227 - 19);
    assert_eq!(decode.atrace_parse_failures, 0);
    assert_eq!((timeline.expected.len(), timeline.actual.len()), (22, 24));
    let (timeline, decode) = read(&doframe_depth_trace());
    assert_eq!(timeline.app.lines, 43);
    assert_eq!(decode.atrace_parse_failures, 0);
}

#[test]
fn do_frame_and_draw_frame_sections_equal_their_stdlib_tables() {
    // android_frames_choreographer_do_frame / android_frames_draw_frame have no ftl table; the library's
    // `frame_sections` is what ftl builds them from (slice ids dropped; the resync slice is not a frame).
    let (timeline, _) = read(&jank_cuj_trace());
    let app = &timeline.app;
    let rows = |prefix: &str, with_ts: bool| -> Vec<Vec<String>> {
        ftl::analysis::app::stdlib::frame_sections(app, prefix)
            .iter()
            .map(|f| {
                let mut row = vec![
                    f.frame_id.to_string(),
                    f.tid.to_string(),
                    f.pid.map_or(String::new(), |p| p.to_string()),
                ];
                if with_ts {
                    row.push(f.ts.to_string());
                }
                row
            })
            .collect()
    };
    let (_, do_frames) = project(
        ANDROID_FRAMES_CHOREOGRAPHER_DO_FRAME,
        &[
            ("frame_id", Col::Same("frame_id")),
            ("tid", Col::Utid("ui_thread_utid")),
            ("pid", Col::Upid("upid")),
            ("ts", Col::Same("ts")),
        ],
    );
    assert_eq!(rows("Choreographer#doFrame", true), do_frames);
    let (_, draw_frames) = project(
        ANDROID_FRAMES_DRAW_FRAME,
        &[
            ("frame_id", Col::Same("frame_id")),
            ("tid", Col::Utid("render_thread_utid")),
            ("pid", Col::Upid("upid")),
        ],
    );
    assert_eq!(rows("DrawFrame", false), draw_frames);
}

#[test]
fn do_frame_depths_equal_test_android_frames_get_frame_table_with_id() {
    // No FrameTimeline in this trace: read through the decoder and model builder (see `read`).
    let (timeline, _) = read(&doframe_depth_trace());
    let app = &timeline.app;
    let got: Vec<Vec<String>> =
        ftl::analysis::app::stdlib::frame_sections(app, "Choreographer#doFrame")
            .iter()
            .map(|f| {
                let s = &app.sections[f.section];
                vec![
                    f.frame_id.to_string(),
                    app.name(s.name).to_string(),
                    s.depth.to_string(),
                ]
            })
            .collect();
    let (_, want) = project(FRAME_TABLE_WITH_ID, &same(&["frame_id", "name", "depth"]));
    assert_eq!(got, want);
}
