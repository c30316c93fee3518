//! AndroidX Macrobenchmark's `FrameTimingMetric` for one package, as Macrobenchmark computes it from a trace:
//! `FrameTimingQuery.getFrameData` (androidx `benchmark/benchmark-macro/.../perfetto/FrameTimingQuery.kt`,
//! with the b/279088460 matching and the b/394610806 resynced-doFrame fix) and the JSON of
//! `benchmarkData.json` (`BenchmarkData.kt`, `MetricResult.kt`): one trace is one iteration.

use crate::analysis::percentile::macrobenchmark_percentile;
use crate::model::Timeline;
use serde::Serialize;
use std::collections::BTreeMap;

/// The actual slice must start before the UI slice's start + 50 µs (Macrobenchmark's tolerance), ns.
const ACTUAL_START_TOLERANCE_NS: i64 = 50_000;

/// The `"macrobenchmark"` object of `ftl analyze --macrobenchmark PKG --format json`: Macrobenchmark's own
/// JSON for the three metrics of FrameTimingMetric (`frameCount` under `metrics`, `frameDurationCpuMs` and —
/// API 31+ — `frameOverrunMs` under `sampledMetrics`, in ms).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Macrobenchmark {
    /// The package the frames were taken from (`process.name LIKE pkg OR LIKE 'pkg:%'`, or its last 15
    /// characters when longer).
    pub package: String,
    /// The API level whose rules were applied (the trace's SDK level; 31 when the trace does not record it,
    /// since it has FrameTimeline).
    pub api_level: u64,
    /// Why Macrobenchmark would fail on this trace (its own message), if it would; then no metric is given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Single-value metrics: `frameCount`.
    pub metrics: BTreeMap<&'static str, SingleMetric>,
    /// Per-frame metrics: `frameDurationCpuMs`, `frameOverrunMs`.
    #[serde(rename = "sampledMetrics")]
    pub sampled_metrics: BTreeMap<&'static str, SampledMetric>,
    /// ftl's addition beside Macrobenchmark's own numbers: per layer of the package, the commonest cause of its
    /// late frames (`ftl explain causes`); empty when no late frame has a cause.
    #[serde(rename = "topCauses", skip_serializing_if = "Vec::is_empty")]
    pub top_causes: Vec<TopCause>,
}

/// One layer's commonest cause of late frames.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TopCause {
    /// The layer.
    pub layer_name: String,
    /// The cause (`cpu_starved`, `binder:<server process>`, …).
    pub top_cause: String,
    /// Late frames with that cause.
    pub top_cause_frames: u64,
    /// Those over the layer's late frames, %.
    pub top_cause_pct: f64,
}

impl Macrobenchmark {
    /// Fills [`Macrobenchmark::top_causes`] from the per-layer summaries of the package's processes.
    pub fn add_top_causes(&mut self, layers: &[crate::analysis::metrics::LayerSummary]) {
        self.top_causes = layers
            .iter()
            .filter(|l| process_matches(&l.process_name, &self.package))
            .filter_map(|l| {
                let (cause, n) =
                    *crate::analysis::metrics::ranked_causes(&l.late_causes).first()?;
                let late: u64 = l.late_stages.values().sum();
                Some(TopCause {
                    layer_name: l.layer_name.clone(),
                    top_cause: cause.to_string(),
                    top_cause_frames: n,
                    top_cause_pct: n as f64 * 100.0 / late.max(1) as f64,
                })
            })
            .collect();
    }
}

/// Macrobenchmark's `SingleMetricResult` (without `coefficientOfVariation`, which newer releases add).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SingleMetric {
    /// Smallest run value.
    pub minimum: f64,
    /// Largest.
    pub maximum: f64,
    /// Median (P50 by `getPercentile`).
    pub median: f64,
    /// One value per iteration (one trace: one).
    pub runs: Vec<f64>,
}

/// Macrobenchmark's `SampledMetricResult`: percentiles over all samples; absent when there is no sample.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SampledMetric {
    /// 50th percentile.
    #[serde(rename = "P50", skip_serializing_if = "Option::is_none")]
    pub p50: Option<f64>,
    /// 90th.
    #[serde(rename = "P90", skip_serializing_if = "Option::is_none")]
    pub p90: Option<f64>,
    /// 95th.
    #[serde(rename = "P95", skip_serializing_if = "Option::is_none")]
    pub p95: Option<f64>,
    /// 99th.
    #[serde(rename = "P99", skip_serializing_if = "Option::is_none")]
    pub p99: Option<f64>,
    /// Per iteration, the samples in frame (RenderThread slice) order.
    pub runs: Vec<Vec<f64>>,
}

