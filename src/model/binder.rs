//! Binder transactions: the slices Perfetto's `BinderTracker` makes from ftrace binder events (on each thread's
//! stack of slices, shared with its atrace sections) and stdlib `android/binder.sql`'s `android_binder_txns` over
//! them (google/perfetto @ ec5d16b1: `src/trace_processor/importers/ftrace/binder_tracker.cc`,
//! `src/trace_processor/perfetto_sql/stdlib/android/binder.sql`).
//!
//! The tracker, restated: `binder_transaction` on thread C with `reply` ends C's innermost open slice (the
//! `binder reply` C began); a oneway one is a slice of duration 0 `binder transaction async`; any other begins
//! `binder transaction`. Each transaction waits under its `debug_id` for its `binder_transaction_received` on
//! thread S (found only if it came first in time, and once): a reply's receipt ends S's innermost open slice (the
//! `binder transaction` S began); a oneway one's is a slice of duration 0 `binder async rcv`; any other's begins
//! `binder reply` on S. A flow leads from the transaction's slice to the receiving slice (none for replies).

use super::frame::Timeline;
use super::sections::{AppSections, Section, NO_SECTION};
use crate::decode::BinderEvent;
use rustc_hash::{FxHashMap, FxHashSet};

/// The names of the slices binder events make, in [`BinderPairing::set_names`]'s order.
pub(super) const SLICE_NAMES: [&str; 4] = [
    TRANSACTION,
    "binder transaction async",
    BINDER_REPLY,
    BINDER_ASYNC_RCV,
];

/// A synchronous transaction's slice on the client thread.
const TRANSACTION: &str = "binder transaction";
/// A synchronous transaction's slice on the server thread.
pub const BINDER_REPLY: &str = "binder reply";
/// A oneway transaction's slice (duration 0) on the server thread.
const BINDER_ASYNC_RCV: &str = "binder async rcv";

/// What a thread event does to its thread's stack of open slices when paired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum StackOp {
    /// Begins a slice (named by this name id if kept).
    Begin(Option<u32>),
    /// A slice of duration 0 (named if kept), a child of the open one, not opened.
    Instant(Option<u32>),
    /// Ends the innermost open slice.
    End,
    /// Nothing (a receipt of a transaction not seen).
    Nothing,
}

/// One binder event read, by its place in [`BinderPairing`].
#[derive(Debug, Clone, Copy)]
struct Record {
    ts: i64,
    event: BinderEvent,
    /// The slice it made, an index into the slices as paired ([`NO_SECTION`]: none yet).
    slice: u32,
    /// A transaction: received already. A receipt: the transaction it received ([`NO_SECTION`]: none).
    link: u32,
    /// A transaction: the one read before it with the same `debug_id` ([`NO_SECTION`]: none).
    earlier: u32,
}

/// The binder events of a trace, paired thread by thread with the atrace lines: a receipt takes its transaction
/// when its thread's lines are paired, seconds behind the newest line, when the transaction (earlier in time) has
/// been read. Memory: 32 bytes per event, 8 per distinct `debug_id`.
#[derive(Debug, Default)]
pub(super) struct BinderPairing {
    records: Vec<Record>,
    /// `debug_id` → the last transaction read with it (the others with it chained by [`Record::earlier`]).
    by_id: FxHashMap<i32, u32>,
    /// Name ids of [`SLICE_NAMES`], once interned.
    names: Option<[u32; 4]>,
    /// (transaction record, receiving slice) of each receipt that began a slice.
    received: Vec<(u32, u32)>,
}

impl BinderPairing {
    /// The name ids of [`SLICE_NAMES`], if set.
    pub(super) fn names(&self) -> Option<[u32; 4]> {
        self.names
    }

    /// Sets the name ids of [`SLICE_NAMES`].
    pub(super) fn set_names(&mut self, names: [u32; 4]) {
        self.names = Some(names);
    }

    /// Keeps `event` at `ts`; returns its index (for [`Self::stack_op`]).
    pub(super) fn push(&mut self, ts: i64, event: BinderEvent) -> u32 {
        let index = self.records.len() as u32;
        let mut earlier = NO_SECTION;
        if let BinderEvent::Transaction { debug_id, .. } = event {
            earlier = self.by_id.insert(debug_id, index).unwrap_or(NO_SECTION);
        }
        self.records.push(Record {
            ts,
            event,
            slice: NO_SECTION,
            link: NO_SECTION,
            earlier,
        });
        index
    }

