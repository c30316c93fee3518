//! The FrameTimeline model: slices as Perfetto's `expected_frame_timeline_slice` / `actual_frame_timeline_slice`
//! rows, processes, layers, and the links SurfaceFrame → DisplayFrame that give every app frame its present time.

use super::jank::{self, JankTag, PredictionType, PresentType, Severity};
use crate::decode::{FrameLabels, SliceKind, SystemInfo};
use hashbrown::hash_table::Entry;
use serde::Serialize;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::num::NonZeroU32;

/// A layer: 1 + the index of its name in [`Timeline::layer_names`] (non-zero, so that an `Option<LayerId>` takes
/// four bytes in every slice).
pub type LayerId = NonZeroU32;

/// The index of `layer`'s name in [`Timeline::layer_names`].
pub fn layer_index(layer: LayerId) -> usize {
    layer.get() as usize - 1
}

/// One expected or actual timeline slice, as a row of Perfetto's frame timeline tables.
#[derive(Debug, Clone, PartialEq)]
pub struct Slice {
    /// Which of the four kinds.
    pub kind: SliceKind,
    /// Start, ns on the trace clock.
    pub ts_ns: i64,
    /// Duration in ns; `-1` if the slice never ended (Perfetto's convention).
    pub dur_ns: i64,
    /// Owning process (SurfaceFlinger for DisplayFrames).
    pub pid: i32,
    /// The frame token (Perfetto's slice `name`).
    pub token: i64,
    /// DisplayFrame token: the token itself for DisplayFrames, the presenting DisplayFrame's for SurfaceFrames.
    pub display_frame_token: i64,
    /// Layer (SurfaceFrames only; `None` when absent).
    pub layer: Option<LayerId>,
    /// SurfaceFlinger's labels (actual slices only; default for expected ones).
    pub labels: FrameLabels,
}

// One per FrameTimeline slice: the model's memory on FrameTimeline-dense traces.
const _: () = assert!(std::mem::size_of::<Slice>() == 56);

impl Slice {
    /// SurfaceFrame token (`None` for DisplayFrames).
    pub fn surface_frame_token(&self) -> Option<i64> {
        (!self.kind.is_display()).then_some(self.token)
    }
    /// End in ns, `None` for a slice that never ended.
    pub fn end_ns(&self) -> Option<i64> {
        end_ns(self.ts_ns, self.dur_ns)
    }
    /// The `JankType` bitmask (0 when absent, as Perfetto reads it).
    pub fn jank_bits(&self) -> i32 {
        self.labels.jank_type().unwrap_or(0)
    }
    /// Perfetto's `jank_type` string.
    pub fn jank_type(&self) -> Cow<'static, str> {
        jank::jank_type_name(self.jank_bits())
    }
    /// Perfetto's `present_type`.
    pub fn present_type(&self) -> PresentType {
        PresentType::of(self.labels.present_type.get().map(i32::from))
    }
    /// Perfetto's `prediction_type`.
    pub fn prediction_type(&self) -> PredictionType {
        PredictionType::of(self.labels.prediction_type.get().map(i32::from))
    }
    /// Perfetto's `jank_severity_type`.
    pub fn severity(&self) -> Severity {
        Severity::of(
            self.labels.jank_severity_type.get().map(i32::from),
            self.jank_bits(),
        )
    }
    /// Perfetto's `jank_tag` (DisplayFrame and SurfaceFrame rules differ).
    pub fn jank_tag(&self) -> JankTag {
        if self.kind.is_display() {
            jank::display_frame_jank_tag(self.jank_bits())
        } else {
            jank::surface_frame_jank_tag(self.jank_bits(), self.present_type())
        }
    }
    /// True if the frame was dropped (`Dropped Frame` in its jank type or present type).
    pub fn is_dropped(&self) -> bool {
        self.jank_bits() & jank::bits::DROPPED != 0 || self.present_type() == PresentType::Dropped
    }
}

