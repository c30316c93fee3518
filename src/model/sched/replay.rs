//! The scheduler replay: events kept per sorter queue, handed on in trace processor's sorter order and replayed
//! through `ThreadStateTracker` (`importers/common/thread_state_tracker.cc`, google/perfetto @ ec5d16b1) into
//! [`Sched`]'s rows.

use super::{kernel_version, task_state, Coverage, Sched, ThreadStateRow};
use crate::decode::Sched as SchedEvent;
use rustc_hash::{FxHashMap, FxHashSet};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

/// How far behind the newest scheduler event the events are replayed, ns: per-CPU ftrace bundles overlap by
/// less than this (traced drains every CPU's buffer each period), so every event older than it has arrived.
/// The atrace pairing's lag (`model::sections`) is the same.
const REPLAY_LAG_NS: i64 = 2_000_000_000;

/// Collects scheduler events while a trace is read and replays them, in the order trace processor's sorter hands
/// them on ([`SchedBuilder::push`]), through Perfetto's `ThreadStateTracker` as soon as no earlier event should
/// come: memory is bounded by the events of the last 2 s (`REPLAY_LAG_NS`) and the rows kept, which are those of the
/// threads that draw frames ([`SchedBuilder::keep`]) unless [`SchedBuilder::all_rows`]. The replay runs on a
/// thread of its own, started by the first hand-off of events (a trace without any starts none), which takes what
/// this builder is given in order.
#[derive(Debug, Default)]
pub struct SchedBuilder {
    /// The newest event time pushed.
    newest: i64,
    /// Every event before this time is replayed (or asked to be).
    replayed_until: Option<i64>,
    /// Replay only in [`SchedBuilder::build`].
    at_end: bool,
    /// Keep every thread's rows.
    all: bool,
    /// The kernel version `prev_state` decodes by.
    version: Option<(u32, u32)>,
    /// An event or a frame thread came after the replay passed its time.
    late: bool,
    /// Per thread kept: the replay's time when it was asked to keep it (`None`: before the replay began); its
    /// rows are complete from then on.
    kept: FxHashMap<i32, Option<i64>>,
    /// Messages not handed on yet: they go to the replay thread together once they hold
    /// [`EVENTS_PER_HAND_OFF`] events (one wake-up of the replay thread per hand-off, not per bundle).
    outbox: Vec<Message>,
    /// The events in [`SchedBuilder::outbox`].
    outbox_events: usize,
    worker: Option<Worker>,
}

/// The replay thread and what feeds it.
#[derive(Debug)]
struct Worker {
    sender: std::sync::mpsc::SyncSender<Vec<Message>>,
    thread: std::thread::JoinHandle<Replayer>,
}

/// What the builder tells the replay thread, in order.
#[derive(Debug)]
enum Message {
    Events(u32, Vec<(i64, SchedEvent)>),
    Keep(i32),
    Version((u32, u32)),
    Until(i64),
}

/// Events handed to the replay thread at a time: a bundle holds a few hundred, and a hand-off per bundle woke the
/// replay thread thousands of times per trace.
const EVENTS_PER_HAND_OFF: usize = 8192;

/// Hand-offs in flight to the replay thread: bounds the memory when it falls behind.
const HAND_OFFS_IN_FLIGHT: usize = 4;

impl SchedBuilder {
    /// This builder, replaying only once every event is known (for a trace whose events came too late for the
    /// replay: [`SchedBuilder::replayed_out_of_order`]).
    pub fn at_end(self) -> Self {
        SchedBuilder {
            at_end: true,
            ..self
        }
    }

    /// This builder, keeping every thread's rows (`ftl table thread_state`), not only frame threads'.
    pub fn all_rows(self) -> Self {
        SchedBuilder { all: true, ..self }
    }

    /// True when an event, a frame thread or the kernel release arrived after the replay had passed its time: the
    /// rows may differ from Perfetto's; build again [`SchedBuilder::at_end`].
    pub fn replayed_out_of_order(&self) -> bool {
        self.late
    }

    /// The kernel's `uname` release: it decides how `prev_state` decodes ([`task_state`]).
    pub fn kernel_release(&mut self, release: Option<&str>) {
        let version = kernel_version(release);
        if self.version != Some(version) {
            self.late |= self.replayed_until.is_some();
            self.version = Some(version);
            self.send(Message::Version(version));
        }
    }

