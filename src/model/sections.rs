//! App trace sections: atrace lines and TrackEvents → thread slices (per-thread nesting) and async slices (per
//! process, track and cookie) with Perfetto's slice semantics, keeping only the sections ftl names frames,
//! interactions and markers by. Source: `SystraceParser::ParseSystracePoint`, `SliceTracker` and
//! `TrackEventTracker` (google/perfetto @ ec5d16b1): events in timestamp order (stable on ties), `E` closes the
//! innermost open slice of its thread, a slice never closed has `dur = -1`, an instant is a slice of duration 0,
//! a TrackDescriptor without a name is named after the first event on it.

use super::binder::{BinderPairing, StackOp};
use super::kept_names;
use crate::decode::{Atrace, BinderEvent, TrackEventPhase};
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

/// Which sections a trace load keeps (everything else costs one small record until the slices are built).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SectionFilter {
    /// Extra section names to keep (the `--marker` names): exact, or a prefix when ending in `*`.
    pub markers: Vec<String>,
}

/// Prefixes of the section names that name frames and interactions: `Choreographer#doFrame <vsync id>` (UI
/// thread), `DrawFrame <vsync id>` / `DrawFrames <vsync id>` (RenderThread), `J<CUJ>` and its `FT#…` markers
/// (InteractionJankMonitor / FrameTracker).
pub const FRAME_SECTION_PREFIXES: [&str; 4] = ["Choreographer#doFrame", "DrawFrame", "J<", "FT#"];

impl SectionFilter {
    /// True if a section named `name` is kept.
    pub fn keeps(&self, name: &str) -> bool {
        self.keeps_bytes(name.as_bytes())
    }

    /// [`SectionFilter::keeps`] on a name's bytes (as an atrace line holds it, before any UTF-8 check): the
    /// frame sections, the markers, and what the blocking-call, binder and lock tables read
    /// ([`kept_names::keeps`]). Asked of most atrace `B` lines of a trace, so a name is first told apart by its
    /// first byte.
    pub fn keeps_bytes(&self, name: &[u8]) -> bool {
        FRAME_SECTION_PREFIXES
            .iter()
            .any(|p| name.first() == p.as_bytes().first() && name.starts_with(p.as_bytes()))
            || self.markers.iter().any(|m| marker_matches(m, name))
            || kept_names::keeps(name)
    }
}

/// `--marker` matching: `pattern` equals `name`, or ends in `*` and the rest is a prefix of `name`.
pub fn marker_matches(pattern: &str, name: &[u8]) -> bool {
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix.as_bytes()),
        None => name == pattern.as_bytes(),
    }
}

/// A thread slice (`B`/`E` pair) on one thread. Times in ns on the trace clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Section {
    /// Begin.
    pub ts: i64,
    /// `end − ts`; −1 if the slice never ended (Perfetto's convention).
    pub dur: i64,
    /// The thread that wrote it.
    pub tid: i32,
    /// Index into [`AppSections::names`].
    pub name: u32,
    /// Nesting depth on its thread (0 = outermost), counting every open slice, kept or not.
    pub depth: u32,
    /// Index into [`AppSections::sections`] of the innermost kept slice enclosing this one ([`NO_SECTION`] if
    /// none): its parent (Perfetto's `parent_id`) when that slice's depth is one less.
    pub parent: u32,
    /// Number of slices, kept or not, whose parent this is (Perfetto's children: `parent_id` = this slice).
    pub children: u32,
    /// Place among every slice begun on its thread, kept or not, 0 first: its neighbours in Perfetto's
    /// `ORDER BY ts` on the thread's track are the slices with the ordinals one less and one more.
    pub ordinal: u32,
}

/// [`Section::parent`] of a slice no kept slice encloses.
pub const NO_SECTION: u32 = u32::MAX;

/// An async slice (`S`/`F` or `G`/`H`) on a process's named track.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AsyncSection {
    /// Begin, ns.
    pub ts: i64,
    /// `end − ts`; −1 if it never ended.
    pub dur: i64,
    /// The process from the line.
    pub pid: i32,
    /// Index into [`AppSections::names`] of the slice name.
    pub name: u32,
    /// Index into [`AppSections::names`] of the track's name (for `S`/`F`, the slice name).
    pub track: u32,
    /// The cookie pairing begin and end (a TrackEvent track's uuid).
    pub cookie: i64,
}

