//! Per app frame: the UI thread and RenderThread work of each actual SurfaceFrame — its `Choreographer#doFrame`
//! and `DrawFrame` sections, joined by vsync id (= the SurfaceFrame token) within the process — and the stage
//! that made a late frame late. The join follows Perfetto's stdlib `android_frames` (frame id + process); the
//! blame is ftl's own (see [`late_stage`]).

use super::stdlib::FrameSection;
use crate::model::jank::bits;
use rustc_hash::FxHashMap;
use serde::ser::SerializeMap;
use serde::Serialize;

/// The app's work on one frame, ns on the trace clock; `None` where the trace has no such section.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AppWork {
    /// Start of the frame's `Choreographer#doFrame` (the main thread's, if several threads have one).
    pub ui_start_ns: Option<i64>,
    /// Its duration (`None` if it never ended).
    pub ui_dur_ns: Option<i64>,
    /// Start of the frame's first `DrawFrame`.
    pub rt_start_ns: Option<i64>,
    /// End of its last ended `DrawFrame`.
    pub rt_end_ns: Option<i64>,
}

impl AppWork {
    /// End of the doFrame, ns.
    pub fn ui_end_ns(&self) -> Option<i64> {
        Some(self.ui_start_ns? + self.ui_dur_ns?)
    }
    /// Macrobenchmark's `frameDurationCpuNs` for this frame: DrawFrame end − doFrame start, ns.
    pub fn cpu_dur_ns(&self) -> Option<i64> {
        Some(self.rt_end_ns? - self.ui_start_ns?)
    }
}

/// The app's work on one frame as the `ftl frames` columns `ui_thread_start_ns`, `ui_thread_dur_ns`,
/// `render_thread_start_ns`, `render_thread_end_ns`, `frame_cpu_dur_ns` (null when the trace has no such section).
/// Boxed, so that a frame without app sections — every frame of a trace without atrace — costs one pointer.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AppWorkColumns(pub Option<Box<AppWork>>);

impl AppWorkColumns {
    /// The work (all `None` when absent).
    pub fn get(&self) -> AppWork {
        self.0.as_deref().copied().unwrap_or_default()
    }
}

impl From<AppWork> for AppWorkColumns {
    fn from(w: AppWork) -> Self {
        AppWorkColumns((w != AppWork::default()).then(|| Box::new(w)))
    }
}

impl Serialize for AppWorkColumns {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let w = self.get();
        let mut map = serializer.serialize_map(Some(5))?;
        map.serialize_entry("ui_thread_start_ns", &w.ui_start_ns)?;
        map.serialize_entry("ui_thread_dur_ns", &w.ui_dur_ns)?;
        map.serialize_entry("render_thread_start_ns", &w.rt_start_ns)?;
        map.serialize_entry("render_thread_end_ns", &w.rt_end_ns)?;
        map.serialize_entry("frame_cpu_dur_ns", &w.cpu_dur_ns())?;
        map.end()
    }
}

/// Per (pid, frame id): the doFrame that is the frame's UI thread work — the main thread's (the last, if it
/// has several), else the first — of the stdlib's doFrame sections; sections without a process are left out.
pub fn chosen_do_frames(do_frames: &[FrameSection]) -> FxHashMap<(i32, i64), &FrameSection> {
    let mut chosen: FxHashMap<(i32, i64), &FrameSection> = FxHashMap::default();
    for d in do_frames {
        let Some(pid) = d.pid else { continue };
        chosen
            .entry((pid, d.frame_id))
            .and_modify(|c| {
                if d.tid == pid {
                    *c = d;
                }
            })
            .or_insert(d);
    }
    chosen
}

/// Per (pid, frame id): the app's work, from the stdlib's doFrame ([`chosen_do_frames`]) and DrawFrame sections.
pub fn app_work(
    do_frames: &[FrameSection],
    draw_frames: &[FrameSection],
) -> FxHashMap<(i32, i64), AppWork> {
    let mut work: FxHashMap<(i32, i64), AppWork> = FxHashMap::default();
    for (key, d) in chosen_do_frames(do_frames) {
        let w = work.entry(key).or_default();
        w.ui_start_ns = Some(d.ts);
        w.ui_dur_ns = (d.dur >= 0).then_some(d.dur);
    }
    for r in draw_frames {
        let Some(pid) = r.pid else { continue };
        let w = work.entry((pid, r.frame_id)).or_default();
        w.rt_start_ns = Some(w.rt_start_ns.map_or(r.ts, |s| s.min(r.ts)));
        if r.dur >= 0 {
            w.rt_end_ns = Some(w.rt_end_ns.map_or(r.end(), |e| e.max(r.end())));
        }
    }
    work
}

