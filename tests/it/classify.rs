//! The vsync model and the re-derived jank labels: on the three real traces (periods, durations, offsets,
//! agreement with SurfaceFlinger and a reason for every disagreement), and on a simulated pipeline with known
//! period, durations and injected faults.

use crate::common::{shared, REAL_TRACES};
use ftl::analysis::classify::KindAgreement;
use ftl::analysis::{analyze, analyze_timeline, Config, Report};
use ftl::decode::{
    EnumCode, Event, FrameLabels, FrameStart, FrameTimelineEvent, JankValues, SliceKind, SystemInfo,
};
use ftl::model::jank::bits;
use ftl::model::TimelineBuilder;

fn real_report(file: &str) -> Report {
    let path = shared().join("traces").join(file);
    let trace = ftl::load_path(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    analyze(trace, file, &Config::default())
}

/// What the vsync model must find in a real trace.
struct VsyncFigures {
    name: &'static str,
    period_ns: i64,
    measured_period_ns: i64,
    sf_work_ns: i64,
    app_work_ns: i64,
    /// (SF phase offset, app phase offset), ns.
    offsets_ns: (i64, i64),
    early_duration_frames: u64,
}

const VSYNC: [VsyncFigures; 3] = [
    VsyncFigures {
        name: "emulator_a12_cpu_sampling_60hz",
        period_ns: 16_666_667,
        measured_period_ns: 16_666_666,
        sf_work_ns: 15_666_666,
        app_work_ns: 16_666_666,
        offsets_ns: (1_000_000, 1_000_000),
        early_duration_frames: 0,
    },
    VsyncFigures {
        name: "pixel6a_a13_startup_warm_60hz",
        period_ns: 16_666_667,
        measured_period_ns: 16_698_303,
        sf_work_ns: 10_500_000,
        app_work_ns: 16_600_000,
        offsets_ns: (6_166_667, 6_233_334),
        early_duration_frames: 5,
    },
    VsyncFigures {
        name: "pixel7pro_a13_nowinandroid_launch_120hz",
        period_ns: 8_333_333,
        measured_period_ns: 8_332_228,
        sf_work_ns: 10_500_000,
        app_work_ns: 16_600_000,
        offsets_ns: (-2_166_667, 6_233_332),
        early_duration_frames: 65,
    },
];

#[test]
fn real_traces_give_their_vsync_period_and_durations() {
    for ((name, file), want) in REAL_TRACES.iter().zip(VSYNC) {
        assert_eq!(*name, want.name);
        let v = real_report(file).vsync;
        assert_eq!(v.windows.len(), 1, "{name}: one display mode");
        let w = &v.windows[0];
        assert_eq!(v.period_ns, Some(want.period_ns), "{name}");
        assert_eq!(
            v.measured_period_ns,
            Some(want.measured_period_ns),
            "{name}"
        );
        assert_eq!(w.sf_work_duration_ns, Some(want.sf_work_ns), "{name}");
        assert_eq!(w.app_work_duration_ns, Some(want.app_work_ns), "{name}");
        assert_eq!(
            w.app_ready_duration_ns,
            Some(want.sf_work_ns),
            "{name}: the app's ready duration is SF's work"
        );
        assert_eq!(
            w.offsets.map(|o| (o.sf_offset_ns, o.app_offset_ns)),
            Some(want.offsets_ns),
            "{name}"
        );
        assert_eq!(
            v.early_duration_frames, want.early_duration_frames,
            "{name}"
        );
    }
    let hz = real_report(REAL_TRACES[2].1)
        .vsync
        .refresh_rate_hz()
        .unwrap();
    assert!((hz - 120.0).abs() < 0.01, "{hz}");
}

fn assert_rates(name: &str, kind: &str, k: &KindAgreement, jank_min: f64) {
    assert!(k.compared > 0, "{name} {kind}: nothing compared");
    let (jank, present) = (k.jank_type_rate.unwrap(), k.present_type_rate.unwrap());
    assert!(
        jank >= jank_min,
        "{name} {kind}: jank-type agreement {jank:.4} < {jank_min} ({k:?})"
    );
    assert!(
        present >= 0.99,
        "{name} {kind}: present-type agreement {present:.4} < 0.99 ({k:?})"
    );
    assert!(
        !k.disagreement_reasons.contains_key("unexplained"),
        "{name} {kind}: {k:?}"
    );
    assert_eq!(
        k.disagreement_reasons.values().sum::<u64>(),
        k.disagreements,
        "{name} {kind}"
    );
}

#[test]
fn real_traces_agree_with_surfaceflinger_and_explain_every_disagreement() {
    for (name, file) in REAL_TRACES {
        let r = real_report(file);
        assert_rates(name, "DisplayFrame", &r.agreement.display_frames, 0.99);
        assert_rates(name, "SurfaceFrame", &r.agreement.surface_frames, 0.95);
        let rows = r.frames.iter().map(|f| {
            (
                f.derived.agrees,
                &f.derived.disagreement_reason,
                f.derived.derived_jank_type.is_some(),
            )
        });
        let display_rows = r
            .display_frames
            .as_deref()
            .expect("built by default")
            .iter()
            .map(|f| {
                (
                    f.derived.agrees,
                    &f.derived.disagreement_reason,
                    f.derived.derived_jank_type.is_some(),
                )
            });
        for (agrees, reason, derived) in rows.chain(display_rows) {
            assert_eq!(
                agrees.is_some(),
                derived,
                "{name}: agreement is given exactly for re-derived frames"
            );
            if agrees != Some(true) {
                let reason = reason
                    .unwrap_or_else(|| panic!("{name}: a frame without agreement has no reason"));
                assert_ne!(reason.code(), "unexplained", "{name}");
            }
        }
    }
    let rules: Vec<_> = REAL_TRACES
        .iter()
        .map(|(_, f)| real_report(f).agreement.rules)
        .collect();
    use ftl::analysis::classify::SfRules;
    assert_eq!(rules, [SfRules::A12, SfRules::A13, SfRules::A13]);
}

/// xorshift64*: a small deterministic PRNG.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }
}