/// A thread's process and name, as last recorded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ThreadInfo {
    /// Its process (tgid), if known.
    pub pid: Option<i32>,
    /// Its name (`comm`), if known; the render thread is `RenderThread`.
    pub name: Option<String>,
}

/// The kept app sections of a trace.
#[derive(Debug, Clone, Default)]
pub struct AppSections {
    /// Thread slices in begin order (ties in file order): Perfetto's slice id order.
    pub sections: Vec<Section>,
    /// Async slices in begin order.
    pub async_sections: Vec<AsyncSection>,
    /// Interned section names.
    pub names: Vec<String>,
    /// Every thread the trace names or writes from.
    pub threads: BTreeMap<i32, ThreadInfo>,
    /// Binder flows (Perfetto's `flow` table from `BinderTracker`): (`binder transaction` or `binder transaction
    /// async` slice, the `binder reply` or `binder async rcv` slice it led to), indexes into [`Self::sections`],
    /// in the order the transactions were received.
    pub flows: Vec<(u32, u32)>,
    /// atrace begin / end / async / instant lines read, kept or not (counters never reach the model).
    pub lines: u64,
}

impl AppSections {
    /// The name of a section.
    pub fn name(&self, id: u32) -> &str {
        &self.names[id as usize]
    }

    /// The process of thread `tid`, if known.
    pub fn pid_of(&self, tid: i32) -> Option<i32> {
        self.threads.get(&tid).and_then(|t| t.pid)
    }

    /// The name of thread `tid`, if known.
    pub fn thread_name(&self, tid: i32) -> Option<&str> {
        self.threads.get(&tid).and_then(|t| t.name.as_deref())
    }
}

/// Not a kept name.
const UNKEPT: u32 = u32::MAX;
/// A thread event that is an `E` (not a name).
const END: u32 = u32::MAX - 1;
/// A thread event that is an instant (`I|`) whose name is not kept.
const UNKEPT_INSTANT: u32 = u32::MAX - 2;
/// Set on the name of a thread event that is an instant (`I|`): a slice of duration 0, not opened.
const INSTANT: u32 = 1 << 31;
/// Set on a thread event that is a binder event: the low bits index [`BinderPairing`]'s events.
const BINDER: u32 = 1 << 30;

/// How far behind the newest line, in trace time, a thread's atrace lines may still arrive: older lines are
/// paired while the trace is read. Lines arrive out of order when a thread moves between CPUs, whose ftrace
/// bundles are written one after another (up to 0.2 s on the real traces); a line arriving later than this
/// sets [`SectionsBuilder::paired_out_of_order`].
const SETTLE_LAG_NS: i64 = 2_000_000_000;

/// A thread's lines waiting are paired once there are at least this many (and twice as many as the last time).
const MIN_PAIRING_BATCH: usize = 256;

/// A `B` (`name`: an index into the names, or [`UNKEPT`]), an `I` (`name | INSTANT`, or [`UNKEPT_INSTANT`]), an
/// `E` (`name` = [`END`]) or a binder event (`BINDER | index`) of one thread: 16 bytes per line waiting to be
/// paired. `seq` is the line's place among all threads' lines
/// (Perfetto's tie-break: file order).
#[derive(Debug, Clone, Copy)]
struct ThreadEvent {
    ts: i64,
    name: u32,
    seq: u32,
}

/// What is known of one thread: its process and name, its `B` / `E` lines not paired yet (in arrival order) and
/// its open slices.
#[derive(Debug, Default)]
struct ThreadState {
    info: ThreadInfo,
    events: Vec<ThreadEvent>,
    /// The open slices, innermost last: an index into [`SectionsBuilder::sections`], `None` for one not kept.
    open: Vec<Option<usize>>,
    /// The lines older than this are paired; one arriving older comes too late.
    paired_before: Option<i64>,
    /// Pair the settled lines once `events` is this long.
    next_pairing: usize,
    /// The name came from a process tree, which ftrace's names do not override.
    named_by_tree: bool,
    /// Slices begun on the thread so far, kept or not (the next [`Section::ordinal`]).
    begun: u32,
}

#[derive(Debug, Clone, Copy)]
enum AsyncEvent {
    Begin {
        pid: i32,
        track: u32,
        name: u32,
        cookie: i64,
    },
    End {
        pid: i32,
        track: u32,
        cookie: i64,
    },
    Instant {
        pid: i32,
        track: u32,
        name: u32,
    },
}

