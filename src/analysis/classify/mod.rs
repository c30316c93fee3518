//! SurfaceFlinger's FrameTimeline jank classifier re-implemented as pure functions
//! ([`classify_display_frame`], [`classify_surface_frame`]), the reconstruction of their inputs from a trace
//! ([`classify_trace`]), and the agreement of the re-derived labels with the ones SurfaceFlinger traced, with a
//! reason for every disagreement ([`Reason`]).
//!
//! Primary reference: AOSP `services/surfaceflinger/FrameTimeline/FrameTimeline.cpp` at android16-release
//! (`DisplayFrame::classifyJank`, `SurfaceFrame::classifyJankLocked`, `flushPendingPresentFences`); the release
//! differences are in [`SfRules`].
//!
//! Here: the classifier's inputs, parameters and pure functions; [`SfRules`] in `rules`, the trace
//! reconstruction and the agreement in `trace`.

mod rules;
mod trace;

pub use rules::SfRules;
pub use trace::*;

use crate::model::jank::{bits, jank_type_name, PresentType, Severity};
use serde::Serialize;
use std::borrow::Cow;

/// `Fence::SIGNAL_TIME_INVALID`: the present fence never signalled validly.
pub const SIGNAL_TIME_INVALID: i64 = -1;
/// Proto `PRESENT_UNSPECIFIED` (SF's `UnknownPresent`).
pub const PRESENT_UNSPECIFIED: i32 = 0;
/// Proto `PRESENT_ON_TIME`.
pub const PRESENT_ON_TIME: i32 = 1;
/// Proto `PRESENT_LATE`.
pub const PRESENT_LATE: i32 = 2;
/// Proto `PRESENT_EARLY`.
pub const PRESENT_EARLY: i32 = 3;
/// Proto `PRESENT_DROPPED` (SurfaceFrame `PresentState::Dropped`).
pub const PRESENT_DROPPED: i32 = 4;
/// Proto `SEVERITY_UNKNOWN`.
pub const SEVERITY_UNKNOWN: i32 = 0;
/// Proto `SEVERITY_NONE`.
pub const SEVERITY_NONE: i32 = 1;
/// Proto `SEVERITY_PARTIAL`: late or early by less than one render period.
pub const SEVERITY_PARTIAL: i32 = 2;
/// Proto `SEVERITY_FULL`: late or early by one render period or more.
pub const SEVERITY_FULL: i32 = 3;

/// Classifier parameters: thresholds, periods and rules (AOSP `JankClassificationThresholds`, the frame's
/// `mRefreshRate` / `mRenderRate`). All ns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Params {
    /// |present delta| above this is late / early (SF: 2 ms; the A16 flag `increase_missed_frame_jank_threshold`
    /// makes it 4 ms).
    pub present_threshold_ns: i64,
    /// SurfaceFrame finish is late when actual end − deadline exceeds this (SF: 0).
    pub deadline_threshold_ns: i64,
    /// Display refresh period (the vsync modulo test), ns.
    pub refresh_period_ns: i64,
    /// Render period (severity; the A16 buffer-stuffing deadline), ns.
    pub render_period_ns: i64,
    /// Release rules.
    pub rules: SfRules,
}

/// `TimelineItem {startTime, endTime, presentTime}` (AOSP `FrameTimeline.h`), ns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimelineItem {
    /// Start, ns.
    pub start_ns: i64,
    /// End, ns.
    pub end_ns: i64,
    /// Present, ns ([`SIGNAL_TIME_INVALID`] for an invalid fence).
    pub present_ns: i64,
}

/// What `DisplayFrame::classifyJank` reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DisplayFrameInput {
    /// SF's predictions: wake-up target, ready time, vsync.
    pub predictions: TimelineItem,
    /// `PredictionState::Expired`.
    pub prediction_expired: bool,
    /// Actuals: wake-up, `setSfPresent` time (SF CPU end), present fence signal time.
    pub actuals: TimelineItem,
    /// GPU composition done time, when SF composited with the GPU.
    pub gpu_fence_ns: Option<i64>,
    /// `mPreviousActualPresentTime`: present fence time of the previous flushed DisplayFrame (0 at start).
    pub previous_present_ns: i64,
}

