//! `TimelineBuilder`: turns the [`Event`] stream into a [`Timeline`] with Perfetto's importer semantics —
//! events in timestamp order (stable on ties), cookie pairing, `dur = -1` for slices that never end, nesting on
//! reused cookies, de-duplication of expected SurfaceFrames per (pid, token), parser-error accounting.
//! Source: `frame_timeline_event_parser.cc` and `track_compressor.cc`, google/perfetto @ ec5d16b1.

use super::frame::{
    app_from_layer_name, layer_index, ImportStats, LayerId, NameSource, Process, Slice, Timeline,
};
use super::order::TsOrder;
use super::sections::{AppSections, SectionFilter, SectionsBuilder};
use crate::decode::{Event, FrameLabels, FrameStart, FrameTimelineEvent, SliceKind, SystemInfo};
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;
use std::collections::hash_map::Entry;
use std::collections::BTreeMap;

/// Perfetto drops FrameTimeline events with `|ts| >= INT64_MAX - 10 s` (b/185978397).
const MAX_TS_NS: i64 = i64::MAX - 10_000_000_000;

/// A FrameTimeline event kept until all are known, with its layer name interned and its labels stored apart
/// (so that the many events stay small).
#[derive(Debug, Clone, Copy)]
enum Pending {
    Start {
        kind: SliceKind,
        cookie: i64,
        token: i64,
        dft: i64,
        pid: i32,
        layer: Option<LayerId>,
        /// Slot in [`LabelSlots`], [`NO_LABELS`] for an expected slice.
        labels: u32,
    },
    End {
        cookie: i64,
    },
    Invalid,
}

// One record per FrameTimeline event of the trace: its size is the model's memory on FrameTimeline-dense traces.
const _: () = assert!(std::mem::size_of::<(i64, Pending)>() == 48);

/// [`Pending::Start::labels`] of a start without labels (an expected slice's).
const NO_LABELS: u32 = u32::MAX;

/// Collects events and builds the [`Timeline`]. FrameTimeline events and atrace lines are paired while they
/// arrive, once no later event should come before them (FrameTimeline: 32,768 events behind the newest; atrace:
/// 2 s), so that the events waiting take memory bounded by their lateness, not by the trace;
/// [`TimelineBuilder::paired_out_of_order`] tells when that went wrong.
#[derive(Debug, Default)]
pub struct TimelineBuilder {
    events: TsOrder<Pending>,
    /// Pair only in [`TimelineBuilder::build`], once every event is known.
    pair_at_end: bool,
    pairing: Pairing,
    labels: LabelSlots,
    layer_ids: FxHashMap<String, LayerId>,
    /// The layer interned last: consecutive SurfaceFrame events mostly name the same layer, and comparing a name
    /// costs less than hashing it.
    last_layer: Option<(std::sync::Arc<str>, LayerId)>,
    layer_names: Vec<String>,
    names: FxHashMap<i32, (String, Option<i32>)>,
    system_info: Option<SystemInfo>,
    sections: SectionsBuilder,
    sched: super::sched::SchedBuilder,
    cpu_clusters: super::cluster::CpuClustersBuilder,
}

impl TimelineBuilder {
    /// An empty builder keeping the app sections [`SectionFilter::default`] keeps.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty builder keeping the app sections `filter` keeps.
    pub fn with_sections(filter: SectionFilter) -> Self {
        TimelineBuilder {
            sections: SectionsBuilder::new(filter),
            ..Self::default()
        }
    }

    /// This builder, keeping every thread's scheduling states (`ftl table thread_state`), not only those of the
    /// threads that draw frames.
    pub fn all_thread_states(self) -> Self {
        TimelineBuilder {
            sched: self.sched.all_rows(),
            ..self
        }
    }

    /// This builder, pairing the FrameTimeline events and atrace lines only once all are known: for a trace whose
    /// events arrive too far out of order to be paired early ([`TimelineBuilder::paired_out_of_order`]). Memory:
    /// one record of 48 bytes per FrameTimeline event and 16 per atrace line until [`TimelineBuilder::build`].
    pub fn pairing_at_end(self) -> Self {
        TimelineBuilder {
            pair_at_end: true,
            sections: self.sections.pairing_at_end(),
            sched: self.sched.at_end(),
            ..self
        }
    }

