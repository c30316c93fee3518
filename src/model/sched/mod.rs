//! Scheduler events → Perfetto's `thread_state` rows, CPU frequency over time and the per-slice questions the
//! root-cause columns ask of them. Restates trace processor's `ThreadStateTracker`
//! (`importers/common/thread_state_tracker.cc`), `FtraceSchedEventTracker` (compact_sched bookkeeping),
//! `TaskState` (`types/task_state.cc`: `prev_state` bits by kernel version) and the stdlib's
//! `slices/time_in_state.sql` and `linux/cpu/utilization/slice.sql` (google/perfetto @ ec5d16b1).

mod replay;

pub use replay::SchedBuilder;
use rustc_hash::FxHashMap;

/// One row of Perfetto's `thread_state`: `tid` was in `state` over `[ts, ts + dur)` (ns, trace clock).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadStateRow {
    /// Start, ns.
    pub ts: i64,
    /// Duration, ns; −1 while open (the thread's last state, or one whose end was lost).
    pub dur: i64,
    /// The CPU of a `Running` state.
    pub cpu: Option<u32>,
    /// The thread.
    pub tid: i32,
    /// The state ([`Sched::state_name`]); `None` for a `prev_state` Perfetto cannot decode.
    pub state: Option<u16>,
    /// `io_wait` from `sched_blocked_reason`, on blocked states.
    pub io_wait: Option<bool>,
    /// The thread that woke it (runnable states).
    pub waker_tid: Option<i32>,
    /// The waking happened in interrupt context (`compact_sched` wakings and new tasks only).
    pub irq_context: Option<bool>,
}

impl ThreadStateRow {
    /// `ts + dur` for a closed row.
    pub fn end(&self) -> Option<i64> {
        (self.dur >= 0).then(|| self.ts + self.dur)
    }
}

/// Which scheduler inputs a trace holds: what the root-cause columns can be computed from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Coverage {
    /// `sched/sched_switch` (or `compact_sched` switches).
    pub sched_switch: bool,
    /// `sched/sched_waking` (or `compact_sched` wakings).
    pub sched_waking: bool,
    /// `sched/sched_blocked_reason`.
    pub sched_blocked_reason: bool,
    /// `power/cpu_frequency`.
    pub cpu_frequency: bool,
}

/// The scheduler model of a trace.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sched {
    rows: Vec<ThreadStateRow>,
    /// Per thread, its rows' indexes in time order.
    by_tid: FxHashMap<i32, Vec<u32>>,
    states: Vec<String>,
    /// Per CPU, its frequency changes `(ts, kHz)` in time order.
    frequencies: FxHashMap<u32, Vec<(i64, u32)>>,
    coverage: Coverage,
}

/// A thread's CPU time inside an interval ([`Sched::cycles`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cycles {
    /// Time `Running`, ns.
    pub running_ns: i64,
    /// Of that, time on a CPU whose frequency is known, ns.
    pub known_ns: i64,
    /// Σ known time × kHz / 1000.
    pub millicycles: i64,
}

/// The stdlib's `cast_int!(millicycles / 1e9)`: megacycles, truncated.
pub fn megacycles(millicycles: i64) -> i64 {
    (millicycles as f64 / 1e9) as i64
}

/// A piece of a thread's time inside an interval: Perfetto's `thread_slice_time_in_state` grouping, with the
/// CPU ([`Sched::time_in_state`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateTime {
    /// The state ([`Sched::state_name`]).
    pub state: Option<u16>,
    /// `io_wait`.
    pub io_wait: Option<bool>,
    /// The CPU of a `Running` piece.
    pub cpu: Option<u32>,
    /// Time, ns.
    pub dur: i64,
}

impl Sched {
    /// Every `thread_state` row, in creation order (Perfetto's id order).
    pub fn thread_states(&self) -> &[ThreadStateRow] {
        &self.rows
    }

    /// A state id as Perfetto writes it (`Running`, `R`, `R+`, `S`, `D`, `DK`, …).
    pub fn state_name(&self, state: Option<u16>) -> Option<&str> {
        self.states.get(usize::from(state?)).map(String::as_str)
    }

    /// What the trace holds.
    pub fn coverage(&self) -> Coverage {
        self.coverage
    }

    /// `tid`'s rows in time order.
    pub fn states_of(&self, tid: i32) -> impl Iterator<Item = &ThreadStateRow> {
        self.by_tid
            .get(&tid)
            .into_iter()
            .flatten()
            .filter_map(|&i| self.rows.get(i as usize))
    }

