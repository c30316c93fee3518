//! SurfaceFlinger's FrameTimeline jank classifier re-implemented as pure functions
//! ([`classify_display_frame`], [`classify_surface_frame`]), the reconstruction of their inputs from a trace
//! ([`classify_trace`]), and the agreement of the re-derived labels with the ones SurfaceFlinger traced, with a
//! reason for every disagreement ([`Reason`]).
//!
//! Primary reference: AOSP `services/surfaceflinger/FrameTimeline/FrameTimeline.cpp` at android16-release
//! (`DisplayFrame::classifyJank`, `SurfaceFrame::classifyJankLocked`, `flushPendingPresentFences`); the release
//! differences are in [`SfRules`].

use super::vsync::VsyncModel;
use crate::model::jank::{bits, jank_type_name, present_type_name, severity_name};
use crate::model::{Frames, LayerId, Slice, Timeline};
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

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
/// Proto `PREDICTION_EXPIRED`.
const PREDICTION_EXPIRED: i32 = 2;

/// Which Android release's FrameTimeline rules to apply (they changed between releases; doc §1.9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SfRules {
    /// Android 12 / 12L.
    A12,
    /// Android 13.
    A13,
    /// Android 14 r1 / QPR1.
    A14,
    /// Android 14 QPR2 / QPR3 (severity traced, dropped frames classified).
    A14Qpr2,
    /// Android 15.
    A15,
    /// Android 16.
    A16,
}

impl std::str::FromStr for SfRules {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "a12" => Ok(SfRules::A12),
            "a13" => Ok(SfRules::A13),
            "a14" => Ok(SfRules::A14),
            "a14qpr2" => Ok(SfRules::A14Qpr2),
            "a15" => Ok(SfRules::A15),
            "a16" => Ok(SfRules::A16),
            other => {
                Err(format!("unknown SurfaceFlinger rules '{other}' (expected a12, a13, a14, a14qpr2, a15 or a16)"))
            }
        }
    }
}

impl SfRules {
    /// Every rule set, oldest first.
    pub const ALL: [SfRules; 6] = [
        SfRules::A12,
        SfRules::A13,
        SfRules::A14,
        SfRules::A14Qpr2,
        SfRules::A15,
        SfRules::A16,
    ];

    /// The rules a trace shows, with how they were chosen: `system_info` SDK level, else the release in the
    /// build fingerprint, else traced `jank_severity_type` (A14 QPR2+), else the MONOTONIC FrameTimeline clock
    /// (A12; BOOTTIME since A13 `57f8e18f06`), else A13. `clock_ids` are the FrameTimeline packets' clocks.
    pub fn detect(timeline: &Timeline, clock_ids: &BTreeSet<u32>) -> (SfRules, String) {
        let severity_traced = timeline
            .actual
            .iter()
            .any(|s| s.labels.jank_severity_type.is_some());
        let info = timeline.system_info.as_ref();
        let by_release = |release: u64| match release {
            0..=12 => SfRules::A12,
            13 => SfRules::A13,
            14 if severity_traced => SfRules::A14Qpr2,
            14 => SfRules::A14,
            15 => SfRules::A15,
            _ => SfRules::A16,
        };
        if let Some(sdk) = info.and_then(|i| i.android_sdk_version) {
            let release = match sdk {
                0..=32 => 12,
                33..=36 => sdk - 20,
                _ => 16,
            };
            return (by_release(release), format!("system_info sdk {sdk}"));
        }
        let fingerprint_release = info
            .and_then(|i| i.android_build_fingerprint.as_deref())
            .and_then(|f| {
                let version = f.split(':').nth(1)?.split('/').next()?;
                let digits: String = version.chars().take_while(char::is_ascii_digit).collect();
                digits.parse::<u64>().ok().filter(|r| (12..=30).contains(r))
            });
        if let Some(release) = fingerprint_release {
            return (
                by_release(release),
                format!("fingerprint release {release}"),
            );
        }
        if severity_traced {
            (
                SfRules::A14Qpr2,
                "inferred: jank_severity_type traced (A14 QPR2+)".into(),
            )
        } else if clock_ids.contains(&3) {
            (
                SfRules::A12,
                "inferred: MONOTONIC FrameTimeline clock (A12)".into(),
            )
        } else {
            (
                SfRules::A13,
                "default: BOOTTIME clock, no severity (A13)".into(),
            )
        }
    }