/// A TrackEvent on track `uuid`: a begin or instant (`name`) or an end (`name` = [`END`]).
#[derive(Debug, Clone, Copy)]
struct TrackRaw {
    uuid: u64,
    name: u32,
    instant: bool,
}

/// A `TrackDescriptor` as given.
#[derive(Debug, Clone, Default)]
struct Descriptor {
    parent: Option<u64>,
    name: Option<String>,
    pid: Option<i32>,
    tid: Option<i32>,
}

/// Where a TrackEvent track's slices go.
#[derive(Debug, Clone, Copy)]
enum Place {
    /// A thread's track: thread slices.
    Thread(i32),
    /// A process-scoped track: async slices; the track's name (None until its first event names it).
    Process(i32, Option<u32>),
    /// Neither (a global track): not kept.
    Nowhere,
}

/// Collects atrace lines and thread facts; [`SectionsBuilder::build`] pairs them into slices.
#[derive(Debug, Default)]
pub struct SectionsBuilder {
    filter: SectionFilter,
    threads: FxHashMap<i32, ThreadState>,
    /// Thread lines so far (the next [`ThreadEvent::seq`]; wraps after 2³² lines, ~64 GB of them held).
    thread_lines: u32,
    /// (seq of the begin, slice): the thread slices paired so far, sorted by (ts, seq) in [`Self::build`].
    sections: Vec<(u32, Section)>,
    /// The newest thread line's time.
    newest: i64,
    /// Pair only in [`Self::build`].
    pair_at_end: bool,
    /// A line arrived older than lines already paired.
    broken: bool,
    async_events: Vec<(i64, u32, AsyncEvent)>,
    track_events: Vec<(i64, u32, TrackRaw)>,
    descriptors: FxHashMap<u64, Descriptor>,
    ids: FxHashMap<String, u32>,
    names: Vec<String>,
    lines: u64,
    binder: BinderPairing,
}

impl SectionsBuilder {
    /// A builder keeping what `filter` keeps.
    pub fn new(filter: SectionFilter) -> Self {
        SectionsBuilder {
            filter,
            ..Self::default()
        }
    }

    /// This builder, pairing the thread lines only once all are known (see [`Self::paired_out_of_order`]).
    /// Memory: 16 bytes per line until [`Self::build`].
    pub fn pairing_at_end(self) -> Self {
        SectionsBuilder {
            pair_at_end: true,
            ..self
        }
    }

    /// True when a thread's line arrived more than 2 s behind the newest line, older than lines
    /// already paired: its nesting may differ from Perfetto's, which sorts every line first. Decode again into a
    /// builder [`Self::pairing_at_end`].
    pub fn paired_out_of_order(&self) -> bool {
        self.broken
    }

    /// Records a thread's process and/or name from a process tree (or a track descriptor).
    pub fn thread(&mut self, tid: i32, pid: Option<i32>, name: Option<String>) {
        let state = self.threads.entry(tid).or_default();
        if pid.is_some() {
            state.info.pid = pid;
        }
        if name.is_some() {
            state.info.name = name;
            state.named_by_tree = true;
        }
    }

    /// Records a thread's name from ftrace (`task_newtask`, `task_rename`, the scheduler's comm): the latest
    /// wins, unless a process tree named the thread (Perfetto's `ThreadNamePriority`: process tree over ftrace).
    pub fn ftrace_thread_name(&mut self, tid: i32, name: String) {
        let state = self.threads.entry(tid).or_default();
        if !state.named_by_tree {
            state.info.name = Some(name);
        }
    }

