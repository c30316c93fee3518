//! What the packet walk hands on, in batches: finished events, the atrace lines it triaged whole, and the lines,
//! FrameTimeline events and process trees it leaves for the batch's taker to read ([`Finisher`]) — in
//! [`super::decode_beside`] that taker is the model's thread, which would otherwise wait on the decoding one.

use super::atrace::{self, Triage};
use super::event::Event;
use super::proto;
use super::DecodeSummary;
use super::{frame_timeline, tree};
use prost::Message;
use std::collections::BTreeSet;

/// A batch is handed on once it holds this many events and things to parse … (Small: the six batches in flight
/// fall at a FrameTimeline-dense trace's peak, the end of decoding, and twice these bounds cost 2.4 MB there
/// with no gain in speed.)
const BATCH_ITEMS: usize = 2048;
/// … or this many bytes of lines, FrameTimeline events and process trees.
const BATCH_BYTES: usize = 128 * 1024;

/// Something the batch's taker parses (its bytes are `bytes[at..at + len]` of the batch), or an atrace line the
/// walk triaged whole.
enum Unparsed {
    /// An atrace line written by `tid` at `ts_ns` on the trace clock, whose [`Triage::atrace`] is its event.
    Triaged { ts_ns: i64, tid: i32, line: Triage },
    /// An atrace line written by `tid` at `ts_ns` on the trace clock.
    Line {
        ts_ns: i64,
        tid: i32,
        at: usize,
        len: usize,
    },
    /// A `ProcessTree` message.
    ProcessTree { at: usize, len: usize },
    /// A `FrameTimelineEvent` message at `ts_ns` on the trace clock, recorded on `clock`.
    FrameTimeline {
        ts_ns: i64,
        clock: u32,
        at: usize,
        len: usize,
    },
}

/// What the walk found, in trace order: the finished events and the things to parse are kept apart (a line
/// takes 32 bytes, an event 144), each event with the number of things to parse found before it.
#[derive(Default)]
pub(super) struct Batch {
    events: Vec<(usize, Event)>,
    unparsed: Vec<Unparsed>,
    bytes: Vec<u8>,
}

impl Batch {
    /// Adds a finished event; true when the batch is full and should be handed on.
    pub(super) fn event(&mut self, event: Event) -> bool {
        self.events.push((self.unparsed.len(), event));
        self.is_full()
    }

    /// Adds an atrace line: as its triage when that is its whole event, else copied; true when the batch is full.
    pub(super) fn line(&mut self, ts_ns: i64, tid: i32, line: &[u8], triage: Triage) -> bool {
        let unparsed = match triage {
            Triage::End { .. } | Triage::Unnamed { .. } => Unparsed::Triaged {
                ts_ns,
                tid,
                line: triage,
            },
            Triage::Named | Triage::Unused | Triage::Other => {
                let (at, len) = self.copy(line);
                Unparsed::Line {
                    ts_ns,
                    tid,
                    at,
                    len,
                }
            }
        };
        self.unparsed.push(unparsed);
        self.is_full()
    }

    /// Adds a `FrameTimelineEvent` message (copied) whose packet time is `ts_ns` on the trace clock, recorded on
    /// `clock`; true when the batch is full.
    pub(super) fn frame_timeline(&mut self, ts_ns: i64, clock: u32, message: &[u8]) -> bool {
        let (at, len) = self.copy(message);
        self.unparsed.push(Unparsed::FrameTimeline {
            ts_ns,
            clock,
            at,
            len,
        });
        self.is_full()
    }

    /// Adds a `ProcessTree` message (copied); true when the batch is full.
    pub(super) fn process_tree(&mut self, message: &[u8]) -> bool {
        let (at, len) = self.copy(message);
        self.unparsed.push(Unparsed::ProcessTree { at, len });
        self.is_full()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.events.is_empty() && self.unparsed.is_empty()
    }

    fn is_full(&self) -> bool {
        self.events.len() + self.unparsed.len() >= BATCH_ITEMS || self.bytes.len() >= BATCH_BYTES
    }

    fn copy(&mut self, bytes: &[u8]) -> (usize, usize) {
        let at = self.bytes.len();
        self.bytes.extend_from_slice(bytes);
        (at, bytes.len())
    }
}

/// Turns batches into events: parses their atrace lines ([`atrace::parse`] with the decoder's `keep_name`, which
/// must be the one the lines were triaged with) and reads their FrameTimeline events and process trees, counting
/// what fails and the FrameTimeline clocks for the [`DecodeSummary`].
pub(super) struct Finisher<'k> {
    keep_name: &'k dyn Fn(&[u8]) -> bool,
    atrace_parse_failures: u64,
    malformed_packets: u64,
    frame_timeline_clock_ids: BTreeSet<u32>,
    /// The clock of the last FrameTimeline event read (in `frame_timeline_clock_ids`).
    last_clock_id: Option<u32>,
    /// The events vector [`Finisher::parse_in_place`] last took out of a batch, kept for the next one.
    spare: Vec<(usize, Event)>,
    trees: tree::TreeReader,
    layer_names: frame_timeline::LayerNames,
}