    /// A14+ (`b1e10d15e6`): a DisplayFrame present before its start is invalid and becomes
    /// `Unknown | DisplayHAL`; A12/A13 test only for `SIGNAL_TIME_INVALID` and give `Unknown`.
    fn present_valid_needs_start(self) -> bool {
        self >= SfRules::A14
    }

    /// A12/A13: a GPU-composited late DisplayFrame is a GPU miss only if SF's CPU time was under one refresh
    /// period (changed by `94917b3c32` in A14).
    fn gpu_miss_needs_short_cpu(self) -> bool {
        self <= SfRules::A13
    }

    /// A14 QPR2+ (`631e425dbf`, `96eb5353ca`): dropped SurfaceFrames are classified (`Dropped`) and
    /// `jank_severity_type` is traced.
    fn severity_and_dropped(self) -> bool {
        self >= SfRules::A14Qpr2
    }

    /// A16 (`0d03b07dce`): the buffer-stuffing adjusted deadline adds the render period, before it the refresh
    /// period.
    fn stuffing_uses_render_period(self) -> bool {
        self >= SfRules::A16
    }

    /// A16 (`SurfaceFlinger.cpp` `updateLayerSnapshots`): a bufferless (transaction) frame also records the
    /// layer's latch time; before, only latched buffers do (`Layer::addSurfaceFramePresentedForBuffer`), so a
    /// layer that only gets transactions never has a previous latch.
    fn bufferless_updates_latch(self) -> bool {
        self >= SfRules::A16
    }

    /// Jank of a SurfaceFrame whose prediction expired: A12 Unknown; A13+ AppDeadlineMissed (`e43ff72e40`);
    /// A14 QPR2+ Dropped when it was dropped.
    fn expired_surface_jank(self, dropped: bool) -> i32 {
        match self {
            SfRules::A12 => bits::UNKNOWN,
            _ if dropped && self.severity_and_dropped() => bits::DROPPED,
            _ => bits::APP_DEADLINE_MISSED,
        }
    }
}

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
    /// `jank_severity_type`; `None` where the release does not trace it (before A14 QPR2).
    pub severity: Option<i32>,
}

impl Label {
    /// Perfetto's `present_type` string.
    pub fn present_type_name(&self) -> &'static str {
        present_type_name(Some(self.present_type))
    }
    /// Perfetto's `jank_type` string.
    pub fn jank_type_name(&self) -> Cow<'static, str> {
        jank_type_name(self.jank_type)
    }
    /// Perfetto's `jank_severity_type` string (its fallback when not traced).
    pub fn severity_name(&self) -> &'static str {
        severity_name(self.severity, self.jank_type)
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
    let severity = |s: i32| p.rules.severity_and_dropped().then_some(s);
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
    let severity = |s: i32| new_rules.then_some(s);
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

/// Why a re-derived label differs from SurfaceFlinger's, or why a frame could not be re-derived: the input
/// the trace lacks whose plausible value reproduces SurfaceFlinger's label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// The previous DisplayFrame's present (SF stuffing test) is not traced.
    PrevPresentNotTraced,
    /// The previous latch time of the layer (buffer stuffing) is approximated.
    LatchTimeApproximated,
    /// The app's expected present is not traced and was reconstructed.
    ExpectedPresentReconstructed,
    /// SurfaceFlinger's CPU end time is not traced.
    SfEndNotTraced,
    /// The present fence was invalid (A14+: the slice ends at SF's CPU end).
    PresentFenceInvalid,
    /// The refresh / render period is inferred.
    VsyncPeriodInferred,
    /// Another Android release's rule reproduces the label.
    AndroidVersionRule,
    /// The prediction expired.
    PredictionExpired,
    /// The presenting DisplayFrame is not in the trace.
    DisplayFrameNotTraced,
    /// The actual slice (or its DisplayFrame) never ended in the trace.
    SliceUnterminated,
    /// The prediction is valid but the expected slice is missing.
    ExpectedSliceMissing,
    /// No vsync period is known (too few DisplayFrames, no override).
    VsyncPeriodUnknown,
    /// A synthetic DisplayFrame for a skipped frame (A14 QPR2+ `addSkippedFrame`), not classified by SF.
    SkippedFrame,
    /// The A16 flag `increase_missed_frame_jank_threshold` (4 ms present threshold) reproduces the label.
    PresentThresholdFlag,
    /// No single missing input reproduces the label.
    Unexplained,
}

