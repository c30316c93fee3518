//! The metrics `ftl diff` compares: their names (triage-table vocabulary), which direction is worse, and their
//! values from a triage row or from a row's per-frame series.

use crate::analysis::frames::FrameRow;
use crate::analysis::percentile::percentile;
use crate::batch::TriageRow;
use crate::model::JankTag;
use std::fmt;
use std::str::FromStr;

/// One frame of a row's series, what the frame metrics are computed from (a FrameTimeline SurfaceFrame).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameSample {
    /// Actual start, ns on the trace clock (the series is in this order).
    pub start_ns: i64,
    /// Actual duration, ms; `None` for dropped and never-ended frames (as in the triage percentiles).
    pub dur_ms: Option<f64>,
    /// Actual end − expected end, ms; `None` without both ends.
    pub overrun_ms: Option<f64>,
    /// The jank tag is visible jank (Self Jank, Other Jank, Dropped Frame).
    pub janky: bool,
    /// `Self Jank`.
    pub app_janky: bool,
    /// `Other Jank` (SurfaceFlinger / display).
    pub sf_janky: bool,
    /// `Dropped Frame`.
    pub dropped: bool,
}

impl FrameSample {
    /// The sample of one SurfaceFrame row.
    pub fn of(r: &FrameRow) -> FrameSample {
        FrameSample {
            start_ns: r.actual_start_ns,
            dur_ms: (!r.dropped && r.dur_ns >= 0).then(|| r.dur_ns as f64 / 1e6),
            overrun_ms: r.overrun_ns.map(|ns| ns as f64 / 1e6),
            janky: r.labels.jank_tag.is_janky(),
            app_janky: r.labels.jank_tag == JankTag::SelfJank,
            sf_janky: r.labels.jank_tag == JankTag::OtherJank,
            dropped: r.labels.jank_tag == JankTag::DroppedFrame,
        }
    }
}

/// A compared metric. Names and definitions are those of the triage table ([`TriageRow`]) and of `ftl analyze`'s
/// per-layer summary ([`crate::analysis::metrics::LayerSummary`]); `*_janky_pct` and `dropped_pct` are the
/// triage counts over `frames`, × 100.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Metric {
    /// Actual SurfaceFrames (or frames of a capture's series). Shown, not tested: a longer run is no regression.
    Frames,
    /// Visibly janky frames, % of frames (FrameTimeline jank tag).
    JankyPct,
    /// `Self Jank` frames, %.
    AppJankyPct,
    /// `Other Jank` (SurfaceFlinger / display) frames, %.
    SfJankyPct,
    /// `Dropped Frame` frames, %.
    DroppedPct,
    /// Median actual frame duration, ms.
    FrameDurMsP50,
    /// 90th percentile frame duration, ms.
    FrameDurMsP90,
    /// 99th percentile frame duration, ms.
    FrameDurMsP99,
    /// 90th percentile overrun (actual end − expected end), ms.
    OverrunMsP90,
    /// 99th percentile overrun, ms.
    OverrunMsP99,
    /// Mean FPS per second of the row's main layer.
    FpsMean,
    /// 1 % low FPS of the row's main layer.
    Fps1PctLow,
    /// PerfDog Stutter of the most stuttering layer, %.
    PerfdogStutterPct,
    /// Present-based smoothness of the least smooth layer.
    Sm,
    /// Longest present-to-present interval, vsyncs (Chromium `max_frame_delay`).
    MaxFrameDelay,
}

impl Metric {
    /// Every metric, in table order.
    pub const ALL: [Metric; Metric::COUNT] = [
        Metric::Frames,
        Metric::JankyPct,
        Metric::AppJankyPct,
        Metric::SfJankyPct,
        Metric::DroppedPct,
        Metric::FrameDurMsP50,
        Metric::FrameDurMsP90,
        Metric::FrameDurMsP99,
        Metric::OverrunMsP90,
        Metric::OverrunMsP99,
        Metric::FpsMean,
        Metric::Fps1PctLow,
        Metric::PerfdogStutterPct,
        Metric::Sm,
        Metric::MaxFrameDelay,
    ];

    /// How many metrics there are.
    pub const COUNT: usize = 15;

    /// How many metrics frames compute ([`of_frames`]): the first ones of [`Metric::ALL`].
    pub const FRAME_COUNT: usize = 10;