    /// Takes one atrace line written by `tid` at `ts` (trace clock, ns).
    pub fn push(&mut self, ts: i64, tid: i32, event: Atrace) {
        self.lines += 1;
        let (tgid, name) = match event {
            Atrace::Begin { tgid, name } => {
                // The decoder leaves the names it does not keep empty: those need no second look.
                let name = if !name.is_empty() && self.filter.keeps(&name) {
                    self.intern(name)
                } else {
                    UNKEPT
                };
                (tgid, name)
            }
            Atrace::End { tgid } => (tgid, END),
            Atrace::AsyncBegin {
                tgid,
                track,
                name,
                cookie,
            } => {
                if !(self.filter.keeps(&name) || self.filter.keeps(&track)) {
                    return;
                }
                let event = AsyncEvent::Begin {
                    pid: tgid as i32,
                    track: self.intern(track),
                    name: self.intern(name),
                    cookie,
                };
                self.push_async(ts, event);
                return;
            }
            Atrace::AsyncEnd {
                tgid,
                track,
                cookie,
            } => {
                if let Some(&track) = self.ids.get(&track) {
                    let event = AsyncEvent::End {
                        pid: tgid as i32,
                        track,
                        cookie,
                    };
                    self.push_async(ts, event);
                }
                return;
            }
            Atrace::Instant {
                tgid,
                track: None,
                name,
            } => {
                // Kept or not, an instant is a child of the slice open around it.
                let name = match self.filter.keeps(&name) {
                    true => self.intern(name) | INSTANT,
                    false => UNKEPT_INSTANT,
                };
                (tgid, name)
            }
            Atrace::Instant {
                tgid,
                track: Some(track),
                name,
            } => {
                if self.filter.keeps(&name) || self.filter.keeps(&track) {
                    let event = AsyncEvent::Instant {
                        pid: tgid as i32,
                        track: self.intern(track),
                        name: self.intern(name),
                    };
                    self.push_async(ts, event);
                }
                return;
            }
        };
        self.push_thread_event(ts, tid, tgid, name);
    }

    /// Takes one binder event of thread `tid` at `ts` (trace clock, ns): it opens, closes or marks a slice on the
    /// thread's stack of slices, shared with its atrace sections (see [`crate::model::binder`]).
    pub fn binder(&mut self, ts: i64, tid: i32, event: BinderEvent) {
        if self.binder.names().is_none() {
            let names = super::binder::SLICE_NAMES.map(|n| self.intern(n.to_string()));
            self.binder.set_names(names);
        }
        // A transaction read after the receipts 2 s newer than it were paired may have missed them.
        let late = ts < self.newest.saturating_sub(SETTLE_LAG_NS);
        self.broken |= late && matches!(event, BinderEvent::Transaction { .. });
        let index = self.binder.push(ts, event);
        self.push_thread_event(ts, tid, 0, BINDER | index);
    }

    /// Queues thread event `name` (see [`ThreadEvent`]) of `tid` from a line of process `tgid` (0: none), pairing
    /// the thread's settled events once enough wait.
    fn push_thread_event(&mut self, ts: i64, tid: i32, tgid: u32, name: u32) {
        let thread = self.threads.entry(tid).or_default();
        if let Some(pid) = i32::try_from(tgid).ok().filter(|&p| p != 0) {
            thread.info.pid = Some(pid);
        }
        let seq = self.thread_lines;
        self.thread_lines = seq.wrapping_add(1);
        thread.events.push(ThreadEvent { ts, name, seq });
        self.newest = self.newest.max(ts);
        self.broken |= thread.paired_before.is_some_and(|b| ts < b);
        if !self.pair_at_end && thread.events.len() >= thread.next_pairing {
            let before = self.newest.saturating_sub(SETTLE_LAG_NS);
            pair_lines(
                tid,
                thread,
                Some(before),
                &mut self.sections,
                &mut self.binder,
            );
        }
    }

    fn push_async(&mut self, ts: i64, event: AsyncEvent) {
        let seq = self.next_seq();
        self.async_events.push((ts, seq, event));
    }

    /// The next place in file order among the lines and events that become slices.
    fn next_seq(&mut self) -> u32 {
        let seq = self.thread_lines;
        self.thread_lines = seq.wrapping_add(1);
        seq
    }

    /// Records a `TrackDescriptor`.
    pub fn track_descriptor(
        &mut self,
        uuid: u64,
        parent: Option<u64>,
        name: Option<String>,
        pid: Option<i32>,
        tid: Option<i32>,
    ) {
        if let (Some(tid), Some(pid)) = (tid, pid) {
            self.thread(tid, Some(pid), None);
        }
        self.descriptors.insert(
            uuid,
            Descriptor {
                parent,
                name,
                pid,
                tid,
            },
        );
    }

    /// Takes a TrackEvent slice begin, end or instant on track `uuid` at `ts` (trace clock, ns). Every named
    /// event is kept (a track is named after its first event, known only once sorted).
    pub fn track_event(
        &mut self,
        ts: i64,
        uuid: u64,
        phase: TrackEventPhase,
        name: Option<String>,
    ) {
        let name = name.map(|n| self.intern(n));
        let (name, instant) = match (phase, name) {
            (TrackEventPhase::Begin, Some(name)) => (name, false),
            (TrackEventPhase::Instant, Some(name)) => (name, true),
            (TrackEventPhase::End, _) => (END, false),
            _ => return,
        };
        let seq = self.next_seq();
        self.track_events.push((
            ts,
            seq,
            TrackRaw {
                uuid,
                name,
                instant,
            },
        ));
    }