impl Reason {
    /// Every reason.
    pub const ALL: [Reason; 15] = [
        Reason::PrevPresentNotTraced,
        Reason::LatchTimeApproximated,
        Reason::ExpectedPresentReconstructed,
        Reason::SfEndNotTraced,
        Reason::PresentFenceInvalid,
        Reason::VsyncPeriodInferred,
        Reason::AndroidVersionRule,
        Reason::PredictionExpired,
        Reason::DisplayFrameNotTraced,
        Reason::SliceUnterminated,
        Reason::ExpectedSliceMissing,
        Reason::VsyncPeriodUnknown,
        Reason::SkippedFrame,
        Reason::PresentThresholdFlag,
        Reason::Unexplained,
    ];

    /// The reason with this code (as in `FrameRow::disagreement_reason`).
    pub fn from_code(code: &str) -> Option<Reason> {
        Reason::ALL.into_iter().find(|r| r.code() == code)
    }

    /// The snake_case code.
    pub fn code(self) -> &'static str {
        match self {
            Reason::PrevPresentNotTraced => "prev_present_not_traced",
            Reason::LatchTimeApproximated => "latch_time_approximated",
            Reason::ExpectedPresentReconstructed => "expected_present_reconstructed",
            Reason::SfEndNotTraced => "sf_end_not_traced",
            Reason::PresentFenceInvalid => "present_fence_invalid",
            Reason::VsyncPeriodInferred => "vsync_period_inferred",
            Reason::AndroidVersionRule => "android_version_rule",
            Reason::PredictionExpired => "prediction_expired",
            Reason::DisplayFrameNotTraced => "display_frame_not_traced",
            Reason::SliceUnterminated => "slice_unterminated",
            Reason::ExpectedSliceMissing => "expected_slice_missing",
            Reason::VsyncPeriodUnknown => "vsync_period_unknown",
            Reason::SkippedFrame => "skipped_frame",
            Reason::PresentThresholdFlag => "present_threshold_flag",
            Reason::Unexplained => "unexplained",
        }
    }

    /// One sentence for people.
    pub fn sentence(self) -> &'static str {
        match self {
            Reason::PrevPresentNotTraced => "SurfaceFlinger compared with the present time of a previous DisplayFrame that is not in the trace (SurfaceFlinger stuffing test).",
            Reason::LatchTimeApproximated => "When SurfaceFlinger latched the layer's previous buffer is not traced; its approximation (the wake-up of the DisplayFrame that took that buffer) decides buffer stuffing differently.",
            Reason::ExpectedPresentReconstructed => "The app's expected present time is not traced; the reconstructed one (deadline + SurfaceFlinger work duration on the vsync grid) is off by a vsync.",
            Reason::SfEndNotTraced => "SurfaceFlinger's CPU end time is not traced (only on_time_finish is), and the Android 12/13 GPU-versus-CPU deadline rule depends on it.",
            Reason::PresentFenceInvalid => "The present fence was invalid, so the slice ends at SurfaceFlinger's CPU end rather than at a present.",
            Reason::VsyncPeriodInferred => "The refresh period is inferred from the trace; SurfaceFlinger's own period at that moment reproduces its label.",
            Reason::AndroidVersionRule => "The label follows another Android release's rule than the one chosen for this trace.",
            Reason::PredictionExpired => "SurfaceFlinger's prediction for this frame had expired, so it is labelled without timing.",
            Reason::DisplayFrameNotTraced => "The DisplayFrame that presented this frame is not in the trace, so its present time is unknown.",
            Reason::SliceUnterminated => "The frame's slice (or its DisplayFrame's) never ended in the trace, so its present time is unknown.",
            Reason::ExpectedSliceMissing => "The prediction is valid but its expected slice is not in the trace.",
            Reason::VsyncPeriodUnknown => "The trace has too few DisplayFrames to infer the vsync period; pass one explicitly.",
            Reason::SkippedFrame => "A synthetic DisplayFrame SurfaceFlinger adds for a frame it skipped (Android 14 QPR2+); it is labelled Dropped, not classified.",
            Reason::PresentThresholdFlag => "The label follows the 4 ms present threshold of the Android 16 flag increase_missed_frame_jank_threshold.",
            Reason::Unexplained => "No single missing input reproduces SurfaceFlinger's label.",
        }
    }
}

