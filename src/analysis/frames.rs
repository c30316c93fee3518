//! Per-frame rows: every actual SurfaceFrame joined with its expected slice and the DisplayFrame that presented
//! it (present time = the DisplayFrame's actual end = present fence), and every actual DisplayFrame with its
//! expected slice.

use super::app::blame::{late_stage, AppWork, AppWorkColumns, FrameDeadline, LateStage};
use super::app::stdlib::FrameSections;
use super::app::threads::{ThreadColumns, ThreadSource};
use super::classify::{Derived, Reason};
use super::explain::{attribution, Attribution};
use crate::model::jank::{JankTypeNames, PredictionType, PresentType, Severity};
use crate::model::{
    ExpectedBounds, Frames, JankTag, LayerId, SeriesFrame, SharedStr, Slice, SurfaceFrame, Timeline,
};
use rustc_hash::FxHashMap;
use serde::Serialize;

/// SurfaceFlinger's labels of an actual slice with Perfetto's column names and strings
/// (`actual_frame_timeline_slice`): the columns SurfaceFrame and DisplayFrame rows share.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TracedLabels {
    /// Perfetto `present_type`.
    pub present_type: PresentType,
    /// Perfetto `on_time_finish`.
    pub on_time_finish: bool,
    /// Perfetto `gpu_composition`.
    pub gpu_composition: bool,
    /// Perfetto `jank_type`.
    pub jank_type: SharedStr,
    /// `JankType` bitmask.
    pub jank_bits: i32,
    /// Perfetto `jank_tag`.
    pub jank_tag: JankTag,
    /// Perfetto `jank_severity_type`.
    pub jank_severity_type: Severity,
    /// Perfetto `prediction_type`.
    pub prediction_type: PredictionType,
}

impl TracedLabels {
    fn of(s: &Slice, jank_types: &mut JankTypeNames) -> TracedLabels {
        TracedLabels {
            present_type: s.present_type(),
            on_time_finish: s.labels.on_time_finish.unwrap_or(false),
            gpu_composition: s.labels.gpu_composition.unwrap_or(false),
            jank_type: jank_types.get(s.jank_bits()),
            jank_bits: s.jank_bits(),
            jank_tag: s.jank_tag(),
            jank_severity_type: s.severity(),
            prediction_type: s.prediction_type(),
        }
    }
}

/// ftl's re-derivation of a frame's labels ([`super::classify`]) and the attribution of its traced jank: the
/// derived columns SurfaceFrame and DisplayFrame rows share.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DerivedLabels {
    /// Expected present used to re-derive the labels, ns (SurfaceFrames: reconstructed, not traced).
    pub expected_present_ns: Option<i64>,
    /// Scheduled with a non-default (early / early-GPU) SurfaceFlinger work duration.
    pub early_durations: bool,
    /// Re-derived `present_type` (`None` when not re-derived).
    pub derived_present_type: Option<PresentType>,
    /// Re-derived `jank_type` (Perfetto string).
    pub derived_jank_type: Option<SharedStr>,
    /// Re-derived `jank_severity_type`.
    pub derived_severity: Option<Severity>,
    /// Whether the re-derived labels equal SurfaceFlinger's; `None` when not re-derived.
    pub agrees: Option<bool>,
    /// Why the re-derived labels disagree, or why the frame was not re-derived; written as its code (e.g.
    /// `prediction_expired`, [`Reason::code`]), explained by [`Reason::sentence`].
    pub disagreement_reason: Option<Reason>,
    /// Who caused the jank by SurfaceFlinger's label ([`Attribution`]: app / surfaceflinger / display_hal /
    /// stuffing / non_perceivable); `None` when not janky.
    pub attribution: Option<Attribution>,
}

impl DerivedLabels {
    /// From the re-derivation `d` (none: not re-derived) and the traced jank bits of a SurfaceFrame or, with
    /// `display`, a DisplayFrame.
    fn of(
        d: Option<&Derived>,
        jank_bits: i32,
        display: bool,
        jank_types: &mut JankTypeNames,
    ) -> DerivedLabels {
        let label = d.and_then(|d| d.label);
        DerivedLabels {
            expected_present_ns: d.and_then(Derived::expected_present_ns),
            early_durations: d.is_some_and(|d| d.early_durations),
            derived_present_type: label.map(|l| l.perfetto_present_type()),
            derived_jank_type: label.map(|l| jank_types.get(l.jank_type)),
            derived_severity: label.map(|l| l.perfetto_severity()),
            agrees: d.and_then(|d| d.agrees),
            disagreement_reason: d.and_then(|d| d.reason),
            attribution: attribution(jank_bits, display),
        }
    }
}