    /// Keeps the rows of `tid`, which began a frame slice ([`super::is_frame_slice`]) at `ts_ns`: from its state
    /// then on. A later frame slice of a kept thread only tells whether it began before its rows do (late).
    pub fn keep(&mut self, tid: i32, ts_ns: i64) {
        let kept_from = match self.kept.get(&tid) {
            Some(&from) => from,
            None => {
                self.kept.insert(tid, self.replayed_until);
                self.send(Message::Keep(tid));
                self.replayed_until
            }
        };
        self.late |= kept_from.is_some_and(|t| ts_ns < t);
    }

    /// Adds the events of one ftrace bundle of `cpu`, `(ts_ns, event)` in the order read. Like Perfetto, events
    /// go to one queue per CPU for ftrace events and one each for `compact_sched`'s switches and wakings.
    pub fn push(&mut self, cpu: u32, events: Vec<(i64, SchedEvent)>) {
        for &(ts, _) in &events {
            self.late |= self.replayed_until.is_some_and(|t| ts < t);
            self.newest = self.newest.max(ts);
        }
        self.send(Message::Events(cpu, events));
        let until = self.newest.saturating_sub(REPLAY_LAG_NS);
        if !self.at_end && self.replayed_until.is_none_or(|t| until > t) {
            self.replayed_until = Some(until);
            self.send(Message::Until(until));
        }
    }

    /// Queues `message` for the replay thread, handing the queue on once it holds enough events.
    fn send(&mut self, message: Message) {
        if let Message::Events(_, events) = &message {
            self.outbox_events += events.len().max(1);
        }
        self.outbox.push(message);
        if self.outbox_events >= EVENTS_PER_HAND_OFF {
            self.hand_off();
        }
    }

    /// Hands the queued messages to the replay thread, which the first events start (until then messages wait).
    fn hand_off(&mut self) {
        if self.worker.is_none() && self.outbox_events == 0 {
            return;
        }
        let all = self.all;
        let worker = self.worker.get_or_insert_with(|| {
            let (sender, messages) = std::sync::mpsc::sync_channel(HAND_OFFS_IN_FLIGHT);
            let thread = std::thread::spawn(move || {
                let mut replayer = Replayer::default();
                replayer.replay.tracker.all = all;
                for message in messages.into_iter().flatten() {
                    replayer.take(message);
                }
                replayer
            });
            Worker { sender, thread }
        });
        // A closed channel means the replay thread panicked: `build` resumes its panic.
        let _ = worker.sender.send(std::mem::take(&mut self.outbox));
        self.outbox_events = 0;
    }

    /// The model, `None` without any scheduler event. Errors: none; a panic of the replay thread is resumed here.
    pub fn build(mut self) -> Option<Sched> {
        self.hand_off();
        let Worker { sender, thread } = self.worker?;
        drop(sender);
        let replayer = thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        replayer.build()
    }
}

/// The replay thread's state: the sorter's queues and the tracker.
#[derive(Debug, Default)]
struct Replayer {
    /// Per sorter queue, its events not replayed yet, in time order (stable).
    queues: Vec<VecDeque<(i64, SchedEvent)>>,
    /// The CPU of each queue.
    queue_cpus: Vec<u32>,
    /// The queue of each (kind, CPU), in the order they were first met.
    queue_of: FxHashMap<(u8, u32), usize>,
    /// The first event time of each non-empty queue, earliest on top (ties: the first queue).
    heads: BinaryHeap<Reverse<(i64, usize)>>,
    /// [`Replayer::heads`] needs rebuilding: an event went before a queue's first.
    heads_stale: bool,
    replay: Replay,
}

impl Replayer {
    fn take(&mut self, message: Message) {
        match message {
            Message::Events(cpu, events) => self.push(cpu, events),
            Message::Keep(tid) => self.replay.tracker.keep(tid),
            Message::Version(version) => {
                self.replay.version = version;
                self.replay.decoded.clear();
            }
            Message::Until(until) => self.replay_until(until),
        }
    }