    /// Number of FrameTimeline events received so far.
    pub fn frame_timeline_events(&self) -> usize {
        self.events.len()
    }

    /// True when an event arrived older than events already paired (a FrameTimeline event thousands of events
    /// late, an atrace line seconds late): the slices may differ from Perfetto's, which sorts every event first.
    /// Decode again into a builder [`TimelineBuilder::pairing_at_end`].
    pub fn paired_out_of_order(&self) -> bool {
        self.events.broken()
            || self.sections.paired_out_of_order()
            || self.sched.replayed_out_of_order()
    }

    /// Takes one event from the decoder.
    pub fn push(&mut self, event: Event) {
        match event {
            Event::FrameTimeline { ts_ns, event } => {
                let pending = self.compact(event);
                self.events.push(ts_ns, pending);
                if !self.pair_at_end {
                    let (pairing, labels) = (&mut self.pairing, &mut self.labels);
                    self.events
                        .drain_settled(|ts, event| pairing.take(ts, event, labels));
                }
            }
            Event::Process { pid, name, uid } => {
                self.names.insert(pid, (name, uid));
            }
            Event::SystemInfo(info) => {
                self.sched.kernel_release(info.kernel_release.as_deref());
                self.system_info = Some(info);
            }
            Event::Atrace { ts_ns, tid, event } => {
                if let crate::decode::Atrace::Begin { name, .. } = &event {
                    if super::sched::is_frame_slice(name.as_bytes()) {
                        self.sched.keep(tid, ts_ns);
                    }
                }
                self.sections.push(ts_ns, tid, event);
            }
            Event::Binder { ts_ns, tid, event } => self.sections.binder(ts_ns, tid, event),
            Event::Thread { tid, tgid, name } => self.sections.thread(tid, tgid, name),
            Event::ThreadName { tid, name } => self.sections.ftrace_thread_name(tid, name),
            Event::Sched { cpu, events } => self.sched.push(cpu, events),
            Event::TrackDescriptor {
                uuid,
                parent_uuid,
                name,
                pid,
                tid,
            } => self
                .sections
                .track_descriptor(uuid, parent_uuid, name, pid, tid),
            Event::TrackEvent {
                ts_ns,
                track_uuid,
                phase,
                name,
            } => self.sections.track_event(ts_ns, track_uuid, phase, name),
            Event::CpuInfo(cpus) => self.cpu_clusters.push(&cpus),
        }
    }

    fn compact(&mut self, event: FrameTimelineEvent) -> Pending {
        match event {
            FrameTimelineEvent::Empty | FrameTimelineEvent::End { cookie: None } => {
                Pending::Invalid
            }
            FrameTimelineEvent::End {
                cookie: Some(cookie),
            } => Pending::End { cookie },
            FrameTimelineEvent::Start(start) => {
                self.compact_start(start).unwrap_or(Pending::Invalid)
            }
        }
    }

    /// `None` when a field Perfetto requires is missing.
    fn compact_start(&mut self, s: FrameStart) -> Option<Pending> {
        let dft = if s.kind.is_display() {
            s.token?
        } else {
            s.display_frame_token?
        };
        let layer = s.layer_name.map(|name| self.intern(name));
        let (cookie, token, pid) = (s.cookie?, s.token?, s.pid?);
        // Expected slices carry no labels: only actual ones take a slot.
        let labels = if s.kind.is_expected() {
            NO_LABELS
        } else {
            self.labels.put(s.labels)
        };
        Some(Pending::Start {
            kind: s.kind,
            cookie,
            token,
            dft,
            pid,
            layer,
            labels,
        })
    }