    /// What event `index` does to its thread's slices (see the module doc).
    pub(super) fn stack_op(&mut self, index: u32) -> StackOp {
        let Some(names) = self.names else {
            return StackOp::Nothing;
        };
        let Some(&record) = self.records.get(index as usize) else {
            return StackOp::Nothing;
        };
        match record.event {
            BinderEvent::Transaction { reply: true, .. } => StackOp::End,
            BinderEvent::Transaction { oneway: true, .. } => StackOp::Instant(Some(names[1])),
            BinderEvent::Transaction { .. } => StackOp::Begin(Some(names[0])),
            BinderEvent::Received { debug_id } => {
                let Some(txn) = self.outstanding(debug_id, record.ts) else {
                    return StackOp::Nothing;
                };
                let sent = &mut self.records[txn as usize];
                if sent.link != NO_SECTION {
                    return StackOp::Nothing;
                }
                sent.link = index;
                let op = match sent.event {
                    BinderEvent::Transaction { reply: true, .. } => return StackOp::End,
                    BinderEvent::Transaction { oneway: true, .. } => {
                        StackOp::Instant(Some(names[3]))
                    }
                    _ => StackOp::Begin(Some(names[2])),
                };
                self.records[index as usize].link = txn;
                op
            }
        }
    }

    /// The transaction with `debug_id` waiting at `ts` in Perfetto's time-ordered walk: the latest sent by then
    /// (a later one with the same id replaces an earlier one).
    fn outstanding(&self, debug_id: i32, ts: i64) -> Option<u32> {
        let mut at = *self.by_id.get(&debug_id)?;
        let mut found: Option<(i64, u32)> = None;
        while let Some(r) = self.records.get(at as usize) {
            if r.ts <= ts && found.is_none_or(|(t, _)| r.ts >= t) {
                found = Some((r.ts, at));
            }
            at = r.earlier;
        }
        found.map(|(_, at)| at)
    }

    /// Event `index` made slice `slice` (an index into the slices as paired).
    pub(super) fn made(&mut self, index: u32, slice: u32) {
        let Some(record) = self.records.get_mut(index as usize) else {
            return;
        };
        record.slice = slice;
        if let BinderEvent::Received { .. } = record.event {
            if record.link != NO_SECTION {
                self.received.push((record.link, slice));
            }
        }
    }

    /// The flows: (transaction's slice, receiving slice), indexes into the slices as paired.
    pub(super) fn flows(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.received.iter().filter_map(|&(txn, to)| {
            let from = self.records.get(txn as usize)?.slice;
            (from != NO_SECTION).then_some((from, to))
        })
    }
}

/// One row of Perfetto's `android_binder_txns`: a transaction with its client and server slices. Perfetto's
/// ids become indexes into [`AppSections::sections`], `upid`/`utid` become pids/tids; times in ns on the trace
/// clock. Not carried: the oom scores, monotonic durations and package columns (other data sources).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct BinderTxn {
    /// The server's AIDL/HIDL slice name (`AIDL::java::IFoo::bar::server`), if any.
    pub aidl_name: Option<String>,
    /// `str_split(aidl_name, '::', 2)`: the interface of an AIDL name (a HIDL name's method).
    pub interface: Option<String>,
    /// `str_split(aidl_name, '::', 3)`: the method of an AIDL name (`server` for a HIDL name).
    pub method_name: Option<String>,
    /// Start of the AIDL slice, ns.
    pub aidl_ts: Option<i64>,
    /// Duration of the AIDL slice, ns (−1: never ended).
    pub aidl_dur: Option<i64>,
    /// The client's `binder transaction` / `binder transaction async` slice (`binder_txn_id`).
    pub binder_txn: u32,
    /// Name of the client process, if known.
    pub client_process: Option<String>,
    /// Name of the client thread, if known.
    pub client_thread: Option<String>,
    /// The client thread.
    pub client_tid: i32,
    /// The client process.
    pub client_pid: i32,
    /// The client thread is its process's main thread (tid = pid).
    pub is_main_thread: bool,
    /// Start of the client slice, ns.
    pub client_ts: i64,
    /// Duration of the client slice, ns (0 for oneway).
    pub client_dur: i64,
    /// The server's `binder reply` / `binder async rcv` slice (`binder_reply_id`).
    pub binder_reply: u32,
    /// Name of the server process, if known.
    pub server_process: Option<String>,
    /// Name of the server thread, if known.
    pub server_thread: Option<String>,
    /// The server thread.
    pub server_tid: i32,
    /// The server process.
    pub server_pid: i32,
    /// Start of the server slice, ns.
    pub server_ts: i64,
    /// Duration of the server slice, ns (0 for oneway).
    pub server_dur: i64,
    /// Synchronous (else oneway).
    pub is_sync: bool,
}