    /// Queues a bundle's events (see [`SchedBuilder::push`]).
    fn push(&mut self, cpu: u32, events: Vec<(i64, SchedEvent)>) {
        // This bundle's queue of each kind, once looked up.
        let mut queue_of_kind = [None::<usize>; 3];
        for (ts, event) in events {
            let kind = match event {
                SchedEvent::Switch { prev_tid: None, .. } => 1,
                SchedEvent::Waking { waker: None, .. } => 2,
                _ => 0,
            };
            let q = *queue_of_kind[kind].get_or_insert_with(|| {
                let next = self.queues.len();
                let q = *self.queue_of.entry((kind as u8, cpu)).or_insert(next);
                if q == next {
                    self.queues.push(VecDeque::new());
                    self.queue_cpus.push(cpu);
                }
                q
            });
            let queue = &mut self.queues[q];
            match queue.back() {
                None => self.heads.push(Reverse((ts, q))),
                Some((last, _)) if *last > ts => {
                    // Out of order within its queue: in place, after its equals (the sorter's sort is stable).
                    let at = queue.partition_point(|(t, _)| *t <= ts);
                    self.heads_stale |= at == 0;
                    queue.insert(at, (ts, event));
                    continue;
                }
                Some(_) => {}
            }
            queue.push_back((ts, event));
        }
    }

    /// Trace processor's sorter (`sorter/trace_sorter.cc`, `SortAndExtractEventsUntilAllocId`) on the events
    /// before `until`: repeatedly the queue whose first event is earliest (the first queue on ties) hands on its
    /// events up to and including the next queue's earliest time. Equal timestamps on different CPUs thus come
    /// out in the order Perfetto parses them. The queues' first events wait in a heap, rebuilt when a push put
    /// an event before a queue's first.
    fn replay_until(&mut self, until: i64) {
        if self.heads_stale {
            self.heads = self
                .queues
                .iter()
                .enumerate()
                .filter_map(|(i, q)| Some(Reverse((q.front()?.0, i))))
                .collect();
            self.heads_stale = false;
        }
        loop {
            let heads = self.heads.as_slice();
            let Some(&Reverse((ts, i))) = heads.first() else {
                break;
            };
            if ts >= until {
                break;
            }
            // The next queue's earliest time: the smaller of the root's children.
            let second = heads
                .iter()
                .skip(1)
                .take(2)
                .map(|Reverse((t, _))| *t)
                .min()
                .unwrap_or(i64::MAX);
            let (queue, cpu) = (&mut self.queues[i], self.queue_cpus[i]);
            while let Some(&(ts, event)) = queue.front() {
                if ts > second || ts >= until {
                    break;
                }
                queue.pop_front();
                self.replay.event(ts, cpu, event);
            }
            match queue.front() {
                // The root takes the queue's new first time and sinks to its place.
                Some(&(next, _)) => {
                    if let Some(mut root) = self.heads.peek_mut() {
                        *root = Reverse((next, i));
                    }
                }
                None => {
                    self.heads.pop();
                }
            }
        }
    }

    /// Replays what is left; the model, `None` without any scheduler event.
    fn build(mut self) -> Option<Sched> {
        if self.queues.is_empty() {
            return None;
        }
        self.replay_until(i64::MAX);
        let Replay {
            tracker,
            coverage,
            frequencies,
            ..
        } = self.replay;
        let mut by_tid: FxHashMap<i32, Vec<u32>> = FxHashMap::default();
        for (i, r) in tracker.rows.iter().enumerate() {
            by_tid.entry(r.tid).or_default().push(i as u32);
        }
        Some(Sched {
            rows: tracker.rows,
            by_tid,
            states: tracker.states,
            frequencies,
            coverage,
        })
    }
}

/// The replay's state besides the tracker: what each CPU runs, the frequencies, the decoded `prev_state`s.
#[derive(Debug)]
struct Replay {
    tracker: Tracker,
    coverage: Coverage,
    /// The thread each CPU last switched to (`compact_sched` names the previous thread and the waker by it).
    on_cpu: FxHashMap<u32, i32>,
    frequencies: FxHashMap<u32, Vec<(i64, u32)>>,
    version: (u32, u32),
    /// By `prev_state`: its interned state, once decoded (empty until the first switch).
    decoded: Vec<Option<Option<u16>>>,
}