    fn intern(&mut self, name: std::sync::Arc<str>) -> LayerId {
        if let Some((last, id)) = &self.last_layer {
            // Mostly the same shared copy: then not even the bytes are compared.
            if std::sync::Arc::ptr_eq(last, &name) || **last == *name {
                return *id;
            }
        }
        let id = match self.layer_ids.get(&*name) {
            Some(id) => *id,
            None => {
                let id = LayerId::MIN.saturating_add(self.layer_names.len() as u32);
                self.layer_names.push(name.to_string());
                self.layer_ids.insert(name.to_string(), id);
                id
            }
        };
        self.last_layer = Some((name, id));
        id
    }

    /// Pairs the events into slices in timestamp order (stable, so ties keep packet order).
    pub fn build(mut self) -> Timeline {
        let sections = std::mem::take(&mut self.sections);
        let sched = std::mem::take(&mut self.sched);
        std::thread::scope(|scope| {
            // The app sections and the thread states are built on a second core while this thread pairs the
            // FrameTimeline events.
            let app = scope.spawn(move || (sections.build(), sched.build()));
            self.pair(|| crate::joined(app))
        })
    }

    /// The FrameTimeline events not paired yet paired into slices, with what the model knows of processes and the
    /// app sections `app` gives once the slices are paired.
    fn pair(
        mut self,
        app: impl FnOnce() -> (AppSections, Option<super::sched::Sched>),
    ) -> Timeline {
        // The events' memory shrinks as the slices' grows.
        for (ts, event) in self.events.into_ascending() {
            self.pairing.take(ts, event, &mut self.labels);
        }
        let Pairing {
            mut expected,
            mut actual,
            mut stats,
            ..
        } = self.pairing;
        expected.shrink_to_fit();
        actual.shrink_to_fit();
        // The expected and the actual slices on two cores (rayon: the global pool, or `batch`'s in a batch job).
        let ((mut owned, unterminated), (owned_actual, unterminated_actual)) =
            rayon::join(|| census(&expected), || census(&actual));
        for (key, n) in owned_actual {
            *owned.entry(key).or_default() += n;
        }
        stats.unterminated_slices = unterminated + unterminated_actual;
        let processes = identify_processes(owned, &self.layer_names, &self.names);
        let (app, sched) = app();
        Timeline {
            expected,
            actual,
            layer_names: self.layer_names,
            processes,
            system_info: self.system_info,
            stats,
            app,
            sched,
            cpu_clusters: self.cpu_clusters.build(),
            process_names: self
                .names
                .into_iter()
                .map(|(pid, (name, _))| (pid, name))
                .collect(),
        }
    }
}

/// The labels of the actual starts not paired yet: a slot is reused once its start is paired, so that the
/// labels held stay as few as the events waiting.
#[derive(Debug, Default)]
struct LabelSlots {
    slots: Vec<FrameLabels>,
    free: Vec<u32>,
}

impl LabelSlots {
    /// Stores `labels`; the slot's index (32 bits keep [`Pending`] at 48 bytes: 2³² labels would not fit in
    /// memory).
    fn put(&mut self, labels: FrameLabels) -> u32 {
        match self.free.pop() {
            Some(slot) => {
                self.slots[slot as usize] = labels;
                slot
            }
            None => {
                self.slots.push(labels);
                (self.slots.len() - 1) as u32
            }
        }
    }

    /// The labels in `slot` ([`NO_LABELS`]: the default), freeing it.
    fn take(&mut self, slot: u32) -> FrameLabels {
        match self.slots.get(slot as usize) {
            Some(labels) => {
                self.free.push(slot);
                *labels
            }
            None => FrameLabels::default(),
        }
    }
}

/// Perfetto's pairing of FrameTimeline events, fed in timestamp order: the slices so far and what is open.
#[derive(Debug, Default)]
struct Pairing {
    expected: Vec<Slice>,
    actual: Vec<Slice>,
    stats: ImportStats,
    /// What each cookie is bound to: one map lookup per event. Entries without either part are removed.
    cookies: FxHashMap<i64, Cookie>,
    expected_surface_seen: FxHashSet<(i32, i64)>,
}