/// One actual SurfaceFrame (one row per layer per token). Times in ns on the trace clock.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FrameRow {
    /// App process id.
    pub pid: i32,
    /// App process name.
    pub process_name: SharedStr,
    /// Layer name.
    pub layer_name: SharedStr,
    /// SurfaceFrame token.
    pub surface_frame_token: i64,
    /// Token of the DisplayFrame that presented it.
    pub display_frame_token: i64,
    /// Expected start (app vsync wake-up), if the prediction was valid.
    pub expected_start_ns: Option<i64>,
    /// Expected end (app deadline).
    pub expected_end_ns: Option<i64>,
    /// Actual start (app started the frame).
    pub actual_start_ns: i64,
    /// Actual end (buffer ready: max(GPU done, queue time)); `None` if the slice never ended.
    pub actual_end_ns: Option<i64>,
    /// Actual duration, ns (`-1` if never ended).
    pub dur_ns: i64,
    /// On-screen time: the end of the linked actual DisplayFrame (present fence).
    pub present_ns: Option<i64>,
    /// actual end − expected end (> 0: finished late).
    pub overrun_ns: Option<i64>,
    /// actual start − expected start (app vsync delay).
    pub app_vsync_delay_ns: Option<i64>,
    /// Present time − the previous distinct present time on the same layer.
    pub present_interval_ns: Option<i64>,
    /// SurfaceFlinger's labels (Perfetto's columns).
    #[serde(flatten)]
    pub labels: TracedLabels,
    /// Whether the frame carried a buffer.
    pub is_buffer: Option<bool>,
    /// True if dropped (its present time is not a real present).
    pub dropped: bool,
    /// The presenting DisplayFrame's `jank_type`.
    pub display_frame_jank_type: Option<SharedStr>,
    /// The presenting DisplayFrame's `present_type`.
    pub display_frame_present_type: Option<PresentType>,
    /// ftl's re-derived labels and the attribution.
    #[serde(flatten)]
    pub derived: DerivedLabels,
    /// The app's atrace work on the frame: columns `ui_thread_start_ns` (its `Choreographer#doFrame <token>`),
    /// `ui_thread_dur_ns`, `render_thread_start_ns` / `render_thread_end_ns` (its `DrawFrame <token>`s) and
    /// `frame_cpu_dur_ns` (DrawFrame end − doFrame start: Macrobenchmark's frameDurationCpu), ns.
    #[serde(flatten)]
    pub app_work: AppWorkColumns,
    /// The stage that made the frame late (`ui_thread`, `render_thread`, `gpu`, `app`, `surfaceflinger`,
    /// `stuffing`; see `ftl explain stages`); `None` when it was not late.
    pub late_stage: Option<LateStage>,
    /// What the UI thread and RenderThread did over the frame and why a late frame was late: the columns
    /// `ui_*` / `rt_*` (time per thread state, megacycles), `top_blocking_call`, `top_blocking_call_ns`,
    /// `binder_ns`, `binder_calls`, `cause`, `cause_share_pct` (see `ftl explain causes`); null when the trace
    /// lacks the scheduler data or sections they need.
    #[serde(flatten)]
    pub threads: ThreadColumns,
}

// One per SurfaceFrame (its labels a byte each, not a 16-byte `&str`): the rows' memory on dense traces.
const _: () = assert!(std::mem::size_of::<FrameRow>() == 248);

impl FrameRow {
    /// The actual duration, ns, of a frame that was shown and ended (`None` for a dropped or never-ended one):
    /// the durations the per-layer and triage percentiles are taken from.
    pub fn shown_dur_ns(&self) -> Option<i64> {
        (!self.dropped && self.dur_ns >= 0).then_some(self.dur_ns)
    }

    /// The frame as one frame of its layer's [`FrameSeries`](crate::model::FrameSeries), with the times the
    /// pacing metrics ([`crate::analysis::pacing::pacing`]) read: the expected start as the time the frame was
    /// asked for (idle gaps, [`crate::analysis::idle`]), the reconstructed expected present as desired present,
    /// the present fence as present (none for a dropped frame). The other slice bounds stay in the row: a series
    /// of a dense trace's layer holds 24 bytes a frame, not 56.
    pub fn series_frame(&self) -> SeriesFrame {
        SeriesFrame {
            expected_start_ns: self.expected_start_ns,
            desired_present_ns: self.derived.expected_present_ns,
            present_ns: self.present_ns.filter(|_| !self.dropped),
            ..SeriesFrame::default()
        }
    }
}