/// True for the server-side AIDL slice names `android/binder.sql` takes: `AIDL::*Server`, `AIDL::*server` or
/// `HIDL::*server` (SQL GLOB, case-sensitive).
pub fn is_aidl_server_name(name: &str) -> bool {
    let tail = |prefix: &str, suffixes: &[&str]| {
        name.strip_prefix(prefix)
            .is_some_and(|rest| suffixes.iter().any(|s| rest.ends_with(s)))
    };
    tail("AIDL::", &["Server", "server"]) || tail("HIDL::", &["server"])
}

/// Field `field` (0 first) of `s` split at `delimiter`: Perfetto's `str_split`, `None` past the last field.
pub fn str_split<'a>(s: &'a str, delimiter: &str, field: usize) -> Option<&'a str> {
    s.split(delimiter).nth(field)
}

/// Perfetto's `android_binder_txns` (stdlib `android/binder.sql`), in `binder_txn_id` order:
/// - sync: each `binder transaction` with a flow to the slice it led to (the `binder reply`), both threads'
///   processes known, neither slice unfinished, `client_dur >= server_dur`; `aidl_name` = the smallest name among
///   the reply's children matching [`is_aidl_server_name`]. (The stdlib's "broken transaction" filter drops
///   transactions with children and no outgoing flow, which the flow join drops anyway.)
/// - async: each `binder transaction async` with a flow to a `binder async rcv`, both processes known;
///   `aidl_name` = the next slice by time on the server thread among the AIDL server slices and `binder async
///   rcv` slices, unless that is a `binder async rcv`.
///
/// Only the transactions whose client slice passes `client` are made (the per-frame columns ask for those inside
/// frames; the table for all).
pub fn binder_txns(timeline: &Timeline, client: impl Fn(&Section) -> bool) -> Vec<BinderTxn> {
    let app = &timeline.app;
    let sections = &app.sections;
    let named = |i: u32, name: &str| {
        sections
            .get(i as usize)
            .is_some_and(|s| app.name(s.name) == name)
    };
    let thread_of = |i: u32| sections.get(i as usize).map(|s| s.tid);
    let flows: Vec<(u32, u32)> = app
        .flows
        .iter()
        .copied()
        .filter(|&(from, _)| sections.get(from as usize).is_some_and(&client))
        .collect();
    let servers: FxHashSet<i32> = flows.iter().filter_map(|&(_, to)| thread_of(to)).collect();
    // The servers' AIDL slices: by direct parent, and (with the async receipts) in time order per thread.
    let mut aidl_children: FxHashMap<u32, Vec<u32>> = FxHashMap::default();
    let mut async_order: FxHashMap<i32, Vec<u32>> = FxHashMap::default();
    for (i, s) in sections.iter().enumerate() {
        if !servers.contains(&s.tid) {
            continue;
        }
        let name = app.name(s.name);
        let aidl = is_aidl_server_name(name);
        if aidl || name == BINDER_ASYNC_RCV {
            async_order.entry(s.tid).or_default().push(i as u32);
        }
        let parent = sections.get(s.parent as usize);
        if aidl && parent.is_some_and(|p| p.depth + 1 == s.depth) {
            aidl_children.entry(s.parent).or_default().push(i as u32);
        }
    }
    let aidl_of = |reply: u32| -> Option<&Section> {
        let children = aidl_children.get(&reply)?;
        children
            .iter()
            .map(|&c| &sections[c as usize])
            .min_by(|a, b| app.name(a.name).cmp(app.name(b.name)))
    };
    let next_aidl = |rcv: u32| -> Option<&Section> {
        let order = async_order.get(&sections[rcv as usize].tid)?;
        let at = order.binary_search(&rcv).ok()?;
        let next = &sections[*order.get(at + 1)? as usize];
        (app.name(next.name) != BINDER_ASYNC_RCV).then_some(next)
    };
    let mut rows = Vec::new();
    for (from, to) in flows {
        let (Some(client), Some(server)) = (sections.get(from as usize), sections.get(to as usize))
        else {
            continue;
        };
        let aidl = if named(from, TRANSACTION) {
            let finished = client.dur != -1 && server.dur != -1;
            if !(finished && client.dur >= server.dur) {
                continue;
            }
            aidl_of(to)
        } else if named(to, BINDER_ASYNC_RCV) {
            next_aidl(to)
        } else {
            continue;
        };
        if let Some(row) = txn_row(timeline, app, (from, client), (to, server), aidl) {
            rows.push(row);
        }
    }
    rows.sort_by_key(|r| r.binder_txn);
    rows
}