impl SampledMetric {
    fn of(samples: Vec<f64>) -> Self {
        let mut sorted = samples.clone();
        sorted.sort_by(f64::total_cmp);
        let p = |q| macrobenchmark_percentile(&sorted, q);
        SampledMetric {
            p50: p(50),
            p90: p(90),
            p95: p(95),
            p99: p(99),
            runs: vec![samples],
        }
    }
}

/// One slice of the query: (ts, dur) in ns, its frame id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Part {
    ts: i64,
    dur: i64,
    frame_id: Option<i32>,
}

impl Part {
    fn end(&self) -> i64 {
        self.ts + self.dur
    }
}

/// A matched frame, ns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameData {
    /// `FrameDurationCpuNs`: RenderThread slice end − UI slice start.
    pub cpu_ns: i64,
    /// `FrameOverrunNs`: max(actual end, RenderThread end) − expected end (API 31+).
    pub overrun_ns: Option<i64>,
}

/// Macrobenchmark's `frameId`: the text after the first space up to the next one, as a 32-bit int.
fn frame_id(name: &str) -> Option<i32> {
    name.split_once(' ')?.1.split(' ').next()?.parse().ok()
}

/// SQLite `LIKE` (ASCII case-insensitive, `%` any run, `_` one character) through a glob.
fn like(pattern: &str, text: &str) -> bool {
    let glob: String = pattern
        .chars()
        .map(|c| match c {
            '%' => "*".to_string(),
            '_' => "?".to_string(),
            c => glob::Pattern::escape(&c.to_string()),
        })
        .collect();
    let options = glob::MatchOptions {
        case_sensitive: false,
        require_literal_separator: false,
        require_literal_leading_dot: false,
    };
    glob::Pattern::new(&glob).is_ok_and(|p| p.matches_with(text, options))
}

/// `processNameLikePkg`: the process name is the package, a `package:suffix` process, or — for packages over
/// 15 characters — their last 15 characters (how `comm` truncates names).
fn process_matches(name: &str, package: &str) -> bool {
    let tail: String = package
        .chars()
        .rev()
        .take(15)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    like(package, name)
        || like(&format!("{package}:%"), name)
        || (package.chars().count() > 15 && like(&tail, name))
}

/// Kotlin's `binarySearch` by frame id over a list sorted by time (ids normally rise with time).
fn binary_search(parts: &[Part], id: i32) -> Option<&Part> {
    let (mut low, mut high) = (0i64, parts.len() as i64 - 1);
    while low <= high {
        let mid = ((low + high) as u64 >> 1) as usize;
        let cmp = i64::from(parts[mid].frame_id?) - i64::from(id);
        match cmp.signum() {
            -1 => low = mid as i64 + 1,
            1 => high = mid as i64 - 1,
            _ => return Some(&parts[mid]),
        }
    }
    None
}