    /// `tid`'s closed rows of positive duration overlapping `[start, end)`, clipped to it: the pieces
    /// `_interval_intersect!` of `slices/time_in_state.sql` sums (open states and time before the thread's
    /// first event count nothing).
    pub fn pieces(&self, tid: i32, start: i64, end: i64) -> Vec<(i64, i64, &ThreadStateRow)> {
        let Some(ids) = self.by_tid.get(&tid) else {
            return Vec::new();
        };
        // Rows of a thread start in time order; the one holding `start` is just before the first after it.
        let first = ids
            .partition_point(|&i| self.rows.get(i as usize).is_some_and(|r| r.ts <= start))
            .saturating_sub(1);
        ids[first..]
            .iter()
            .filter_map(|&i| self.rows.get(i as usize))
            .take_while(|r| r.ts < end)
            .filter_map(|r| {
                let row_end = r.end().filter(|_| r.dur > 0)?;
                let (a, b) = (r.ts.max(start), row_end.min(end));
                (b > a).then_some((a, b, r))
            })
            .collect()
    }

    /// Perfetto's `thread_slice_time_in_state` for the interval `[ts, ts + dur)` of `tid`: time per (state,
    /// io_wait, cpu), in first-seen order.
    pub fn time_in_state(&self, tid: i32, ts: i64, dur: i64) -> Vec<StateTime> {
        let mut out: Vec<StateTime> = Vec::new();
        for (a, b, r) in self.pieces(tid, ts, ts + dur) {
            match out
                .iter_mut()
                .find(|s| (s.state, s.io_wait, s.cpu) == (r.state, r.io_wait, r.cpu))
            {
                Some(s) => s.dur += b - a,
                None => out.push(StateTime {
                    state: r.state,
                    io_wait: r.io_wait,
                    cpu: r.cpu,
                    dur: b - a,
                }),
            }
        }
        out
    }

    /// `cpu_cycles_per_thread_slice.millicycles` of a slice `[ts, ts + dur)` on `tid`: Σ running time ×
    /// frequency (kHz) / 1000 over its running pieces, `None` unless the thread ran with a known frequency for
    /// the whole slice (the stdlib's `ts.dur = intersected.dur`).
    pub fn millicycles(&self, tid: i32, ts: i64, dur: i64) -> Option<i64> {
        let c = self.cycles(tid, ts, ts + dur);
        (c.known_ns == dur).then_some(c.millicycles)
    }

    /// `tid`'s running time inside `[start, end)` and its millicycles where the CPU's frequency is known.
    pub fn cycles(&self, tid: i32, start: i64, end: i64) -> Cycles {
        let mut c = Cycles::default();
        for (a, b, r) in self.pieces(tid, start, end) {
            let Some(cpu) = r
                .cpu
                .filter(|_| self.state_name(r.state) == Some("Running"))
            else {
                continue;
            };
            c.running_ns += b - a;
            let changes = self.frequencies.get(&cpu).map_or(&[][..], Vec::as_slice);
            // The frequency in effect at `a`, then each change before `b`.
            let from = changes.partition_point(|(t, _)| *t <= a);
            let mut at = a;
            let mut freq = from
                .checked_sub(1)
                .and_then(|i| changes.get(i))
                .map(|c| c.1);
            let next = changes[from..].iter().take_while(|(t, _)| *t < b).copied();
            for (t, khz) in next.chain([(b, 0)]) {
                if let Some(f) = freq {
                    c.known_ns += t - at;
                    // Per piece, integer ns × kHz / 1000, as the stdlib sums `ii.dur * freq / 1000`.
                    c.millicycles += (t - at) * i64::from(f) / 1000;
                }
                (at, freq) = (t, Some(khz));
            }
        }
        c
    }

    /// The highest frequency `cpu` reached in the trace, kHz.
    pub fn max_frequency_khz(&self, cpu: u32) -> Option<u32> {
        self.frequencies.get(&cpu)?.iter().map(|c| c.1).max()
    }
}

