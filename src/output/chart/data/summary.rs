//! The panels beside the timeline: the frame-time histogram, the jank and FPS rates, the per-layer breakdown,
//! and the title.

use super::*;

/// Frame-time distribution of actual SurfaceFrame durations (whole trace).
#[derive(Debug, Clone, PartialEq)]
pub struct Histogram {
    /// Bin width, ns.
    pub bin_ns: i64,
    /// Per bin: (frames without visible jank, janky frames); the last bin also holds every longer frame.
    pub counts: Vec<(u32, u32)>,
    /// App deadline: the expected SurfaceFrame duration (app work duration) of the main vsync window, ns.
    pub deadline_ns: Option<i64>,
    /// Vsync period, ns.
    pub period_ns: Option<i64>,
}

/// Bin widths the histogram chooses from, ns.
const HISTOGRAM_BINS_NS: [i64; 9] = [
    250_000,
    500_000,
    1_000_000,
    2_000_000,
    5_000_000,
    10_000_000,
    20_000_000,
    50_000_000,
    100_000_000,
];

impl Histogram {
    /// Bins the durations of finished SurfaceFrames in about 40–80 bins up to the 99th percentile (at least
    /// two vsync periods and the deadline).
    pub fn build(report: &Report) -> Histogram {
        let mut durs: Vec<(i64, bool)> = report
            .frames
            .iter()
            .filter(|f| f.dur_ns >= 0)
            .map(|f| (f.dur_ns, f.labels.jank_tag.is_janky()))
            .collect();
        durs.sort_unstable();
        let main = report.vsync.windows.iter().max_by_key(|w| w.display_frames);
        let deadline_ns = main.and_then(|w| w.app_work_duration_ns);
        let period_ns = report.vsync.period_ns;
        let p99 = durs
            .get(durs.len().saturating_sub(1) * 99 / 100)
            .map_or(0, |d| d.0);
        let upper = [
            p99 + p99 / 10,
            2 * period_ns.unwrap_or(0),
            deadline_ns.unwrap_or(0) + 1,
            NS_PER_MS,
        ]
        .into_iter()
        .max()
        .unwrap_or(NS_PER_MS);
        let bin_ns = HISTOGRAM_BINS_NS
            .into_iter()
            .find(|b| upper / b <= 80)
            .unwrap_or(upper / 80 + 1);
        let bins = ((upper + bin_ns - 1) / bin_ns).max(1) as usize;
        let mut counts = vec![(0u32, 0u32); bins];
        for (dur, janky) in durs {
            let i = ((dur / bin_ns) as usize).min(bins - 1);
            if let Some(c) = counts.get_mut(i) {
                if janky {
                    c.1 += 1;
                } else {
                    c.0 += 1;
                }
            }
        }
        Histogram {
            bin_ns,
            counts,
            deadline_ns,
            period_ns,
        }
    }
}

/// Janky frames and present-based FPS over the whole FrameTimeline span.
#[derive(Debug, Clone, PartialEq)]
pub struct Rates {
    /// Time of the first bin's start (the first FrameTimeline slice), ns.
    pub origin_ns: i64,
    /// The FrameTimeline span, ns.
    pub span_ns: i64,
    /// Bin width, ns (the last bin also holds the rest of the span).
    pub bin_ns: i64,
    /// Janky SurfaceFrames (visible jank) starting in each bin.
    pub janky: Vec<u32>,
    /// Distinct present times of shown SurfaceFrames per second in each bin, frames/s.
    pub fps: Vec<f64>,
    /// The timeline window, ns after `origin_ns` (shaded); `None` when it covers the whole span.
    pub window_ns: Option<(i64, i64)>,
}

/// Bin widths the rate panel chooses from, ns: 1 s, else the widest shorter one giving at least 8 bins on short
/// spans, or the narrowest longer one giving at most [`MAX_RATE_BINS`] on long spans.
const RATE_BINS_NS: [i64; 9] = [
    50_000_000,
    100_000_000,
    250_000_000,
    500_000_000,
    NS_PER_S,
    5 * NS_PER_S,
    10 * NS_PER_S,
    30 * NS_PER_S,
    60 * NS_PER_S,
];
/// Most bins the rate panel draws.
const MAX_RATE_BINS: i64 = 300;

