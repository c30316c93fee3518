//! The classifier's inputs reconstructed from a trace ([`classify_trace`]), and the agreement of the re-derived
//! labels with SurfaceFlinger's, with a reason for every disagreement ([`Reason`]).

use super::*;
use crate::analysis::vsync::VsyncModel;
use crate::model::jank::PredictionType;
use crate::model::{ExpectedBounds, Frames, LayerId, Slice, Timeline};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

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
    /// [`Derived::expected_present_ns`] when `has_expected_present`: 9 bytes where an `Option<i64>` takes 16.
    expected_present: i64,
    has_expected_present: bool,
    /// Scheduled with a non-default (early / early-GPU) SF work duration.
    pub early_durations: bool,
}

// One per actual frame, alive with the model's slices.
const _: () = assert!(std::mem::size_of::<Derived>() == 24);

impl Derived {
    /// The expected present used (DisplayFrames: expected end; SurfaceFrames: reconstructed), ns.
    pub fn expected_present_ns(&self) -> Option<i64> {
        self.has_expected_present.then_some(self.expected_present)
    }

    fn set_expected_present_ns(&mut self, ns: Option<i64>) {
        self.has_expected_present = ns.is_some();
        self.expected_present = ns.unwrap_or_default();
    }
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

/// SurfaceFlinger's labels of an actual slice, in the form [`Label::perfetto`] gives ftl's.
fn traced(s: &Slice) -> PerfettoLabels {
    PerfettoLabels {
        jank_type: s.jank_bits(),
        present_type: s.present_type(),
        severity: s.severity(),
    }
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
fn find_reason(input: &Input, p: &Params, ctx: &Context, want: &PerfettoLabels) -> Reason {
    let matches = |i: &Input, p: &Params| i.classify(p).perfetto() == *want;
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
/// jank is the DisplayFrame's traced jank. Periods come from the vsync model at the expected present. The
/// expected slices are read from `expected`, [`Timeline::expected`]'s bounds (the slices themselves may be gone).
pub fn classify_trace(
    timeline: &Timeline,
    expected: &ExpectedBounds,
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
    let expected = |i: Option<usize>| i.and_then(|i| expected.get(i));

    // DisplayFrames in flush (token) order, each with the previous present SF had recorded.
    let mut display = vec![Derived::default(); frames.display.len()];
    // A frame without its actual slice is skipped below: where it sorts does not matter.
    let order = stable_order(frames.display.len(), |i| {
        actual(frames.display[i].actual()).map_or(i64::MIN, |s| s.token)
    });
    let mut previous: Option<(i64, i64)> = None; // (present, expected present)
    for i in order.into_iter().map(|i| i as usize) {
        let (Some(df), Some(out)) = (frames.display.get(i), display.get_mut(i)) else {
            continue;
        };
        let Some(s) = actual(df.actual()) else {
            continue;
        };
        let exp = expected(df.expected());
        let expired = s.prediction_type() == PredictionType::Expired;
        let present = s.end_ns();
        let invalid_fence = rules.present_valid_needs_start() && invalid_fence_label(s);
        let skipped = s.token == 0 && s.present_type() == PresentType::Dropped;
        let pred = exp.and_then(|(start, end)| {
            Some(TimelineItem {
                start_ns: start,
                end_ns: end?,
                present_ns: end?,
            })
        });
        out.set_expected_present_ns(pred.map(|p| p.present_ns));
        out.early_durations =
            pred.is_some_and(|p| vsync.is_early_duration(p.end_ns, p.end_ns - p.start_ns));
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
    // Frames without a latch first (no trace time is i64::MIN: Perfetto drops negative timestamps); a frame
    // without its actual slice is skipped below.
    let order = latch_order(
        frames.surface.len(),
        frames.display.len(),
        |i| frames.surface[i].display(),
        |d| {
            let d = frames.display.get(d)?;
            actual(d.actual()).map(|s| s.ts_ns)
        },
        |i| actual(frames.surface[i].actual()).map_or(i64::MIN, |s| s.token),
    );
    let mut last_latch: FxHashMap<(i32, Option<LayerId>), i64> = FxHashMap::default();
    for i in order.into_iter().map(|i| i as usize) {
        let (Some(f), Some(out)) = (frames.surface.get(i), surface.get_mut(i)) else {
            continue;
        };
        let Some(s) = actual(f.actual()) else {
            continue;
        };
        let df = f
            .display()
            .and_then(|d| frames.display.get(d))
            .and_then(|d| actual(d.actual()));
        let exp = expected(f.expected());
        let expired = s.prediction_type() == PredictionType::Expired;
        let dropped = s.present_type() == PresentType::Dropped;
        let key = (s.pid, s.layer);
        let latch = last_latch.get(&key).copied().unwrap_or(0);
        let updates_latch = s.labels.is_buffer != Some(false) || rules.bufferless_updates_latch();
        if let (Some(df), false, true) = (df, dropped, updates_latch) {
            last_latch.insert(key, df.ts_ns);
        }
        let app_end = exp.and_then(|(_, end)| end);
        let found = app_end.and_then(|end| vsync.expected_present_ns(end));
        let expected_present = found.map(|(p, _)| p);
        out.set_expected_present_ns(expected_present);
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
            .map(|(((start_ns, _), end_ns), present_ns)| TimelineItem {
                start_ns,
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
        display_frames: summarize(&display, frames.display.iter().map(|d| actual(d.actual()))),
        surface_frames: summarize(&surface, frames.surface.iter().map(|f| actual(f.actual()))),
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
    let agrees = label.perfetto() == want;
    out.label = Some(label);
    out.agrees = Some(agrees);
    if !agrees {
        out.reason = Some(find_reason(input, p, ctx, &want));
    }
}

/// The indices `0..n` in the order a stable sort by `key` puts them. Each key is computed once (it is reached
/// through the frame's slices: computed per comparison, it made this sort the dearest step of classification)
/// and paired with its index, which makes the pairs distinct: an unstable sort of them is the stable order.
fn stable_order<K: Ord>(n: usize, key: impl Fn(usize) -> K) -> Vec<u32> {
    let mut keyed: Vec<(K, u32)> = (0..n as u32).map(|i| (key(i as usize), i)).collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, i)| i).collect()
}

/// The indexes `0..n` of SurfaceFrames in the order a stable sort by (latch, token) puts them, where a frame's
/// latch is the start of its DisplayFrame (`display_of`, one of `0..displays`; `start_of` gives a DisplayFrame's
/// start, `None` without its actual slice) or `i64::MIN` without one. DisplayFrames come in actual-slice order,
/// whose starts never decrease: the frames then go into one bucket per distinct start in one pass, and only
/// frames sharing a start are sorted, by token (a sort of every frame was the dearest step of classification).
/// Starts that decrease fall back to [`stable_order`].
fn latch_order(
    n: usize,
    displays: usize,
    display_of: impl Fn(usize) -> Option<usize>,
    start_of: impl Fn(usize) -> Option<i64>,
    token_of: impl Fn(usize) -> i64,
) -> Vec<u32> {
    // Per DisplayFrame, its bucket: 1 + the place of its start among the distinct starts; 0 without a start,
    // the bucket of the frames without a latch, which sort first.
    let mut bucket_of_display: Vec<u32> = Vec::with_capacity(displays);
    let (mut last, mut buckets) = (None::<i64>, 0u32);
    for d in 0..displays {
        let bucket = match start_of(d) {
            None => 0,
            Some(s) if last.is_some_and(|l| s < l) => {
                return stable_order(n, |i| {
                    let latch = display_of(i).and_then(&start_of);
                    (latch.unwrap_or(i64::MIN), token_of(i))
                });
            }
            Some(s) => {
                if last != Some(s) {
                    last = Some(s);
                    buckets += 1;
                }
                buckets
            }
        };
        bucket_of_display.push(bucket);
    }
    let bucket = |i: usize| {
        display_of(i)
            .and_then(|d| bucket_of_display.get(d))
            .map_or(0, |&b| b as usize)
    };
    // A counting sort: each bucket's first place (`at`, advanced as frames are placed, ends at the bucket's end).
    let mut at = vec![0u32; buckets as usize + 1];
    for i in 0..n {
        at[bucket(i)] += 1;
    }
    let mut places = 0;
    for a in &mut at {
        (*a, places) = (places, places + *a);
    }
    let mut order = vec![0u32; n];
    for i in 0..n {
        let place = &mut at[bucket(i)];
        order[*place as usize] = i as u32;
        *place += 1;
    }
    let mut start = 0;
    for end in at.into_iter().map(|e| e as usize) {
        if let Some(run @ [_, _, ..]) = order.get_mut(start..end) {
            run.sort_unstable_by_key(|&i| (token_of(i as usize), i));
        }
        start = end;
    }
    order
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
        let (want, got) = (traced(s), label.perfetto());
        k.compared += 1;
        k.jank_type_agreed += u64::from(got.same_jank_type(&want));
        k.present_type_agreed += u64::from(got.present_type == want.present_type);
        k.severity_agreed += u64::from(got.severity == want.severity);
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

    #[test]
    fn reason_codes_round_trip_and_have_sentences() {
        for r in Reason::ALL {
            assert_eq!(Reason::from_code(r.code()), Some(r));
            assert!(r.sentence().ends_with('.'), "{r:?}");
        }
        assert_eq!(Reason::from_code("nope"), None);
    }

    #[test]
    fn latch_order_is_the_stable_sort_by_latch_then_token() {
        // A small deterministic generator: starts never decreasing (ties, DisplayFrames without a start), frames
        // with a DisplayFrame, none, or one out of range, tokens with repeats.
        let mut x = 7u64;
        let mut next = |m: u64| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        for _ in 0..200 {
            let displays = next(12) as usize;
            let mut t = 0i64;
            let starts: Vec<Option<i64>> = (0..displays)
                .map(|_| {
                    t += next(3) as i64;
                    (next(5) > 0).then_some(t)
                })
                .collect();
            let n = next(30) as usize;
            let display: Vec<Option<usize>> = (0..n)
                .map(|_| (next(6) > 0).then(|| next(displays as u64 + 2) as usize))
                .collect();
            let token: Vec<i64> = (0..n).map(|_| next(8) as i64).collect();
            let start_of = |d: usize| starts.get(d).copied().flatten();
            let want = stable_order(n, |i| {
                let latch = display[i].and_then(start_of);
                (latch.unwrap_or(i64::MIN), token[i])
            });
            let got = latch_order(n, displays, |i| display[i], start_of, |i| token[i]);
            assert_eq!(
                got, want,
                "starts {starts:?} display {display:?} token {token:?}"
            );
            // Starts that decrease take the full sort, with the same result.
            let reversed: Vec<Option<i64>> = starts.iter().rev().copied().collect();
            let start_of = |d: usize| reversed.get(d).copied().flatten();
            let want = stable_order(n, |i| {
                let latch = display[i].and_then(start_of);
                (latch.unwrap_or(i64::MIN), token[i])
            });
            let got = latch_order(n, displays, |i| display[i], start_of, |i| token[i]);
            assert_eq!(got, want);
        }
    }
}