/// Where a process name came from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NameSource {
    /// `ProcessTree` `cmdline[0]`, as Perfetto's `process.name`.
    ProcessTree,
    /// Derived from the layer names of its SurfaceFrames (`TX - com.pkg/...` → `com.pkg`).
    LayerName,
    /// The pid that owns the DisplayFrames.
    SurfaceFlinger,
    /// Nothing known.
    #[default]
    Unknown,
}

/// A process that owns FrameTimeline slices.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Process {
    /// Process id.
    pub pid: i32,
    /// Best known name (see `name_source`).
    pub name: String,
    /// Where the name came from.
    pub name_source: NameSource,
    /// Linux uid from `ProcessTree`, if recorded.
    pub uid: Option<i32>,
    /// True for the process that owns DisplayFrames.
    pub is_surfaceflinger: bool,
}

/// Counters of oddities met while building the model; the report shows them, they never abort.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ImportStats {
    /// Perfetto's `frame_timeline_event_parser_errors`: bad timestamps, starts missing required fields, events
    /// with no oneof member, enum values out of range.
    pub parser_errors: u64,
    /// Perfetto's `frame_timeline_unpaired_end_event`: a `FrameEnd` whose cookie is not open.
    pub unpaired_ends: u64,
    /// Slices that never ended (`dur = -1`), e.g. cut off by the end of the trace.
    pub unterminated_slices: u64,
    /// Expected SurfaceFrame starts de-duplicated away (same process and token, another layer).
    pub deduplicated_expected: u64,
}

/// Everything known about a trace's FrameTimeline, built by [`super::TimelineBuilder`].
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    /// Expected slices in creation order (Perfetto's slice id order).
    pub expected: Vec<Slice>,
    /// Actual slices in creation order.
    pub actual: Vec<Slice>,
    /// Interned layer names.
    pub layer_names: Vec<String>,
    /// Processes that own slices, by pid.
    pub processes: BTreeMap<i32, Process>,
    /// Device facts, if the trace has a `SystemInfo` packet.
    pub system_info: Option<SystemInfo>,
    /// Import oddities.
    pub stats: ImportStats,
    /// The app's atrace sections that name frames, interactions and markers (empty without atrace).
    pub app: super::sections::AppSections,
    /// Every process the trace names (`ProcessTree`), by pid: also those owning no FrameTimeline slice.
    pub process_names: BTreeMap<i32, String>,
    /// The scheduler's thread states and CPU frequencies; `None` without scheduler events.
    pub sched: Option<super::sched::Sched>,
    /// The CPUs' clusters; `None` without a `CpuInfo` packet (data source `linux.system_info`).
    pub cpu_clusters: Option<super::cluster::CpuClusters>,
}

/// The bounds of the expected slices once the slices have served the vsync model and the links: `(ts_ns,
/// dur_ns)` per slice, with [`Timeline::expected`]'s indexes. 16 bytes a slice where a [`Slice`] takes 56: on a
/// FrameTimeline-dense trace, the classification and the per-frame rows run beside 8 MB less.
#[derive(Debug, Clone, Default)]
pub struct ExpectedBounds(Vec<(i64, i64)>);

impl ExpectedBounds {
    /// Takes the slices of `expected` (left empty), their bounds made where they were: no second buffer beside
    /// them.
    pub fn take(expected: &mut Vec<Slice>) -> Self {
        let mut bounds: Vec<(i64, i64)> = std::mem::take(expected)
            .into_iter()
            .map(|s| (s.ts_ns, s.dur_ns))
            .collect();
        bounds.shrink_to_fit();
        ExpectedBounds(bounds)
    }

    /// Start and end of slice `i` (the end `None` when it never ended), ns; `None` when there is no such slice.
    pub fn get(&self, i: usize) -> Option<(i64, Option<i64>)> {
        self.0.get(i).map(|&(ts, dur)| (ts, end_ns(ts, dur)))
    }
}

/// The end of a slice starting at `ts_ns` and lasting `dur_ns`; `None` for Perfetto's `dur = -1`, a slice that
/// never ended.
fn end_ns(ts_ns: i64, dur_ns: i64) -> Option<i64> {
    (dur_ns >= 0).then_some(ts_ns + dur_ns)
}

