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
        /// Index into [`TimelineBuilder::labels`], [`NO_LABELS`] for an expected slice (32 bits keep the record
        /// at 48 bytes with its timestamp; the labels of 2³² frames would not fit in memory).
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

/// Collects events (memory: one compact record per FrameTimeline event) and builds the [`Timeline`].
#[derive(Debug, Default)]
pub struct TimelineBuilder {
    events: TsOrder<Pending>,
    labels: Vec<FrameLabels>,
    layer_ids: FxHashMap<String, LayerId>,
    layer_names: Vec<String>,
    names: FxHashMap<i32, (String, Option<i32>)>,
    system_info: Option<SystemInfo>,
    sections: SectionsBuilder,
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

    /// Number of FrameTimeline events received so far.
    pub fn frame_timeline_events(&self) -> usize {
        self.events.len()
    }

    /// Takes one event from the decoder.
    pub fn push(&mut self, event: Event) {
        match event {
            Event::FrameTimeline { ts_ns, event } => {
                let pending = self.compact(event);
                self.events.push(ts_ns, pending);
            }
            Event::Process { pid, name, uid } => {
                self.names.insert(pid, (name, uid));
            }
            Event::SystemInfo(info) => self.system_info = Some(info),
            Event::Atrace { ts_ns, tid, event } => self.sections.push(ts_ns, tid, event),
            Event::Thread { tid, tgid, name } => self.sections.thread(tid, tgid, name),
            Event::ThreadName { tid, name } => self.sections.ftrace_thread_name(tid, name),
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
        // Expected slices carry no labels: only actual ones take a place.
        let labels = if s.kind.is_expected() {
            NO_LABELS
        } else {
            self.labels.push(s.labels);
            (self.labels.len() - 1) as u32
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

    fn intern(&mut self, name: String) -> LayerId {
        if let Some(id) = self.layer_ids.get(&name) {
            return *id;
        }
        let id = LayerId::MIN.saturating_add(self.layer_names.len() as u32);
        self.layer_names.push(name.clone());
        self.layer_ids.insert(name, id);
        id
    }

    /// Pairs the events into slices in timestamp order (stable, so ties keep packet order).
    pub fn build(mut self) -> Timeline {
        let sections = std::mem::take(&mut self.sections);
        std::thread::scope(|scope| {
            // The app sections are paired on a second core while this thread pairs the FrameTimeline events.
            let app = scope.spawn(move || sections.build());
            self.pair(|| {
                app.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
        })
    }

    /// The FrameTimeline events paired into slices, with what the model knows of processes and the app sections
    /// `app` gives once the slices are paired.
    fn pair(mut self, app: impl FnOnce() -> AppSections) -> Timeline {
        self.labels.shrink_to_fit();
        let mut stats = ImportStats::default();
        let starts = |expected: bool| {
            self.events
                .iter()
                .filter(|(_, e)| match e {
                    Pending::Start { kind, .. } => kind.is_expected() == expected,
                    _ => false,
                })
                .count()
        };
        let mut expected = Vec::with_capacity(starts(true));
        let mut actual = Vec::with_capacity(starts(false));
        // cookie → (pid, expected?) as Perfetto's cookie map; erased by the first FrameEnd.
        let mut cookies: FxHashMap<i64, (i32, bool)> = FxHashMap::default();
        // (pid, expected?, cookie) → open slices, innermost last (a TrackCompressor lane bound to the cookie).
        let mut open: FxHashMap<(i32, bool, i64), Vec<usize>> = FxHashMap::default();
        let mut expected_surface_seen: FxHashSet<(i32, i64)> = FxHashSet::default();
        // The events' memory shrinks as the slices' grows.
        for (ts, event) in self.events.into_ascending() {
            if !(0..MAX_TS_NS).contains(&ts) {
                stats.parser_errors += 1;
                continue;
            }
            match event {
                Pending::Invalid => stats.parser_errors += 1,
                Pending::End { cookie } => {
                    let Some((pid, is_expected)) = cookies.remove(&cookie) else {
                        stats.unpaired_ends += 1;
                        continue;
                    };
                    let slices = if is_expected {
                        &mut expected
                    } else {
                        &mut actual
                    };
                    // Emptied lanes are removed: the map holds only open slices.
                    let Entry::Occupied(mut lane) = open.entry((pid, is_expected, cookie)) else {
                        continue;
                    };
                    let innermost = lane.get_mut().pop();
                    if lane.get().is_empty() {
                        lane.remove();
                    }
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
                    labels,
                } => {
                    let is_expected = kind.is_expected();
                    cookies.insert(cookie, (pid, is_expected));
                    if kind == SliceKind::ExpectedSurfaceFrame
                        && !expected_surface_seen.insert((pid, token))
                    {
                        stats.deduplicated_expected += 1;
                        continue;
                    }
                    let labels = self
                        .labels
                        .get(labels as usize)
                        .copied()
                        .unwrap_or_default();
                    let l = labels;
                    let out_of_range =
                        |v: Option<i8>, max: i8| v.is_some_and(|v| !(1..=max).contains(&v));
                    if out_of_range(l.present_type, 5)
                        || out_of_range(l.prediction_type, 3)
                        || l.jank_severity_type.is_some_and(|v| !(0..=3).contains(&v))
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
                        &mut expected
                    } else {
                        &mut actual
                    };
                    open.entry((pid, is_expected, cookie))
                        .or_default()
                        .push(slices.len());
                    slices.push(slice);
                }
            }
        }
        expected.shrink_to_fit();
        actual.shrink_to_fit();
        stats.unterminated_slices = expected
            .iter()
            .chain(&actual)
            .filter(|s| s.dur_ns < 0)
            .count() as u64;
        let processes = identify_processes(&expected, &actual, &self.layer_names, &self.names);
        Timeline {
            expected,
            actual,
            layer_names: self.layer_names,
            processes,
            system_info: self.system_info,
            stats,
            app: app(),
            process_names: self
                .names
                .into_iter()
                .map(|(pid, (name, _))| (pid, name))
                .collect(),
        }
    }
}

/// Names every pid that owns slices: `ProcessTree` first; else SurfaceFlinger for the DisplayFrame owner; else
/// the app most of its layer names point to.
fn identify_processes(
    expected: &[Slice],
    actual: &[Slice],
    layer_names: &[String],
    names: &FxHashMap<i32, (String, Option<i32>)>,
) -> BTreeMap<i32, Process> {
    // Slices per pid and layer, then each distinct layer name read once.
    let mut layer_counts: BTreeMap<i32, FxHashMap<usize, usize>> = BTreeMap::new();
    let mut display_owners = FxHashSet::default();
    for s in expected.iter().chain(actual) {
        if s.kind.is_display() {
            display_owners.insert(s.pid);
        }
        let counts = layer_counts.entry(s.pid).or_default();
        if let Some(l) = s.layer {
            *counts.entry(layer_index(l)).or_default() += 1;
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
    use crate::decode::narrow;

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
                    present_type: narrow(*present),
                    prediction_type: narrow(*prediction),
                    jank_severity_type: narrow(*severity),
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