/// A cookie's state in [`Pairing`].
#[derive(Debug, Default)]
struct Cookie {
    /// (pid, expected?) of the cookie's last start, as Perfetto's cookie map; taken by the first FrameEnd.
    owner: Option<(i32, bool)>,
    /// Open slices as (pid, expected?, index), innermost last: those of one (pid, expected?) are a TrackCompressor
    /// lane bound to the cookie. Almost always one slice, kept inline: no allocation per slice.
    open: SmallVec<[(i32, bool, usize); 1]>,
}

impl Pairing {
    /// Takes the next event in timestamp order; an actual start's labels are taken out of `labels`.
    fn take(&mut self, ts: i64, event: Pending, labels: &mut LabelSlots) {
        let stats = &mut self.stats;
        if !(0..MAX_TS_NS).contains(&ts) {
            stats.parser_errors += 1;
            if let Pending::Start { labels: slot, .. } = event {
                labels.take(slot);
            }
            return;
        }
        match event {
            Pending::Invalid => stats.parser_errors += 1,
            Pending::End { cookie } => {
                let Entry::Occupied(mut entry) = self.cookies.entry(cookie) else {
                    stats.unpaired_ends += 1;
                    return;
                };
                let state = entry.get_mut();
                let Some((pid, is_expected)) = state.owner.take() else {
                    stats.unpaired_ends += 1;
                    return;
                };
                let innermost = (state.open.iter())
                    .rposition(|&(p, e, _)| (p, e) == (pid, is_expected))
                    .map(|at| state.open.remove(at).2);
                if state.open.is_empty() {
                    entry.remove();
                }
                let slices = if is_expected {
                    &mut self.expected
                } else {
                    &mut self.actual
                };
                if let Some(slice) = innermost.and_then(|idx| slices.get_mut(idx)) {
                    let s: &mut Slice = slice;
                    s.dur_ns = ts - s.ts_ns;
                }
            }
            Pending::Start {
                kind,
                cookie,
                token,
                dft,
                pid,
                layer,
                labels: slot,
            } => {
                let labels = labels.take(slot);
                let is_expected = kind.is_expected();
                let state = self.cookies.entry(cookie).or_default();
                state.owner = Some((pid, is_expected));
                if kind == SliceKind::ExpectedSurfaceFrame
                    && !self.expected_surface_seen.insert((pid, token))
                {
                    stats.deduplicated_expected += 1;
                    return;
                }
                let l = labels;
                let out_of_range =
                    |v: Option<i8>, max: i8| v.is_some_and(|v| !(1..=max).contains(&v));
                if out_of_range(l.present_type.get(), 5)
                    || out_of_range(l.prediction_type.get(), 3)
                    || l.jank_severity_type
                        .get()
                        .is_some_and(|v| !(0..=3).contains(&v))
                {
                    stats.parser_errors += 1;
                }
                let slice = Slice {
                    kind,
                    ts_ns: ts,
                    dur_ns: -1,
                    pid,
                    token,
                    display_frame_token: dft,
                    layer,
                    labels,
                };
                let slices = if is_expected {
                    &mut self.expected
                } else {
                    &mut self.actual
                };
                state.open.push((pid, is_expected, slices.len()));
                slices.push(slice);
            }
        }
    }
}

/// Slices per (pid, layer, DisplayFrame or not).
type Owned = FxHashMap<(i32, Option<LayerId>, bool), usize>;

/// One pass over slices (a FrameTimeline-dense trace holds hundreds of thousands): how many each (pid, layer,
/// DisplayFrame or not) owns, and how many never ended.
fn census(slices: &[Slice]) -> (Owned, u64) {
    let mut owned = Owned::default();
    let mut unterminated = 0;
    for s in slices {
        *owned
            .entry((s.pid, s.layer, s.kind.is_display()))
            .or_default() += 1;
        unterminated += u64::from(s.dur_ns < 0);
    }
    (owned, unterminated)
}

