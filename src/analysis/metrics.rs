//! Per-process and per-layer summaries: Perfetto's `android_frame_timeline_metric` reproduced exactly
//! (`metrics/sql/android/android_frame_timeline_metric.sql`, google/perfetto @ ec5d16b1), and ftl's per-layer
//! view with present-based FPS and the pacing metrics of the layer's present fences ([`super::pacing`], the same
//! code as every text capture's).

use super::app::blame::LateStage;
use super::frames::FrameRow;
use super::pacing::{pacing, Pacing};
use super::percentile::{percentile, percentile_by, percentile_ns};
use crate::model::jank::{jank_component_set, COMPONENT_NAMES};
use crate::model::{
    FrameSeries, JankTag, NameSource, Process, SeriesFrames, SharedStr, Slice, Source,
};
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::binary_heap::PeekMut;
use std::collections::{BTreeMap, BinaryHeap};

/// Jank-type components that make a frame "missed" for the app (Perfetto `android_is_app_jank_type`).
const APP_JANK: [&str; 2] = ["App Deadline Missed", "App Resynced Jitter"];
/// ... for SurfaceFlinger (`android_is_sf_jank_type`).
const SF_JANK: [&str; 5] = [
    "SurfaceFlinger CPU Deadline Missed",
    "SurfaceFlinger GPU Deadline Missed",
    "SurfaceFlinger Scheduling",
    "Prediction Error",
    "Display HAL",
];
const DROPPED: &str = "Dropped Frame";

/// Frames (distinct tokens) of one jank-type component, split by present type (metric `jank_types`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct JankTypeCount {
    /// The jank-type component, e.g. `App Deadline Missed`.
    #[serde(rename = "type")]
    pub jank_type: String,
    /// Distinct tokens with this component.
    pub total_count: u64,
    /// ... whose present type is `Unspecified Present`.
    pub present_unspecified_count: u64,
    /// ... `On-time Present`.
    pub present_on_time_count: u64,
    /// ... `Late Present`.
    pub present_late_count: u64,
    /// ... `Early Present`.
    pub present_early_count: u64,
    /// ... `Dropped Frame`.
    pub present_dropped_count: u64,
    /// ... `Unknown Present`.
    pub present_unknown_count: u64,
}

/// One process of Perfetto's `android_frame_timeline_metric`. Counts are distinct tokens over all the process's
/// actual slices; durations (ns) are over slice rows, dropped frames excluded, `dur = -1` rows included as
/// Perfetto does.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ProcessMetrics {
    /// Process id.
    pub pid: i32,
    /// Process name (see `name_source`).
    pub name: String,
    /// Where the name came from.
    pub name_source: NameSource,
    /// Linux uid, when the trace has it.
    pub uid: Option<i32>,
    /// True for SurfaceFlinger (its rows are DisplayFrames).
    pub is_surfaceflinger: bool,
    /// Distinct tokens.
    pub total_frames: u64,
    /// Distinct tokens with app, SF or dropped jank.
    pub missed_frames: u64,
    /// Distinct tokens with `App Deadline Missed` / `App Resynced Jitter`.
    pub missed_app_frames: u64,
    /// Distinct tokens with an SF jank component.
    pub missed_sf_frames: u64,
    /// Distinct tokens with `Dropped Frame`.
    pub dropped_frames: u64,
    /// Σ over tokens of missed × max |jank severity score|.
    pub weighted_missed_frames: f64,
    /// Same for app-missed tokens.
    pub weighted_missed_app_frames: f64,
    /// Same for SF-missed tokens.
    pub weighted_missed_sf_frames: f64,
    /// Longest slice, ns.
    pub frame_dur_max: Option<i64>,
    /// Mean slice duration, ns, truncated.
    pub frame_dur_avg: Option<i64>,
    /// Median slice duration, ns (truncated).
    pub frame_dur_p50: Option<i64>,
    /// 90th percentile, ns.
    pub frame_dur_p90: Option<i64>,
    /// 95th percentile, ns.
    pub frame_dur_p95: Option<i64>,
    /// 99th percentile, ns.
    pub frame_dur_p99: Option<i64>,
    /// Median, ms (not truncated).
    pub frame_dur_ms_p50: Option<f64>,
    /// 90th percentile, ms.
    pub frame_dur_ms_p90: Option<f64>,
    /// 95th percentile, ms.
    pub frame_dur_ms_p95: Option<f64>,
    /// 99th percentile, ms.
    pub frame_dur_ms_p99: Option<f64>,
    /// Per jank-type component × present type, alphabetical.
    pub jank_types: Vec<JankTypeCount>,
}