/// An index into a `Vec` of the model, or [`NO_INDEX`]: four bytes where a `usize` takes eight and an
/// `Option<usize>` sixteen (links are one per actual frame). The model never holds 2³² − 1 slices (that would be
/// 300 GB of them).
type Index = u32;

/// The [`Index`] of nothing.
const NO_INDEX: Index = Index::MAX;

/// A hash table of [`Index`]es whose keys are looked up in the slices they point to.
type IndexTable = hashbrown::HashTable<Index>;

/// The hash of a key of an [`IndexTable`].
fn hash(key: &impl std::hash::Hash) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(key)
}

fn from_index(i: Index) -> Option<usize> {
    (i != NO_INDEX).then_some(i as usize)
}

/// An actual DisplayFrame with its expected slice (indices into [`Timeline::actual`] / [`Timeline::expected`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DisplayFrame {
    actual: Index,
    expected: Index,
}

impl DisplayFrame {
    /// The actual slice.
    pub fn actual(&self) -> usize {
        self.actual as usize
    }
    /// The expected slice with the same pid and token, if any.
    pub fn expected(&self) -> Option<usize> {
        from_index(self.expected)
    }
}

/// An actual SurfaceFrame with its expected slice and the DisplayFrame that presented it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SurfaceFrame {
    actual: Index,
    expected: Index,
    display: Index,
}

impl SurfaceFrame {
    /// The actual slice (index into [`Timeline::actual`]).
    pub fn actual(&self) -> usize {
        self.actual as usize
    }
    /// The expected slice of its (pid, token), if any (none when the prediction expired).
    pub fn expected(&self) -> Option<usize> {
        from_index(self.expected)
    }
    /// Index into [`Frames::display`] of the DisplayFrame whose token is this frame's `display_frame_token`.
    pub fn display(&self) -> Option<usize> {
        from_index(self.display)
    }
}

// One link per actual frame: on FrameTimeline-dense traces, as many as the slices.
const _: () = assert!(std::mem::size_of::<SurfaceFrame>() == 12);
const _: () = assert!(std::mem::size_of::<DisplayFrame>() == 8);

/// Actual frames linked to their expected slices and to each other.
#[derive(Debug, Clone, Default)]
pub struct Frames {
    /// DisplayFrames in actual-slice order.
    pub display: Vec<DisplayFrame>,
    /// SurfaceFrames in actual-slice order.
    pub surface: Vec<SurfaceFrame>,
}

impl Timeline {
    /// A layer's name ("" for a slice without one).
    pub fn layer_name(&self, layer: Option<LayerId>) -> &str {
        layer
            .and_then(|l| self.layer_names.get(layer_index(l)))
            .map_or("", String::as_str)
    }

    /// The process name of `pid` ("" if unknown).
    pub fn process_name(&self, pid: i32) -> &str {
        self.processes.get(&pid).map_or("", |p| p.name.as_str())
    }