impl Rates {
    /// Bins the span `first_ns..last_ns` of `report.trace`.
    pub fn build(report: &Report, window: &Window) -> Rates {
        let (first, last) = (
            report.trace.first_ts_ns,
            report.trace.last_ts_ns.max(report.trace.first_ts_ns + 1),
        );
        let span = last - first;
        let bin_ns = if span / NS_PER_S < 8 {
            RATE_BINS_NS.into_iter().rev().find(|b| span / b >= 8)
        } else {
            RATE_BINS_NS
                .into_iter()
                .find(|b| *b >= NS_PER_S && span / b <= MAX_RATE_BINS)
        }
        .unwrap_or(if span < NS_PER_S {
            50_000_000
        } else {
            60 * NS_PER_S
        });
        // Whole bins; the remainder of the span joins the last one.
        let bins = usize::try_from(span / bin_ns).unwrap_or(0).max(1);
        let index = |t: i64| {
            (first..=last).contains(&t).then(|| {
                usize::try_from((t - first) / bin_ns)
                    .unwrap_or(0)
                    .min(bins - 1)
            })
        };
        let mut janky = vec![0u32; bins];
        let mut presents: Vec<i64> = Vec::new();
        for f in &report.frames {
            if f.labels.jank_tag.is_janky() {
                if let Some(c) = index(f.actual_start_ns).and_then(|i| janky.get_mut(i)) {
                    *c += 1;
                }
            }
            if let (false, Some(p)) = (f.dropped, f.present_ns) {
                presents.push(p);
            }
        }
        presents.sort_unstable();
        presents.dedup();
        let mut counts = vec![0u32; bins];
        for p in presents {
            if let Some(c) = index(p).and_then(|i| counts.get_mut(i)) {
                *c += 1;
            }
        }
        let last_bin = bins as i64 - 1;
        let fps = counts
            .iter()
            .zip(0..)
            .map(|(n, i)| {
                let covered = if i == last_bin {
                    span - i * bin_ns
                } else {
                    bin_ns
                };
                f64::from(*n) * NS_PER_S as f64 / covered.max(1) as f64
            })
            .collect();
        Rates {
            origin_ns: first,
            span_ns: span,
            bin_ns,
            janky,
            fps,
            window_ns: (window.start_ns > first || window.end_ns < last)
                .then_some((window.start_ns - first, window.end_ns - first)),
        }
    }
}

/// One layer's frames by colour class, with its most common jank types.
#[derive(Debug, Clone, PartialEq)]
pub struct LayerBreakdown {
    /// Short layer label.
    pub label: String,
    /// Actual SurfaceFrames.
    pub frames: u64,
    /// Frames per colour class, in [`JankClass::ALL`] order, classes without frames left out.
    pub classes: Vec<(JankClass, u64)>,
    /// The most frequent jank-type components other than `None` (the layer table's `top_jank_types`).
    pub top_jank_types: Vec<(String, u64)>,
    /// The layer's headline pacing numbers in words (`avg_surface_fps`, PerfDog Jank / BigJank), empty when it
    /// has too few presents for them.
    pub pacing: String,
}

/// A layer's headline pacing numbers for the breakdown: `88 fps · PerfDog jank 5, big 3`.
fn pacing_words(p: &crate::analysis::pacing::Pacing) -> String {
    let mut words = Vec::new();
    if let Some(fps) = p.avg_surface_fps {
        words.push(format!("{fps} fps"));
    }
    if let (Some(jank), Some(big)) = (p.perfdog_jank, p.perfdog_big_jank) {
        if jank > 0 {
            words.push(format!("PerfDog jank {jank}, big {big}"));
        }
    }
    words.join(" · ")
}

/// Per layer of `report.layers` (most frames first), its frames by colour class.
pub fn breakdown(report: &Report) -> Vec<LayerBreakdown> {
    let mut classes: BTreeMap<(i32, &str), BTreeMap<JankClass, u64>> = BTreeMap::new();
    for f in &report.frames {
        *classes
            .entry((f.pid, &*f.layer_name))
            .or_default()
            .entry(JankClass::of(f.labels.jank_tag))
            .or_default() += 1;
    }
    let mut rows: Vec<LayerBreakdown> = report
        .layers
        .iter()
        .map(|l| {
            let counts = classes.get(&(l.pid, l.layer_name.as_str()));
            LayerBreakdown {
                label: layer_label(&l.layer_name),
                frames: l.frames,
                classes: JankClass::ALL
                    .iter()
                    .filter_map(|c| Some((*c, *counts?.get(c)?)))
                    .collect(),
                top_jank_types: l.top_jank_types.clone(),
                pacing: pacing_words(&l.pacing),
            }
        })
        .collect();
    rows.sort_by_key(|r| std::cmp::Reverse(r.frames));
    rows
}

/// The device in words from the build fingerprint (`brand/product/device:release/...` → `product, Android
/// release`), or the SDK level.
fn device(report: &Report) -> Option<String> {
    let from_fingerprint = report
        .trace
        .device_fingerprint
        .as_deref()
        .map(label::device);
    from_fingerprint.or_else(|| report.trace.android_sdk_version.map(|v| format!("SDK {v}")))
}

