//! The data block of an HTML report: the facts and per-layer summaries, then columnar arrays of every frame,
//! DisplayFrame and thread-state piece, times in ns relative to `origin_ns`, strings interned once. A trace fills
//! it from its SurfaceFrames ([`PageData::trace`]); a text capture from its present-to-present intervals
//! ([`super::capture_data`]), with no expected lane, DisplayFrame or thread state.

use super::{verdict_lines, Interned, Strings};
use crate::analysis::app::blame::LateStage;
use crate::analysis::app::cause::{StateKind, StatePiece};
use crate::analysis::app::threads::ThreadTimes;
use crate::analysis::frames::FrameRow;
use crate::analysis::Report;
use crate::output::chart::app_lanes::{stage_rgb, stage_words, state_rgb, ON_TIME_RGB};
use crate::output::chart::data::{JankClass, Rgb, EXPECTED_RGB};
use crate::output::chart::stack::{sub_rows, MAX_SUB_ROWS};
use crate::output::{label, text};
use rustc_hash::FxHashMap;
use serde::Serialize;

/// Bits of a frame's `flags`.
const ON_TIME_FINISH: u8 = 1;
const GPU_COMPOSITION: u8 = 2;
const DROPPED: u8 = 4;
/// Visible jank: for a trace the `jank_tag` is `Self Jank`, `Other Jank` or `Dropped Frame` (what
/// `janky_frames` counts); for a capture a PerfDog Jank.
pub(super) const JANKY: u8 = 8;

/// Everything the page shows.
#[derive(Debug, Serialize)]
pub struct PageData<'a> {
    /// `trace` or `capture`.
    kind: &'static str,
    title: String,
    /// The verdict lines of `ftl analyze`.
    verdict: Vec<String>,
    facts: Facts,
    /// The input's time of relative time 0, ns, as a decimal string (beyond a double's exact integers).
    origin_ns: String,
    /// `--trace-url`, for Perfetto UI links.
    trace_url: Option<&'a str>,
    /// Colours by index, `#rrggbb`; the legends' entries `(words, colour index)`.
    palette: Palette,
    legend: Vec<(String, u32)>,
    stage_legend: Vec<(String, u32)>,
    state_legend: Vec<(String, u32)>,
    strings: Vec<String>,
    /// `ftl analyze --format json`'s per-layer summaries, in its order, less the per-frame arrays; frames point
    /// into it.
    layers: Vec<serde_json::Value>,
    frames: FrameColumns,
    display_frames: DisplayColumns,
    states: StateColumns,
    /// Vsync windows `[first expected present, last, period]`, relative ns.
    vsync: Vec<[i64; 3]>,
}

/// Facts for the header.
#[derive(Debug, Default, Serialize)]
pub(super) struct Facts {
    pub path: String,
    pub device: Option<String>,
    pub android_sdk_version: Option<u64>,
    pub refresh_rate_hz: Option<f64>,
    pub vsync_period_ns: Option<i64>,
    pub span_ms: Option<f64>,
    pub surface_frames: Option<u64>,
    pub display_frames: Option<u64>,
    pub trace_clock: Option<String>,
    /// A text capture: what it was captured with.
    pub captured_with: Option<&'static str>,
}

/// One frame, before it goes into the columns. Times relative ns; strings interned.
#[derive(Debug, Default)]
pub(super) struct Frame {
    pub layer: u32,
    pub surface_frame_token: Option<i64>,
    pub display_frame_token: Option<i64>,
    pub actual_start: i64,
    /// −1: never ended.
    pub dur: i64,
    pub expected_start: Option<i64>,
    pub expected_dur: Option<i64>,
    pub present: Option<i64>,
    pub present_interval: Option<i64>,
    pub jank_type: u32,
    pub jank_tag: Option<u32>,
    pub present_type: Option<u32>,
    pub prediction_type: Option<u32>,
    /// Palette index of the actual slice.
    pub colour: u32,
    pub flags: u8,
    pub late_stage: Option<u32>,
    pub ui_start: Option<i64>,
    pub ui_dur: Option<i64>,
    pub rt_start: Option<i64>,
    pub rt_end: Option<i64>,
    pub cause: Option<u32>,
    pub cause_share_pct: Option<f64>,
    pub top_blocking_call: Option<u32>,
    pub top_blocking_call_ns: Option<i64>,
    pub binder_ns: Option<i64>,
    pub ui_states_ns: Option<[i64; 6]>,
    pub rt_states_ns: Option<[i64; 6]>,
    /// Sub-rows of the actual, UI-thread and RenderThread lanes where slices overlap ([`sub_rows`]), set once
    /// every frame is in ([`PageData::stack`]).
    pub row: u8,
    pub ui_row: u8,
    pub rt_row: u8,
}