/// The stage that made a frame late.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LateStage {
    /// The UI thread: vsync delay + `Choreographer#doFrame` used the larger part of the budget.
    UiThread,
    /// The RenderThread: `DrawFrame` ran past the deadline after the UI thread handed over.
    RenderThread,
    /// The GPU: the RenderThread queued the buffer in time, the buffer was ready (GPU done) after the deadline.
    Gpu,
    /// The app was late but the trace has no doFrame / DrawFrame to say which of its stages.
    App,
    /// SurfaceFlinger / the display: the app was on time, SurfaceFlinger's jank types say it was theirs.
    #[serde(rename = "surfaceflinger")]
    SurfaceFlinger,
    /// Waiting behind earlier frames (`Buffer Stuffing`): the app's own work was not late.
    Stuffing,
}

impl LateStage {
    /// Every stage, in report order, which is also declaration order (`stage as usize` is its place).
    pub const ALL: [LateStage; 6] = [
        LateStage::UiThread,
        LateStage::RenderThread,
        LateStage::Gpu,
        LateStage::App,
        LateStage::SurfaceFlinger,
        LateStage::Stuffing,
    ];

    /// What the stage means, in one line (`ftl explain stages`).
    pub fn explanation(self) -> &'static str {
        match self {
            LateStage::UiThread => "The UI thread used the larger part of the app's budget: it started Choreographer#doFrame late (busy with other work after the vsync) or doFrame itself ran long (input, animation, measure/layout, draw recording).",
            LateStage::RenderThread => "The RenderThread (DrawFrame: sync, GPU command recording, dequeue/queueBuffer) ran past the deadline after the UI thread handed the frame over.",
            LateStage::Gpu => "The RenderThread queued the buffer in time but the GPU finished rendering it after the deadline.",
            LateStage::App => "The app finished after its deadline, but the trace has no Choreographer#doFrame / DrawFrame sections to tell UI thread, RenderThread and GPU apart (record the gfx and view atrace categories).",
            LateStage::SurfaceFlinger => "The app was on time; SurfaceFlinger or the display made the frame late (SurfaceFlinger scheduling or deadline, prediction error, display HAL).",
            LateStage::Stuffing => "The frame waited behind earlier buffers (Buffer Stuffing): the app's own work was not the cause; the queue was already full.",
        }
    }

    /// The value in tables and JSON (`ui_thread`, `render_thread`, `gpu`, `app`, `surfaceflinger`, `stuffing`).
    pub fn name(self) -> &'static str {
        match self {
            LateStage::UiThread => "ui_thread",
            LateStage::RenderThread => "render_thread",
            LateStage::Gpu => "gpu",
            LateStage::App => "app",
            LateStage::SurfaceFlinger => "surfaceflinger",
            LateStage::Stuffing => "stuffing",
        }
    }
}

/// What [`late_stage`] needs of a SurfaceFrame, ns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FrameDeadline {
    /// Expected start (app vsync).
    pub expected_start_ns: Option<i64>,
    /// Expected end: the app's deadline.
    pub expected_end_ns: Option<i64>,
    /// Actual end: max(GPU done, queue time).
    pub actual_end_ns: Option<i64>,
    /// The SurfaceFrame's `JankType` bits.
    pub jank_bits: i32,
    /// The presenting DisplayFrame's `JankType` bits, if linked.
    pub display_jank_bits: Option<i32>,
}

const APP_BITS: i32 = bits::APP_DEADLINE_MISSED | bits::APP_RESYNCED_JITTER | bits::UNKNOWN;
const SF_BITS: i32 = bits::SF_SCHEDULING
    | bits::PREDICTION_ERROR
    | bits::DISPLAY_HAL
    | bits::SF_CPU_DEADLINE_MISSED
    | bits::SF_GPU_DEADLINE_MISSED;