    /// Where track `uuid`'s slices go: a thread track, else the process of the nearest ancestor naming one.
    fn place(&self, uuid: u64) -> Place {
        let mut at = Some(uuid);
        let mut hops = 0;
        while let Some(d) = at.and_then(|u| self.descriptors.get(&u)) {
            if at == Some(uuid) {
                if let Some(tid) = d.tid {
                    return Place::Thread(tid);
                }
            }
            if let Some(pid) = d.pid {
                let name = self.descriptors[&uuid]
                    .name
                    .as_ref()
                    .and_then(|n| self.ids.get(n).copied());
                return Place::Process(pid, name);
            }
            hops += 1;
            if hops > 64 {
                break;
            }
            at = d.parent;
        }
        Place::Nowhere
    }

    fn intern(&mut self, name: String) -> u32 {
        if let Some(&id) = self.ids.get(&name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.clone());
        self.ids.insert(name, id);
        id
    }

    /// The TrackEvent slices, in timestamp order: on a thread's track into `sections`, on a process-scoped track
    /// into `async_sections` (the track named after its first event when its descriptor has no name).
    fn track_slices(
        &mut self,
        sections: &mut Vec<(u32, Section)>,
        async_sections: &mut Vec<(u32, AsyncSection)>,
    ) {
        let mut events = std::mem::take(&mut self.track_events);
        events.sort_by_key(|(ts, seq, _)| (*ts, *seq));
        let mut places: FxHashMap<u64, Place> = FxHashMap::default();
        let mut stacks: FxHashMap<u64, Vec<usize>> = FxHashMap::default();
        // Slices begun per thread track (their ordinals).
        let mut begun: FxHashMap<u64, u32> = FxHashMap::default();
        for (
            ts,
            seq,
            TrackRaw {
                uuid,
                name,
                instant,
            },
        ) in events
        {
            let place = places.entry(uuid).or_insert_with(|| self.place(uuid));
            let stack = stacks.entry(uuid).or_default();
            if name == END {
                match (stack.pop(), *place) {
                    (Some(i), Place::Thread(_)) => sections[i].1.dur = ts - sections[i].1.ts,
                    (Some(i), Place::Process(..)) => {
                        async_sections[i].1.dur = ts - async_sections[i].1.ts
                    }
                    _ => {}
                }
                continue;
            }
            let dur = if instant { 0 } else { -1 };
            let index = match place {
                Place::Thread(tid) => {
                    let parent = stack.last().map_or(NO_SECTION, |&p| p as u32);
                    if let Some(&p) = stack.last() {
                        sections[p].1.children += 1;
                    }
                    let ordinal = begun.entry(uuid).or_default();
                    sections.push((
                        seq,
                        Section {
                            ts,
                            dur,
                            tid: *tid,
                            name,
                            depth: stack.len() as u32,
                            parent,
                            children: 0,
                            ordinal: *ordinal,
                        },
                    ));
                    *ordinal += 1;
                    sections.len() - 1
                }
                Place::Process(pid, track) => {
                    let track = *track.get_or_insert(name);
                    async_sections.push((
                        seq,
                        AsyncSection {
                            ts,
                            dur,
                            pid: *pid,
                            name,
                            track,
                            cookie: uuid as i64,
                        },
                    ));
                    async_sections.len() - 1
                }
                Place::Nowhere => continue,
            };
            if !instant {
                stack.push(index);
            }
        }
    }