/// What goes wrong with a simulated frame.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Fault {
    /// Everything on time.
    None,
    /// The app finishes half a period after its deadline; the next vsync's DisplayFrame takes it.
    AppLate,
    /// SurfaceFlinger's CPU misses its deadline; presented one vsync late.
    SfCpuLate,
    /// SurfaceFlinger on time, the display presents one vsync late.
    DisplayHal,
    /// Presented half a period late, off the vsync grid.
    PredictionError,
}

/// A simple pipeline: one app layer, one SurfaceFrame per DisplayFrame, SF work `sf_ns` (= the app's ready
/// duration), app work `app_ns`, faults drawn at random and followed by two idle vsyncs.
struct Sim {
    events: Vec<Event>,
    cookie: i64,
    token: i64,
    severity: bool,
}

const SF_PID: i32 = 1000;
const APP_PID: i32 = 2000;

impl Sim {
    fn new(sdk: u64) -> Self {
        let info = SystemInfo {
            android_sdk_version: Some(sdk),
            ..SystemInfo::default()
        };
        Sim {
            events: vec![Event::SystemInfo(info)],
            cookie: 0,
            token: 100,
            severity: sdk >= 34,
        }
    }

    fn next_token(&mut self) -> i64 {
        self.token += 1;
        self.token
    }

    fn slice(
        &mut self,
        kind: SliceKind,
        (ts, end): (i64, i64),
        token: i64,
        dft: i64,
        labels: FrameLabels,
    ) {
        self.cookie += 1;
        let display =
            kind == SliceKind::ExpectedDisplayFrame || kind == SliceKind::ActualDisplayFrame;
        let start = FrameStart {
            kind,
            cookie: Some(self.cookie),
            token: Some(token),
            display_frame_token: (!display).then_some(dft),
            pid: Some(if display { SF_PID } else { APP_PID }),
            layer_name: (!display).then(|| "TX - com.example/com.example.Main#0".into()),
            labels,
        };
        self.events.push(Event::FrameTimeline {
            ts_ns: ts,
            event: FrameTimelineEvent::Start(start),
        });
        self.events.push(Event::FrameTimeline {
            ts_ns: end,
            event: FrameTimelineEvent::End {
                cookie: Some(self.cookie),
            },
        });
    }