/// The stage that made a frame late; `None` for a frame that was not late.
///
/// A frame is late when it finished after its deadline (actual end > expected end) or SurfaceFlinger gave it an
/// app, SurfaceFlinger/display or Buffer Stuffing jank type. The stage, in this order of evidence:
/// 1. `stuffing` — jank type has Buffer Stuffing and not App Deadline Missed: SurfaceFlinger says the frame
///    waited behind earlier buffers (a stuffed RenderThread also blocks in dequeueBuffer, so times would
///    mislead);
/// 2. if the RenderThread's `DrawFrame` ended after the deadline, the app's CPU was late: `ui_thread` if the
///    UI share (doFrame end − expected start: vsync delay + doFrame) is at least the RenderThread share
///    (DrawFrame end − doFrame end), else `render_thread` — an even split of the app's budget;
/// 3. `gpu` — the RenderThread finished in time but the buffer was ready (actual end) after the deadline;
/// 4. `app` — actual end after the deadline, or App Deadline Missed / App Resynced Jitter / Unknown Jank, with no
///    doFrame/DrawFrame to split it;
/// 5. `surfaceflinger` — the app was on time and the frame's or its DisplayFrame's jank type names
///    SurfaceFlinger Scheduling, Prediction Error, Display HAL or a SurfaceFlinger deadline.
///
/// Source of the times: FrameTimeline (expected/actual SurfaceFrame, `frame_timeline_event_parser.cc`) and the
/// app's atrace sections; of the jank bits: SurfaceFlinger's `JankType` (`FrameTimeline.cpp`).
pub fn late_stage(f: &FrameDeadline, work: &AppWork) -> Option<LateStage> {
    let after_deadline =
        |t: Option<i64>| matches!((t, f.expected_end_ns), (Some(t), Some(d)) if t > d);
    let display_bits = f.display_jank_bits.unwrap_or(0);
    let late = after_deadline(f.actual_end_ns)
        || f.jank_bits & (APP_BITS | SF_BITS | bits::BUFFER_STUFFING) != 0;
    if !late {
        return None;
    }
    if f.jank_bits & bits::BUFFER_STUFFING != 0 && f.jank_bits & bits::APP_DEADLINE_MISSED == 0 {
        return Some(LateStage::Stuffing);
    }
    if after_deadline(work.rt_end_ns) {
        if let (Some(ui_end), Some(rt_end), Some(start)) =
            (work.ui_end_ns(), work.rt_end_ns, f.expected_start_ns)
        {
            return Some(if ui_end - start >= rt_end - ui_end {
                LateStage::UiThread
            } else {
                LateStage::RenderThread
            });
        }
        return Some(LateStage::RenderThread);
    }
    if after_deadline(work.ui_end_ns()) {
        return Some(LateStage::UiThread);
    }
    let has_work = work.rt_end_ns.is_some();
    if after_deadline(f.actual_end_ns) {
        return Some(if has_work {
            LateStage::Gpu
        } else {
            LateStage::App
        });
    }
    if (f.jank_bits | display_bits) & SF_BITS != 0 {
        return Some(LateStage::SurfaceFlinger);
    }
    Some(LateStage::App)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;

    /// A frame expected over [0, 16 ms] with the given actual end and jank bits.
    fn frame(actual_end_ms: i64, jank_bits: i32) -> FrameDeadline {
        FrameDeadline {
            expected_start_ns: Some(0),
            expected_end_ns: Some(16 * MS),
            actual_end_ns: Some(actual_end_ms * MS),
            jank_bits,
            display_jank_bits: Some(bits::NONE),
        }
    }

    fn work(ui: (i64, i64), rt: (i64, i64)) -> AppWork {
        AppWork {
            ui_start_ns: Some(ui.0 * MS),
            ui_dur_ns: Some((ui.1 - ui.0) * MS),
            rt_start_ns: Some(rt.0 * MS),
            rt_end_ns: Some(rt.1 * MS),
        }
    }

    #[test]
    fn on_time_frames_have_no_stage() {
        assert_eq!(
            late_stage(&frame(12, bits::NONE), &work((1, 6), (6, 10))),
            None
        );
    }

    #[test]
    fn each_injected_cause_is_named() {
        let late = bits::APP_DEADLINE_MISSED;
        // UI thread took 14 ms of the budget, RenderThread 4 ms.
        assert_eq!(
            late_stage(&frame(20, late), &work((2, 14), (14, 18))),
            Some(LateStage::UiThread)
        );
        // UI thread 4 ms, RenderThread 14 ms.
        assert_eq!(
            late_stage(&frame(20, late), &work((1, 4), (4, 18))),
            Some(LateStage::RenderThread)
        );
        // CPU done at 10 ms, buffer ready at 20 ms.
        assert_eq!(
            late_stage(&frame(20, late), &work((1, 5), (5, 10))),
            Some(LateStage::Gpu)
        );
        // No app sections.
        assert_eq!(
            late_stage(&frame(20, late), &AppWork::default()),
            Some(LateStage::App)
        );
        // App on time, SurfaceFlinger missed its deadline.
        let mut sf = frame(12, bits::SF_CPU_DEADLINE_MISSED);
        assert_eq!(
            late_stage(&sf, &work((1, 6), (6, 10))),
            Some(LateStage::SurfaceFlinger)
        );
        sf.jank_bits = bits::NONE;
        sf.display_jank_bits = Some(bits::DISPLAY_HAL);
        assert_eq!(sf.jank_bits & SF_BITS, 0);
        // A janky DisplayFrame alone does not make an on-time frame late.
        assert_eq!(late_stage(&sf, &work((1, 6), (6, 10))), None);
        // Stuffing: late end, SurfaceFlinger says Buffer Stuffing.
        assert_eq!(
            late_stage(&frame(20, bits::BUFFER_STUFFING), &work((1, 6), (6, 18))),
            Some(LateStage::Stuffing)
        );
    }
}