/// The re-derivation of one actual frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Derived {
    /// Re-derived labels; `None` when the frame could not be re-derived (`reason` says why).
    pub label: Option<Label>,
    /// Whether jank type, present type and severity all equal SurfaceFlinger's; `None` when not re-derived.
    pub agrees: Option<bool>,
    /// Why it disagrees or could not be re-derived.
    pub reason: Option<Reason>,
    /// The expected present used (DisplayFrames: expected end; SurfaceFrames: reconstructed), ns.
    pub expected_present_ns: Option<i64>,
    /// Scheduled with a non-default (early / early-GPU) SF work duration.
    pub early_durations: bool,
}

/// Agreement of one frame kind with SurfaceFlinger's labels.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct KindAgreement {
    /// Actual frames.
    pub frames: u64,
    /// Frames re-derived and compared.
    pub compared: u64,
    /// Compared frames whose jank type agrees.
    pub jank_type_agreed: u64,
    /// Compared frames whose present type agrees.
    pub present_type_agreed: u64,
    /// Compared frames whose severity agrees.
    pub severity_agreed: u64,
    /// `jank_type_agreed / compared`.
    pub jank_type_rate: Option<f64>,
    /// `present_type_agreed / compared`.
    pub present_type_rate: Option<f64>,
    /// `severity_agreed / compared`.
    pub severity_rate: Option<f64>,
    /// Compared frames with any label different.
    pub disagreements: u64,
    /// Disagreements per reason code.
    pub disagreement_reasons: BTreeMap<&'static str, u64>,
    /// Frames not compared, per reason code.
    pub not_compared_reasons: BTreeMap<&'static str, u64>,
}

/// Agreement of the re-derived labels with SurfaceFlinger's, for the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Agreement {
    /// The rules applied.
    pub rules: SfRules,
    /// How they were chosen (`forced`, `system_info sdk 33`, ...).
    pub rules_source: String,
    /// Present threshold, ns.
    pub present_threshold_ns: i64,
    /// Deadline threshold, ns.
    pub deadline_threshold_ns: i64,
    /// DisplayFrames.
    pub display_frames: KindAgreement,
    /// SurfaceFrames.
    pub surface_frames: KindAgreement,
}

/// The re-derivation of a whole trace: per frame, parallel to [`Frames::display`] / [`Frames::surface`].
#[derive(Debug, Clone, PartialEq)]
pub struct Classification {
    /// Per DisplayFrame.
    pub display: Vec<Derived>,
    /// Per SurfaceFrame.
    pub surface: Vec<Derived>,
    /// Totals.
    pub agreement: Agreement,
}

/// Options of [`classify_trace`].
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// Present threshold, ns.
    pub present_threshold_ns: i64,
    /// Rules and how they were chosen.
    pub rules: (SfRules, String),
}

/// A frame ready to classify, with the inputs the trace does not pin down.
#[derive(Debug, Clone, Copy)]
enum Input {
    Display(DisplayFrameInput),
    Surface(SurfaceFrameInput),
}

impl Input {
    fn classify(&self, p: &Params) -> Label {
        match self {
            Input::Display(d) => classify_display_frame(d, p),
            Input::Surface(s) => classify_surface_frame(s, p),
        }
    }
}