    /// Links every actual SurfaceFrame to its DisplayFrame (`display_frame_token` = DisplayFrame token) and every
    /// actual slice to its expected slice (same pid and token; the first one, as Perfetto keeps it).
    /// When a token has several actual DisplayFrames (a reused cookie), the first that ended is used.
    pub fn link(&self) -> Frames {
        // Hash tables of indexes (4 bytes a slot) whose keys are read from the slices: a map holding the keys
        // would take 24 bytes a slot, the largest transient memory of a FrameTimeline-dense analysis.
        let key = |s: &Slice| (s.kind.is_display(), s.pid, s.token);
        let expected_key = |i: &Index| key(&self.expected[*i as usize]);
        let mut expected = IndexTable::with_capacity(self.expected.len());
        for (i, s) in self.expected.iter().enumerate() {
            let k = key(s);
            if let Entry::Vacant(slot) = expected.entry(
                hash(&k),
                |j| expected_key(j) == k,
                |j| hash(&expected_key(j)),
            ) {
                slot.insert(i as Index);
            }
        }
        let expected_of = |s: &Slice| {
            let k = key(s);
            let found = expected.find(hash(&k), |j| expected_key(j) == k);
            found.map_or(NO_INDEX, |&j| j)
        };
        let displays = self.actual.iter().filter(|s| s.kind.is_display()).count();
        let mut display: Vec<DisplayFrame> = Vec::with_capacity(displays);
        // DisplayFrames (indexes into `display`) by token.
        let mut by_token = IndexTable::with_capacity(displays);
        for (i, s) in self
            .actual
            .iter()
            .enumerate()
            .filter(|(_, s)| s.kind.is_display())
        {
            let idx = display.len() as Index;
            display.push(DisplayFrame {
                actual: i as Index,
                expected: expected_of(s),
            });
            let actual_of = |d: &Index| &self.actual[display[*d as usize].actual()];
            let slot = by_token
                .entry(
                    hash(&s.token),
                    |d| actual_of(d).token == s.token,
                    |d| hash(&actual_of(d).token),
                )
                .or_insert(idx);
            let current_ended = actual_of(slot.get()).dur_ns >= 0;
            if !current_ended && s.dur_ns >= 0 {
                *slot.into_mut() = idx;
            }
        }
        let display_of = |token: i64| {
            let found = by_token.find(hash(&token), |d| {
                self.actual[display[*d as usize].actual()].token == token
            });
            found.map_or(NO_INDEX, |&d| d)
        };
        let mut surface = Vec::with_capacity(self.actual.len() - displays);
        surface.extend(
            self.actual
                .iter()
                .enumerate()
                .filter(|(_, s)| !s.kind.is_display())
                .map(|(i, s)| SurfaceFrame {
                    actual: i as Index,
                    expected: expected_of(s),
                    display: display_of(s.display_frame_token),
                }),
        );
        Frames { display, surface }
    }
}

/// The app package a layer name points to: `TX - com.pkg/com.pkg.Main#12` → `com.pkg`,
/// `TX - Splash Screen com.pkg#3` → `com.pkg`, `TX - SurfaceView[com.pkg/...]#0` → `com.pkg`,
/// `TX - StatusBar#0` → `StatusBar`. Animation leashes (`Surface(name=…)/@0x… - animation-leash of …`) are made
/// by WindowManager's `SurfaceAnimator` in system_server, whatever window they move → `system_server` (the
/// emulator trace's process_tree agrees); other `Surface(name=…)` wrappers name no owner → `None`.
pub fn app_from_layer_name(layer: &str) -> Option<String> {
    let name = layer.strip_prefix("TX - ").unwrap_or(layer);
    if name.starts_with("Surface(") {
        return name
            .contains(" - animation-leash of ")
            .then(|| "system_server".to_string());
    }
    let name = name.strip_prefix("SurfaceView[").unwrap_or(name);
    let name = name.split('/').next().unwrap_or(name);
    let name = name.rsplit_once('#').map_or(name, |(head, tail)| {
        if tail.chars().all(|c| c.is_ascii_digit()) {
            head
        } else {
            name
        }
    });
    let word = name.split_whitespace().last()?;
    Some(
        if word.contains('.') {
            word
        } else {
            name.trim()
        }
        .to_string(),
    )
    .filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::app_from_layer_name;

    #[test]
    fn app_names_come_from_layer_names() {
        let f = |s: &str| app_from_layer_name(s);
        assert_eq!(
            f("TX - com.pkg/com.pkg.MainActivity#12").as_deref(),
            Some("com.pkg")
        );
        assert_eq!(
            f("TX - Splash Screen com.pkg.app#1595").as_deref(),
            Some("com.pkg.app")
        );
        assert_eq!(f("TX - StatusBar#0").as_deref(), Some("StatusBar"));
        assert_eq!(
            f("TX - SurfaceView[com.android.chrome/com.google.android.apps.chrome.Main]#0")
                .as_deref(),
            Some("com.android.chrome")
        );
        assert_eq!(
            f("TX - Surface(name=Task=16090)/@0x9b71fa2 - animation-leash of app_transition#50005").as_deref(),
            Some("system_server")
        );
        assert_eq!(f("TX - Surface(name=Task=16090)/@0x9b71fa2#1"), None);
        assert_eq!(
            f("TX - NotificationShade#0").as_deref(),
            Some("NotificationShade")
        );
        assert_eq!(f(""), None);
    }
}