/// The metric's top level: sums over processes and jank types counted over all processes.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct MetricTotals {
    /// Σ `total_frames`.
    pub total_frames: u64,
    /// Σ `missed_app_frames`.
    pub missed_app_frames: u64,
    /// Σ `dropped_frames`.
    pub dropped_frames: u64,
    /// Jank-type components counted by distinct token across all processes.
    pub jank_types: Vec<JankTypeCount>,
}

/// Sets of jank-type components (bitsets of [`COMPONENT_NAMES`] indexes, as [`jank_component_set`] gives) that
/// flag a row as the metric's app, SurfaceFlinger or dropped frame: [`FLAGS`].
struct Flags {
    app: u32,
    sf: u32,
    dropped: u32,
}

impl Flags {
    fn new() -> Self {
        let set = |names: &[&str]| {
            (COMPONENT_NAMES.iter().zip(0..))
                .filter(|(name, _)| names.contains(name))
                .fold(0, |set, (_, i)| set | 1 << i)
        };
        Flags {
            app: set(&APP_JANK),
            sf: set(&SF_JANK),
            dropped: set(&[DROPPED]),
        }
    }
}

/// The metric's [`Flags`], made from the component names once.
static FLAGS: std::sync::LazyLock<Flags> = std::sync::LazyLock::new(Flags::new);

/// An actual slice as the metric reads it: its jank-type components and score.
#[derive(Clone, Copy)]
struct MetricRow<'a> {
    slice: &'a Slice,
    /// Its components ([`jank_component_set`]).
    components: u32,
}

impl MetricRow<'_> {
    fn app(&self) -> bool {
        self.components & FLAGS.app != 0
    }
    fn sf(&self) -> bool {
        self.components & FLAGS.sf != 0
    }
    fn dropped(&self) -> bool {
        self.components & FLAGS.dropped != 0
    }
    /// |jank severity score|.
    fn score(&self) -> f32 {
        self.slice.labels.jank_severity_score().unwrap_or(0.0).abs()
    }
}

/// Actual slices grouped as the metric groups them: indexes into `actual` (4 bytes per slice, the grouping's
/// memory on FrameTimeline-dense traces), in runs of one token.
struct Rows<'a> {
    actual: &'a [Slice],
}

impl<'a> Rows<'a> {
    fn row(&self, i: u32) -> MetricRow<'a> {
        let slice = &self.actual[i as usize];
        MetricRow {
            slice,
            components: jank_component_set(slice.jank_bits()),
        }
    }
    fn token(&self, i: u32) -> i64 {
        self.actual[i as usize].token
    }
    /// The runs of one token of `order` (sorted by token).
    fn tokens<'o>(&self, order: &'o [u32]) -> impl Iterator<Item = &'o [u32]> + use<'o, '_> {
        order.chunk_by(|&a, &b| self.token(a) == self.token(b))
    }
    /// Sorts `order` by token, stably. One process's slices in time order lie a few places from their token order
    /// (on the FrameTimeline replica 0.05 moves per slice, at most 8), which an insertion sort takes in one pass
    /// where the standard sort saw short runs and sorted them whole.
    fn sort_by_token(&self, order: &mut [u32]) {
        crate::model::order::sort_nearly_sorted_by_key(order, |i| self.token(i));
    }
    /// The slices' indexes per process, ascending pid, each in token order.
    fn by_process(&self) -> Vec<(i32, Vec<u32>)> {
        let mut groups: FxHashMap<i32, Vec<u32>> = Default::default();
        for (i, s) in self.actual.iter().enumerate() {
            groups.entry(s.pid).or_default().push(i as u32);
        }
        let mut groups: Vec<_> = groups.into_iter().collect();
        groups.sort_unstable_by_key(|&(pid, _)| pid);
        for (_, order) in &mut groups {
            self.sort_by_token(order);
        }
        groups
    }
}