/// What `SurfaceFrame::classifyJankLocked` reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SurfaceFrameInput {
    /// The app's predictions: wake-up, deadline, expected present.
    pub predictions: TimelineItem,
    /// `PredictionState::Expired`.
    pub prediction_expired: bool,
    /// Actuals: start, max(acquire fence, queue time) (0 for a replaced buffer), the DisplayFrame's present
    /// fence signal time.
    pub actuals: TimelineItem,
    /// `PresentState::Dropped`.
    pub dropped: bool,
    /// When SF latched the layer's previous buffer (0: none).
    pub last_latch_ns: i64,
    /// The presenting DisplayFrame's jank (proto bits; 0 or [`bits::NONE`] for none).
    pub display_jank: i32,
}

/// Labels as SurfaceFlinger traces them (proto values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Label {
    /// `present_type`.
    pub present_type: i32,
    /// `on_time_finish`.
    pub on_time_finish: bool,
    /// `jank_type` bitmask ([`bits::NONE`] when no jank).
    pub jank_type: i32,
    /// `jank_severity_type` (a `SEVERITY_*` value); `None` where the release does not trace it (before A14
    /// QPR2). A byte, as the model's labels keep it: one label per actual frame.
    pub severity: Option<i8>,
}

/// A frame's labels as Perfetto shows them: `jank_type` string, `present_type`, `jank_severity_type`. The form
/// in which ftl's labels and SurfaceFlinger's are compared: two are equal when Perfetto shows the same strings.
#[derive(Debug, Clone, Copy)]
pub struct PerfettoLabels {
    /// `jank_type` bitmask, shown as [`jank_type_name`].
    pub jank_type: i32,
    /// `present_type`.
    pub present_type: PresentType,
    /// `jank_severity_type`.
    pub severity: Severity,
}

impl PerfettoLabels {
    /// True when both show the same `jank_type` string (bits Perfetto does not name show as nothing).
    pub fn same_jank_type(&self, other: &PerfettoLabels) -> bool {
        self.jank_type == other.jank_type
            || jank_type_name(self.jank_type) == jank_type_name(other.jank_type)
    }
}

impl PartialEq for PerfettoLabels {
    fn eq(&self, other: &PerfettoLabels) -> bool {
        self.present_type == other.present_type
            && self.severity == other.severity
            && self.same_jank_type(other)
    }
}

impl Label {
    /// Perfetto's `present_type`.
    pub fn perfetto_present_type(&self) -> PresentType {
        PresentType::of(Some(self.present_type))
    }
    /// Perfetto's `jank_type` string.
    pub fn jank_type_name(&self) -> Cow<'static, str> {
        jank_type_name(self.jank_type)
    }
    /// Perfetto's `jank_severity_type` (its fallback when not traced).
    pub fn perfetto_severity(&self) -> Severity {
        Severity::of(self.severity.map(i32::from), self.jank_type)
    }
    /// All three, as Perfetto shows them.
    pub fn perfetto(&self) -> PerfettoLabels {
        PerfettoLabels {
            jank_type: self.jank_type,
            present_type: self.perfetto_present_type(),
            severity: self.perfetto_severity(),
        }
    }
}

/// Internal jank (0 = none) to the traced bitmask.
fn traced_jank(jank: i32) -> i32 {
    if jank == 0 {
        bits::NONE
    } else {
        jank
    }
}