    fn labels(&self, present: i32, on_time: bool, jank: i32, severity: i32) -> FrameLabels {
        FrameLabels {
            present_type: EnumCode::new(Some(present)),
            on_time_finish: Some(on_time),
            gpu_composition: Some(false),
            jank: JankValues::new(Some(jank), None),
            prediction_type: EnumCode::new(Some(1)),
            jank_severity_type: EnumCode::new(self.severity.then_some(severity)),
            is_buffer: Some(true),
        }
    }

    /// Simulates `frames` frames from vsync `v` at period `t`; returns the vsync after the last one.
    fn run(
        &mut self,
        rng: &mut Rng,
        mut v: i64,
        t: i64,
        sf_ns: i64,
        app_ns: i64,
        frames: usize,
    ) -> (i64, Vec<Fault>) {
        const FAULTS: [Fault; 5] = [
            Fault::None,
            Fault::AppLate,
            Fault::SfCpuLate,
            Fault::DisplayHal,
            Fault::PredictionError,
        ];
        let mut faults = Vec::new();
        for _ in 0..frames {
            let fault = if rng.below(3) == 0 {
                FAULTS[rng.below(5) as usize]
            } else {
                Fault::None
            };
            faults.push(fault);
            let app_token = self.next_token();
            // The DisplayFrame that takes the buffer: this vsync's, or the next one's for a late app.
            let df_v = if fault == Fault::AppLate { v + t } else { v };
            let df_token = self.next_token();
            let jitter = rng.below(500_000) as i64;
            let (present, on_time, df_jank, df_severity) = match fault {
                Fault::None | Fault::AppLate => (df_v + jitter, true, bits::NONE, 1),
                Fault::SfCpuLate => (df_v + t, false, bits::SF_CPU_DEADLINE_MISSED, 3),
                Fault::DisplayHal => (df_v + t, true, bits::DISPLAY_HAL, 3),
                Fault::PredictionError => (df_v + t / 2, true, bits::PREDICTION_ERROR, 2),
            };
            let df_present_type = if df_jank == bits::NONE { 1 } else { 2 };
            self.slice(
                SliceKind::ExpectedDisplayFrame,
                (df_v - sf_ns, df_v),
                df_token,
                df_token,
                FrameLabels::default(),
            );
            let df_labels = self.labels(df_present_type, on_time, df_jank, df_severity);
            self.slice(
                SliceKind::ActualDisplayFrame,
                (df_v - sf_ns + 50_000, present),
                df_token,
                df_token,
                df_labels,
            );
            let deadline = v - sf_ns;
            let app_end = if fault == Fault::AppLate {
                deadline + t / 2
            } else {
                deadline - 2_000_000
            };
            let (sf_jank, sf_on_time) = match fault {
                Fault::AppLate => (bits::APP_DEADLINE_MISSED, false),
                _ => (df_jank, true),
            };
            let sf_severity = if fault == Fault::AppLate {
                3
            } else {
                df_severity
            };
            let sf_labels = self.labels(
                if sf_jank == bits::NONE { 1 } else { 2 },
                sf_on_time,
                sf_jank,
                sf_severity,
            );
            self.slice(
                SliceKind::ExpectedSurfaceFrame,
                (deadline - app_ns, deadline),
                app_token,
                df_token,
                FrameLabels::default(),
            );
            self.slice(
                SliceKind::ActualSurfaceFrame,
                (deadline - app_ns + 100_000, app_end),
                app_token,
                df_token,
                sf_labels,
            );
            let idle = if fault != Fault::None {
                3
            } else if rng.below(10) == 0 {
                2 + rng.below(4) as i64
            } else {
                1
            };
            v += idle * t;
        }
        (v, faults)
    }