/// A process's rows of one token, aggregated as the metric groups them.
struct TokenFrame {
    app: bool,
    sf: bool,
    dropped: bool,
    /// The largest |jank severity score| of the rows.
    score: f64,
}

impl TokenFrame {
    fn of<'a>(group: impl Iterator<Item = MetricRow<'a>> + Clone) -> Self {
        TokenFrame {
            app: group.clone().any(|r| r.app()),
            sf: group.clone().any(|r| r.sf()),
            dropped: group.clone().any(|r| r.dropped()),
            score: group.fold(0.0, |max, r| max.max(f64::from(r.score()))),
        }
    }
    fn missed(&self) -> bool {
        self.app || self.sf || self.dropped
    }
}

/// A process's distinct tokens counted: all, flagged, and the flagged ones weighted by their max |score|
/// (Perfetto's weighted missed frames), summed in token order.
#[derive(Default)]
struct TokenCounts {
    total: u64,
    missed: u64,
    app: u64,
    sf: u64,
    dropped: u64,
    weighted_missed: f64,
    weighted_app: f64,
    weighted_sf: f64,
}

impl TokenCounts {
    /// The counts over `order` (sorted by token).
    fn of(rows: &Rows<'_>, order: &[u32]) -> Self {
        let mut c = TokenCounts::default();
        let frames = rows
            .tokens(order)
            .map(|group| TokenFrame::of(group.iter().map(|&i| rows.row(i))));
        for t in frames {
            let weight = |flag: bool| if flag { t.score } else { 0.0 };
            c.total += 1;
            c.missed += u64::from(t.missed());
            c.app += u64::from(t.app);
            c.sf += u64::from(t.sf);
            c.dropped += u64::from(t.dropped);
            c.weighted_missed += weight(t.missed());
            c.weighted_app += weight(t.app);
            c.weighted_sf += weight(t.sf);
        }
        c
    }
}

/// Every process's slices (`groups`, each sorted by token) in token order, with their tokens: a k-way merge whose
/// heap holds each process's next token, so that each slice's token is read once (a sort of all slices compared
/// tokens read through their indexes, and was the longest step of the metric).
fn merged_by_token<'r>(
    rows: &'r Rows<'_>,
    groups: &'r [(i32, Vec<u32>)],
) -> impl Iterator<Item = (i64, u32)> + 'r {
    let mut heads: BinaryHeap<Reverse<(i64, usize, usize)>> = groups
        .iter()
        .enumerate()
        .filter_map(|(g, (_, order))| Some(Reverse((rows.token(*order.first()?), g, 0))))
        .collect();
    std::iter::from_fn(move || {
        let mut head = heads.peek_mut()?;
        let Reverse((token, g, at)) = *head;
        let order = &groups[g].1;
        match order.get(at + 1) {
            Some(&next) => *head = Reverse((rows.token(next), g, at + 1)),
            None => drop(PeekMut::pop(head)),
        }
        Some((token, order[at]))
    })
}