/// `prev_state` bits → Perfetto's state string for a kernel `version` (major, minor); `None` when invalid.
/// `TaskState::TaskState(raw, version)` and `ToString()`: from 4.14 0x40 parked, 0x80 idle, 0x100 preempted;
/// before, 0x40 dead, 0x80 wakekill, 0x100 waking, 0x200 parked, 0x400 noload, and preempted at 0x1000 (4.8+)
/// or 0x800.
pub fn task_state(raw: i64, version: (u32, u32)) -> Option<String> {
    const S: u16 = 0x1;
    const D: u16 = 0x2;
    const PARKED: u16 = 0x40;
    const DEAD: u16 = 0x80;
    const WAKEKILL: u16 = 0x100;
    const WAKING: u16 = 0x200;
    const NOLOAD: u16 = 0x400;
    const IDLE: u16 = 0x4000;
    const PREEMPTED: u16 = 0x8000;
    let raw = raw as u16;
    let mut parsed = raw & 0x3f;
    if version >= (4, 14) {
        if raw & 0x40 != 0 {
            parsed |= PARKED;
        }
        if raw & 0x80 != 0 {
            parsed |= IDLE;
        }
        if raw & 0x100 != 0 {
            parsed |= PREEMPTED;
        }
        if raw & 0xfe00 != 0 {
            return None;
        }
    } else {
        for (bit, flag) in [
            (0x40, DEAD),
            (0x80, WAKEKILL),
            (0x100, WAKING),
            (0x200, PARKED),
            (0x400, NOLOAD),
        ] {
            if raw & bit != 0 {
                parsed |= flag;
            }
        }
        if parsed == D | NOLOAD {
            parsed = IDLE;
        }
        let preempted = if version >= (4, 8) { 0x1000 } else { 0x800 };
        if raw & preempted != 0 {
            parsed |= PREEMPTED;
        }
    }
    if parsed & !PREEMPTED == 0 {
        return Some(if parsed & PREEMPTED != 0 { "R+" } else { "R" }.to_string());
    }
    let letters = [
        (S, 'S'),
        (D, 'D'),
        (0x4, 'T'),
        (0x8, 't'),
        (0x10, 'X'),
        (0x20, 'Z'),
        (PARKED, 'P'),
        (DEAD, 'x'),
        (WAKEKILL, 'K'),
        (WAKING, 'W'),
        (NOLOAD, 'N'),
        (IDLE, 'I'),
    ];
    let s: String = letters
        .iter()
        .filter(|(flag, _)| parsed & flag != 0)
        .map(|(_, c)| *c)
        .take(3)
        .collect();
    Some(s)
}

/// The kernel's (major, minor) from a `uname` release (`5.10.107-android13-4-…`); Perfetto assumes 4.4 when the
/// trace does not say.
pub fn kernel_version(release: Option<&str>) -> (u32, u32) {
    let parse = |r: &str| {
        let mut parts = r.split(|c: char| !c.is_ascii_digit());
        Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
    };
    release.and_then(parse).unwrap_or((4, 4))
}