/// Labels as strings: (jank type, present type, severity).
type Traced = (Cow<'static, str>, &'static str, &'static str);

/// SurfaceFlinger's labels of an actual slice, in the same form as [`Label`] (strings compared).
fn traced(s: &Slice) -> Traced {
    (s.jank_type(), s.present_type(), s.severity())
}

/// Per-frame context for the search of a disagreement's reason.
#[derive(Debug, Clone, Copy, Default)]
struct Context {
    /// The previous present used is uncertain (first DisplayFrame, or a gap where untraced ones may be).
    prev_present_uncertain: bool,
    /// The SurfaceFrame's expected present did not come from an expected DisplayFrame with its deadline.
    expected_present_reconstructed: bool,
    /// SF's snapped period for the window.
    snapped_period_ns: i64,
}

/// The first reason whose alternative input reproduces SurfaceFlinger's label `want`.
fn find_reason(input: &Input, p: &Params, ctx: &Context, want: &Traced) -> Reason {
    let matches = |i: &Input, p: &Params| {
        let l = i.classify(p);
        (l.jank_type_name(), l.present_type_name(), l.severity_name()) == *want
    };
    let mut alternatives: Vec<(Reason, Input, Params)> = Vec::new();
    match *input {
        Input::Display(d) => {
            if ctx.prev_present_uncertain {
                for prev in [0, d.predictions.present_ns] {
                    let alt = DisplayFrameInput {
                        previous_present_ns: prev,
                        ..d
                    };
                    alternatives.push((Reason::PrevPresentNotTraced, Input::Display(alt), *p));
                }
            }
            if d.gpu_fence_ns.is_some() && p.rules.gpu_miss_needs_short_cpu() {
                // SF's CPU time decides GPU vs CPU; the GPU fence keeps the traced finish.
                for cpu_ns in [0, p.refresh_period_ns] {
                    let act = TimelineItem {
                        end_ns: d.actuals.start_ns + cpu_ns,
                        ..d.actuals
                    };
                    alternatives.push((
                        Reason::SfEndNotTraced,
                        Input::Display(DisplayFrameInput { actuals: act, ..d }),
                        *p,
                    ));
                }
            }
        }
        Input::Surface(s) => {
            // No previous latch; a latch at the deadline (stuffed); one late enough for an on-time finish.
            for latch in [
                0,
                s.predictions.end_ns,
                s.actuals.end_ns - p.refresh_period_ns + 1,
            ] {
                let alt = SurfaceFrameInput {
                    last_latch_ns: latch,
                    ..s
                };
                alternatives.push((Reason::LatchTimeApproximated, Input::Surface(alt), *p));
            }
            if ctx.expected_present_reconstructed {
                for shift in [-p.refresh_period_ns, p.refresh_period_ns] {
                    let pred = TimelineItem {
                        present_ns: s.predictions.present_ns + shift,
                        ..s.predictions
                    };
                    alternatives.push((
                        Reason::ExpectedPresentReconstructed,
                        Input::Surface(SurfaceFrameInput {
                            predictions: pred,
                            ..s
                        }),
                        *p,
                    ));
                }
            }
        }
    }
    if ctx.snapped_period_ns > 0 && ctx.snapped_period_ns != p.refresh_period_ns {
        let snapped = Params {
            refresh_period_ns: ctx.snapped_period_ns,
            render_period_ns: ctx.snapped_period_ns,
            ..*p
        };
        alternatives.push((Reason::VsyncPeriodInferred, *input, snapped));
    }
    if p.rules >= SfRules::A16 {
        let extended = Params {
            present_threshold_ns: 2 * p.present_threshold_ns,
            ..*p
        };
        alternatives.push((Reason::PresentThresholdFlag, *input, extended));
    }
    for rules in SfRules::ALL.into_iter().filter(|r| *r != p.rules) {
        alternatives.push((Reason::AndroidVersionRule, *input, Params { rules, ..*p }));
    }
    let expired = match input {
        Input::Display(d) => d.prediction_expired,
        Input::Surface(s) => s.prediction_expired,
    };
    alternatives
        .iter()
        .find(|(_, i, p)| matches(i, p))
        .map(|(r, _, _)| *r)
        .unwrap_or(if expired {
            Reason::PredictionExpired
        } else {
            Reason::Unexplained
        })
}

/// Re-derives the labels of every actual frame and compares them with SurfaceFlinger's.
///
/// Inputs the trace lacks are rebuilt as the algorithm doc §2.3 describes: a DisplayFrame's expected present
/// is its expected end, its CPU end and GPU fence come from `on_time_finish` / `gpu_composition`, its previous
/// present is the end of the previous DisplayFrame in token (flush) order (A14+: skipping invalid fences, which
/// do not update it, A16 `flushPendingPresentFences`); a SurfaceFrame's present is its DisplayFrame's end, its
/// expected present comes from [`VsyncModel::expected_present_ns`], its previous latch is the start of the
/// DisplayFrame that took the layer's previous presented frame (0 for the first frame of a layer), its display
/// jank is the DisplayFrame's traced jank. Periods come from the vsync model at the expected present.
pub fn classify_trace(
    timeline: &Timeline,
    frames: &Frames,
    vsync: &VsyncModel,
    options: &Options,
) -> Classification {
    let (rules, rules_source) = options.rules.clone();
    let params_at = |ts: i64| {
        let refresh = vsync.period_at(ts).unwrap_or(0);
        Params {
            present_threshold_ns: options.present_threshold_ns,
            deadline_threshold_ns: 0,
            refresh_period_ns: refresh,
            render_period_ns: refresh,
            rules,
        }
    };
    let snapped_at = |ts: i64| vsync.window_at(ts).map_or(0, |w| w.period_ns);
    let actual = |i: usize| timeline.actual.get(i);
    let expected = |i: Option<usize>| i.and_then(|i| timeline.expected.get(i));

    // DisplayFrames in flush (token) order, each with the previous present SF had recorded.
    let mut display = vec![Derived::default(); frames.display.len()];
    let mut order: Vec<usize> = (0..frames.display.len()).collect();
    order.sort_by_key(|&i| {
        frames
            .display
            .get(i)
            .and_then(|d| actual(d.actual))
            .map(|s| s.token)
    });
    let mut previous: Option<(i64, i64)> = None; // (present, expected present)
    for i in order {
        let (Some(df), Some(out)) = (frames.display.get(i), display.get_mut(i)) else {
            continue;
        };
        let Some(s) = actual(df.actual) else { continue };
        let exp = expected(df.expected);
        let expired = s.labels.prediction_type == Some(PREDICTION_EXPIRED);
        let present = s.end_ns();
        let invalid_fence = rules.present_valid_needs_start() && invalid_fence_label(s);
        let skipped = s.token == 0 && s.labels.present_type == Some(PRESENT_DROPPED);
        let pred = exp.and_then(|e| {
            Some(TimelineItem {
                start_ns: e.ts_ns,
                end_ns: e.end_ns()?,
                present_ns: e.end_ns()?,
            })
        });
        out.expected_present_ns = pred.map(|p| p.present_ns);
        out.early_durations = exp.is_some_and(|e| {
            e.end_ns()
                .is_some_and(|end| vsync.is_early_duration(end, e.dur_ns))
        });
        let params = params_at(pred.map_or(s.ts_ns, |p| p.present_ns));
        let prev_present = previous.map_or(0, |(p, _)| p);
        // Uncertain for the first DisplayFrame, and after a gap from A14 on, which does not trace
        // DisplayFrames without SurfaceFrames (`57a8ab471e`).
        let prev_uncertain = previous.is_none_or(|(_, prev_expected)| {
            rules >= SfRules::A14
                && pred
                    .is_none_or(|p| p.present_ns - prev_expected > params.refresh_period_ns * 3 / 2)
        });
        let not_derivable = if skipped {
            Some(Reason::SkippedFrame)
        } else if invalid_fence {
            Some(Reason::PresentFenceInvalid)
        } else if present.is_none() {
            Some(Reason::SliceUnterminated)
        } else if pred.is_none() && !expired {
            Some(Reason::ExpectedSliceMissing)
        } else if params.refresh_period_ns <= 0 {
            Some(Reason::VsyncPeriodUnknown)
        } else {
            None
        };
        if let (Some(present_ns), false) = (present, invalid_fence || skipped) {
            previous = Some((present_ns, pred.map_or(present_ns, |p| p.present_ns)));
        }
        if let Some(reason) = not_derivable {
            out.reason = Some(reason);
            continue;
        }
        let pred = pred.unwrap_or_default();
        // SF's CPU end is not traced: on time → the deadline; late → the middle of the vsync period before
        // the present (the fence signals on the first vsync after SF's work), at least just past the deadline.
        let end_ns = if s.labels.on_time_finish.unwrap_or(false) {
            pred.end_ns
        } else {
            (pred.end_ns + 1).max(present.unwrap_or(0) - params.refresh_period_ns / 2)
        };
        let input = DisplayFrameInput {
            predictions: pred,
            prediction_expired: expired,
            actuals: TimelineItem {
                start_ns: s.ts_ns,
                end_ns,
                present_ns: present.unwrap_or(SIGNAL_TIME_INVALID),
            },
            gpu_fence_ns: s.labels.gpu_composition.unwrap_or(false).then_some(end_ns),
            previous_present_ns: prev_present,
        };
        let ctx = Context {
            prev_present_uncertain: prev_uncertain,
            snapped_period_ns: snapped_at(pred.present_ns),
            ..Context::default()
        };
        compare(out, &Input::Display(input), &params, &ctx, s);
    }

    // SurfaceFrames in latch order (their DisplayFrame's wake-up, then token), carrying each layer's latch.
    let mut surface = vec![Derived::default(); frames.surface.len()];
    let mut order: Vec<usize> = (0..frames.surface.len()).collect();
    order.sort_by_key(|&i| {
        let f = frames.surface.get(i);
        let latch = f
            .and_then(|f| f.display)
            .and_then(|d| frames.display.get(d))
            .and_then(|d| actual(d.actual));
        (
            latch.map(|d| d.ts_ns),
            f.and_then(|f| actual(f.actual)).map(|s| s.token),
        )
    });
    let mut last_latch: FxHashMap<(i32, Option<LayerId>), i64> = FxHashMap::default();
    for i in order {
        let (Some(f), Some(out)) = (frames.surface.get(i), surface.get_mut(i)) else {
            continue;
        };
        let Some(s) = actual(f.actual) else { continue };
        let df = f
            .display
            .and_then(|d| frames.display.get(d))
            .and_then(|d| actual(d.actual));
        let exp = expected(f.expected);
        let expired = s.labels.prediction_type == Some(PREDICTION_EXPIRED);
        let dropped = s.labels.present_type == Some(PRESENT_DROPPED);
        let key = (s.pid, s.layer);
        let latch = last_latch.get(&key).copied().unwrap_or(0);
        let updates_latch = s.labels.is_buffer != Some(false) || rules.bufferless_updates_latch();
        if let (Some(df), false, true) = (df, dropped, updates_latch) {
            last_latch.insert(key, df.ts_ns);
        }
        let app_end = exp.and_then(Slice::end_ns);
        let found = app_end.and_then(|end| vsync.expected_present_ns(end));
        let expected_present = found.map(|(p, _)| p);
        out.expected_present_ns = expected_present;
        out.early_durations = app_end
            .zip(expected_present)
            .is_some_and(|(end, p)| vsync.is_early_duration(p, p - end));
        let params = params_at(
            expected_present
                .or(df.and_then(Slice::end_ns))
                .unwrap_or(s.ts_ns),
        );
        let df_invalid_fence =
            rules.present_valid_needs_start() && df.is_some_and(invalid_fence_label);
        let present = df.and_then(Slice::end_ns);
        let not_derivable = if df.is_none() {
            Some(Reason::DisplayFrameNotTraced)
        } else if present.is_none() || (s.dur_ns < 0 && !dropped) {
            Some(Reason::SliceUnterminated)
        } else if exp.is_none() && !expired {
            Some(Reason::ExpectedSliceMissing)
        } else if params.refresh_period_ns <= 0 || (expected_present.is_none() && !expired) {
            Some(Reason::VsyncPeriodUnknown)
        } else {
            None
        };
        if let Some(reason) = not_derivable {
            out.reason = Some(reason);
            continue;
        }
        let pred = exp
            .zip(app_end)
            .zip(expected_present)
            .map(|((e, end_ns), present_ns)| TimelineItem {
                start_ns: e.ts_ns,
                end_ns,
                present_ns,
            })
            .unwrap_or_default();
        let input = SurfaceFrameInput {
            predictions: pred,
            prediction_expired: expired,
            actuals: TimelineItem {
                start_ns: s.ts_ns,
                end_ns: if dropped { 0 } else { s.end_ns().unwrap_or(0) },
                present_ns: if df_invalid_fence {
                    SIGNAL_TIME_INVALID
                } else {
                    present.unwrap_or(SIGNAL_TIME_INVALID)
                },
            },
            dropped,
            last_latch_ns: latch,
            display_jank: df.map_or(0, Slice::jank_bits),
        };
        let ctx = Context {
            expected_present_reconstructed: !found.is_some_and(|(_, matched)| matched),
            snapped_period_ns: snapped_at(pred.present_ns),
            ..Context::default()
        };
        compare(out, &Input::Surface(input), &params, &ctx, s);
    }

    let agreement = Agreement {
        rules,
        rules_source,
        present_threshold_ns: options.present_threshold_ns,
        deadline_threshold_ns: 0,
        display_frames: summarize(&display, frames.display.iter().map(|d| actual(d.actual))),
        surface_frames: summarize(&surface, frames.surface.iter().map(|f| actual(f.actual))),
    };
    Classification {
        display,
        surface,
        agreement,
    }
}

/// A14+ labels a DisplayFrame whose present fence was invalid `Unknown | Display HAL` and ends its slice at
/// SF's CPU end (A16 `DisplayFrame::classifyJank`); only the label tells.
fn invalid_fence_label(s: &Slice) -> bool {
    let both = bits::UNKNOWN | bits::DISPLAY_HAL;
    s.jank_bits() & both == both
}

/// Classifies `input`, compares with the slice's labels, and finds the reason of a disagreement.
fn compare(out: &mut Derived, input: &Input, p: &Params, ctx: &Context, s: &Slice) {
    let label = input.classify(p);
    let want = traced(s);
    let agrees = (
        label.jank_type_name(),
        label.present_type_name(),
        label.severity_name(),
    ) == want;
    out.label = Some(label);
    out.agrees = Some(agrees);
    if !agrees {
        out.reason = Some(find_reason(input, p, ctx, &want));
    }
}

/// Counts per frame kind; `slices` are the actual slices parallel to `derived`.
fn summarize<'a>(
    derived: &[Derived],
    slices: impl Iterator<Item = Option<&'a Slice>>,
) -> KindAgreement {
    let mut k = KindAgreement {
        frames: derived.len() as u64,
        ..KindAgreement::default()
    };
    for (d, s) in derived.iter().zip(slices) {
        let (Some(label), Some(s)) = (d.label, s) else {
            if let Some(r) = d.reason {
                *k.not_compared_reasons.entry(r.code()).or_default() += 1;
            }
            continue;
        };
        let (jank, present, severity) = traced(s);
        k.compared += 1;
        k.jank_type_agreed += u64::from(label.jank_type_name() == jank);
        k.present_type_agreed += u64::from(label.present_type_name() == present);
        k.severity_agreed += u64::from(label.severity_name() == severity);
        if d.agrees == Some(false) {
            k.disagreements += 1;
            *k.disagreement_reasons
                .entry(d.reason.unwrap_or(Reason::Unexplained).code())
                .or_default() += 1;
        }
    }
    let rate = |n: u64| (k.compared > 0).then(|| n as f64 / k.compared as f64);
    k.jank_type_rate = rate(k.jank_type_agreed);
    k.present_type_rate = rate(k.present_type_agreed);
    k.severity_rate = rate(k.severity_agreed);
    k
}