    fn report(self) -> Report {
        let mut builder = TimelineBuilder::new();
        self.events.into_iter().for_each(|e| builder.push(e));
        analyze_timeline(builder.build(), &Config::default())
    }
}

fn assert_all_agree(r: &Report, what: &str) {
    for (kind, k) in [
        ("DisplayFrame", &r.agreement.display_frames),
        ("SurfaceFrame", &r.agreement.surface_frames),
    ] {
        let wrong: Vec<_> = r
            .frames
            .iter()
            .filter(|f| f.derived.agrees == Some(false))
            .take(3)
            .collect();
        assert_eq!(
            k.jank_type_rate,
            Some(1.0),
            "{what} {kind}: {k:?} {wrong:#?}"
        );
        assert_eq!(k.present_type_rate, Some(1.0), "{what} {kind}: {k:?}");
        assert_eq!(k.severity_rate, Some(1.0), "{what} {kind}: {k:?}");
    }
}

#[test]
fn simulated_pipelines_give_exact_vsync_and_the_injected_labels() {
    let modes = [
        (16_666_667, 10_500_000, 16_600_000),
        (8_333_333, 10_500_000, 16_600_000),
        (11_111_111, 8_000_000, 11_111_111),
    ];
    for seed in 1..=12u64 {
        let (period, sf_ns, app_ns) = modes[(seed % 3) as usize];
        let sdk = if seed % 2 == 0 { 33 } else { 36 };
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut sim = Sim::new(sdk);
        let (_, faults) = sim.run(
            &mut rng,
            1_000_000_000_000 / period * period,
            period,
            sf_ns,
            app_ns,
            150,
        );
        let r = sim.report();
        let what = format!("seed {seed} period {period} sdk {sdk}");
        let w = &r.vsync.windows;
        assert_eq!(w.len(), 1, "{what}");
        assert_eq!(
            (r.vsync.period_ns, w[0].measured_period_ns),
            (Some(period), period),
            "{what}"
        );
        assert_eq!(
            (w[0].sf_work_duration_ns, w[0].app_work_duration_ns),
            (Some(sf_ns), Some(app_ns)),
            "{what}"
        );
        assert_all_agree(&r, &what);
        // The derived labels are the injected faults, frame by frame.
        for (row, fault) in r.frames.iter().zip(&faults) {
            let want = match fault {
                Fault::None => "None",
                Fault::AppLate => "App Deadline Missed",
                Fault::SfCpuLate => "SurfaceFlinger CPU Deadline Missed",
                Fault::DisplayHal => "Display HAL",
                Fault::PredictionError => "Prediction Error",
            };
            assert_eq!(
                row.derived.derived_jank_type.as_deref(),
                Some(want),
                "{what}: {row:#?}"
            );
            assert_eq!(
                row.derived.expected_present_ns.map(|p| p % period),
                Some(0),
                "{what}: expected present on the grid"
            );
        }
    }
}

#[test]
fn simulated_mode_change_gives_two_windows() {
    let mut rng = Rng(7);
    let mut sim = Sim::new(33);
    let (v, _) = sim.run(
        &mut rng,
        16_666_667 * 60_000,
        16_666_667,
        10_500_000,
        16_600_000,
        120,
    );
    sim.run(
        &mut rng,
        v - 16_666_667 + 8_333_333,
        8_333_333,
        10_500_000,
        16_600_000,
        120,
    );
    let r = sim.report();
    let periods: Vec<_> = r
        .vsync
        .windows
        .iter()
        .map(|w| (w.period_ns, w.measured_period_ns))
        .collect();
    assert_eq!(periods, [(16_666_667, 16_666_667), (8_333_333, 8_333_333)]);
    assert_all_agree(&r, "60 → 120 Hz");
}