/// The process of thread `tid`: as the trace says, or `tid` itself for a process's main thread (Perfetto's process
/// tracker makes a process's main thread with the process).
pub fn process_of(timeline: &Timeline, tid: i32) -> Option<i32> {
    let main = || timeline.process_names.contains_key(&tid).then_some(tid);
    timeline.app.pid_of(tid).or_else(main)
}

/// The row of a transaction whose client and server threads both belong to a known process.
fn txn_row(
    timeline: &Timeline,
    app: &AppSections,
    (binder_txn, client): (u32, &Section),
    (binder_reply, server): (u32, &Section),
    aidl: Option<&Section>,
) -> Option<BinderTxn> {
    let client_pid = process_of(timeline, client.tid)?;
    let server_pid = process_of(timeline, server.tid)?;
    let aidl_name = aidl.map(|a| app.name(a.name).to_string());
    let part = |field| {
        aidl_name
            .as_deref()
            .and_then(|n| str_split(n, "::", field))
            .map(str::to_string)
    };
    let process = |pid: i32| timeline.process_names.get(&pid).cloned();
    let thread = |tid: i32| app.thread_name(tid).map(str::to_string);
    Some(BinderTxn {
        interface: part(2),
        method_name: part(3),
        aidl_ts: aidl.map(|a| a.ts),
        aidl_dur: aidl.map(|a| a.dur),
        aidl_name,
        binder_txn,
        client_process: process(client_pid),
        client_thread: thread(client.tid),
        client_tid: client.tid,
        client_pid,
        is_main_thread: client.tid == client_pid,
        client_ts: client.ts,
        client_dur: client.dur,
        binder_reply,
        server_process: process(server_pid),
        server_thread: thread(server.tid),
        server_tid: server.tid,
        server_pid,
        server_ts: server.ts,
        server_dur: server.dur,
        is_sync: app.name(client.name) == TRANSACTION,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aidl_server_names_and_their_split() {
        for yes in [
            "AIDL::java::IFoo::bar::server",
            "AIDL::cpp::IFoo::bar::cppServer",
            "HIDL::IComposerClient::executeCommands_2_2::server",
            "AIDL::server",
        ] {
            assert!(is_aidl_server_name(yes), "{yes}");
        }
        for no in [
            "AIDL::java::IFoo::bar::client",
            "HIDL::IFoo::bar::Server",
            "aidl::x::server",
            "AIDL:server",
        ] {
            assert!(!is_aidl_server_name(no), "{no}");
        }
        let hidl = "HIDL::IComposerClient::executeCommands_2_2::server";
        assert_eq!(str_split(hidl, "::", 2), Some("executeCommands_2_2"));
        assert_eq!(str_split(hidl, "::", 3), Some("server"));
        assert_eq!(str_split(hidl, "::", 4), None);
    }

    #[test]
    fn receipts_take_their_transaction_once_and_only_after_it() {
        let mut p = BinderPairing::default();
        p.set_names([10, 11, 12, 13]);
        let txn = |debug_id, reply, oneway| BinderEvent::Transaction {
            debug_id,
            reply,
            oneway,
        };
        let early = p.push(5, BinderEvent::Received { debug_id: 1 });
        let sent = p.push(10, txn(1, false, false));
        let got = p.push(20, BinderEvent::Received { debug_id: 1 });
        let again = p.push(30, BinderEvent::Received { debug_id: 1 });
        let oneway = p.push(40, txn(2, false, true));
        let oneway_rcv = p.push(41, BinderEvent::Received { debug_id: 2 });
        let reply = p.push(50, txn(3, true, false));
        let reply_rcv = p.push(51, BinderEvent::Received { debug_id: 3 });
        let unknown = p.push(60, BinderEvent::Received { debug_id: 9 });
        assert_eq!(p.stack_op(early), StackOp::Nothing);
        assert_eq!(p.stack_op(sent), StackOp::Begin(Some(10)));
        assert_eq!(p.stack_op(got), StackOp::Begin(Some(12)));
        assert_eq!(p.stack_op(again), StackOp::Nothing);
        assert_eq!(p.stack_op(oneway), StackOp::Instant(Some(11)));
        assert_eq!(p.stack_op(oneway_rcv), StackOp::Instant(Some(13)));
        assert_eq!(p.stack_op(reply), StackOp::End);
        assert_eq!(p.stack_op(reply_rcv), StackOp::End);
        assert_eq!(p.stack_op(unknown), StackOp::Nothing);
        // Slices made in any order across threads: the receipt's first.
        p.made(got, 7);
        p.made(sent, 3);
        p.made(oneway_rcv, 9);
        p.made(oneway, 8);
        assert_eq!(p.flows().collect::<Vec<_>>(), [(3, 7), (8, 9)]);
    }
}