/// True for the slices whose threads' states ftl keeps outside `ftl table thread_state`: `Choreographer#doFrame*`
/// and `DrawFrame*`, the slices the golden `thread_slice_time_in_state` query and the per-frame columns ask of.
pub fn is_frame_slice(name: &[u8]) -> bool {
    name.starts_with(b"Choreographer#doFrame") || name.starts_with(b"DrawFrame")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::Sched as SchedEvent;

    #[test]
    fn prev_state_decodes_by_kernel_version() {
        let v = |raw, version| task_state(raw, version);
        for version in [(4, 4), (4, 9), (4, 14), (5, 10)] {
            assert_eq!(v(0, version).as_deref(), Some("R"));
            assert_eq!(v(1, version).as_deref(), Some("S"));
            assert_eq!(v(2, version).as_deref(), Some("D"));
        }
        // Preempted: 0x100 from 4.14, 0x1000 from 4.8, 0x800 before.
        assert_eq!(v(0x100, (5, 10)).as_deref(), Some("R+"));
        assert_eq!(v(0x1000, (4, 9)).as_deref(), Some("R+"));
        assert_eq!(v(0x800, (4, 4)).as_deref(), Some("R+"));
        // The same bits mean other things elsewhere.
        assert_eq!(v(0x100, (4, 9)).as_deref(), Some("W"));
        assert_eq!(v(0x80 | 2, (4, 9)).as_deref(), Some("DK"));
        assert_eq!(v(0x80, (5, 10)).as_deref(), Some("I"));
        assert_eq!(v(0x402, (4, 9)).as_deref(), Some("I"));
        assert_eq!(v(0x200, (5, 10)), None);
        assert_eq!(kernel_version(Some("5.10.107-android13-4-00001")), (5, 10));
        assert_eq!(kernel_version(Some("4.14")), (4, 14));
        assert_eq!(kernel_version(None), (4, 4));
    }

    fn switch(prev: i32, prev_state: u16, next: i32) -> SchedEvent {
        SchedEvent::Switch {
            prev_tid: Some(prev),
            prev_state,
            next_tid: next,
        }
    }

    fn waking(tid: i32, waker: i32) -> SchedEvent {
        SchedEvent::Waking {
            tid,
            waker: Some(waker),
            irq: None,
        }
    }

    /// (ts, dur, tid, state, waker) of every row, each event pushed as a bundle of CPU 0.
    fn rows(events: Vec<(i64, SchedEvent)>) -> Vec<(i64, i64, i32, String, Option<i32>)> {
        rows_of_bundles(events.into_iter().map(|e| (0, vec![e])).collect())
    }

    #[test]
    fn switches_wakings_and_new_tasks_make_perfetto_rows() {
        let got = rows(vec![
            (10, switch(0, 0, 5)),     // 5 runs (the swapper is no thread)
            (20, switch(5, 1, 0)),     // 5 sleeps
            (25, waking(5, 7)),        // 7 wakes 5: R
            (27, waking(5, 8)),        // already runnable: no state
            (30, switch(0, 0, 5)),     // 5 runs again
            (40, switch(5, 0x100, 6)), // 5 preempted: R+; 6 runs
            (45, SchedEvent::NewTask { tid: 9, parent: 6 }),
            (50, switch(6, 2, 5)),
        ]);
        assert_eq!(
            got,
            vec![
                (10, 10, 5, "Running".into(), None),
                (20, 5, 5, "S".into(), None),
                (25, 5, 5, "R".into(), Some(7)),
                (30, 10, 5, "Running".into(), None),
                (40, 10, 5, "R+".into(), None),
                (40, 10, 6, "Running".into(), None),
                (45, -1, 9, "R".into(), Some(6)),
                (50, -1, 6, "D".into(), None),
                (50, -1, 5, "Running".into(), None),
            ]
        );
    }

    /// (ts, dur, tid, state, waker) of every row when `bundles` of (cpu, events) are pushed in this order (kernel
    /// 5.10).
    fn rows_of_bundles(
        bundles: Vec<(u32, Vec<(i64, SchedEvent)>)>,
    ) -> Vec<(i64, i64, i32, String, Option<i32>)> {
        let mut b = SchedBuilder::default().all_rows();
        b.kernel_release(Some("5.10"));
        bundles.into_iter().for_each(|(cpu, e)| b.push(cpu, e));
        let s = b.build().unwrap();
        s.thread_states()
            .iter()
            .map(|r| {
                let name = s.state_name(r.state).unwrap_or("?").to_string();
                (r.ts, r.dur, r.tid, name, r.waker_tid)
            })
            .collect()
    }

    #[test]
    fn a_queue_replays_its_bundles_in_time_order_whatever_order_they_came_in() {
        let sleeps = switch(5, 1, 0);
        let runs = switch(0, 0, 5);
        // One CPU's events in three bundles: the second earlier than the first, the third unsorted and
        // straddling both.
        let shuffled = rows_of_bundles(vec![
            (0, vec![(30, runs), (40, sleeps)]),
            (0, vec![(10, runs), (20, sleeps)]),
            (0, vec![(50, runs), (25, waking(5, 7)), (45, waking(5, 8))]),
        ]);
        let sorted = rows_of_bundles(vec![(
            0,
            vec![
                (10, runs),
                (20, sleeps),
                (25, waking(5, 7)),
                (30, runs),
                (40, sleeps),
                (45, waking(5, 8)),
                (50, runs),
            ],
        )]);
        assert_eq!(shuffled, sorted);
        assert_eq!(sorted.len(), 7, "{sorted:?}");
    }

    #[test]
    fn equal_times_on_two_cpus_go_with_the_queue_being_replayed() {
        // CPU 1's queue is met first, but CPU 0's starts earlier and hands on its events up to and including
        // CPU 1's first time, 20: CPU 0's switch to 5 at 20 comes before CPU 1's waking of 5 at 20, which then
        // finds 5 running (no state). Ordering ties by queue would wake 5 first (an R row at 20).
        let got = rows_of_bundles(vec![
            (1, vec![(20, waking(5, 7))]),
            (
                0,
                vec![
                    (5, switch(0, 0, 5)),
                    (6, switch(5, 1, 0)),
                    (20, switch(0, 0, 5)),
                ],
            ),
        ]);
        let of_5: Vec<_> = got
            .iter()
            .filter(|r| r.2 == 5)
            .map(|r| (r.0, r.3.as_str()))
            .collect();
        assert_eq!(of_5, [(5, "Running"), (6, "S"), (20, "Running")]);
    }

    #[test]
    fn a_lost_switch_in_leaves_the_state_open_and_intervals_skip_open_rows() {
        // 5 is runnable, then switched out without a switch in: its R row stays open (data loss).
        let mut b = SchedBuilder::default();
        b.keep(5, 0);
        for (ts, e) in [
            (10, waking(5, 1)),
            (20, switch(5, 1, 6)),
            (30, waking(5, 6)),
            (40, switch(6, 1, 5)),
        ] {
            b.push(0, vec![(ts, e)]);
        }
        let s = b.build().unwrap();
        let r: Vec<i64> = s.states_of(5).map(|r| r.dur).collect();
        assert_eq!(r, vec![-1, 10, 10, -1]);
        let split = s.time_in_state(5, 0, 100);
        let named: Vec<(&str, i64)> = split
            .iter()
            .map(|t| (s.state_name(t.state).unwrap(), t.dur))
            .collect();
        assert_eq!(named, vec![("S", 10), ("R", 10)]);
    }

    #[test]
    fn cycles_need_a_known_frequency_over_the_whole_slice() {
        let mut b = SchedBuilder::default();
        b.keep(5, 0);
        let frequency = |khz| SchedEvent::CpuFrequency { cpu: 0, khz };
        b.push(
            0,
            vec![
                (0, frequency(1_000_000)),
                (10, switch(0, 0, 5)),
                (15, frequency(2_000_000)),
                (30, switch(5, 1, 0)),
            ],
        );
        let s = b.build().unwrap();
        // 5 ns at 1 GHz + 10 ns at 2 GHz, ×1000 millicycles.
        assert_eq!(s.millicycles(5, 10, 15), Some(5_000 + 20_000));
        // Not running over all of it: none.
        assert_eq!(s.millicycles(5, 10, 30), None);
        assert_eq!(s.max_frequency_khz(0), Some(2_000_000));
    }

    /// (ts, dur, state) of `tid`'s rows.
    fn rows_of(s: &Sched, tid: i32) -> Vec<(i64, i64, &str)> {
        s.states_of(tid)
            .map(|r| (r.ts, r.dur, s.state_name(r.state).unwrap()))
            .collect()
    }

    #[test]
    fn rows_are_kept_for_frame_threads_from_their_state_at_their_first_frame() {
        const S: i64 = 1_000_000_000;
        let mut b = SchedBuilder::default();
        // 5 and 6 take turns on CPU 0 (replayed up to 3 s once the switch at 5 s is in); 5 begins a frame at
        // 3 s, while it sleeps.
        let turns = vec![
            (S, switch(0, 0, 5)),
            (2 * S, switch(5, 1, 6)),
            (5 * S, switch(6, 1, 5)),
        ];
        b.push(0, turns);
        b.keep(5, 3 * S);
        b.push(1, vec![(4 * S, waking(5, 6))]);
        assert!(!b.replayed_out_of_order());
        let s = b.build().unwrap();
        assert_eq!(
            rows_of(&s, 5),
            vec![(2 * S, 2 * S, "S"), (4 * S, S, "R"), (5 * S, -1, "Running")]
        );
        assert!(rows_of(&s, 6).is_empty());
    }

    #[test]
    fn events_behind_the_replay_are_told() {
        const S: i64 = 1_000_000_000;
        let mut b = SchedBuilder::default();
        b.push(0, vec![(S, switch(0, 0, 5)), (5 * S, switch(5, 1, 6))]);
        // Replayed up to 3 s: an event at 2 s, or a frame thread from 2 s, comes too late.
        b.push(1, vec![(4 * S, waking(7, 6))]);
        assert!(!b.replayed_out_of_order());
        let mut late_event = SchedBuilder::default();
        late_event.push(0, vec![(S, switch(0, 0, 5)), (5 * S, switch(5, 1, 6))]);
        late_event.push(1, vec![(2 * S, waking(7, 6))]);
        assert!(late_event.replayed_out_of_order());
        b.keep(5, 2 * S);
        assert!(b.replayed_out_of_order());
        // A thread kept before the replay began: a later frame of it behind the replay is no news.
        let mut early = SchedBuilder::default();
        early.keep(5, 0);
        early.push(0, vec![(S, switch(0, 0, 5)), (5 * S, switch(5, 1, 6))]);
        early.keep(5, 2 * S);
        assert!(!early.replayed_out_of_order());
        early.keep(6, 2 * S);
        assert!(early.replayed_out_of_order());
        // Replaying at the end, nothing is late.
        let mut at_end = SchedBuilder::default().at_end();
        at_end.push(0, vec![(S, switch(0, 0, 5)), (5 * S, switch(5, 1, 6))]);
        at_end.push(1, vec![(2 * S, waking(7, 6))]);
        at_end.keep(5, 2 * S);
        assert!(!at_end.replayed_out_of_order());
        assert_eq!(
            rows_of(&at_end.build().unwrap(), 5),
            vec![(S, 4 * S, "Running"), (5 * S, -1, "S")]
        );
    }
}