/// Declares the columns of [`Frame`]s and how one is pushed: one list of the fields.
macro_rules! frame_columns {
    ($($field:ident: $t:ty),* $(,)?) => {
        /// One entry per frame, by field of [`Frame`] (`None` serialises as `null`).
        #[derive(Debug, Default, Serialize)]
        struct FrameColumns {
            $($field: Vec<$t>,)*
        }

        impl FrameColumns {
            fn push(&mut self, f: Frame) {
                $(self.$field.push(f.$field);)*
            }

            fn len(&self) -> usize {
                self.layer.len()
            }
        }
    };
}

frame_columns!(
    layer: u32,
    surface_frame_token: Option<i64>,
    display_frame_token: Option<i64>,
    actual_start: i64,
    dur: i64,
    expected_start: Option<i64>,
    expected_dur: Option<i64>,
    present: Option<i64>,
    present_interval: Option<i64>,
    jank_type: u32,
    jank_tag: Option<u32>,
    present_type: Option<u32>,
    prediction_type: Option<u32>,
    colour: u32,
    flags: u8,
    late_stage: Option<u32>,
    ui_start: Option<i64>,
    ui_dur: Option<i64>,
    rt_start: Option<i64>,
    rt_end: Option<i64>,
    cause: Option<u32>,
    cause_share_pct: Option<f64>,
    top_blocking_call: Option<u32>,
    top_blocking_call_ns: Option<i64>,
    binder_ns: Option<i64>,
    ui_states_ns: Option<[i64; 6]>,
    rt_states_ns: Option<[i64; 6]>,
    row: u8,
    ui_row: u8,
    rt_row: u8,
);

/// One entry per actual DisplayFrame.
#[derive(Debug, Default, Serialize)]
struct DisplayColumns {
    display_frame_token: Vec<i64>,
    actual_start: Vec<i64>,
    present: Vec<Option<i64>>,
    expected_start: Vec<Option<i64>>,
    expected_dur: Vec<Option<i64>>,
    jank_type: Vec<u32>,
    present_type: Vec<u32>,
    colour: Vec<u32>,
    flags: Vec<u8>,
    surface_frames: Vec<u64>,
}

/// The UI thread's (thread 0) and RenderThread's (1) state pieces over each frame's sections.
#[derive(Debug, Default, Serialize)]
struct StateColumns {
    frame: Vec<u32>,
    thread: Vec<u8>,
    /// Palette index (the state: see `state_legend`).
    colour: Vec<u32>,
    start: Vec<i64>,
    end: Vec<i64>,
}

/// The palette: colours by first use, serialised as their `#rrggbb` list.
#[derive(Debug, Default)]
struct Palette(Interned<Rgb>);

impl Serialize for Palette {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(
            self.0
                .list()
                .iter()
                .map(|c| format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)),
        )
    }
}

impl Palette {
    fn of(&mut self, rgb: Rgb) -> u32 {
        self.0.of(&rgb)
    }
}

/// The state kinds in legend order, with their words.
const STATES: [(StateKind, &str); 7] = [
    (StateKind::Running, "Running"),
    (StateKind::Runnable, "Runnable (R)"),
    (StateKind::RunnablePreempted, "Runnable, preempted (R+)"),
    (StateKind::Sleeping, "Sleeping (S)"),
    (StateKind::UninterruptibleIo, "Uninterruptible, IO (D)"),
    (
        StateKind::UninterruptibleNonIo,
        "Uninterruptible, non-IO (D)",
    ),
    (StateKind::Other, "other states"),
];