    /// Pairs the begins and ends not paired yet in timestamp order: thread by thread (a thread's lines in (ts,
    /// file order), as in Perfetto's globally sorted stream), then the async slices; neither interacts with
    /// another thread or track.
    pub fn build(mut self) -> AppSections {
        let named: Vec<String> = self
            .descriptors
            .values()
            .filter_map(|d| d.name.clone())
            .collect();
        for name in named {
            self.intern(name);
        }
        let mut sections = std::mem::take(&mut self.sections);
        let mut threads = BTreeMap::new();
        for (tid, mut state) in std::mem::take(&mut self.threads) {
            pair_lines(tid, &mut state, None, &mut sections, &mut self.binder);
            threads.insert(tid, state.info);
        }
        // (seq of the begin, slice), like `sections`.
        let mut async_sections: Vec<(u32, AsyncSection)> = Vec::new();
        self.track_slices(&mut sections, &mut async_sections);
        let (sections, flows) = in_slice_order(sections, self.binder.flows());

        let mut async_events = std::mem::take(&mut self.async_events);
        async_events.sort_by_key(|(ts, seq, _)| (*ts, *seq));
        let mut open_async: FxHashMap<(i32, u32, i64), Vec<usize>> = FxHashMap::default();
        for (ts, seq, event) in async_events {
            match event {
                AsyncEvent::Begin {
                    pid,
                    track,
                    name,
                    cookie,
                } => {
                    async_sections.push((
                        seq,
                        AsyncSection {
                            ts,
                            dur: -1,
                            pid,
                            name,
                            track,
                            cookie,
                        },
                    ));
                    open_async
                        .entry((pid, track, cookie))
                        .or_default()
                        .push(async_sections.len() - 1);
                }
                AsyncEvent::End { pid, track, cookie } => {
                    if let Some(i) = open_async.get_mut(&(pid, track, cookie)).and_then(Vec::pop) {
                        let s: &mut AsyncSection = &mut async_sections[i].1;
                        s.dur = ts - s.ts;
                    }
                }
                AsyncEvent::Instant { pid, track, name } => async_sections.push((
                    seq,
                    AsyncSection {
                        ts,
                        dur: 0,
                        pid,
                        name,
                        track,
                        cookie: 0,
                    },
                )),
            }
        }
        async_sections.sort_by_key(|(seq, s)| (s.ts, *seq));
        let async_sections = async_sections.into_iter().map(|(_, s)| s).collect();
        AppSections {
            sections,
            async_sections,
            names: self.names,
            threads,
            flows,
            lines: self.lines,
        }
    }
}

/// The slices paired (seq of the begin, slice) in Perfetto's slice id order — (ts, file order) — with their
/// parents and the `flows` (pairs of indexes into the slices as paired) renumbered to match, the flows sorted by
/// the slice they lead to.
fn in_slice_order(
    sections: Vec<(u32, Section)>,
    flows: impl Iterator<Item = (u32, u32)>,
) -> (Vec<Section>, Vec<(u32, u32)>) {
    let mut order: Vec<u32> = (0..sections.len() as u32).collect();
    order.sort_unstable_by_key(|&i| {
        let (seq, s) = &sections[i as usize];
        (s.ts, *seq)
    });
    let mut rank = vec![0u32; sections.len()];
    for (new, &old) in order.iter().enumerate() {
        rank[old as usize] = new as u32;
    }
    let renumber = |i: u32| rank.get(i as usize).copied().unwrap_or(NO_SECTION);
    let sorted = order
        .iter()
        .map(|&old| {
            let s = sections[old as usize].1;
            Section {
                parent: renumber(s.parent),
                ..s
            }
        })
        .collect();
    let mut flows: Vec<(u32, u32)> = flows.map(|(a, b)| (renumber(a), renumber(b))).collect();
    flows.sort_unstable_by_key(|&(_, to)| to);
    (sorted, flows)
}