impl<'k> Finisher<'k> {
    pub(super) fn new(keep_name: &'k dyn Fn(&[u8]) -> bool) -> Self {
        Finisher {
            keep_name,
            atrace_parse_failures: 0,
            malformed_packets: 0,
            frame_timeline_clock_ids: BTreeSet::new(),
            last_clock_id: None,
            spare: Vec::new(),
            trees: tree::TreeReader::default(),
            layer_names: Default::default(),
        }
    }

    /// Gives `sink` the batch's events in order and leaves the batch empty (its memory kept for reuse).
    pub(super) fn finish(&mut self, batch: &mut Batch, sink: &mut dyn FnMut(Event)) {
        let Batch {
            events,
            unparsed,
            bytes,
        } = batch;
        let mut parsed = 0;
        for (before, event) in events.drain(..) {
            for u in &unparsed[parsed..before] {
                self.parse(u, bytes, sink);
            }
            parsed = before;
            sink(event);
        }
        for u in &unparsed[parsed..] {
            self.parse(u, bytes, sink);
        }
        unparsed.clear();
        bytes.clear();
    }

    /// Parses the batch's lines and process trees where it is, leaving finished events only: the decoding thread
    /// does this to a batch when the taker is behind, so that the two threads share whichever load is heavier.
    pub(super) fn parse_in_place(&mut self, batch: &mut Batch) {
        if batch.unparsed.is_empty() {
            return;
        }
        let mut events = std::mem::take(&mut self.spare);
        events.reserve(batch.events.len() + batch.unparsed.len());
        self.finish(batch, &mut |event| events.push((0, event)));
        // The batch's own vector, emptied, serves the next batch parsed here.
        self.spare = std::mem::replace(&mut batch.events, events);
    }

    fn parse(&mut self, unparsed: &Unparsed, bytes: &[u8], sink: &mut dyn FnMut(Event)) {
        match *unparsed {
            Unparsed::Triaged { ts_ns, tid, line } => {
                if let Some(event) = line.atrace() {
                    sink(Event::Atrace { ts_ns, tid, event });
                }
            }
            Unparsed::Line {
                ts_ns,
                tid,
                at,
                len,
            } => {
                let parsed = atrace::parse(&bytes[at..at + len], self.keep_name);
                if let Some(event) = parsed.kept(&mut self.atrace_parse_failures) {
                    sink(Event::Atrace { ts_ns, tid, event });
                }
            }
            Unparsed::FrameTimeline {
                ts_ns,
                clock,
                at,
                len,
            } => match frame_timeline::decode(&bytes[at..at + len], &mut self.layer_names) {
                Some(event) => {
                    // A trace records its FrameTimeline events on one clock: the set is touched only when
                    // the clock changes.
                    if self.last_clock_id != Some(clock) {
                        self.frame_timeline_clock_ids.insert(clock);
                        self.last_clock_id = Some(clock);
                    }
                    sink(Event::FrameTimeline { ts_ns, event });
                }
                None => self.malformed_packets += 1,
            },
            Unparsed::ProcessTree { at, len } => {
                let bytes = &bytes[at..at + len];
                match self.trees.events(bytes) {
                    Some(events) => events.for_each(sink),
                    None => match proto::ProcessTree::decode(bytes) {
                        Ok(tree) => process_tree(tree, sink),
                        Err(_) => self.malformed_packets += 1,
                    },
                }
            }
        }
    }

    /// Adds what failed here to the decoder's summary.
    pub(super) fn count_into(&self, summary: &mut DecodeSummary) {
        summary.atrace_parse_failures += self.atrace_parse_failures;
        summary.malformed_packets += self.malformed_packets;
        summary
            .frame_timeline_clock_ids
            .extend(&self.frame_timeline_clock_ids);
    }
}