/// One actual DisplayFrame. Times in ns on the trace clock.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DisplayFrameRow {
    /// SurfaceFlinger pid.
    pub pid: i32,
    /// DisplayFrame token.
    pub display_frame_token: i64,
    /// Expected start (SF wake-up target).
    pub expected_start_ns: Option<i64>,
    /// Expected end (= expected present vsync).
    pub expected_end_ns: Option<i64>,
    /// Actual start (SF woke up).
    pub actual_start_ns: i64,
    /// Actual end = present fence signal time; `None` if the slice never ended.
    pub present_ns: Option<i64>,
    /// SurfaceFlinger's labels (Perfetto's columns).
    #[serde(flatten)]
    pub labels: TracedLabels,
    /// SurfaceFrames presented by it.
    pub surface_frames: u64,
    /// ftl's re-derived labels and the attribution.
    #[serde(flatten)]
    pub derived: DerivedLabels,
}

/// Builds the per-frame rows in actual-slice order, with the re-derived labels `surface_labels` and
/// `display_labels` (parallel to `frames.surface` and `frames.display`): gives `each` the SurfaceFrame rows one
/// by one (each with its `present_interval_ns` if `with_intervals`, else without, for rows that are only
/// summarised) and returns the DisplayFrame rows (none without `display_labels`). With `second`, `each` takes the
/// first half of the SurfaceFrames and `second`, on a thread of its own, the rest (each half in order). The
/// expected slices are read from `expected` ([`Timeline::expected`]'s bounds). Takes the timeline, the links and
/// the labels: the SurfaceFrame links and labels are freed before the DisplayFrame rows are built. `sections` are
/// the trace's doFrame / DrawFrame sections and `work` the app's work per (pid, token) from them
/// ([`super::app::blame::app_work`]).
#[allow(clippy::too_many_arguments)]
pub fn frame_rows(
    timeline: Timeline,
    expected: ExpectedBounds,
    frames: Frames,
    surface_labels: Vec<Derived>,
    display_labels: Option<Vec<Derived>>,
    (sections, work): (&FrameSections, &FxHashMap<(i32, i64), AppWork>),
    with_intervals: bool,
    each: &mut dyn FnMut(FrameRow),
    second: Option<&mut (dyn FnMut(FrameRow) + Send)>,
) -> Option<Vec<DisplayFrameRow>> {
    let timeline = &timeline;
    let threads = ThreadSource::new(timeline, sections);
    let intervals = with_intervals.then(|| PresentIntervals::of(timeline, &frames));
    let maker = || RowMaker {
        timeline,
        expected: &expected,
        frames: &frames,
        surface_labels: &surface_labels,
        work,
        threads: threads.as_ref(),
        intervals: intervals.as_ref(),
        per_display: vec![0; frames.display.len()],
        jank_types: JankTypeNames::default(),
        process_names: FxHashMap::default(),
        layer_names: FxHashMap::default(),
    };
    let half = match second {
        Some(_) => frames.surface.len() / 2,
        None => frames.surface.len(),
    };
    let (per_display, mut jank_types) = std::thread::scope(|scope| {
        let rest = second.map(|sink| {
            let mut rows = maker();
            scope.spawn(move || {
                rows.give(half..rows.frames.surface.len(), sink);
                rows.per_display
            })
        });
        let mut rows = maker();
        rows.give(0..half, each);
        let mut per_display = rows.per_display;
        if let Some(rest) = rest {
            for (n, m) in per_display.iter_mut().zip(crate::joined(rest)) {
                *n += m;
            }
        }
        (per_display, rows.jank_types)
    });
    let actual = |i: usize| timeline.actual.get(i);
    drop(intervals);
    // Freed before the DisplayFrame rows are allocated.
    drop(surface_labels);
    drop(frames.surface);
    let display_labels = display_labels?;
    let mut display_rows = Vec::with_capacity(frames.display.len());
    display_rows.extend(
        frames
            .display
            .iter()
            .zip(per_display)
            .zip(&display_labels)
            .filter_map(|((d, surface_frames), derived)| {
                let s = actual(d.actual())?;
                let (exp_start, exp_end) = bounds(&expected, d.expected());
                Some(DisplayFrameRow {
                    pid: s.pid,
                    display_frame_token: s.token,
                    expected_start_ns: exp_start,
                    expected_end_ns: exp_end,
                    actual_start_ns: s.ts_ns,
                    present_ns: s.end_ns(),
                    labels: TracedLabels::of(s, &mut jank_types),
                    surface_frames,
                    derived: DerivedLabels::of(Some(derived), s.jank_bits(), true, &mut jank_types),
                })
            }),
    );
    Some(display_rows)
}