/// The title line: trace file name, device, refresh rate, window.
pub fn title(report: &Report, window: &Window) -> String {
    let name = std::path::Path::new(&report.trace.path)
        .file_name()
        .map_or_else(
            || report.trace.path.clone(),
            |n| n.to_string_lossy().into_owned(),
        );
    let mut parts = vec![if name.is_empty() {
        "trace".to_string()
    } else {
        name
    }];
    parts.extend(device(report));
    parts.extend(
        report
            .vsync
            .refresh_rate_hz()
            .map(|hz| format!("{hz:.0} Hz")),
    );
    parts.push(window.describe());
    parts.join("  ·  ")
}

#[cfg(test)]
mod tests {
    use super::super::tests::{frame, report};
    use super::*;
    use crate::model::jank::Severity;

    #[test]
    fn histogram_counts_good_and_janky_durations_with_overflow_in_the_last_bin() {
        let ms = NS_PER_MS;
        let mut frames: Vec<FrameRow> = (0..100)
            .map(|i| frame(0, 3 * ms + i, JankTag::NoJank, Severity::None))
            .collect();
        frames.push(frame(0, 20 * ms, JankTag::SelfJank, Severity::Full));
        frames.push(frame(0, 900 * ms, JankTag::SelfJank, Severity::Full));
        let mut unfinished = frame(0, 1, JankTag::NoJank, Severity::None);
        unfinished.dur_ns = -1;
        frames.push(unfinished);
        let h = Histogram::build(&report(frames, Vec::new()));
        assert_eq!(h.bin_ns, 250_000);
        let total: u32 = h.counts.iter().map(|c| c.0 + c.1).sum();
        assert_eq!(total, 102);
        assert_eq!(h.counts.get(12), Some(&(100, 0)));
        assert_eq!(h.counts.last().map(|c| c.1), Some(2));
    }

    #[test]
    fn rates_count_janky_frames_and_distinct_presents_per_second() {
        let s = NS_PER_S;
        let mut frames: Vec<FrameRow> = (0..100)
            .map(|i| frame(i * s / 10, i * s / 10 + 5, JankTag::NoJank, Severity::None))
            .collect();
        frames.push(frame(
            3 * s + 1,
            3 * s + 9,
            JankTag::SelfJank,
            Severity::Full,
        ));
        let mut same_present = frame(3 * s + 2, 3 * s + 5, JankTag::NoJank, Severity::None);
        same_present.present_ns = Some(3 * s + 10);
        frames.push(same_present);
        let r = report(frames, Vec::new());
        let window = Window {
            origin_ns: 0,
            start_ns: s,
            end_ns: 2 * s,
            choice: WindowChoice::Given,
        };
        let rates = Rates::build(&r, &window);
        assert_eq!(rates.bin_ns, s);
        // 9.9 s: nine bins, the last one 1.9 s long.
        assert_eq!(rates.janky.len(), 9);
        assert_eq!(rates.span_ns, 9_900_000_010);
        let last = rates.fps.last().copied().unwrap_or(0.0);
        assert!((last - 20.0 / 1.900_000_01).abs() < 1e-6, "{last}");
        assert_eq!(rates.janky.get(3), Some(&1));
        assert_eq!(rates.janky.iter().sum::<u32>(), 1);
        assert_eq!(rates.fps.first(), Some(&10.0));
        assert_eq!(rates.fps.get(3), Some(&11.0));
        assert_eq!(rates.window_ns, Some((s, 2 * s)));
        // Long spans get wider bins (at most 300), short ones narrower (at least 8).
        let long = report(
            vec![
                frame(0, 1, JankTag::NoJank, Severity::None),
                frame(1000 * s, 1000 * s + 1, JankTag::NoJank, Severity::None),
            ],
            Vec::new(),
        );
        assert_eq!(Rates::build(&long, &window).bin_ns, 5 * s);
        let short = report(
            vec![
                frame(0, 1, JankTag::NoJank, Severity::None),
                frame(s / 2, s / 2 + 1, JankTag::NoJank, Severity::None),
            ],
            Vec::new(),
        );
        assert_eq!(Rates::build(&short, &window).bin_ns, 50_000_000);
    }

    #[test]
    fn breakdown_counts_frames_per_colour_class_per_layer() {
        let mut frames = vec![
            frame(0, 1, JankTag::SelfJank, Severity::Full),
            frame(0, 1, JankTag::SelfJank, Severity::Partial),
            frame(0, 1, JankTag::NoJank, Severity::None),
        ];
        frames[0].labels.jank_type = "App Deadline Missed".into();
        frames[0].labels.jank_bits = crate::model::jank::bits::APP_DEADLINE_MISSED;
        let mut other = frame(0, 1, JankTag::BufferStuffing, Severity::None);
        other.layer_name = "other".into();
        frames.push(other);
        let rows = breakdown(&report(frames, Vec::new()));
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].frames, 3);
        assert_eq!(
            rows[0].classes,
            vec![(JankClass::NoJank, 1), (JankClass::SelfJank, 2)]
        );
        assert_eq!(rows[1].classes, vec![(JankClass::HighLatency, 1)]);
    }
}