/// Jank-type components × present types counted by distinct token over `ordered` (slice indexes with their
/// tokens, in token order), by component name.
fn jank_type_counts(
    rows: &Rows<'_>,
    ordered: impl Iterator<Item = (i64, u32)>,
) -> Vec<JankTypeCount> {
    // counts[component][column]: column 0 counts any present type, 1 + i the i-th `PresentType` (in declaration
    // order, the order of the metric's columns).
    let mut counts = [[0u64; 7]; COMPONENT_NAMES.len()];
    // The current token's components per column, as sets of component indexes, counted once its rows are seen.
    let mut seen = [0u32; 7];
    let mut count = |seen: &mut [u32; 7]| {
        for (column, set) in seen.iter_mut().enumerate() {
            while *set != 0 {
                if let Some(n) = counts.get_mut(set.trailing_zeros() as usize) {
                    n[column] += 1;
                }
                *set &= *set - 1;
            }
        }
    };
    let mut current = None;
    for (token, i) in ordered {
        if current != Some(token) {
            count(&mut seen);
            current = Some(token);
        }
        let r = rows.row(i);
        let set = r.components;
        seen[0] |= set;
        if let Some(column) = seen.get_mut(r.slice.present_type() as usize + 1) {
            *column |= set;
        }
    }
    count(&mut seen);
    let mut found: Vec<(&str, [u64; 7])> = COMPONENT_NAMES
        .into_iter()
        .zip(counts)
        .filter(|(_, counts)| counts[0] > 0)
        .collect();
    found.sort_unstable_by_key(|(name, _)| *name);
    found
        .into_iter()
        .map(|(t, counts)| {
            let [total, unspecified, on_time, late, early, dropped, unknown] = counts;
            JankTypeCount {
                jank_type: t.to_string(),
                total_count: total,
                present_unspecified_count: unspecified,
                present_on_time_count: on_time,
                present_late_count: late,
                present_early_count: early,
                present_dropped_count: dropped,
                present_unknown_count: unknown,
            }
        })
        .collect()
}

/// Perfetto's `android_frame_timeline_metric` of a timeline's actual slices and processes
/// ([`crate::model::Timeline::actual`], [`crate::model::Timeline::processes`]): one entry per process with
/// actual slices (ordered by pid) and the totals.
pub fn frame_timeline_metric(
    actual: &[Slice],
    processes: &BTreeMap<i32, Process>,
) -> (Vec<ProcessMetrics>, MetricTotals) {
    let rows = Rows { actual };
    // Grouped by process, then by token (the order of a token's rows does not matter).
    let groups = rows.by_process();
    let processes: Vec<ProcessMetrics> = groups
        .iter()
        .map(|(pid, order)| {
            let pid = *pid;
            let tokens = TokenCounts::of(&rows, order);
            let mut durs: Vec<i64> = order
                .iter()
                .map(|&i| rows.row(i))
                .filter(|r| !r.dropped())
                .map(|r| r.slice.dur_ns)
                .collect();
            durs.sort_unstable();
            let ms = |p| percentile_by(durs.len(), |i| durs[i] as f64 / 1e6, p);
            let avg = (!durs.is_empty()).then(|| {
                (durs.iter().map(|d| i128::from(*d)).sum::<i128>() as f64 / durs.len() as f64)
                    as i64
            });
            let process = processes.get(&pid);
            ProcessMetrics {
                pid,
                name: process.map_or_else(String::new, |p| p.name.clone()),
                name_source: process.map_or(NameSource::Unknown, |p| p.name_source),
                uid: process.and_then(|p| p.uid),
                is_surfaceflinger: process.is_some_and(|p| p.is_surfaceflinger),
                total_frames: tokens.total,
                missed_frames: tokens.missed,
                missed_app_frames: tokens.app,
                missed_sf_frames: tokens.sf,
                dropped_frames: tokens.dropped,
                weighted_missed_frames: tokens.weighted_missed,
                weighted_missed_app_frames: tokens.weighted_app,
                weighted_missed_sf_frames: tokens.weighted_sf,
                frame_dur_max: durs.last().copied(),
                frame_dur_avg: avg,
                frame_dur_p50: percentile_ns(&durs, 50.0),
                frame_dur_p90: percentile_ns(&durs, 90.0),
                frame_dur_p95: percentile_ns(&durs, 95.0),
                frame_dur_p99: percentile_ns(&durs, 99.0),
                frame_dur_ms_p50: ms(50.0),
                frame_dur_ms_p90: ms(90.0),
                frame_dur_ms_p95: ms(95.0),
                frame_dur_ms_p99: ms(99.0),
                jank_types: jank_type_counts(&rows, order.iter().map(|&i| (rows.token(i), i))),
            }
        })
        .collect();
    let totals = MetricTotals {
        total_frames: processes.iter().map(|p| p.total_frames).sum(),
        missed_app_frames: processes.iter().map(|p| p.missed_app_frames).sum(),
        dropped_frames: processes.iter().map(|p| p.dropped_frames).sum(),
        // All processes' slices by token.
        jank_types: jank_type_counts(&rows, merged_by_token(&rows, &groups)),
    };
    (processes, totals)
}