/// The expected start and end of the expected slice at place `i` of `expected`, if any.
fn bounds(expected: &ExpectedBounds, i: Option<usize>) -> (Option<i64>, Option<i64>) {
    let b = i.and_then(|i| expected.get(i));
    (b.map(|b| b.0), b.and_then(|b| b.1))
}

/// Makes the SurfaceFrame rows of one run of [`Frames::surface`] ([`frame_rows`]), with its own interned
/// strings and count of rows per DisplayFrame.
struct RowMaker<'a> {
    timeline: &'a Timeline,
    expected: &'a ExpectedBounds,
    frames: &'a Frames,
    surface_labels: &'a [Derived],
    work: &'a FxHashMap<(i32, i64), AppWork>,
    threads: Option<&'a ThreadSource<'a>>,
    intervals: Option<&'a PresentIntervals<'a>>,
    /// SurfaceFrame rows made per DisplayFrame (by its place in [`Frames::display`]).
    per_display: Vec<u64>,
    jank_types: JankTypeNames,
    process_names: FxHashMap<i32, SharedStr>,
    layer_names: FxHashMap<Option<LayerId>, SharedStr>,
}

impl RowMaker<'_> {
    /// Gives `each` the rows of the SurfaceFrames at `run` (places in [`Frames::surface`]), in order.
    fn give(&mut self, run: std::ops::Range<usize>, each: &mut (impl FnMut(FrameRow) + ?Sized)) {
        let frames = self.frames;
        for (f, i) in frames.surface[run.clone()].iter().zip(run) {
            if let Some(mut r) = self.row(f, i) {
                r.present_interval_ns = self.intervals.and_then(|p| p.of_row(&r));
                each(r);
            }
        }
    }

    /// The row of `f`, the `i`-th SurfaceFrame; `None` when its actual slice is missing.
    fn row(&mut self, f: &SurfaceFrame, i: usize) -> Option<FrameRow> {
        let timeline = self.timeline;
        let actual = |i: usize| timeline.actual.get(i);
        let s = actual(f.actual())?;
        let d = self.surface_labels.get(i);
        let (exp_start, exp_end) = bounds(self.expected, f.expected());
        let df = f
            .display()
            .and_then(|d| self.frames.display.get(d))
            .and_then(|d| actual(d.actual()));
        if let Some(count) = f.display().and_then(|d| self.per_display.get_mut(d)) {
            *count += 1;
        }
        let end = s.end_ns();
        let w = self
            .work
            .get(&(s.pid, s.token))
            .copied()
            .unwrap_or_default();
        let deadline = FrameDeadline {
            expected_start_ns: exp_start,
            expected_end_ns: exp_end,
            actual_end_ns: end,
            jank_bits: s.jank_bits(),
            display_jank_bits: df.map(Slice::jank_bits),
        };
        let stage = late_stage(&deadline, &w);
        let jank_types = &mut self.jank_types;
        Some(FrameRow {
            pid: s.pid,
            process_name: self
                .process_names
                .entry(s.pid)
                .or_insert_with(|| timeline.process_name(s.pid).into())
                .clone(),
            layer_name: self
                .layer_names
                .entry(s.layer)
                .or_insert_with(|| timeline.layer_name(s.layer).into())
                .clone(),
            surface_frame_token: s.token,
            display_frame_token: s.display_frame_token,
            expected_start_ns: exp_start,
            expected_end_ns: exp_end,
            actual_start_ns: s.ts_ns,
            actual_end_ns: end,
            dur_ns: s.dur_ns,
            present_ns: df.and_then(Slice::end_ns),
            overrun_ns: end.zip(exp_end).map(|(a, e)| a - e),
            app_vsync_delay_ns: exp_start.map(|e| s.ts_ns - e),
            present_interval_ns: None,
            labels: TracedLabels::of(s, jank_types),
            is_buffer: s.labels.is_buffer,
            dropped: s.is_dropped(),
            display_frame_jank_type: df.map(|df| jank_types.get(df.jank_bits())),
            display_frame_present_type: df.map(Slice::present_type),
            derived: DerivedLabels::of(d, s.jank_bits(), false, jank_types),
            late_stage: stage,
            app_work: w.into(),
            threads: self
                .threads
                .map(|t| t.columns(s.pid, s.token, stage))
                .unwrap_or_default(),
        })
    }
}