    /// The column name.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Frames => "frames",
            Metric::JankyPct => "janky_pct",
            Metric::AppJankyPct => "app_janky_pct",
            Metric::SfJankyPct => "sf_janky_pct",
            Metric::DroppedPct => "dropped_pct",
            Metric::FrameDurMsP50 => "frame_dur_ms_p50",
            Metric::FrameDurMsP90 => "frame_dur_ms_p90",
            Metric::FrameDurMsP99 => "frame_dur_ms_p99",
            Metric::OverrunMsP90 => "overrun_ms_p90",
            Metric::OverrunMsP99 => "overrun_ms_p99",
            Metric::FpsMean => "fps_mean",
            Metric::Fps1PctLow => "fps_1pct_low",
            Metric::PerfdogStutterPct => "perfdog_stutter_pct",
            Metric::Sm => "sm",
            Metric::MaxFrameDelay => "max_frame_delay",
        }
    }

    /// True if a larger value is worse (more jank, longer frames), false if smaller is worse (FPS, smoothness);
    /// `None` for metrics that are shown but not tested (`frames`).
    pub fn higher_is_worse(self) -> Option<bool> {
        match self {
            Metric::Frames => None,
            Metric::FpsMean | Metric::Fps1PctLow | Metric::Sm => Some(false),
            _ => Some(true),
        }
    }

    /// Position in [`Metric::ALL`].
    pub fn index(self) -> usize {
        Metric::ALL.iter().position(|m| *m == self).unwrap_or(0)
    }

    /// The value in a triage row (what a Parquet output of `ftl batch` holds); `None` when null or not a triage
    /// column (`frame_dur_ms_p50`, `frame_dur_ms_p90`, `overrun_ms_p90`).
    pub fn of_triage(self, row: &TriageRow) -> Option<f64> {
        let share = |n: Option<u64>| {
            let frames = row.frames?;
            Some(if frames == 0 {
                0.0
            } else {
                n? as f64 * 100.0 / frames as f64
            })
        };
        match self {
            Metric::Frames => row.frames.map(|n| n as f64),
            Metric::JankyPct => row.janky_pct,
            Metric::AppJankyPct => share(row.app_janky_frames),
            Metric::SfJankyPct => share(row.sf_janky_frames),
            Metric::DroppedPct => share(row.dropped_frames),
            Metric::FrameDurMsP99 => row.frame_dur_ms_p99,
            Metric::OverrunMsP99 => row.overrun_ms_p99,
            Metric::FrameDurMsP50 | Metric::FrameDurMsP90 | Metric::OverrunMsP90 => None,
            Metric::FpsMean => row.fps_mean,
            Metric::Fps1PctLow => row.fps_1pct_low,
            Metric::PerfdogStutterPct => row.perfdog_stutter_pct,
            Metric::Sm => row.sm,
            Metric::MaxFrameDelay => row.max_frame_delay.map(|v| v as f64),
        }
    }

    /// True if [`of_frames`] computes it.
    pub fn from_frames(self) -> bool {
        self.index() < Metric::FRAME_COUNT
    }
}

/// The values of the first [`Metric::FRAME_COUNT`] metrics of [`Metric::ALL`] for some frames, in that order (`None`: no frame, or no duration / overrun);
/// same definitions as the triage table (percentiles: [`percentile`], Perfetto's interpolation). `scratch` is
/// reused between calls (bootstrap resamples).
pub fn of_frames<'a>(
    frames: impl Iterator<Item = &'a FrameSample>,
    scratch: &mut (Vec<f64>, Vec<f64>),
) -> [Option<f64>; Metric::FRAME_COUNT] {
    let (durs, overruns) = scratch;
    durs.clear();
    overruns.clear();
    let (mut n, mut janky, mut app, mut sf, mut dropped) = (0u64, 0u64, 0u64, 0u64, 0u64);
    for f in frames {
        n += 1;
        janky += u64::from(f.janky);
        app += u64::from(f.app_janky);
        sf += u64::from(f.sf_janky);
        dropped += u64::from(f.dropped);
        durs.extend(f.dur_ms);
        overruns.extend(f.overrun_ms);
    }
    durs.sort_unstable_by(f64::total_cmp);
    overruns.sort_unstable_by(f64::total_cmp);
    let pct = |k: u64| (n > 0).then(|| k as f64 * 100.0 / n as f64);
    [
        Some(n as f64),
        pct(janky),
        pct(app),
        pct(sf),
        pct(dropped),
        percentile(durs, 50.0),
        percentile(durs, 90.0),
        percentile(durs, 99.0),
        percentile(overruns, 90.0),
        percentile(overruns, 99.0),
    ]
}

impl fmt::Display for Metric {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Metric {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        crate::batch::by_name(s, &Metric::ALL, Metric::name, "metric")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(dur_ms: f64, janky: bool) -> FrameSample {
        FrameSample {
            start_ns: 0,
            dur_ms: Some(dur_ms),
            overrun_ms: Some(dur_ms - 10.0),
            janky,
            app_janky: janky,
            sf_janky: false,
            dropped: false,
        }
    }

    #[test]
    fn frame_metrics_match_hand_counts() {
        // 4 frames, 1 janky: 25 %; durations 10, 12, 14, 30 → p50 = 13 (interpolated), p90 = 14 + 0.7·16 = 25.2.
        let frames = [
            frame(10.0, false),
            frame(30.0, true),
            frame(12.0, false),
            frame(14.0, false),
        ];
        let v = of_frames(frames.iter(), &mut Default::default());
        assert_eq!(v[0], Some(4.0));
        assert_eq!(v[1], Some(25.0));
        assert_eq!(v[2], Some(25.0));
        assert_eq!(v[3], Some(0.0));
        assert_eq!(v[5], Some(13.0));
        assert!((v[6].unwrap() - 25.2).abs() < 1e-9);
        assert!((v[8].unwrap() - 15.2).abs() < 1e-9);
        assert_eq!(of_frames([].iter(), &mut Default::default())[1], None);
    }

    #[test]
    fn names_round_trip_and_directions() {
        for m in Metric::ALL {
            assert_eq!(m.name().parse::<Metric>(), Ok(m));
            assert_eq!(Metric::ALL[m.index()], m);
        }
        assert_eq!(Metric::FpsMean.higher_is_worse(), Some(false));
        assert_eq!(Metric::JankyPct.higher_is_worse(), Some(true));
        assert!("nope".parse::<Metric>().is_err());
        assert!(Metric::FrameDurMsP99.from_frames() && Metric::OverrunMsP99.from_frames());
        assert!(!Metric::FpsMean.from_frames());
    }
}