/// Present type and (traced) severity of a present delta: |delta| > threshold is late / early, Partial when
/// under one render period, else Full (strict `<`; A16 `FrameTimeline.cpp` both classifiers).
fn present_and_severity(present_delta: i64, p: &Params) -> (i32, i32) {
    if present_delta.abs() <= p.present_threshold_ns {
        return (PRESENT_ON_TIME, SEVERITY_NONE);
    }
    let present = if present_delta > 0 {
        PRESENT_LATE
    } else {
        PRESENT_EARLY
    };
    (
        present,
        if present_delta.abs() < p.render_period_ns {
            SEVERITY_PARTIAL
        } else {
            SEVERITY_FULL
        },
    )
}

/// The vsync modulo test: the present is off by whole refresh periods (± threshold), i.e. on the vsync cadence
/// (SF scheduling / Display HAL) rather than off the grid (prediction error). A16 `FrameTimeline.cpp`
/// `deltaToVsync` in both classifiers.
fn on_cadence(present_delta: i64, p: &Params) -> bool {
    let delta_to_vsync = if p.refresh_period_ns > 0 {
        present_delta.abs() % p.refresh_period_ns
    } else {
        0
    };
    delta_to_vsync < p.present_threshold_ns
        || delta_to_vsync >= p.refresh_period_ns - p.present_threshold_ns
}

/// Classifies a DisplayFrame. A16 `FrameTimeline.cpp` `DisplayFrame::classifyJank` (A12 and A13 variants by
/// [`SfRules`]): expired prediction or invalid present → Unknown (A14+: | DisplayHAL); early → SF scheduling
/// (on cadence or late finish) / prediction error; late → SF stuffing when the previous present was at or
/// after this frame's expected present, else Display HAL / prediction error on an on-time finish, SF CPU /
/// GPU deadline missed on a late one (which overrides stuffing when the present is more than a period plus
/// threshold after the previous one).
pub fn classify_display_frame(f: &DisplayFrameInput, p: &Params) -> Label {
    let (pred, act) = (f.predictions, f.actuals);
    let present_valid = if p.rules.present_valid_needs_start() {
        act.present_ns >= act.start_ns
    } else {
        act.present_ns != SIGNAL_TIME_INVALID
    };
    let severity = |s: i32| p.rules.severity_and_dropped().then_some(s as i8);
    if f.prediction_expired || !present_valid {
        let display_hal = if !present_valid && p.rules.present_valid_needs_start() {
            bits::DISPLAY_HAL
        } else {
            0
        };
        return Label {
            present_type: PRESENT_UNSPECIFIED,
            on_time_finish: false,
            jank_type: bits::UNKNOWN | display_hal,
            severity: severity(SEVERITY_UNKNOWN),
        };
    }
    let present_delta = act.present_ns - pred.present_ns;
    let combined_end = f.gpu_fence_ns.map_or(act.end_ns, |gpu| gpu.max(act.end_ns));
    let late_finish = combined_end > pred.end_ns;
    let cadence = on_cadence(present_delta, p);
    let (present_type, sev) = present_and_severity(present_delta, p);
    let thr = p.present_threshold_ns;
    let jank = match present_type {
        PRESENT_EARLY if late_finish || cadence => bits::SF_SCHEDULING,
        PRESENT_EARLY => bits::PREDICTION_ERROR,
        PRESENT_LATE => {
            let prev = f.previous_present_ns;
            let stuffed = (pred.present_ns - prev).abs() <= thr || prev > pred.present_ns;
            let gpu = f.gpu_fence_ns.is_some()
                && (!p.rules.gpu_miss_needs_short_cpu()
                    || act.end_ns - act.start_ns < p.refresh_period_ns);
            match (late_finish, stuffed) {
                (false, true) => bits::SF_STUFFING,
                (false, false) if cadence => bits::DISPLAY_HAL,
                (false, false) => bits::PREDICTION_ERROR,
                (true, true) if act.present_ns - prev <= p.refresh_period_ns + thr => {
                    bits::SF_STUFFING
                }
                (true, _) if gpu => bits::SF_GPU_DEADLINE_MISSED,
                (true, _) => bits::SF_CPU_DEADLINE_MISSED,
            }
        }
        _ => 0,
    };
    Label {
        present_type,
        on_time_finish: !late_finish,
        jank_type: traced_jank(jank),
        severity: severity(sev),
    }
}