/// Names every pid that owns slices ([`census`]): `ProcessTree` first; else SurfaceFlinger for the DisplayFrame
/// owner; else the app most of its layer names point to (each distinct layer name read once per pid).
fn identify_processes(
    slices: Owned,
    layer_names: &[String],
    names: &FxHashMap<i32, (String, Option<i32>)>,
) -> BTreeMap<i32, Process> {
    let mut layer_counts: BTreeMap<i32, FxHashMap<usize, usize>> = BTreeMap::new();
    let mut display_owners = FxHashSet::default();
    for ((pid, layer, display), n) in slices {
        if display {
            display_owners.insert(pid);
        }
        let counts = layer_counts.entry(pid).or_default();
        if let Some(l) = layer {
            *counts.entry(layer_index(l)).or_default() += n;
        }
    }
    layer_counts
        .into_iter()
        .map(|(pid, counts)| {
            let mut votes: BTreeMap<String, usize> = BTreeMap::new();
            for (layer, n) in counts {
                if let Some(app) = layer_names.get(layer).and_then(|n| app_from_layer_name(n)) {
                    *votes.entry(app).or_default() += n;
                }
            }
            let is_surfaceflinger = display_owners.contains(&pid);
            let (name, name_source, uid) = if let Some((name, uid)) = names.get(&pid) {
                (name.clone(), NameSource::ProcessTree, *uid)
            } else if is_surfaceflinger {
                (
                    "surfaceflinger".to_string(),
                    NameSource::SurfaceFlinger,
                    None,
                )
            } else if let Some((app, _)) = votes
                .into_iter()
                .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
            {
                (app, NameSource::LayerName, None)
            } else {
                (format!("pid {pid}"), NameSource::Unknown, None)
            };
            (
                pid,
                Process {
                    pid,
                    name,
                    name_source,
                    uid,
                    is_surfaceflinger,
                },
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::EnumCode;

    #[test]
    fn labels_out_of_range_stay_parser_errors_once_narrowed() {
        let mut builder = TimelineBuilder::new();
        // (present_type, prediction_type, jank_severity_type) as the packet holds them; true = a parser error.
        let cases = [
            ((Some(2), Some(1), Some(3)), false),
            ((Some(260), Some(1), Some(1)), true),
            ((Some(-256 + 4), Some(1), Some(1)), true),
            ((Some(1), Some(3 + 256), None), true),
            ((Some(1), None, Some(-1)), true),
            ((None, None, Some(1 << 20)), true),
        ];
        for (i, ((present, prediction, severity), _)) in cases.iter().enumerate() {
            let start = FrameStart {
                kind: SliceKind::ActualDisplayFrame,
                cookie: Some(i as i64),
                token: Some(i as i64),
                display_frame_token: None,
                pid: Some(1),
                layer_name: None,
                labels: FrameLabels {
                    present_type: EnumCode::new(*present),
                    prediction_type: EnumCode::new(*prediction),
                    jank_severity_type: EnumCode::new(*severity),
                    ..FrameLabels::default()
                },
            };
            let ts_ns = 10 * i as i64;
            builder.push(Event::FrameTimeline {
                ts_ns,
                event: FrameTimelineEvent::Start(start),
            });
            builder.push(Event::FrameTimeline {
                ts_ns: ts_ns + 5,
                event: FrameTimelineEvent::End {
                    cookie: Some(i as i64),
                },
            });
        }
        let timeline = builder.build();
        let errors = cases.iter().filter(|(_, error)| *error).count() as u64;
        assert_eq!(timeline.stats.parser_errors, errors);
        let names: Vec<(&str, &str, &str)> = timeline
            .actual
            .iter()
            .map(|s| {
                (
                    s.present_type().name(),
                    s.prediction_type().name(),
                    s.severity().name(),
                )
            })
            .collect();
        assert_eq!(names[0], ("Late Present", "Valid Prediction", "Full"));
        // 260 and -252 are 4 (Dropped Frame) in their low byte: narrowing must not make them valid.
        assert_eq!(names[1].0, "Unspecified Present");
        assert_eq!(names[2].0, "Unspecified Present");
        assert_eq!(names[3].1, "Unspecified Prediction");
        assert_eq!(names[4].2, "Unknown");
        assert_eq!(names[5].2, "Unknown");
    }
}
