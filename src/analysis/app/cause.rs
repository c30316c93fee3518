//! Why a late frame's thread was late: the rule that turns the late thread's states and blocking calls inside
//! its `Choreographer#doFrame` / `DrawFrame` span into one cause (`ftl explain causes`). Pure: the caller hands
//! over the thread's state pieces and calls ([`Evidence`]); [`super::threads`] gathers them from a trace.

use super::blame::LateStage;
use serde::Serialize;

/// A thread's scheduling state over a piece of time, as the rule and the per-frame columns count it.
/// From Perfetto's `thread_state.state` (`sched/states.sql`): `Running`; `R`; `R+`; `S`; `D`/`DK` split by
/// `io_wait` (`true` → IO; `false` or unknown → non-IO, as the startup metric's `TaskStateBreakdown`); any
/// other state (`T`, `t`, `X`, `Z`, `I`, `K`, `W`, `P`, `N`) as `Other`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StateKind {
    /// On a CPU.
    Running,
    /// Woken, waiting for a CPU (`R`).
    Runnable,
    /// Preempted while running, waiting for a CPU again (`R+`).
    RunnablePreempted,
    /// Interruptible sleep (`S`).
    Sleeping,
    /// Uninterruptible sleep waiting on IO (`D`/`DK` with `io_wait = 1`).
    UninterruptibleIo,
    /// Uninterruptible sleep not known to be IO (`D`/`DK` with `io_wait` 0 or unknown).
    UninterruptibleNonIo,
    /// Any other state.
    Other,
}

impl StateKind {
    /// The kind of a `thread_state.state` string as Perfetto writes it (`Running`, `R`, `R+`, `S`, `D`, `DK`,
    /// …) with its `io_wait`.
    pub fn of(state: &str, io_wait: Option<bool>) -> StateKind {
        match state {
            "Running" => StateKind::Running,
            "R" => StateKind::Runnable,
            "R+" => StateKind::RunnablePreempted,
            "S" => StateKind::Sleeping,
            "D" | "DK" if io_wait == Some(true) => StateKind::UninterruptibleIo,
            "D" | "DK" => StateKind::UninterruptibleNonIo,
            _ => StateKind::Other,
        }
    }
}

/// One piece of a thread's states inside the span, `[ts, end)` in ns on the trace clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StatePiece {
    /// Start, ns.
    pub ts: i64,
    /// End, ns.
    pub end: i64,
    /// The state.
    pub kind: StateKind,
    /// Running on a CPU of the little cluster (`android_cpu_cluster_mapping`); false when the trace has no
    /// `CpuInfo` typing the CPUs.
    pub little: bool,
}

/// What a blocking call on the late thread stands for in the rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallKind {
    /// A synchronous binder transaction to this server process (`android_binder_txns.server_process`).
    Binder {
        /// The server process's name (or pid when unnamed).
        server: String,
    },
    /// Lock contention: Java monitor contention (the owner from the slice name, as
    /// `android_monitor_contention.blocking_thread_name`), ART `Lock contention on …`, or `Contending for
    /// pthread mutex` (owner unknown).
    Lock {
        /// The owner thread's name, when the trace names it.
        owner: Option<String>,
    },
    /// `GC: Wait For …`: waiting for the garbage collector.
    Gc,
    /// The RenderThread waiting for a buffer (`dequeueBuffer`, `waitForBufferRelease`): back-pressure.
    BufferWait,
    /// The RenderThread waiting on a GPU fence.
    GpuWait,
    /// Any other section (measure, layout, inflate, …): code the thread ran.
    Section,
}

/// A blocking call or section on the late thread, `[ts, end)` in ns, with its nesting depth (innermost wins).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// Start, ns.
    pub ts: i64,
    /// End, ns (`ts` + dur; an unfinished call ends at the span's end).
    pub end: i64,
    /// Depth on the thread (0 = outermost).
    pub depth: u32,
    /// Its name as `top_blocking_call` shows it ([`super::blocking::standardize`]), shared by the calls of one
    /// section name.
    pub name: std::sync::Arc<str>,
    /// One of Perfetto's critical blocking calls (or a binder transaction): a candidate for
    /// `top_blocking_call`.
    pub blocking: bool,
    /// What it stands for.
    pub kind: CallKind,
}

/// How fast the thread's running time inside the span off the little cluster ran, when the trace says.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Placement {
    /// Mean CPU frequency over the running time not on a little CPU, as a fraction of the highest frequency
    /// those CPUs reached in the trace; `None` without `cpu_frequency` events over all of it.
    pub frequency_ratio: Option<f64>,
}