/// `FrameTimingQuery.getFrameData` for `package` at `api_level`. Errors: Macrobenchmark's own failures (no
/// RenderThread slices; API 31+: no expected/actual slices, or a slice without a frame id).
pub fn frame_data(
    timeline: &Timeline,
    package: &str,
    api_level: u64,
) -> Result<Vec<FrameData>, String> {
    let app = &timeline.app;
    let matching = |pid: Option<i32>| {
        pid.and_then(|p| timeline.process_names.get(&p))
            .is_some_and(|n| process_matches(n, package))
    };
    let mut ui = Vec::new();
    let mut rt = Vec::new();
    for s in &app.sections {
        let name = app.name(s.name);
        let pid = app.pid_of(s.tid);
        if !matching(pid) {
            continue;
        }
        let part = Part {
            ts: s.ts,
            dur: s.dur,
            frame_id: frame_id(name),
        };
        if like("Choreographer#doFrame%", name)
            && !like("Choreographer#doFrame - resynced to%", name)
            && pid == Some(s.tid)
        {
            ui.push(part);
        } else if like("DrawFrame%", name) && app.thread_name(s.tid) == Some("RenderThread") {
            rt.push(part);
        }
    }
    let timeline_parts = |slices: &[crate::model::Slice]| -> Vec<Part> {
        slices
            .iter()
            .filter(|s| matching(Some(s.pid)))
            .map(|s| Part {
                ts: s.ts_ns,
                dur: s.dur_ns,
                frame_id: i32::try_from(s.token).ok(),
            })
            .collect()
    };
    let mut actual = timeline_parts(&timeline.actual);
    let mut expected = timeline_parts(&timeline.expected);
    // UNION (duplicates once) ORDER BY ts; the frame id check sees every row, the rest only dur > 0.
    for parts in [&mut ui, &mut rt, &mut actual, &mut expected] {
        parts.sort_by_key(|p| (p.ts, p.dur, p.frame_id));
        parts.dedup();
    }
    let any_missing_id = [&ui, &rt, &actual, &expected]
        .iter()
        .any(|parts| parts.iter().any(|p| p.frame_id.is_none()));
    for parts in [&mut ui, &mut rt, &mut actual, &mut expected] {
        parts.retain(|p| p.dur > 0);
    }
    if ui.is_empty() {
        return Ok(Vec::new());
    }
    if rt.is_empty() {
        return Err("Observed no renderthread slices in trace - verify that your benchmark is redrawing and is hardware accelerated (which is the default).".into());
    }
    if api_level < 31 {
        return Ok(rt
            .iter()
            .filter_map(|r| {
                let u = ui.iter().find(|u| u.ts <= r.ts && r.ts <= u.end())?;
                Some(FrameData {
                    cpu_ns: r.end() - u.ts,
                    overrun_ns: None,
                })
            })
            .collect());
    }
    if actual.is_empty() || expected.is_empty() {
        return Err(
            "Observed no expect/actual slices in trace, please report bug and attach perfetto trace."
                .into(),
        );
    }
    if any_missing_id {
        return Err(
            "Observed frame in trace missing id, please report bug and attach perfetto trace."
                .into(),
        );
    }
    let mut pool = actual;
    let mut frames = Vec::new();
    for r in &rt {
        let Some(u) = r.frame_id.and_then(|id| binary_search(&ui, id)) else {
            continue;
        };
        let mid = u.ts + u.dur / 2;
        let found = pool.iter().rposition(|a| {
            a.ts < u.ts + ACTUAL_START_TOLERANCE_NS && a.ts <= mid && mid <= a.end()
        });
        let Some(a) = found.map(|i| pool.remove(i)) else {
            continue;
        };
        let Some(e) = a.frame_id.and_then(|id| binary_search(&expected, id)) else {
            continue;
        };
        frames.push(FrameData {
            cpu_ns: r.end() - u.ts,
            overrun_ns: Some(a.end().max(r.end()) - e.end()),
        });
    }
    Ok(frames)
}

/// The `"macrobenchmark"` object for `package`.
pub fn macrobenchmark(timeline: &Timeline, package: &str) -> Macrobenchmark {
    let api_level = timeline
        .system_info
        .as_ref()
        .and_then(|i| i.android_sdk_version)
        .unwrap_or(31);
    let mut out = Macrobenchmark {
        package: package.to_string(),
        api_level,
        error: None,
        metrics: BTreeMap::new(),
        sampled_metrics: BTreeMap::new(),
        top_causes: Vec::new(),
    };
    match frame_data(timeline, package, api_level) {
        Err(e) => out.error = Some(e),
        Ok(frames) => {
            let ms = |ns: i64| ns as f64 / 1_000_000.0;
            let count = frames.len() as f64;
            out.metrics.insert(
                "frameCount",
                SingleMetric {
                    minimum: count,
                    maximum: count,
                    median: count,
                    runs: vec![count],
                },
            );
            out.sampled_metrics.insert(
                "frameDurationCpuMs",
                SampledMetric::of(frames.iter().map(|f| ms(f.cpu_ns)).collect()),
            );
            if api_level >= 31 {
                out.sampled_metrics.insert(
                    "frameOverrunMs",
                    SampledMetric::of(frames.iter().filter_map(|f| f.overrun_ns).map(ms).collect()),
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_ids_are_32_bit_and_resynced_has_none() {
        assert_eq!(frame_id("Choreographer#doFrame 1370854"), Some(1370854));
        assert_eq!(frame_id("actual 1370876"), Some(1370876));
        assert_eq!(frame_id("Choreographer#doFrame"), None);
        assert_eq!(
            frame_id("Choreographer#doFrame - resynced to 1253256 in 32.8ms"),
            None
        );
        assert_eq!(frame_id("actual 4294967296"), None);
    }

    #[test]
    fn process_names_match_like_macrobenchmark() {
        assert!(process_matches("com.example.app", "com.example.app"));
        assert!(process_matches("com.example.app:remote", "com.example.app"));
        assert!(process_matches("COM.EXAMPLE.APP", "com.example.app"));
        assert!(!process_matches("com.example.apple", "com.example.app"));
        // comm keeps the last 15 characters of a long name.
        let long = "androidx.benchmark.integration.macrobenchmark.target";
        assert!(process_matches("enchmark.target", long));
        assert!(!process_matches("macrobenchmark.target", long));
        assert!(process_matches(
            "k.integration.x",
            "androidx.benchmark.integration.x"
        ));
    }
}