impl Default for Replay {
    fn default() -> Self {
        Replay {
            tracker: Tracker::default(),
            coverage: Coverage::default(),
            on_cpu: FxHashMap::default(),
            frequencies: FxHashMap::default(),
            version: kernel_version(None),
            decoded: Vec::new(),
        }
    }
}

impl Replay {
    fn event(&mut self, ts: i64, cpu: u32, event: SchedEvent) {
        let t = &mut self.tracker;
        match event {
            SchedEvent::Switch {
                prev_tid,
                prev_state,
                next_tid,
            } => {
                self.coverage.sched_switch = true;
                let last = self.on_cpu.insert(cpu, next_tid);
                // compact_sched names the previous thread only through the CPU's last switch: the first switch of
                // each CPU only says who runs.
                let Some(prev) = prev_tid.or(last) else {
                    return;
                };
                if self.decoded.is_empty() {
                    self.decoded = vec![None; 1 << 16];
                }
                let version = self.version;
                let state = *self.decoded[usize::from(prev_state)].get_or_insert_with(|| {
                    task_state(i64::from(prev_state), version).map(|s| t.intern(&s))
                });
                t.switch(ts, cpu, prev, state, next_tid);
            }
            SchedEvent::Waking { tid, waker, irq } => {
                self.coverage.sched_waking = true;
                // compact_sched: the waker is the thread running on the CPU; none known yet, no state.
                let Some(waker) = waker.or_else(|| self.on_cpu.get(&cpu).copied()) else {
                    return;
                };
                t.waking(ts, tid, waker, irq);
            }
            SchedEvent::NewTask { tid, parent } => {
                let row = ThreadStateRow {
                    waker_tid: Some(parent),
                    irq_context: Some(false),
                    ..Tracker::state_row(ts, tid, Some(RUNNABLE))
                };
                t.open(row, Close::No);
            }
            SchedEvent::BlockedReason { tid, io_wait } => {
                self.coverage.sched_blocked_reason = true;
                if let Some(io_wait) = io_wait {
                    t.io_wait(tid, io_wait);
                }
            }
            SchedEvent::CpuFrequency { cpu: target, khz } => {
                self.coverage.cpu_frequency = true;
                self.frequencies.entry(target).or_default().push((ts, khz));
            }
        }
    }
}

/// The interned id of `Running` and `R`.
const RUNNING: u16 = 0;
const RUNNABLE: u16 = 1;

/// A thread's last row, where it is stored, and the row `sched_blocked_reason` would describe.
#[derive(Debug, Clone, Copy)]
struct Related {
    last: ThreadStateRow,
    /// `last`'s index in [`Tracker::rows`] if the thread's rows are kept.
    at: Option<u32>,
    last_blocked: LastBlocked,
}

/// Whether [`Tracker::open`] ends the thread's last row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Close {
    /// It does.
    Last,
    /// Only if the thread was running (a switch-out).
    IfRunning,
    /// It does not (a new task).
    No,
}

/// The thread's last blocked row (Perfetto's `last_blocked_row`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LastBlocked {
    /// None since the thread last ran.
    None,
    /// Its last row.
    Last,
    /// A kept row before its last.
    Row(u32),
}

/// `ThreadStateTracker` restated: each thread's last row, and the rows of the threads kept.
#[derive(Debug)]
struct Tracker {
    rows: Vec<ThreadStateRow>,
    related: FxHashMap<i32, Related>,
    /// Threads whose rows are kept from now on.
    kept: FxHashSet<i32>,
    /// Keep every thread's rows.
    all: bool,
    states: Vec<String>,
}

impl Default for Tracker {
    fn default() -> Self {
        Tracker {
            rows: Vec::new(),
            related: FxHashMap::default(),
            kept: FxHashSet::default(),
            all: false,
            states: vec!["Running".to_string(), "R".to_string()],
        }
    }
}

impl Tracker {
    fn intern(&mut self, state: &str) -> u16 {
        match self.states.iter().position(|s| s == state) {
            Some(i) => i as u16,
            None => {
                self.states.push(state.to_string());
                (self.states.len() - 1) as u16
            }
        }
    }