/// A process tree's threads, then its processes (named by `cmdline[0]`, as Perfetto names them): prost's
/// reading of a tree [`tree::TreeReader::events`] leaves to it.
pub(super) fn process_tree(tree: proto::ProcessTree, sink: &mut dyn FnMut(Event)) {
    for t in tree.threads {
        if let Some(tid) = t.tid {
            sink(Event::Thread {
                tid,
                tgid: t.tgid,
                name: t.name,
            });
        }
    }
    for p in tree.processes {
        if let (Some(pid), Some(name)) = (p.pid, p.cmdline.into_iter().next()) {
            sink(Event::Process {
                pid,
                name,
                uid: p.uid,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::{Atrace, FrameTimelineEvent};

    /// Only DrawFrame names are kept.
    fn keep(name: &[u8]) -> bool {
        name.starts_with(b"DrawFrame")
    }

    /// Adds `text` as the walk does: triaged, then copied unless its triage settled it.
    fn line(batch: &mut Batch, ts_ns: i64, tid: i32, text: &[u8]) -> bool {
        batch.line(ts_ns, tid, text, atrace::triage(text, &keep))
    }

    fn named(tid: i32, name: &str) -> Event {
        Event::ThreadName {
            tid,
            name: name.into(),
        }
    }

    #[test]
    fn finishing_parses_lines_decodes_trees_and_counts_failures() {
        let mut batch = Batch::default();
        line(&mut batch, 9, 2, b"E|4");
        batch.event(named(1, "a"));
        line(&mut batch, 10, 2, b"E|3\n");
        line(&mut batch, 11, 2, b"C|3|counter|1");
        line(&mut batch, 12, 2, b"no bars");
        line(&mut batch, 13, 2, b"B|3|inflate");
        line(&mut batch, 14, 2, b"B|3|DrawFrame 7");
        batch.process_tree(&[0xff, 0xff]);
        // Thread { tid: 7 } with an unknown group field: the plain reader declines it, prost reads it.
        batch.process_tree(&[0x12, 0x04, 0x08, 0x07, 0x23, 0x24]);
        // FrameEnd { cookie: 7 } recorded on clock 6, then a member overrunning its message recorded on clock 3.
        batch.frame_timeline(15, 6, &[0x2a, 0x02, 0x08, 0x07]);
        batch.frame_timeline(16, 3, &[0x2a, 0x05, 0x08]);
        let mut finisher = Finisher::new(&keep);
        let mut events = Vec::new();
        finisher.finish(&mut batch, &mut |e| events.push(e));
        assert_eq!(
            events,
            [
                Event::Atrace {
                    ts_ns: 9,
                    tid: 2,
                    event: Atrace::End { tgid: 4 }
                },
                named(1, "a"),
                Event::Atrace {
                    ts_ns: 10,
                    tid: 2,
                    event: Atrace::End { tgid: 3 }
                },
                Event::Atrace {
                    ts_ns: 13,
                    tid: 2,
                    event: Atrace::Begin {
                        tgid: 3,
                        name: String::new()
                    }
                },
                Event::Atrace {
                    ts_ns: 14,
                    tid: 2,
                    event: Atrace::Begin {
                        tgid: 3,
                        name: "DrawFrame 7".into()
                    }
                },
                Event::Thread {
                    tid: 7,
                    tgid: None,
                    name: None
                },
                Event::FrameTimeline {
                    ts_ns: 15,
                    event: FrameTimelineEvent::End { cookie: Some(7) }
                },
            ]
        );
        assert!(batch.is_empty() && batch.bytes.is_empty());
        assert!(!Batch::default().event(named(1, "a")));
        let mut summary = DecodeSummary::default();
        finisher.count_into(&mut summary);
        assert_eq!(
            (summary.atrace_parse_failures, summary.malformed_packets),
            (1, 2)
        );
        // Only the clock of an event read counts as a FrameTimeline clock.
        assert_eq!(summary.frame_timeline_clock_ids, BTreeSet::from([6]));
    }

    #[test]
    fn parsing_in_place_gives_the_same_events_later() {
        let fill = |batch: &mut Batch| {
            line(batch, 1, 2, b"B|3|DrawFrame 1");
            batch.event(named(2, "b"));
            line(batch, 2, 2, b"bad");
            line(batch, 3, 2, b"E|3");
        };
        let (mut direct, mut first) = (Batch::default(), Batch::default());
        fill(&mut direct);
        fill(&mut first);
        let mut finisher = Finisher::new(&keep);
        let mut want = Vec::new();
        finisher.finish(&mut direct, &mut |e| want.push(e));
        let mut early = Finisher::new(&keep);
        early.parse_in_place(&mut first);
        assert!(first.unparsed.is_empty() && first.bytes.is_empty());
        let mut later = Finisher::new(&keep);
        let mut got = Vec::new();
        later.finish(&mut first, &mut |e| got.push(e));
        assert_eq!(got, want);
        assert_eq!(want.len(), 3);
        let counts = |f: &Finisher| {
            let mut summary = DecodeSummary::default();
            f.count_into(&mut summary);
            summary.atrace_parse_failures
        };
        assert_eq!(
            (counts(&early), counts(&later), counts(&finisher)),
            (1, 0, 1)
        );
    }

    #[test]
    fn a_batch_is_full_at_its_item_or_byte_bound() {
        let mut batch = Batch::default();
        assert!((1..BATCH_ITEMS).all(|i| !line(&mut batch, i as i64, 1, b"E")));
        assert!(line(&mut batch, 0, 1, b"E"), "item bound");
        assert!(batch.bytes.is_empty(), "E lines are not copied");
        let mut batch = Batch::default();
        assert!(!line(&mut batch, 0, 1, &[b'C'; BATCH_BYTES - 1]));
        assert!(line(&mut batch, 0, 1, b"C"), "byte bound");
    }
}