/// Per layer, the distinct presents of its non-dropped SurfaceFrames, sorted: what a row's
/// `present_interval_ns` (present − the previous distinct present on its layer) is read from, so that rows can
/// be given out as they are made. 8 bytes per presented SurfaceFrame.
struct PresentIntervals<'t>(FxHashMap<(i32, &'t str), Vec<i64>>);

impl<'t> PresentIntervals<'t> {
    /// Over every actual SurfaceFrame of `timeline` linked by `frames`.
    fn of(timeline: &'t Timeline, frames: &Frames) -> Self {
        let mut presents: FxHashMap<(i32, &str), Vec<i64>> = FxHashMap::default();
        for f in &frames.surface {
            let Some(s) = timeline.actual.get(f.actual()) else {
                continue;
            };
            let present = f
                .display()
                .and_then(|d| frames.display.get(d))
                .and_then(|d| timeline.actual.get(d.actual()))
                .and_then(Slice::end_ns);
            if let (Some(p), false) = (present, s.is_dropped()) {
                let layer = timeline.layer_name(s.layer);
                presents.entry((s.pid, layer)).or_default().push(p);
            }
        }
        for list in presents.values_mut() {
            list.sort_unstable();
            list.dedup();
            list.shrink_to_fit();
        }
        PresentIntervals(presents)
    }

    /// The interval of a row's `present_ns` on its layer; `None` for a dropped frame, one not presented, or the
    /// layer's first present.
    fn of_row(&self, r: &FrameRow) -> Option<i64> {
        let p = r.present_ns.filter(|_| !r.dropped)?;
        let list = self.0.get(&(r.pid, &*r.layer_name))?;
        let idx = list.partition_point(|x| *x < p);
        idx.checked_sub(1)
            .and_then(|i| list.get(i))
            .map(|prev| p - prev)
    }
}

#[cfg(test)]
mod tests {
    use crate::decode::{EnumCode, FrameLabels, SliceKind};
    use crate::model::{Slice, Timeline};
    use std::num::NonZeroU32;

    /// A row's present interval is its present − the previous distinct present of a non-dropped frame on its
    /// layer, whatever the order the rows are made in.
    #[test]
    fn present_intervals_follow_each_layers_distinct_presents() {
        let mut timeline = Timeline {
            layer_names: vec!["a".into(), "b".into()],
            ..Timeline::default()
        };
        // DisplayFrames (token, present), then SurfaceFrames (token, DisplayFrame token, layer, dropped), rows
        // made in this order: the layer-a frame presented at 135 comes before those presented earlier.
        let displays = [(100, 100), (110, 110), (120, 120), (135, 135), (105, 105)];
        let surfaces = [
            (5, 135, 1, false),
            (1, 100, 1, false),
            (2, 110, 1, false),
            (3, 110, 1, false),
            (4, 120, 1, true),
            (6, 105, 2, false),
        ];
        for (token, present) in displays {
            timeline.actual.push(Slice {
                kind: SliceKind::ActualDisplayFrame,
                ts_ns: present - 5,
                dur_ns: 5,
                pid: 9,
                token,
                display_frame_token: token,
                layer: None,
                labels: FrameLabels::default(),
            });
        }
        for (token, display, layer, dropped) in surfaces {
            timeline.actual.push(Slice {
                kind: SliceKind::ActualSurfaceFrame,
                ts_ns: 50,
                dur_ns: 10,
                pid: 1,
                token,
                display_frame_token: display,
                layer: NonZeroU32::new(layer),
                labels: FrameLabels {
                    present_type: EnumCode::new(Some(if dropped { 4 } else { 1 })),
                    ..FrameLabels::default()
                },
            });
        }
        let report = crate::analysis::analyze_timeline(timeline, &Default::default());
        let intervals: Vec<_> = report
            .frames
            .iter()
            .map(|r| (r.surface_frame_token, r.present_interval_ns))
            .collect();
        assert_eq!(
            intervals,
            [
                (5, Some(25)),
                (1, None),
                (2, Some(10)),
                (3, Some(10)),
                (4, None),
                (6, None)
            ]
        );
    }
}