/// Pairs `thread`'s lines older than `before` (all with `None`) in (ts, file order) into `sections` (seq of the
/// begin, slice): an `E` (or a binder event ending a slice) closes the innermost open slice, kept or not; every
/// slice begun counts as a child of the innermost open one.
fn pair_lines(
    tid: i32,
    thread: &mut ThreadState,
    before: Option<i64>,
    sections: &mut Vec<(u32, Section)>,
    binder: &mut BinderPairing,
) {
    let events = &mut thread.events;
    if !events.is_sorted_by_key(|e| e.ts) {
        events.sort_by_key(|e| e.ts);
    }
    let settled = before.map_or(events.len(), |b| events.partition_point(|e| e.ts < b));
    let open = &mut thread.open;
    for ThreadEvent { ts, name, seq } in events.drain(..settled) {
        let binder_event = (name & BINDER != 0 && name & INSTANT == 0).then_some(name & !BINDER);
        let op = match name {
            END => StackOp::End,
            UNKEPT => StackOp::Begin(None),
            UNKEPT_INSTANT => StackOp::Instant(None),
            _ if name & INSTANT != 0 => StackOp::Instant(Some(name & !INSTANT)),
            _ if name & BINDER != 0 => binder.stack_op(name & !BINDER),
            _ => StackOp::Begin(Some(name)),
        };
        let (name, instant) = match op {
            StackOp::Nothing => continue,
            StackOp::End => {
                if let Some(Some(i)) = open.pop() {
                    let s: &mut Section = &mut sections[i].1;
                    s.dur = ts - s.ts;
                }
                continue;
            }
            StackOp::Begin(name) => (name, false),
            StackOp::Instant(name) => (name, true),
        };
        if let Some(Some(p)) = open.last() {
            sections[*p].1.children += 1;
        }
        let ordinal = thread.begun;
        thread.begun = ordinal.wrapping_add(1);
        let kept = name.map(|name| {
            let parent = open
                .iter()
                .rev()
                .find_map(|&o| o)
                .map_or(NO_SECTION, |p| p as u32);
            let section = Section {
                ts,
                dur: if instant { 0 } else { -1 },
                tid,
                name,
                depth: open.len() as u32,
                parent,
                children: 0,
                ordinal,
            };
            sections.push((seq, section));
            sections.len() - 1
        });
        if let (Some(i), Some(event)) = (kept, binder_event) {
            binder.made(event, i as u32);
        }
        if !instant {
            open.push(kept);
        }
    }
    if before.is_some() {
        thread.paired_before = thread.paired_before.max(before);
    }
    thread.next_pairing = (2 * events.len()).max(MIN_PAIRING_BATCH);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn begin(name: &str) -> Atrace {
        Atrace::Begin {
            tgid: 10,
            name: name.into(),
        }
    }

    #[test]
    fn nesting_follows_timestamps_not_arrival_and_keeps_only_named_sections() {
        let mut b = SectionsBuilder::new(SectionFilter::default());
        // Arrival order differs from time order (two CPUs' bundles).
        b.push(50, 11, Atrace::End { tgid: 10 });
        b.push(30, 11, Atrace::End { tgid: 10 });
        b.push(10, 11, begin("Choreographer#doFrame 7"));
        b.push(20, 11, begin("obtainView"));
        b.push(40, 11, begin("DrawFrame 7"));
        b.push(60, 12, begin("DrawFrames 8"));
        let s = b.build();
        let got: Vec<_> = s
            .sections
            .iter()
            .map(|x| (s.name(x.name), x.ts, x.dur, x.depth))
            .collect();
        assert_eq!(
            got,
            [
                // 20..30 "obtainView" (not kept) closed first; 40..50 DrawFrame nested in the open doFrame.
                ("Choreographer#doFrame 7", 10, -1, 0),
                ("DrawFrame 7", 40, 10, 1),
                ("DrawFrames 8", 60, -1, 0)
            ]
        );
        assert_eq!(s.pid_of(11), Some(10));
    }

    /// A UI thread's frames every 16 ms for 20 s (doFrame around an unkept section around a DrawFrame), its lines
    /// arriving in CPU bundles of 64 lines whose pairs swap places.
    fn twenty_seconds_of_frames() -> Vec<(i64, Atrace)> {
        let mut lines = Vec::new();
        for frame in 0..1_250i64 {
            let t = frame * 16_000_000;
            lines.push((t, begin(&format!("Choreographer#doFrame {frame}"))));
            lines.push((t + 1_000_000, begin("obtainView")));
            lines.push((t + 2_000_000, begin(&format!("DrawFrame {frame}"))));
            for dt in [3_000_000, 4_000_000, 5_000_000] {
                lines.push((t + dt, Atrace::End { tgid: 10 }));
            }
        }
        let bundles: Vec<_> = lines.chunks(64).map(<[_]>::to_vec).collect();
        bundles
            .chunks(2)
            .flat_map(|pair| pair.iter().rev().flatten().cloned())
            .collect()
    }

    #[test]
    fn lines_paired_while_read_nest_as_if_all_were_sorted_first() {
        let read = |builder: SectionsBuilder| {
            let mut b = builder;
            for (ts, line) in twenty_seconds_of_frames() {
                b.push(ts, 11, line);
            }
            b
        };
        let early = read(SectionsBuilder::new(SectionFilter::default()));
        assert!(!early.paired_out_of_order());
        // Only the last seconds wait: the rest is paired.
        assert!(early.threads[&11].events.len() < 2_000);
        let at_end = read(SectionsBuilder::new(SectionFilter::default()).pairing_at_end());
        assert_eq!(at_end.threads[&11].events.len(), 7_500);
        let (early, at_end) = (early.build(), at_end.build());
        assert_eq!(early.sections.len(), 2_500);
        assert_eq!(early.sections, at_end.sections);
        let draw = &early.sections[1];
        assert_eq!(
            (early.name(draw.name), draw.dur, draw.depth),
            ("DrawFrame 0", 1_000_000, 2)
        );
    }

    #[test]
    fn a_line_older_than_paired_ones_breaks_the_order() {
        let mut b = SectionsBuilder::new(SectionFilter::default());
        b.push(10 * SETTLE_LAG_NS, 11, begin("DrawFrame 1"));
        b.push(SETTLE_LAG_NS, 12, begin("DrawFrame 2"));
        assert!(
            !b.paired_out_of_order(),
            "another thread's lines are not ordered against these"
        );
        b.push(SETTLE_LAG_NS, 11, Atrace::End { tgid: 10 });
        assert!(b.paired_out_of_order());
    }

    #[test]
    fn slices_beginning_together_keep_file_order_across_threads() {
        let mut b = SectionsBuilder::new(SectionFilter::default());
        b.push(10, 3, begin("DrawFrame 2"));
        b.push(10, 1, begin("Choreographer#doFrame 2"));
        b.push(10, 2, begin("DrawFrames 2"));
        b.push(5, 2, begin("J<x>"));
        let s = b.build();
        let got: Vec<_> = s.sections.iter().map(|x| (x.ts, x.tid)).collect();
        assert_eq!(got, [(5, 2), (10, 3), (10, 1), (10, 2)]);
        assert_eq!(s.sections[3].depth, 1);
    }

    #[test]
    fn async_slices_pair_by_process_track_and_cookie() {
        let mut b = SectionsBuilder::new(SectionFilter {
            markers: vec!["Bench*".into()],
        });
        let ab = |name: &str, cookie| Atrace::AsyncBegin {
            tgid: 5,
            track: name.into(),
            name: name.into(),
            cookie,
        };
        let ae = |name: &str, cookie| Atrace::AsyncEnd {
            tgid: 5,
            track: name.into(),
            cookie,
        };
        b.push(0, 5, ab("J<SCROLL>", 1));
        b.push(5, 5, ab("J<SCROLL>", 2));
        b.push(7, 5, ab("other", 1));
        b.push(9, 5, ae("J<SCROLL>", 2));
        b.push(12, 5, ae("J<SCROLL>", 1));
        b.push(13, 5, ab("Benchmark run", 3));
        let s = b.build();
        let got: Vec<_> = s
            .async_sections
            .iter()
            .map(|x| (s.name(x.name), x.ts, x.dur, x.cookie))
            .collect();
        assert_eq!(
            got,
            [
                ("J<SCROLL>", 0, 12, 1),
                ("J<SCROLL>", 5, 4, 2),
                ("Benchmark run", 13, -1, 3)
            ]
        );
    }

    #[test]
    fn kept_slices_know_their_kept_parent_children_and_place_on_the_thread() {
        let mut b = SectionsBuilder::new(SectionFilter::default());
        let instant = |name: &str| Atrace::Instant {
            tgid: 10,
            track: None,
            name: name.into(),
        };
        b.push(10, 11, begin("animation"));
        b.push(11, 11, begin("obtainView"));
        b.push(12, 11, begin("measure"));
        b.push(13, 11, Atrace::End { tgid: 10 });
        b.push(14, 11, instant("an unkept instant"));
        b.push(15, 11, Atrace::End { tgid: 10 });
        b.binder(
            16,
            11,
            BinderEvent::Transaction {
                debug_id: 1,
                reply: false,
                oneway: false,
            },
        );
        let s = b.build();
        let got: Vec<_> = s
            .sections
            .iter()
            .map(|x| (s.name(x.name), x.depth, x.parent, x.children, x.ordinal))
            .collect();
        assert_eq!(
            got,
            [
                // Children: obtainView (not kept) and the binder transaction; the instant is obtainView's.
                ("animation", 0, NO_SECTION, 2, 0),
                // Its kept ancestor, not its parent (depth 0, not 1).
                ("measure", 2, 0, 0, 2),
                ("binder transaction", 1, 0, 0, 4),
            ]
        );
    }

    #[test]
    fn marker_patterns() {
        assert!(marker_matches("Run", b"Run"));
        assert!(!marker_matches("Run", b"Run 2"));
        assert!(marker_matches("Run*", b"Run 2"));
    }
}