impl<'a> PageData<'a> {
    /// An empty page of `kind` with its header and the legends every page carries (the jank classes in
    /// Perfetto UI's colours, the late stages, the thread states).
    pub(super) fn new(
        kind: &'static str,
        title: String,
        facts: Facts,
        origin_ns: i64,
    ) -> PageData<'a> {
        let mut palette = Palette::default();
        palette.of(EXPECTED_RGB);
        let legend = JankClass::ALL
            .iter()
            .map(|c| (c.legend().to_string(), palette.of(c.rgb("Full"))))
            .collect();
        let stage_legend = std::iter::once(("on time".to_string(), palette.of(ON_TIME_RGB)))
            .chain(
                LateStage::ALL
                    .iter()
                    .map(|s| (stage_words(*s).to_string(), palette.of(stage_rgb(*s)))),
            )
            .collect();
        let state_legend = STATES
            .iter()
            .map(|(k, words)| (words.to_string(), palette.of(state_rgb(*k))))
            .collect();
        PageData {
            kind,
            title,
            verdict: Vec::new(),
            facts,
            origin_ns: origin_ns.to_string(),
            trace_url: None,
            palette,
            legend,
            stage_legend,
            state_legend,
            strings: Vec::new(),
            layers: Vec::new(),
            frames: FrameColumns::default(),
            display_frames: DisplayColumns::default(),
            states: StateColumns::default(),
            vsync: Vec::new(),
        }
    }

    /// The data of a trace's `report` (built with frame and DisplayFrame rows).
    pub fn trace(report: &'a Report, trace_url: Option<&'a str>) -> PageData<'a> {
        let t = &report.trace;
        let origin = t.first_ts_ns;
        let rel = |ts: i64| ts - origin;
        let facts = Facts {
            path: t.path.clone(),
            device: t.device_fingerprint.as_deref().map(label::device),
            android_sdk_version: t.android_sdk_version,
            refresh_rate_hz: report.vsync.refresh_rate_hz(),
            vsync_period_ns: report.vsync.period_ns,
            span_ms: Some(t.span_ms),
            surface_frames: Some(t.surface_frames),
            display_frames: Some(t.display_frames),
            trace_clock: Some(t.trace_clock.clone()),
            captured_with: None,
        };
        let title = format!("ftl report — {}", file_name(&t.path));
        let mut page = PageData::new("trace", title, facts, origin);
        page.trace_url = trace_url;
        page.verdict = verdict_lines(&text::verdict(report));
        page.layers = report.layers.iter().map(summary).collect();
        let layer_of: FxHashMap<(i32, &str), u32> = report
            .layers
            .iter()
            .enumerate()
            .map(|(i, l)| ((l.pid, l.layer_name.as_str()), i as u32))
            .collect();
        let mut strings = Strings::default();
        for r in &report.frames {
            if let Some(&layer) = layer_of.get(&(r.pid, &*r.layer_name)) {
                page.surface_frame(r, layer, &mut strings, rel);
            }
        }
        for r in report.display_frames.iter().flatten() {
            let l = &r.labels;
            let d = &mut page.display_frames;
            d.display_frame_token.push(r.display_frame_token);
            d.actual_start.push(rel(r.actual_start_ns));
            d.present.push(r.present_ns.map(rel));
            d.expected_start.push(r.expected_start_ns.map(rel));
            d.expected_dur.push(
                r.expected_start_ns
                    .zip(r.expected_end_ns)
                    .map(|(s, e)| e - s),
            );
            d.jank_type.push(strings.of(&*l.jank_type));
            d.present_type.push(strings.of(l.present_type.name()));
            let colour = JankClass::of(l.jank_tag).rgb(l.jank_severity_type.name());
            d.colour.push(page.palette.of(colour));
            d.flags.push(flags(&[
                (l.on_time_finish, ON_TIME_FINISH),
                (l.gpu_composition, GPU_COMPOSITION),
                (l.jank_tag.is_janky(), JANKY),
            ]));
            d.surface_frames.push(r.surface_frames);
        }
        page.strings = strings.list().to_vec();
        page.stack();
        page.vsync = report
            .vsync
            .windows
            .iter()
            .map(|w| [rel(w.start_ns), rel(w.end_ns), w.measured_period_ns])
            .collect();
        page
    }

    /// Adds SurfaceFrame `r` of layer `layer`, with its thread-state pieces.
    fn surface_frame(
        &mut self,
        r: &FrameRow,
        layer: u32,
        strings: &mut Strings,
        rel: impl Fn(i64) -> i64,
    ) {
        let index = self.frames.len() as u32;
        let l = &r.labels;
        let w = r.app_work.get();
        let t = r.threads.0.as_deref();
        let cause = t.and_then(|t| t.cause.as_ref());
        let call = t.and_then(|t| t.top_blocking_call.as_ref());
        let colour = JankClass::of(l.jank_tag).rgb(l.jank_severity_type.name());
        self.frames.push(Frame {
            layer,
            surface_frame_token: Some(r.surface_frame_token),
            display_frame_token: Some(r.display_frame_token),
            actual_start: rel(r.actual_start_ns),
            dur: r.dur_ns,
            expected_start: r.expected_start_ns.map(&rel),
            expected_dur: r
                .expected_start_ns
                .zip(r.expected_end_ns)
                .map(|(s, e)| e - s),
            present: r.present_ns.map(&rel),
            present_interval: r.present_interval_ns,
            jank_type: strings.of(&*l.jank_type),
            jank_tag: Some(strings.of(l.jank_tag.name())),
            present_type: Some(strings.of(l.present_type.name())),
            prediction_type: Some(strings.of(l.prediction_type.name())),
            colour: self.palette.of(colour),
            flags: flags(&[
                (l.on_time_finish, ON_TIME_FINISH),
                (l.gpu_composition, GPU_COMPOSITION),
                (r.dropped, DROPPED),
                (l.jank_tag.is_janky(), JANKY),
            ]),
            late_stage: r.late_stage.map(|s| strings.of(s.name())),
            ui_start: w.ui_start_ns.map(&rel),
            ui_dur: w.ui_dur_ns,
            rt_start: w.rt_start_ns.map(&rel),
            rt_end: w.rt_end_ns.map(&rel),
            cause: cause.map(|c| strings.of(&c.cause)),
            cause_share_pct: cause.and_then(|c| c.cause_share_pct),
            top_blocking_call: call.map(|(name, _)| strings.of(name)),
            top_blocking_call_ns: call.map(|(_, ns)| *ns),
            binder_ns: t.and_then(|t| t.binder).map(|(ns, _)| ns),
            ui_states_ns: t.and_then(|t| t.ui.as_ref()).map(state_times),
            rt_states_ns: t.and_then(|t| t.rt.as_ref()).map(state_times),
            ..Frame::default()
        });
        let Some(t) = t else { return };
        let pieces: [(u8, &[StatePiece]); 2] = [(0, &t.ui_states), (1, &t.rt_states)];
        for (thread, list) in pieces {
            for p in list {
                let colour = self.palette.of(state_rgb(p.kind));
                let s = &mut self.states;
                s.frame.push(index);
                s.thread.push(thread);
                s.colour.push(colour);
                s.start.push(rel(p.ts));
                s.end.push(rel(p.end));
            }
        }
    }

    /// Adds a frame of a capture, coloured `rgb`.
    pub(super) fn push_frame(&mut self, frame: Frame, rgb: Rgb) {
        let colour = self.palette.of(rgb);
        self.frames.push(Frame { colour, ..frame });
    }

    /// Sets the verdict lines, layer summaries, interned strings and vsync windows of a capture's page, and its
    /// legend: `(words, colour)` of its frame marks.
    pub(super) fn finish(
        &mut self,
        legend: &[(&str, Rgb)],
        verdict: Vec<String>,
        layers: Vec<serde_json::Value>,
        strings: Strings,
        vsync: Vec<[i64; 3]>,
    ) {
        self.legend = legend
            .iter()
            .map(|(words, rgb)| (words.to_string(), self.palette.of(*rgb)))
            .collect();
        self.verdict = verdict;
        self.layers = layers;
        self.strings = strings.list().to_vec();
        self.vsync = vsync;
        self.stack();
    }

    /// Sets the sub-rows of each layer's lanes, as the pictures stack them ([`sub_rows`], at most
    /// [`MAX_SUB_ROWS`]).
    fn stack(&mut self) {
        let f = &mut self.frames;
        let mut by_layer: FxHashMap<u32, Vec<usize>> = FxHashMap::default();
        for (i, layer) in f.layer.iter().enumerate() {
            by_layer.entry(*layer).or_default().push(i);
        }
        let mut layers: Vec<_> = by_layer.into_iter().collect();
        layers.sort_unstable_by_key(|(layer, _)| *layer);
        for (_, frames) in layers {
            let actual: Vec<(i64, i64)> = frames
                .iter()
                .map(|&i| (f.actual_start[i], f.actual_start[i] + f.dur[i].max(0)))
                .collect();
            let lane = |starts: &[Option<i64>], ends: &dyn Fn(usize) -> Option<i64>| {
                let with: Vec<usize> = frames
                    .iter()
                    .copied()
                    .filter(|&i| starts[i].is_some())
                    .collect();
                let spans: Vec<(i64, i64)> = with
                    .iter()
                    .map(|&i| {
                        let start = starts[i].unwrap_or_default();
                        (start, ends(i).unwrap_or(start))
                    })
                    .collect();
                with.into_iter().zip(sub_rows(&spans, MAX_SUB_ROWS))
            };
            let ui: Vec<_> = lane(&f.ui_start, &|i| {
                f.ui_start[i].zip(f.ui_dur[i]).map(|(s, d)| s + d)
            })
            .collect();
            let rt: Vec<_> = lane(&f.rt_start, &|i| f.rt_end[i]).collect();
            for (&i, row) in frames.iter().zip(sub_rows(&actual, MAX_SUB_ROWS)) {
                f.row[i] = row as u8;
            }
            for (i, row) in ui {
                f.ui_row[i] = row as u8;
            }
            for (i, row) in rt {
                f.rt_row[i] = row as u8;
            }
        }
    }

    /// Replaces process, layer and section names (and the input's path) with stable placeholders — `process 1`,
    /// `layer 1`, `name 1` in order of first appearance — everywhere the page shows them, for reports shared
    /// outside a team (`--redact`). Perfetto's and ftl's own words (jank types, stages, the cause kinds before
    /// `:`) stay.
    pub fn redact(&mut self) {
        let mut names = Placeholders::default();
        // Strings that name something: a cause's detail after `:`, a blocking call.
        let f = &self.frames;
        let mut private: Vec<u32> = f
            .cause
            .iter()
            .chain(&f.top_blocking_call)
            .flatten()
            .copied()
            .collect();
        private.sort_unstable();
        private.dedup();
        let mut renamed: FxHashMap<String, String> = FxHashMap::default();
        for i in private {
            let Some(text) = self.strings.get_mut(i as usize) else {
                continue;
            };
            let redacted = match text.split_once(':') {
                Some((kind, detail)) if !detail.is_empty() && !kind.contains(' ') => {
                    format!("{kind}:{}", names.of("name", detail))
                }
                _ if f.top_blocking_call.contains(&Some(i)) => names.of("name", text),
                _ => continue,
            };
            renamed.insert(text.clone(), redacted.clone());
            *text = redacted;
        }
        for layer in &mut self.layers {
            let Some(map) = layer.as_object_mut() else {
                continue;
            };
            for (key, kind) in [("process_name", "process"), ("layer_name", "layer")] {
                if let Some(serde_json::Value::String(name)) = map.get_mut(key) {
                    *name = names.of(kind, name);
                }
            }
            if let Some(serde_json::Value::Object(causes)) = map.get_mut("late_causes") {
                *causes = std::mem::take(causes)
                    .into_iter()
                    .map(|(cause, n)| (renamed.get(&cause).cloned().unwrap_or(cause), n))
                    .collect();
            }
        }
        // The verdict lines quote the names (shortened, too): rebuilt from the redacted layers, after a trace's
        // first line of totals.
        self.verdict.truncate(usize::from(self.kind == "trace"));
        for layer in &self.layers {
            let (janky, frames) = (&layer["janky_frames"], &layer["frames"]);
            if janky.as_u64() > Some(0) {
                let name = |key: &str| layer[key].as_str().unwrap_or("").to_string();
                self.verdict.push(format!(
                    "{janky} of {frames} frames janky in {} ({})",
                    name("layer_name"),
                    name("process_name")
                ));
            }
        }
        self.title = "ftl report — redacted".to_string();
        self.facts.path = "redacted".to_string();
    }

    /// The page title.
    pub fn title(&self) -> &str {
        &self.title
    }
}