/// ftl's per-layer summary of actual SurfaceFrames (one per process × layer).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LayerSummary {
    /// Owning process id.
    pub pid: i32,
    /// Owning process name.
    pub process_name: String,
    /// Layer name.
    pub layer_name: String,
    /// Actual SurfaceFrames (slice rows).
    pub frames: u64,
    /// Frames whose jank tag is visible jank (Self Jank, Other Jank, Dropped Frame).
    pub janky_frames: u64,
    /// `janky_frames / frames × 100`.
    pub janky_pct: f64,
    /// Janky because of the app (`Self Jank`).
    pub app_janky_frames: u64,
    /// Janky because of SurfaceFlinger / display (`Other Jank`).
    pub sf_janky_frames: u64,
    /// Dropped frames (`Dropped Frame` tag).
    pub dropped_frames: u64,
    /// Late but smooth (`Buffer Stuffing` / `SurfaceFlinger Stuffing` tags).
    pub stuffed_frames: u64,
    /// Frames per jank tag (Perfetto strings).
    pub jank_tags: BTreeMap<&'static str, u64>,
    /// Late frames per stage that made them late (`ui_thread`, `render_thread`, `gpu`, `app`, `surfaceflinger`,
    /// `stuffing`; ftl's stage blame, `analysis::app::blame::late_stage`). Stages without frames are left out.
    pub late_stages: BTreeMap<&'static str, u64>,
    /// Late frames per cause (`cpu_starved`, `binder:<server process>`, `slow_code:<section>`, …; ftl's rule,
    /// `analysis::app::cause`, `ftl explain causes`). Late frames without a cause (no scheduler data, or no
    /// thread sections) are left out.
    pub late_causes: BTreeMap<String, u64>,
    /// The most frequent jank-type components other than `None`, most frequent first (at most 3).
    pub top_jank_types: Vec<(String, u64)>,
    /// Median actual frame duration (app start → buffer ready), ms; dropped and unfinished frames excluded.
    pub frame_dur_ms_p50: Option<f64>,
    /// 90th percentile frame duration, ms.
    pub frame_dur_ms_p90: Option<f64>,
    /// 99th percentile frame duration, ms.
    pub frame_dur_ms_p99: Option<f64>,
    /// Frames that finished after their expected end (overrun > 0).
    pub overrun_frames: u64,
    /// 99th percentile overrun (actual end − expected end), ms.
    pub overrun_ms_p99: Option<f64>,
    /// Largest overrun, ms.
    pub overrun_ms_max: Option<f64>,
    /// The pacing metrics of the layer's present fences (`presented_frames`, `fps`, surface_stats_collector,
    /// PerfDog, FPS per second, sm), normalised by the trace's vsync period.
    #[serde(flatten)]
    pub pacing: Pacing,
}

/// Causes by frames, most first (ties by name): the order of the "top causes" and of batch's `top_cause`.
pub fn ranked_causes(causes: &BTreeMap<String, u64>) -> Vec<(&str, u64)> {
    let mut ranked: Vec<(&str, u64)> = causes.iter().map(|(c, n)| (c.as_str(), *n)).collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    ranked
}

/// Summarises per (pid, layer) from the per-frame rows; `period_ns` is the vsync period (the pacing metrics'
/// refresh period).
pub fn layer_summaries(rows: &[FrameRow], period_ns: Option<i64>) -> Vec<LayerSummary> {
    let mut summaries = LayerSummaries::default();
    for r in rows {
        summaries.add(r);
    }
    summaries.finish(period_ns)
}