/// Classifies a SurfaceFrame. A16 `FrameTimeline.cpp` `SurfaceFrame::onPresent` + `classifyJankLocked` (A12–A15
/// variants by [`SfRules`]): dropped frames are not classified before A14 QPR2 and are `Dropped` after; invalid
/// present → Unknown; expired prediction → per release; on time → None (display jank is not inherited);
/// early → SF scheduling / prediction error, or Unknown on a late finish; late → buffer stuffing when the
/// deadline was at or before the previous latch (finish then judged against latch + one period), then the
/// display frame's jank on an on-time finish (SF scheduling / prediction error if it had none), or
/// App Deadline Missed | display jank on a late one.
pub fn classify_surface_frame(f: &SurfaceFrameInput, p: &Params) -> Label {
    let (pred, act) = (f.predictions, f.actuals);
    let new_rules = p.rules.severity_and_dropped();
    let severity = |s: i32| new_rules.then_some(s as i8);
    let present_type = |t: i32| if f.dropped { PRESENT_DROPPED } else { t };
    if f.dropped && !new_rules {
        return Label {
            present_type: PRESENT_DROPPED,
            on_time_finish: false,
            jank_type: bits::NONE,
            severity: None,
        };
    }
    if act.present_ns == SIGNAL_TIME_INVALID || f.prediction_expired {
        let jank = if act.present_ns == SIGNAL_TIME_INVALID {
            bits::UNKNOWN
        } else {
            p.rules.expired_surface_jank(f.dropped)
        };
        return Label {
            present_type: present_type(PRESENT_UNSPECIFIED),
            on_time_finish: false,
            jank_type: jank,
            severity: severity(SEVERITY_UNKNOWN),
        };
    }
    let present_delta = act.present_ns - pred.present_ns;
    let mut late_finish = act.end_ns - pred.end_ns > p.deadline_threshold_ns;
    let cadence = on_cadence(present_delta, p);
    let (present, sev) = present_and_severity(present_delta, p);
    let display_jank = f.display_jank & !bits::NONE;
    let mut jank = 0;
    match present {
        PRESENT_EARLY if late_finish => jank = bits::UNKNOWN,
        PRESENT_EARLY => {
            jank = if cadence {
                bits::SF_SCHEDULING
            } else {
                bits::PREDICTION_ERROR
            }
        }
        PRESENT_LATE => {
            if f.last_latch_ns != 0 && pred.end_ns <= f.last_latch_ns {
                jank |= bits::BUFFER_STUFFING;
                let period = if p.rules.stuffing_uses_render_period() {
                    p.render_period_ns
                } else {
                    p.refresh_period_ns
                };
                late_finish = f.last_latch_ns + period <= act.end_ns;
            }
            if late_finish {
                jank |= bits::APP_DEADLINE_MISSED | display_jank;
            } else if display_jank != 0 {
                jank |= display_jank;
            } else if jank & bits::BUFFER_STUFFING == 0 {
                jank |= if cadence {
                    bits::SF_SCHEDULING
                } else {
                    bits::PREDICTION_ERROR
                };
            }
        }
        _ => {}
    }
    if f.dropped {
        return Label {
            present_type: PRESENT_DROPPED,
            on_time_finish: !late_finish,
            jank_type: bits::DROPPED,
            severity: severity(SEVERITY_UNKNOWN),
        };
    }
    Label {
        present_type: present,
        on_time_finish: !late_finish,
        jank_type: traced_jank(jank),
        severity: severity(sev),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_equal_when_perfetto_shows_the_same_strings() {
        let labels = |jank_type| PerfettoLabels {
            jank_type,
            present_type: PresentType::Late,
            severity: Severity::Full,
        };
        // Different bitmasks, same string: None with App Deadline Missed shows as App Deadline Missed, and bits
        // Perfetto does not name show as nothing.
        assert_eq!(labels(bits::NONE | 64), labels(64));
        assert_eq!(labels(1 << 20), labels(1 << 21));
        assert_ne!(labels(64), labels(64 | 128));
        assert_ne!(labels(0), labels(bits::NONE));
        let other = PerfettoLabels {
            severity: Severity::Partial,
            ..labels(64)
        };
        assert_ne!(labels(64), other);
    }

    /// Nanosecond-scale fixture as AOSP `FrameTimelineTest.cpp`: thresholds 2 ns / 0 ns, refresh period 11 ns.
    fn params(rules: SfRules) -> Params {
        Params {
            present_threshold_ns: 2,
            deadline_threshold_ns: 0,
            refresh_period_ns: 11,
            render_period_ns: 11,
            rules,
        }
    }

    fn item(start_ns: i64, end_ns: i64, present_ns: i64) -> TimelineItem {
        TimelineItem {
            start_ns,
            end_ns,
            present_ns,
        }
    }

    /// A DisplayFrame predicted {22, 30, 40}, woken at 22, CPU end `end`, present `present`.
    fn display(end: i64, present: i64) -> DisplayFrameInput {
        DisplayFrameInput {
            predictions: item(22, 30, 40),
            actuals: item(22, end, present),
            ..DisplayFrameInput::default()
        }
    }

    fn df(input: DisplayFrameInput, rules: SfRules) -> (i32, bool, i32, Option<i32>) {
        let l = classify_display_frame(&input, &params(rules));
        (
            l.present_type,
            l.on_time_finish,
            l.jank_type,
            l.severity.map(i32::from),
        )
    }

    const A16: SfRules = SfRules::A16;

    #[test]
    fn display_frame_on_time_early_and_late_presents() {
        // |delta| == threshold is on time; severity None.
        assert_eq!(
            df(display(30, 42), A16),
            (PRESENT_ON_TIME, true, bits::NONE, Some(SEVERITY_NONE))
        );
        // Early by a whole period, finished on time: SF scheduling; exactly one period is Full.
        assert_eq!(
            df(display(30, 29), A16),
            (
                PRESENT_EARLY,
                true,
                bits::SF_SCHEDULING,
                Some(SEVERITY_FULL)
            )
        );
        // Early off the vsync grid: prediction error; under one period is Partial.
        assert_eq!(
            df(display(30, 34), A16),
            (
                PRESENT_EARLY,
                true,
                bits::PREDICTION_ERROR,
                Some(SEVERITY_PARTIAL)
            )
        );
        // Early with a late finish: SF scheduling whatever the cadence.
        assert_eq!(
            df(display(31, 34), A16),
            (
                PRESENT_EARLY,
                false,
                bits::SF_SCHEDULING,
                Some(SEVERITY_PARTIAL)
            )
        );
        // Late on cadence with an on-time finish: display HAL; off cadence: prediction error.
        assert_eq!(
            df(display(30, 51), A16),
            (PRESENT_LATE, true, bits::DISPLAY_HAL, Some(SEVERITY_FULL))
        );
        assert_eq!(
            df(display(30, 46), A16),
            (
                PRESENT_LATE,
                true,
                bits::PREDICTION_ERROR,
                Some(SEVERITY_PARTIAL)
            )
        );
        // Delta to vsync within the threshold of the next vsync counts as on cadence.
        assert_eq!(df(display(30, 50), A16).2, bits::DISPLAY_HAL);
        // Late finish: SF CPU deadline missed; with a GPU fence, GPU deadline missed (finish from the fence).
        assert_eq!(df(display(31, 51), A16).2, bits::SF_CPU_DEADLINE_MISSED);
        let gpu = DisplayFrameInput {
            gpu_fence_ns: Some(35),
            ..display(30, 51)
        };
        assert_eq!(
            df(gpu, A16),
            (
                PRESENT_LATE,
                false,
                bits::SF_GPU_DEADLINE_MISSED,
                Some(SEVERITY_FULL)
            )
        );
        // Before A14 QPR2 no severity is traced.
        assert_eq!(df(display(30, 51), SfRules::A13).3, None);
    }

    #[test]
    fn display_frame_gpu_miss_needs_short_cpu_time_before_a14() {
        // CPU time 33 − 22 = 11 = one period: not under it, so CPU on A12/A13, GPU from A14.
        let long_cpu = DisplayFrameInput {
            gpu_fence_ns: Some(35),
            ..display(33, 51)
        };
        assert_eq!(df(long_cpu, SfRules::A12).2, bits::SF_CPU_DEADLINE_MISSED);
        assert_eq!(df(long_cpu, SfRules::A14).2, bits::SF_GPU_DEADLINE_MISSED);
        let short_cpu = DisplayFrameInput {
            gpu_fence_ns: Some(35),
            ..display(30, 51)
        };
        assert_eq!(df(short_cpu, SfRules::A13).2, bits::SF_GPU_DEADLINE_MISSED);
    }

    #[test]
    fn display_frame_surfaceflinger_stuffing() {
        // The previous frame presented at (or within the threshold of) this one's expected present.
        for prev in [40, 42, 45] {
            let stuffed = DisplayFrameInput {
                previous_present_ns: prev,
                ..display(30, 51)
            };
            assert_eq!(
                df(stuffed, A16).2,
                bits::SF_STUFFING,
                "previous present {prev}"
            );
        }
        let not_stuffed = DisplayFrameInput {
            previous_present_ns: 37,
            ..display(30, 51)
        };
        assert_eq!(df(not_stuffed, A16).2, bits::DISPLAY_HAL);
        // Late finish keeps stuffing while the present is within a period + threshold of the previous one...
        let stuffed_late = DisplayFrameInput {
            previous_present_ns: 40,
            ..display(31, 53)
        };
        assert_eq!(df(stuffed_late, A16).2, bits::SF_STUFFING);
        // ...and beyond that the CPU miss overrides it.
        let overridden = DisplayFrameInput {
            previous_present_ns: 40,
            ..display(31, 54)
        };
        assert_eq!(df(overridden, A16).2, bits::SF_CPU_DEADLINE_MISSED);
    }

    #[test]
    fn display_frame_expired_and_invalid_present() {
        let expired = DisplayFrameInput {
            prediction_expired: true,
            ..display(30, 51)
        };
        assert_eq!(
            df(expired, A16),
            (
                PRESENT_UNSPECIFIED,
                false,
                bits::UNKNOWN,
                Some(SEVERITY_UNKNOWN)
            )
        );
        assert_eq!(
            df(expired, SfRules::A12),
            (PRESENT_UNSPECIFIED, false, bits::UNKNOWN, None)
        );
        // A14+: a present before the wake-up is invalid → Unknown | Display HAL.
        let early_fence = display(30, 20);
        assert_eq!(df(early_fence, A16).2, bits::UNKNOWN | bits::DISPLAY_HAL);
        // A12/A13 only reject SIGNAL_TIME_INVALID, and give Unknown.
        assert_eq!(df(early_fence, SfRules::A13).2, bits::SF_SCHEDULING);
        assert_eq!(
            df(display(30, SIGNAL_TIME_INVALID), SfRules::A12).2,
            bits::UNKNOWN
        );
    }

    /// A SurfaceFrame predicted {10, 20, 40}, started at 10, finished at `end`, presented at `present`.
    fn surface(end: i64, present: i64) -> SurfaceFrameInput {
        SurfaceFrameInput {
            predictions: item(10, 20, 40),
            actuals: item(10, end, present),
            ..SurfaceFrameInput::default()
        }
    }

    fn sf(input: SurfaceFrameInput, p: Params) -> (i32, bool, i32, Option<i32>) {
        let l = classify_surface_frame(&input, &p);
        (
            l.present_type,
            l.on_time_finish,
            l.jank_type,
            l.severity.map(i32::from),
        )
    }

    #[test]
    fn surface_frame_on_time_and_early() {
        let p = params(A16);
        // On time never inherits display jank.
        let on_time = SurfaceFrameInput {
            display_jank: bits::SF_CPU_DEADLINE_MISSED,
            ..surface(20, 41)
        };
        assert_eq!(
            sf(on_time, p),
            (PRESENT_ON_TIME, true, bits::NONE, Some(SEVERITY_NONE))
        );
        assert_eq!(
            sf(surface(20, 29), p),
            (
                PRESENT_EARLY,
                true,
                bits::SF_SCHEDULING,
                Some(SEVERITY_FULL)
            )
        );
        assert_eq!(
            sf(surface(20, 34), p),
            (
                PRESENT_EARLY,
                true,
                bits::PREDICTION_ERROR,
                Some(SEVERITY_PARTIAL)
            )
        );
        // Late finish but early present: Unknown.
        assert_eq!(
            sf(surface(21, 29), p),
            (PRESENT_EARLY, false, bits::UNKNOWN, Some(SEVERITY_FULL))
        );
    }

    #[test]
    fn surface_frame_late_finish_and_display_jank() {
        let p = params(A16);
        // Late finish: App Deadline Missed plus the display frame's jank.
        let late = SurfaceFrameInput {
            display_jank: bits::SF_CPU_DEADLINE_MISSED,
            ..surface(21, 51)
        };
        assert_eq!(
            sf(late, p).2,
            bits::APP_DEADLINE_MISSED | bits::SF_CPU_DEADLINE_MISSED
        );
        assert_eq!(
            sf(surface(21, 51), p),
            (
                PRESENT_LATE,
                false,
                bits::APP_DEADLINE_MISSED,
                Some(SEVERITY_FULL)
            )
        );
        // On-time finish: the display frame's jank; none → by cadence.
        let display_hal = SurfaceFrameInput {
            display_jank: bits::DISPLAY_HAL,
            ..surface(20, 51)
        };
        assert_eq!(sf(display_hal, p).2, bits::DISPLAY_HAL);
        assert_eq!(sf(surface(20, 51), p).2, bits::SF_SCHEDULING);
        assert_eq!(
            sf(surface(20, 46), p),
            (
                PRESENT_LATE,
                true,
                bits::PREDICTION_ERROR,
                Some(SEVERITY_PARTIAL)
            )
        );
        // A deadline threshold moves the finish.
        let lenient = Params {
            deadline_threshold_ns: 1,
            ..p
        };
        assert_eq!(sf(surface(21, 51), lenient).2, bits::SF_SCHEDULING);
    }

    #[test]
    fn surface_frame_buffer_stuffing_moves_the_deadline() {
        let p = params(A16);
        // Deadline 20 at or before the previous latch 20: stuffed; adjusted deadline 20 + 11 = 31.
        let stuffed = |end: i64| SurfaceFrameInput {
            last_latch_ns: 20,
            ..surface(end, 51)
        };
        assert_eq!(
            sf(stuffed(30), p),
            (
                PRESENT_LATE,
                true,
                bits::BUFFER_STUFFING,
                Some(SEVERITY_FULL)
            )
        );
        // Finishing exactly at the adjusted deadline is late.
        assert_eq!(
            sf(stuffed(31), p).2,
            bits::APP_DEADLINE_MISSED | bits::BUFFER_STUFFING
        );
        // Stuffed with display jank on an on-time finish: both.
        let with_display = SurfaceFrameInput {
            display_jank: bits::DISPLAY_HAL,
            ..stuffed(30)
        };
        assert_eq!(
            sf(with_display, p).2,
            bits::BUFFER_STUFFING | bits::DISPLAY_HAL
        );
        // Latch before the deadline, or none: not stuffed.
        assert_eq!(
            sf(
                SurfaceFrameInput {
                    last_latch_ns: 19,
                    ..surface(30, 51)
                },
                p
            )
            .2,
            bits::APP_DEADLINE_MISSED
        );
        assert_eq!(sf(surface(30, 51), p).2, bits::APP_DEADLINE_MISSED);
        // A16 adds the render period, earlier releases the refresh period.
        let render_30 = |rules| Params {
            render_period_ns: 30,
            ..params(rules)
        };
        assert_eq!(sf(stuffed(40), render_30(A16)).2, bits::BUFFER_STUFFING);
        assert_eq!(
            sf(stuffed(40), render_30(SfRules::A15)).2,
            bits::APP_DEADLINE_MISSED | bits::BUFFER_STUFFING
        );
    }

    #[test]
    fn surface_frame_expired_dropped_and_invalid() {
        let expired = SurfaceFrameInput {
            prediction_expired: true,
            ..surface(21, 51)
        };
        let jank = |input, rules| sf(input, params(rules)).2;
        assert_eq!(jank(expired, SfRules::A12), bits::UNKNOWN);
        assert_eq!(jank(expired, SfRules::A13), bits::APP_DEADLINE_MISSED);
        assert_eq!(
            sf(expired, params(A16)),
            (
                PRESENT_UNSPECIFIED,
                false,
                bits::APP_DEADLINE_MISSED,
                Some(SEVERITY_UNKNOWN)
            )
        );
        let expired_dropped = SurfaceFrameInput {
            dropped: true,
            ..expired
        };
        assert_eq!(
            sf(expired_dropped, params(A16)),
            (
                PRESENT_DROPPED,
                false,
                bits::DROPPED,
                Some(SEVERITY_UNKNOWN)
            )
        );
        assert_eq!(jank(expired_dropped, SfRules::A14), bits::NONE);
        // Dropped: not classified before A14 QPR2; Dropped after, finish from the internal end (0).
        let dropped = SurfaceFrameInput {
            dropped: true,
            ..surface(0, 51)
        };
        assert_eq!(
            sf(dropped, params(SfRules::A14)),
            (PRESENT_DROPPED, false, bits::NONE, None)
        );
        assert_eq!(
            sf(dropped, params(SfRules::A14Qpr2)),
            (PRESENT_DROPPED, true, bits::DROPPED, Some(SEVERITY_UNKNOWN))
        );
        let invalid = surface(21, SIGNAL_TIME_INVALID);
        assert_eq!(
            sf(invalid, params(A16)),
            (
                PRESENT_UNSPECIFIED,
                false,
                bits::UNKNOWN,
                Some(SEVERITY_UNKNOWN)
            )
        );
    }

    #[test]
    fn severity_is_full_from_exactly_one_render_period() {
        let p = Params {
            render_period_ns: 30,
            ..params(A16)
        };
        assert_eq!(sf(surface(21, 69), p).3, Some(SEVERITY_PARTIAL));
        assert_eq!(sf(surface(21, 70), p).3, Some(SEVERITY_FULL));
        assert_eq!(df(display(30, 69), A16).3, Some(SEVERITY_FULL));
    }

    #[test]
    fn rules_parse_and_label_strings() {
        assert_eq!("A14QPR2".parse::<SfRules>(), Ok(SfRules::A14Qpr2));
        assert!("a11".parse::<SfRules>().is_err());
        let l = classify_surface_frame(&surface(21, 51), &params(SfRules::A13));
        assert_eq!(
            (
                l.perfetto_present_type().name(),
                l.jank_type_name().as_ref(),
                l.perfetto_severity().name()
            ),
            ("Late Present", "App Deadline Missed", "Unknown")
        );
    }
}