    /// `IsBlocked`: neither `R` nor `Running` (an undecodable state counts as blocked).
    fn blocked(state: Option<u16>) -> bool {
        state != Some(RUNNABLE) && state != Some(RUNNING)
    }

    /// From now on keeps `tid`'s rows, beginning with its last.
    fn keep(&mut self, tid: i32) {
        if self.all || !self.kept.insert(tid) {
            return;
        }
        if let Some(r) = self.related.get_mut(&tid) {
            r.at = Some(self.rows.len() as u32);
            self.rows.push(r.last);
        }
    }

    /// Makes `row` its thread's last, first ending the last one at `row.ts` as `close` says: one map lookup.
    fn open(&mut self, row: ThreadStateRow, close: Close) {
        if row.tid == 0 {
            // The swapper is never a thread state.
            return;
        }
        let blocked = Self::blocked(row.state);
        let at = self.rows.len() as u32;
        match self.related.get_mut(&row.tid) {
            Some(r) => {
                let ends = match close {
                    Close::Last => true,
                    // A switch-out of a thread not running means its switch-in was lost: its last row stays open.
                    Close::IfRunning => r.last.state == Some(RUNNING),
                    Close::No => false,
                };
                let previous = r.at;
                if ends {
                    r.last.dur = row.ts - r.last.ts;
                    if let Some(last) = previous.and_then(|i| self.rows.get_mut(i as usize)) {
                        last.dur = r.last.dur;
                    }
                }
                r.at = previous.map(|_| at);
                r.last_blocked = match r.last_blocked {
                    _ if row.state == Some(RUNNING) => LastBlocked::None,
                    _ if blocked => LastBlocked::Last,
                    LastBlocked::Last => previous.map_or(LastBlocked::None, LastBlocked::Row),
                    other => other,
                };
                r.last = row;
                if previous.is_some() {
                    self.rows.push(row);
                }
            }
            None => {
                let kept = self.all || self.kept.contains(&row.tid);
                if kept {
                    self.rows.push(row);
                }
                self.related.insert(
                    row.tid,
                    Related {
                        last: row,
                        at: kept.then_some(at),
                        last_blocked: if blocked {
                            LastBlocked::Last
                        } else {
                            LastBlocked::None
                        },
                    },
                );
            }
        }
    }

    /// `sched_blocked_reason`: `io_wait` of `tid`'s last blocked row.
    fn io_wait(&mut self, tid: i32, io_wait: bool) {
        let Some(r) = self.related.get_mut(&tid) else {
            return;
        };
        let row = match r.last_blocked {
            LastBlocked::None => return,
            LastBlocked::Last => {
                r.last.io_wait = Some(io_wait);
                r.at
            }
            LastBlocked::Row(i) => Some(i),
        };
        if let Some(row) = row.and_then(|i| self.rows.get_mut(i as usize)) {
            row.io_wait = Some(io_wait);
        }
    }

    fn state_row(ts: i64, tid: i32, state: Option<u16>) -> ThreadStateRow {
        ThreadStateRow {
            ts,
            dur: -1,
            cpu: None,
            tid,
            state,
            io_wait: None,
            waker_tid: None,
            irq_context: None,
        }
    }

    fn switch(&mut self, ts: i64, cpu: u32, prev: i32, prev_state: Option<u16>, next: i32) {
        self.open(Self::state_row(ts, prev, prev_state), Close::IfRunning);
        let running = ThreadStateRow {
            cpu: Some(cpu),
            ..Self::state_row(ts, next, Some(RUNNING))
        };
        self.open(running, Close::Last);
    }

    fn waking(&mut self, ts: i64, tid: i32, waker: i32, irq: Option<bool>) {
        let row = ThreadStateRow {
            waker_tid: Some(waker),
            irq_context: irq,
            ..Self::state_row(ts, tid, Some(RUNNABLE))
        };
        match self.related.get(&tid).map(|r| r.last.state) {
            // A waking of a thread that is not blocked is no state (Perfetto's spurious_sched_wakeup).
            Some(state) if !Self::blocked(state) => {}
            _ => self.open(row, Close::Last),
        }
    }
}