/// [`layer_summaries`] a row at a time: what a summary needs of each SurfaceFrame row (its counts, its duration
/// and overrun, and its [`FrameRow::series_frame`]: about 32 bytes), so that a caller that does not keep the rows
/// never holds them all.
#[derive(Debug, Default)]
pub struct LayerSummaries {
    /// Each layer's rows, in the order first met.
    layers: Vec<LayerFrames>,
    /// Each layer's place in [`LayerSummaries::layers`].
    places: FxHashMap<(i32, SharedStr), usize>,
    /// The place of the layer of the last row added: rows come in runs of one layer, so most rows skip the
    /// lookup in [`LayerSummaries::places`].
    last: Option<usize>,
}

/// One layer's rows, as [`LayerSummaries`] keeps them.
#[derive(Debug, Default)]
struct LayerFrames {
    pid: i32,
    layer_name: SharedStr,
    process_name: SharedStr,
    frames: u64,
    janky: u64,
    app_janky: u64,
    sf_janky: u64,
    dropped: u64,
    stuffed: u64,
    /// Frames per jank tag, by [`JankTag`]'s place in [`JankTag::ALL`].
    jank_tags: [u64; JankTag::ALL.len()],
    /// Late frames per stage, by [`LateStage`]'s place in [`LateStage::ALL`].
    late_stages: [u64; LateStage::ALL.len()],
    late_causes: BTreeMap<String, u64>,
    /// Frames per `jank_type` string (few distinct ones, shared by the rows that have them), split into
    /// components at the end.
    jank_types: Vec<(SharedStr, u64)>,
    dur_ns: Vec<i64>,
    overrun_ns: Vec<i64>,
    series: SeriesFrames,
}

impl LayerSummaries {
    /// Adds one SurfaceFrame row.
    pub fn add(&mut self, r: &FrameRow) {
        let place = match self.last {
            Some(i) if self.layers[i].pid == r.pid && self.layers[i].layer_name == r.layer_name => {
                i
            }
            _ => {
                let i = self.place_of(r.pid, &r.layer_name).unwrap_or_else(|new| {
                    self.layers.push(LayerFrames {
                        pid: r.pid,
                        layer_name: r.layer_name.clone(),
                        process_name: r.process_name.clone(),
                        ..LayerFrames::default()
                    });
                    new
                });
                self.last = Some(i);
                i
            }
        };
        let l = &mut self.layers[place];
        let tag = r.labels.jank_tag;
        l.frames += 1;
        l.janky += u64::from(tag.is_janky());
        l.app_janky += u64::from(tag == JankTag::SelfJank);
        l.sf_janky += u64::from(tag == JankTag::OtherJank);
        l.dropped += u64::from(tag == JankTag::DroppedFrame);
        l.stuffed += u64::from(matches!(
            tag,
            JankTag::BufferStuffing | JankTag::SurfaceFlingerStuffing
        ));
        l.jank_tags[tag as usize] += 1;
        if let Some(stage) = r.late_stage {
            l.late_stages[stage as usize] += 1;
        }
        if let Some(cause) = r.threads.cause() {
            match l.late_causes.get_mut(cause) {
                Some(n) => *n += 1,
                None => {
                    l.late_causes.insert(cause.to_string(), 1);
                }
            }
        }
        // Equal `SharedStr`s are mostly one allocation: the comparison is then a pointer's.
        match l
            .jank_types
            .iter_mut()
            .find(|(t, _)| *t == r.labels.jank_type)
        {
            Some((_, n)) => *n += 1,
            None => l.jank_types.push((r.labels.jank_type.clone(), 1)),
        }
        l.dur_ns.extend(r.shown_dur_ns());
        l.overrun_ns.extend(r.overrun_ns);
        l.series.push(r.series_frame());
    }