/// What the rule reads of the late thread in one frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Evidence {
    /// The span: the doFrame (UI thread) or first DrawFrame start … last DrawFrame end (RenderThread), ns.
    pub span: (i64, i64),
    /// The span's own name when no section is inside (`Choreographer#doFrame`, `DrawFrame`).
    pub span_name: &'static str,
    /// The thread's states clipped to the span, in time order, not overlapping.
    pub states: Vec<StatePiece>,
    /// Its blocking calls and sections overlapping the span.
    pub calls: Vec<Call>,
    /// Where it ran.
    pub placement: Placement,
}

/// A frame's cause and the share of the late thread's span it explains.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cause {
    /// `cpu_starved`, `preempted`, `binder:<server>`, `lock:<owner>`, `gc`, `io`, `sleeping[:<section>]`,
    /// `slow_code:<section>`, `little_core`, `low_frequency`, `gpu`, `surfaceflinger` or `stuffing`.
    pub cause: String,
    /// The cause's time over the span, percent; `None` for the stages that have no thread time
    /// (`gpu`, `surfaceflinger`, `stuffing` from SurfaceFlinger's labels).
    pub cause_share_pct: Option<f64>,
}

/// A mean frequency below this fraction of the CPUs' highest makes running time `low_frequency`.
pub const LOW_FREQUENCY_RATIO: f64 = 0.5;

/// The cause vocabulary in tie-break order: when two buckets hold the same time, the earlier wins.
const ORDER: [&str; 11] = [
    "binder",
    "lock",
    "gc",
    "io",
    "cpu_starved",
    "preempted",
    "little_core",
    "low_frequency",
    "slow_code",
    "stuffing",
    "gpu",
];

/// `ftl explain causes`: the rule in one paragraph.
pub const EXPLANATION: &str = "\
Causes (ftl frames: cause, cause_share_pct). A late frame's stage (ftl explain stages) names the late thread: \
the UI thread over its Choreographer#doFrame, or the RenderThread from its first DrawFrame's start to its last \
one's end. That span is cut where the thread's state (Perfetto's thread_state) or its innermost blocking call \
changes, and each piece goes to one bucket: inside a synchronous binder transaction to binder:<server process>; \
inside lock contention to lock:<owner thread> (Java monitor contention names the owner; ART and pthread \
lock contention may not: lock); inside `GC: Wait For` to gc; on the RenderThread inside \
dequeueBuffer or waitForBufferRelease to stuffing and inside a fence wait to gpu (back-pressure, not the app's \
code); otherwise by state: R (runnable) to cpu_starved, R+ to preempted, D/DK with io_wait to io, S and other \
D to sleeping[:<innermost section>], Running to slow_code:<innermost section> (the span's own name when no \
section is inside). Running time on a CPU of the little cluster (Perfetto's android_cpu_cluster_mapping; needs \
the CpuInfo packet of linux.system_info) goes to little_core instead, whatever the CPU's frequency: a little core \
at its top speed is still the slow one, so little_core comes before low_frequency. The rest of the running time \
counts as one bucket low_frequency when its mean CPU frequency was below half the highest those CPUs reached \
(needs power/cpu_frequency). Binder time counts as one bucket \
whatever the servers, and lock time whatever the owners, each named after the server or owner with the most \
time. The largest bucket is the cause \
(ties: binder, lock, gc, io, cpu_starved, preempted, little_core, low_frequency, slow_code, stuffing, gpu, \
sleeping), and cause_share_pct is its (whole family's) time over the span. Frames late in the GPU, in SurfaceFlinger or by \
Buffer Stuffing keep that stage as their cause. Time before the thread's first scheduler event is no bucket. \
Without sched/sched_switch the cause is absent (–) and the diagnostics say which ftrace events (and data \
sources) to record; \
without sched/sched_waking runnable time reads as sleeping, without sched/sched_blocked_reason D is not \
split into io. Precedents: Perfetto's removed android_sysui_cuj jank_cause and \
android_startup_opinionated_breakdown.";