/// Names and their placeholders (`<kind> <n>`, n counted per kind from 1), in order of first appearance.
#[derive(Debug, Default)]
struct Placeholders(Vec<(String, String)>);

impl Placeholders {
    /// The placeholder of `name`, a new one if it has none yet.
    fn of(&mut self, kind: &str, name: &str) -> String {
        if let Some((_, p)) = self.0.iter().find(|(n, _)| n == name) {
            return p.clone();
        }
        let prefix = format!("{kind} ");
        let n = self
            .0
            .iter()
            .filter(|(_, p)| p.starts_with(&prefix))
            .count()
            + 1;
        let p = format!("{kind} {n}");
        self.0.push((name.to_string(), p.clone()));
        p
    }
}

/// The flag bits whose condition holds.
fn flags(bits: &[(bool, u8)]) -> u8 {
    bits.iter()
        .filter(|(on, _)| *on)
        .fold(0, |all, (_, bit)| all | bit)
}

/// A thread's time per state, `[Running, R, R+, S, D io, D non-io]` ns.
fn state_times(t: &ThreadTimes) -> [i64; 6] {
    [
        t.running_ns,
        t.runnable_ns,
        t.runnable_preempted_ns,
        t.sleeping_ns,
        t.uninterruptible_io_ns,
        t.uninterruptible_non_io_ns,
    ]
}

/// A layer's summary as `ftl analyze --format json` writes it, less its per-frame arrays (`frame_lengths*`,
/// `frame_durations_ns`).
pub(super) fn summary(layer: &impl Serialize) -> serde_json::Value {
    let mut value = serde_json::to_value(layer).unwrap_or_default();
    if let Some(map) = value.as_object_mut() {
        map.retain(|k, _| !k.starts_with("frame_lengths") && k != "frame_durations_ns");
    }
    value
}

/// The last component of `path`.
pub(super) fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}