    /// The place in [`LayerSummaries::layers`] of the layer `(pid, layer_name)`; `Err` with the place it takes
    /// when it has none yet (the caller then pushes it there).
    fn place_of(&mut self, pid: i32, layer_name: &SharedStr) -> Result<usize, usize> {
        let next = self.layers.len();
        let i = *self.places.entry((pid, layer_name.clone())).or_insert(next);
        if i == next {
            Err(next)
        } else {
            Ok(i)
        }
    }

    /// Adds the rows `later` summarised, which came after this one's (as if added here one by one).
    pub fn append(&mut self, later: LayerSummaries) {
        for l in later.layers {
            let Ok(i) = self.place_of(l.pid, &l.layer_name) else {
                self.layers.push(l);
                continue;
            };
            let mine = &mut self.layers[i];
            mine.frames += l.frames;
            mine.janky += l.janky;
            mine.app_janky += l.app_janky;
            mine.sf_janky += l.sf_janky;
            mine.dropped += l.dropped;
            mine.stuffed += l.stuffed;
            for (n, m) in mine.jank_tags.iter_mut().zip(l.jank_tags) {
                *n += m;
            }
            for (n, m) in mine.late_stages.iter_mut().zip(l.late_stages) {
                *n += m;
            }
            for (cause, m) in l.late_causes {
                *mine.late_causes.entry(cause).or_default() += m;
            }
            for (jank_type, m) in l.jank_types {
                match mine.jank_types.iter_mut().find(|(t, _)| *t == jank_type) {
                    Some((_, n)) => *n += m,
                    None => mine.jank_types.push((jank_type, m)),
                }
            }
            mine.dur_ns.extend(l.dur_ns);
            mine.overrun_ns.extend(l.overrun_ns);
            mine.series.append(l.series);
        }
        self.last = None;
    }

    /// The summaries, by pid then layer name; the layers' pacing metrics are computed in parallel (rayon: the
    /// global pool, or `batch`'s pool when called from one of its jobs).
    pub fn finish(self, period_ns: Option<i64>) -> Vec<LayerSummary> {
        use rayon::prelude::*;
        let mut layers = self.layers;
        layers.sort_unstable_by(|a, b| (a.pid, &a.layer_name).cmp(&(b.pid, &b.layer_name)));
        layers
            .into_par_iter()
            .map(|l| l.summary(period_ns))
            .collect()
    }
}

impl LayerFrames {
    fn summary(self, period_ns: Option<i64>) -> LayerSummary {
        let (pid, layer) = (self.pid, &*self.layer_name);
        let mut components: BTreeMap<&str, u64> = BTreeMap::new();
        for (jank_type, n) in &self.jank_types {
            for c in jank_type.split(", ").filter(|c| !matches!(*c, "None" | "")) {
                *components.entry(c).or_default() += n;
            }
        }
        let mut top: Vec<(String, u64)> = components
            .into_iter()
            .map(|(c, n)| (c.to_string(), n))
            .collect();
        top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        top.truncate(3);
        let series = FrameSeries {
            source: Source::Perfetto,
            pid: Some(pid),
            process_name: Some(self.process_name.to_string()),
            layer_name: layer.to_string(),
            period_ns,
            period_from: "vsync model",
            presents_from: "present fence (DisplayFrame end)",
            frames: self.series,
        };
        // The sorted frame times beside the pacing: on the largest layer each is milliseconds of work.
        let (times, pacing) = rayon::join(
            || FrameTimes::from_ns(self.dur_ns, self.overrun_ns),
            || pacing(&series),
        );
        let FrameTimes {
            dur_ms: durs,
            overrun_ms: overruns,
        } = times;
        LayerSummary {
            pid,
            process_name: self.process_name.to_string(),
            layer_name: layer.to_string(),
            frames: self.frames,
            janky_frames: self.janky,
            janky_pct: if self.frames == 0 {
                0.0
            } else {
                self.janky as f64 * 100.0 / self.frames as f64
            },
            app_janky_frames: self.app_janky,
            sf_janky_frames: self.sf_janky,
            dropped_frames: self.dropped,
            stuffed_frames: self.stuffed,
            jank_tags: named_counts(JankTag::ALL.map(JankTag::name), self.jank_tags),
            late_stages: named_counts(LateStage::ALL.map(LateStage::name), self.late_stages),
            late_causes: self.late_causes,
            top_jank_types: top,
            frame_dur_ms_p50: percentile(&durs, 50.0),
            frame_dur_ms_p90: percentile(&durs, 90.0),
            frame_dur_ms_p99: percentile(&durs, 99.0),
            overrun_frames: overruns.iter().filter(|o| **o > 0.0).count() as u64,
            overrun_ms_p99: percentile(&overruns, 99.0),
            overrun_ms_max: overruns.last().copied(),
            pacing,
        }
    }
}