#[cfg(test)]
mod tests {
    use super::*;

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
        (l.present_type, l.on_time_finish, l.jank_type, l.severity)
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
        (l.present_type, l.on_time_finish, l.jank_type, l.severity)
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
                l.present_type_name(),
                l.jank_type_name().as_ref(),
                l.severity_name()
            ),
            ("Late Present", "App Deadline Missed", "Unknown")
        );
    }

    #[test]
    fn reason_codes_round_trip_and_have_sentences() {
        for r in Reason::ALL {
            assert_eq!(Reason::from_code(r.code()), Some(r));
            assert!(r.sentence().ends_with('.'), "{r:?}");
        }
        assert_eq!(Reason::from_code("nope"), None);
    }

    #[test]
    fn rules_follow_what_the_trace_shows() {
        use crate::decode::SystemInfo;
        let with_info = |sdk: Option<u64>, fingerprint: Option<&str>| Timeline {
            system_info: Some(SystemInfo {
                android_sdk_version: sdk,
                android_build_fingerprint: fingerprint.map(str::to_string),
                ..SystemInfo::default()
            }),
            ..Timeline::default()
        };
        let boottime = BTreeSet::from([6]);
        let detect = |t: &Timeline, clocks: &BTreeSet<u32>| SfRules::detect(t, clocks).0;
        assert_eq!(detect(&with_info(Some(33), None), &boottime), SfRules::A13);
        assert_eq!(detect(&with_info(Some(34), None), &boottime), SfRules::A14);
        assert_eq!(detect(&with_info(Some(36), None), &boottime), SfRules::A16);
        let fingerprint = Some("google/cheetah/cheetah:15/AP3A.240905.015/123:user/release-keys");
        assert_eq!(
            detect(&with_info(None, fingerprint), &boottime),
            SfRules::A15
        );
        let unreadable = with_info(
            None,
            Some("Must use __system_property_read_callback() to read"),
        );
        assert_eq!(detect(&unreadable, &BTreeSet::from([3])), SfRules::A12);
        assert_eq!(detect(&Timeline::default(), &boottime), SfRules::A13);
        let mut severity = Timeline::default();
        severity.actual.push(Slice {
            kind: crate::decode::SliceKind::ActualDisplayFrame,
            ts_ns: 0,
            dur_ns: 1,
            pid: 1,
            token: 1,
            display_frame_token: 1,
            layer: None,
            labels: crate::decode::FrameLabels {
                jank_severity_type: Some(1),
                ..Default::default()
            },
        });
        assert_eq!(detect(&severity, &boottime), SfRules::A14Qpr2);
        severity.system_info = with_info(Some(34), None).system_info;
        assert_eq!(detect(&severity, &boottime), SfRules::A14Qpr2);
    }
}