/// The cause of a late frame whose stage is `stage`, from `evidence` of the late thread (the UI thread for
/// `ui_thread`, the RenderThread for `render_thread`). `None` when the frame was not late, its stage is `app`
/// (no thread sections), or a thread stage has no evidence (no scheduler data over the span).
pub fn cause(stage: Option<LateStage>, evidence: Option<&Evidence>) -> Option<Cause> {
    let stage_only = |name: &str| Cause {
        cause: name.to_string(),
        cause_share_pct: None,
    };
    match stage? {
        LateStage::Gpu | LateStage::SurfaceFlinger | LateStage::Stuffing => {
            Some(stage_only(stage?.name()))
        }
        LateStage::App => None,
        LateStage::UiThread | LateStage::RenderThread => thread_cause(evidence?),
    }
}

/// The largest bucket of `e`'s span; `None` when no piece of the span has a state.
pub fn thread_cause(e: &Evidence) -> Option<Cause> {
    let (start, end) = e.span;
    if end <= start {
        return None;
    }
    let mut buckets: Vec<(String, i64)> = Vec::new();
    let mut add = |key: String, dur: i64| match buckets.iter_mut().find(|(k, _)| *k == key) {
        Some((_, d)) => *d += dur,
        None => buckets.push((key, dur)),
    };
    let mut running: Vec<(String, i64)> = Vec::new();
    for piece in &e.states {
        let (a, b) = (piece.ts.max(start), piece.end.min(end));
        if b <= a {
            continue;
        }
        for (from, to, call) in innermost_calls(&e.calls, a, b) {
            let section = call.map_or(e.span_name, |c| &*c.name);
            let key = match (call.map(|c| &c.kind), piece.kind) {
                (Some(CallKind::Binder { server }), _) => format!("binder:{server}"),
                (Some(CallKind::Lock { owner: Some(owner) }), _) => format!("lock:{owner}"),
                (Some(CallKind::Lock { owner: None }), _) => "lock".to_string(),
                (Some(CallKind::Gc), _) => "gc".to_string(),
                (Some(CallKind::BufferWait), _) => "stuffing".to_string(),
                (Some(CallKind::GpuWait), _) => "gpu".to_string(),
                (_, StateKind::Running) if piece.little => "little_core".to_string(),
                (_, StateKind::Running) => {
                    match running.iter_mut().find(|(k, _)| k == section) {
                        Some((_, d)) => *d += to - from,
                        None => running.push((section.to_string(), to - from)),
                    }
                    continue;
                }
                (_, StateKind::Runnable) => "cpu_starved".to_string(),
                (_, StateKind::RunnablePreempted) => "preempted".to_string(),
                (_, StateKind::UninterruptibleIo) => "io".to_string(),
                (_, StateKind::Sleeping | StateKind::UninterruptibleNonIo | StateKind::Other) => {
                    match call {
                        Some(c) => format!("sleeping:{}", c.name),
                        None => "sleeping".to_string(),
                    }
                }
            };
            add(key, to - from);
        }
    }
    let running_ns: i64 = running.iter().map(|(_, d)| d).sum();
    if running_ns > 0
        && e.placement
            .frequency_ratio
            .is_some_and(|r| r < LOW_FREQUENCY_RATIO)
    {
        add("low_frequency".to_string(), running_ns);
    } else {
        for (section, d) in running {
            add(format!("slow_code:{section}"), d);
        }
    }
    let rank = |key: &str| {
        let family = key.split(':').next().unwrap_or(key);
        ORDER
            .iter()
            .position(|o| *o == family)
            .unwrap_or(ORDER.len())
    };
    // Binder and lock time competes as one family (several servers or owners are one kind of wait); the cause
    // names the member with the most time.
    let family = |key: &str| match key.split_once(':') {
        Some((f @ ("binder" | "lock"), _)) => f.to_string(),
        _ => key.to_string(),
    };
    let mut families: Vec<(String, i64, (String, i64))> = Vec::new();
    for (key, d) in buckets.into_iter().filter(|(_, d)| *d > 0) {
        let name = family(&key);
        match families.iter_mut().find(|(f, ..)| *f == name) {
            Some((_, total, top)) => {
                *total += d;
                if (d, std::cmp::Reverse(&key)) > (top.1, std::cmp::Reverse(&top.0)) {
                    *top = (key, d);
                }
            }
            None => families.push((name, d, (key, d))),
        }
    }
    let (_, dur, (key, _)) = families.into_iter().min_by(|(fa, da, _), (fb, db, _)| {
        db.cmp(da).then(rank(fa).cmp(&rank(fb))).then(fa.cmp(fb))
    })?;
    Some(Cause {
        cause: key,
        cause_share_pct: Some(100.0 * dur as f64 / (end - start) as f64),
    })
}