/// The non-zero `counts` under their `names`.
fn named_counts<const N: usize>(
    names: [&'static str; N],
    counts: [u64; N],
) -> BTreeMap<&'static str, u64> {
    names
        .into_iter()
        .zip(counts)
        .filter(|(_, n)| *n > 0)
        .collect()
}

/// The frame-time distributions of some SurfaceFrame rows, ms, ascending: what the per-layer and triage
/// percentiles are taken from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrameTimes {
    /// Actual durations of frames that were shown and ended (dropped and never-ended frames excluded).
    pub dur_ms: Vec<f64>,
    /// Overruns (actual end − expected end) of frames with both ends known.
    pub overrun_ms: Vec<f64>,
}

impl FrameTimes {
    /// The distributions of `frames`.
    pub fn of(frames: &[&FrameRow]) -> FrameTimes {
        FrameTimes::from_ns(
            frames.iter().filter_map(|r| r.shown_dur_ns()).collect(),
            frames.iter().filter_map(|r| r.overrun_ns).collect(),
        )
    }

    /// From the durations and overruns already chosen, ns, in any order.
    fn from_ns(dur_ns: Vec<i64>, overrun_ns: Vec<i64>) -> FrameTimes {
        // ns → ms keeps the order: the integers are sorted, then converted.
        let sorted_ms = |mut values: Vec<i64>| {
            values.sort_unstable();
            values.into_iter().map(|ns| ns as f64 / 1e6).collect()
        };
        FrameTimes {
            dur_ms: sorted_ms(dur_ns),
            overrun_ms: sorted_ms(overrun_ns),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn processes_merge_in_token_order_with_each_slice_once() {
        use crate::decode::{FrameLabels, SliceKind};
        // Three processes (one without slices), tokens repeating within and across them.
        let (pids, tokens) = ([3, 1, 3, 2, 1, 3, 2, 1], [5, 2, 1, 2, 2, 9, 7, 4]);
        let actual: Vec<Slice> = pids
            .into_iter()
            .zip(tokens)
            .map(|(pid, token)| Slice {
                kind: SliceKind::ActualSurfaceFrame,
                ts_ns: 0,
                dur_ns: 1,
                pid,
                token,
                display_frame_token: 0,
                layer: None,
                labels: FrameLabels::default(),
            })
            .collect();
        let rows = Rows { actual: &actual };
        let mut groups = rows.by_process();
        groups.push((4, Vec::new()));
        let merged: Vec<(i64, u32)> = merged_by_token(&rows, &groups).collect();
        let mut want: Vec<(i64, u32)> = (0..actual.len() as u32)
            .map(|i| (rows.token(i), i))
            .collect();
        want.sort_unstable();
        let mut got = merged.clone();
        got.sort_unstable();
        assert_eq!(got, want);
        assert!(merged.windows(2).all(|w| w[0].0 <= w[1].0), "{merged:?}");
    }

    #[test]
    fn tags_and_stages_sit_at_their_discriminants() {
        assert!(JankTag::ALL
            .iter()
            .enumerate()
            .all(|(i, t)| *t as usize == i));
        assert!(LateStage::ALL
            .iter()
            .enumerate()
            .all(|(i, s)| *s as usize == i));
    }
}