/// `[a, b)` cut where the innermost call of `calls` changes: `(from, to, innermost call)` pieces covering it.
/// The innermost call is the deepest covering one (on equal depth, the later-starting).
fn innermost_calls(calls: &[Call], a: i64, b: i64) -> Vec<(i64, i64, Option<&Call>)> {
    let mut cuts: Vec<i64> = vec![a, b];
    for c in calls {
        for t in [c.ts, c.end] {
            if t > a && t < b {
                cuts.push(t);
            }
        }
    }
    cuts.sort_unstable();
    cuts.dedup();
    cuts.windows(2)
        .map(|w| {
            let call = calls
                .iter()
                .filter(|c| c.ts <= w[0] && c.end >= w[1])
                .max_by_key(|c| (c.depth, c.ts));
            (w[0], w[1], call)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;

    fn piece(a: i64, b: i64, kind: StateKind) -> StatePiece {
        StatePiece {
            ts: a * MS,
            end: b * MS,
            kind,
            little: false,
        }
    }

    fn on_little(p: StatePiece) -> StatePiece {
        StatePiece { little: true, ..p }
    }

    fn call(a: i64, b: i64, depth: u32, name: &str, kind: CallKind) -> Call {
        Call {
            ts: a * MS,
            end: b * MS,
            depth,
            name: name.into(),
            blocking: true,
            kind,
        }
    }

    fn evidence(states: Vec<StatePiece>, calls: Vec<Call>) -> Evidence {
        Evidence {
            span: (0, 20 * MS),
            span_name: "Choreographer#doFrame",
            states,
            calls,
            placement: Placement::default(),
        }
    }

    fn named(e: &Evidence) -> (String, f64) {
        let c = thread_cause(e).unwrap();
        (c.cause, c.cause_share_pct.unwrap())
    }

    #[test]
    fn each_state_is_its_own_cause() {
        use StateKind::*;
        for (kind, want) in [
            (Runnable, "cpu_starved"),
            (RunnablePreempted, "preempted"),
            (UninterruptibleIo, "io"),
            (UninterruptibleNonIo, "sleeping"),
            (Sleeping, "sleeping"),
            (Running, "slow_code:Choreographer#doFrame"),
        ] {
            // 12 ms of the state against 8 ms running inside `measure`.
            let e = evidence(
                vec![piece(0, 8, Running), piece(8, 20, kind)],
                vec![call(0, 8, 1, "measure", CallKind::Section)],
            );
            let (cause, share) = named(&e);
            assert_eq!(cause, want, "{kind:?}");
            assert_eq!(share, 60.0);
        }
    }

    #[test]
    fn time_inside_a_blocking_call_is_the_call_whatever_the_state() {
        use StateKind::*;
        let binder = CallKind::Binder {
            server: "system_server".into(),
        };
        let lock = CallKind::Lock {
            owner: Some("Binder:1234_2".into()),
        };
        for (kind, want) in [
            (binder, "binder:system_server"),
            (lock, "lock:Binder:1234_2"),
            (CallKind::Lock { owner: None }, "lock"),
            (CallKind::Gc, "gc"),
            (CallKind::BufferWait, "stuffing"),
            (CallKind::GpuWait, "gpu"),
        ] {
            // Blocked 2–13 ms (11 ms: sleeping 10, running 1) against 9 ms running elsewhere.
            let e = evidence(
                vec![
                    piece(0, 2, Running),
                    piece(2, 3, Running),
                    piece(3, 13, Sleeping),
                    piece(13, 20, Running),
                ],
                vec![call(2, 13, 1, "x", kind)],
            );
            assert_eq!(named(&e), (want.to_string(), 55.0));
        }
    }

    #[test]
    fn running_goes_to_the_innermost_section_and_sections_compete() {
        use StateKind::*;
        // inflate 2–10 holds measure 4–9; running all along: inflate 3 ms, measure 5, layout 6, doFrame 6.
        let e = evidence(
            vec![piece(0, 20, Running)],
            vec![
                call(2, 10, 1, "inflate", CallKind::Section),
                call(4, 9, 2, "measure", CallKind::Section),
                call(12, 18, 1, "layout", CallKind::Section),
            ],
        );
        assert_eq!(named(&e), ("slow_code:Choreographer#doFrame".into(), 30.0));
        // Sleeping inside a section names it.
        let e = evidence(
            vec![piece(0, 5, Running), piece(5, 20, Sleeping)],
            vec![call(4, 20, 1, "postAndWait", CallKind::Section)],
        );
        assert_eq!(named(&e), ("sleeping:postAndWait".into(), 75.0));
    }

    #[test]
    fn placement_turns_running_time_into_little_core_or_low_frequency() {
        use StateKind::*;
        // 14 ms running over two sections (7 + 7) against 6 ms runnable.
        let sections = vec![
            call(0, 7, 1, "measure", CallKind::Section),
            call(7, 14, 1, "layout", CallKind::Section),
        ];
        let mut e = evidence(
            vec![piece(0, 14, Running), piece(14, 20, Runnable)],
            sections.clone(),
        );
        // Equal sections: the name sorting first.
        assert_eq!(named(&e), ("slow_code:layout".into(), 35.0));
        e.placement.frequency_ratio = Some(0.49);
        assert_eq!(named(&e), ("low_frequency".into(), 70.0));
        e.placement.frequency_ratio = Some(0.5);
        assert_eq!(named(&e).0, "slow_code:layout");
        // 0–9 ms on a little CPU: little_core 9 ms against layout 5, runnable 6.
        let split = vec![
            on_little(piece(0, 9, Running)),
            piece(9, 14, Running),
            piece(14, 20, Runnable),
        ];
        let mut e = evidence(split.clone(), sections.clone());
        assert_eq!(named(&e), ("little_core".into(), 45.0));
        // Low frequency takes only the time off the little CPU: 5 ms, less than little_core's 9.
        e.placement.frequency_ratio = Some(0.1);
        assert_eq!(named(&e), ("little_core".into(), 45.0));
        // Equal to a section's time, little_core wins the tie (vocabulary order): 7 ms each.
        let e = evidence(
            vec![on_little(piece(0, 7, Running)), piece(7, 14, Running)],
            sections,
        );
        assert_eq!(named(&e), ("little_core".into(), 35.0));
        // Inside a blocking call the call wins, on a little CPU too: binder 0–9 ms.
        let binder = CallKind::Binder {
            server: "system_server".into(),
        };
        let e = evidence(split, vec![call(0, 9, 1, "b", binder)]);
        assert_eq!(named(&e), ("binder:system_server".into(), 45.0));
    }

    #[test]
    fn binder_time_to_several_servers_is_one_bucket_named_after_the_largest() {
        use StateKind::*;
        let binder = |server: &str| CallKind::Binder {
            server: server.into(),
        };
        // Binder 3 ms to system_server + 5 ms to surfaceflinger = 8 ms against 6 ms runnable and 6 ms running.
        let e = evidence(
            vec![
                piece(0, 8, Sleeping),
                piece(8, 14, Runnable),
                piece(14, 20, Running),
            ],
            vec![
                call(0, 3, 1, "a", binder("system_server")),
                call(3, 8, 1, "b", binder("surfaceflinger")),
            ],
        );
        assert_eq!(named(&e), ("binder:surfaceflinger".into(), 40.0));
    }

    #[test]
    fn ties_follow_the_vocabulary_order_and_unstated_time_is_no_bucket() {
        use StateKind::*;
        // 5 ms each of io and cpu_starved; nothing known for the other 10 ms.
        let e = evidence(
            vec![piece(0, 5, Runnable), piece(5, 10, UninterruptibleIo)],
            vec![],
        );
        assert_eq!(named(&e), ("io".into(), 25.0));
        assert_eq!(thread_cause(&evidence(vec![], vec![])), None);
        // States outside the span are clipped away.
        let e = evidence(
            vec![piece(-10, 0, Runnable), piece(20, 30, Runnable)],
            vec![],
        );
        assert_eq!(thread_cause(&e), None);
    }

    #[test]
    fn stages_without_a_thread_keep_their_name_and_app_has_no_cause() {
        for stage in [
            LateStage::Gpu,
            LateStage::SurfaceFlinger,
            LateStage::Stuffing,
        ] {
            let c = cause(Some(stage), None).unwrap();
            assert_eq!((c.cause.as_str(), c.cause_share_pct), (stage.name(), None));
        }
        assert_eq!(cause(Some(LateStage::App), None), None);
        assert_eq!(cause(None, None), None);
        // A thread stage without evidence (no sched data) has no cause: never a guess.
        assert_eq!(cause(Some(LateStage::UiThread), None), None);
        let e = evidence(vec![piece(0, 20, StateKind::Runnable)], vec![]);
        assert_eq!(
            cause(Some(LateStage::RenderThread), Some(&e))
                .unwrap()
                .cause,
            "cpu_starved"
        );
    }
}
