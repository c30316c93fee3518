//! The ftrace side of a trace read on a thread of its own: [`FtraceReader`] turns each `FtraceEventBundle` into
//! owned items (atrace lines parsed, thread names), and [`FtraceLane`] sends bundles to it and gives their items
//! back to the packet decoder in packet order, holding back the events of later packets until the bundles before
//! them are in. The walk and the atrace parse are most of an atrace-heavy trace's decoding; on their own thread
//! they run beside the packet framing and the model.

use super::atrace::{self, Atrace, Parsed};
use super::event::Event;
use super::ftrace::{self, FtraceItem};
use rustc_hash::FxHashMap;
use std::collections::VecDeque;
use std::sync::mpsc::{self, Receiver, Sender};

/// Bundle bytes in flight before the decoder waits for the ftrace thread: a few batches, to keep it busy, small
/// beside the model (Perfetto's bundles are a few KiB to a few hundred KiB).
const MAX_BYTES_IN_FLIGHT: usize = 4 * BATCH_BYTES;
/// Bundle bytes sent to the ftrace thread at once.
const BATCH_BYTES: usize = 64 << 10;

/// Which atrace `B` names to copy (see [`super::decode_keeping`]); shared with the ftrace thread.
pub(super) type KeepName<'k> = &'k (dyn Fn(&[u8]) -> bool + Sync);

/// What one bundle gave.
pub(super) struct Bundle {
    /// The builtin clock id of its timestamps; `None` for an ftrace clock ftl cannot convert.
    pub clock: Option<u32>,
    /// Its atrace lines (kept ones) and thread names, in bundle order.
    pub items: Vec<Item>,
    /// `print` events read.
    pub lines: u64,
    /// `print` events that are not atrace lines.
    pub parse_failures: u64,
    /// The bundle was not valid protobuf (nothing of it is kept).
    pub malformed: bool,
}

/// One thing a bundle says.
pub(super) enum Item {
    /// A thread's new name: `task_newtask`, `task_rename`, or (`scheduler`) a scheduler comm that changes it.
    ThreadName {
        tid: i32,
        name: String,
        scheduler: bool,
    },
    /// An atrace line `tid` wrote at raw timestamp `ts` (on [`Bundle::clock`]).
    Atrace { ts: u64, tid: i32, event: Atrace },
}

/// Reads bundles in trace order, keeping what the ftrace events of the whole trace say about threads.
pub(super) struct FtraceReader<'k> {
    keep_name: KeepName<'k>,
    /// The last ftrace name given per thread (scheduler names are emitted when they change it).
    comms: FxHashMap<i32, String>,
    /// Threads that wrote a section the model keeps (a few): the ones whose scheduler names are read.
    named_writers: Vec<i32>,
}

impl<'k> FtraceReader<'k> {
    pub(super) fn new(keep_name: KeepName<'k>) -> Self {
        FtraceReader {
            keep_name,
            comms: Default::default(),
            named_writers: Default::default(),
        }
    }

    /// The atrace lines and thread names of one bundle, in `items` (a vector to reuse, cleared first).
    pub(super) fn bundle(&mut self, bytes: &[u8], mut items: Vec<Item>) -> Bundle {
        items.clear();
        let (mut lines, mut parse_failures) = (0, 0);
        let mut new_writers = Vec::new();
        let mut names_given = false;
        let keep_name = self.keep_name;
        // The scheduler's names only of the threads that wrote a kept section (a DrawFrame's RenderThread): they
        // are what the names are for, and the scheduler's events cost little then. The set stays as it is for
        // the whole bundle.
        let names = (!self.named_writers.is_empty()).then_some(&self.named_writers[..]);
        let walked = ftrace::walk(bytes, names, &mut |item| match item {
            FtraceItem::Print { ts, tid, buf } => {
                lines += 1;
                match atrace::parse(buf, keep_name) {
                    Parsed::Kept(event) => {
                        if matches!(&event, Atrace::Begin { name, .. } if !name.is_empty()) {
                            new_writers.push(tid);
                        }
                        items.push(Item::Atrace { ts, tid, event });
                    }
                    Parsed::Unused => {}
                    Parsed::Invalid => parse_failures += 1,
                }
            }
            FtraceItem::ThreadName { tid, name } => {
                names_given = true;
                let scheduler = false;
                items.push(Item::ThreadName {
                    tid,
                    name,
                    scheduler,
                });
            }
            FtraceItem::Comm { tid, comm } => {
                names_given = true;
                let name = String::from_utf8_lossy(comm).into_owned();
                let scheduler = true;
                items.push(Item::ThreadName {
                    tid,
                    name,
                    scheduler,
                });
            }
        });
        let clock = match walked {
            Ok(clock) => clock,
            Err(_) => {
                items.clear();
                return Bundle {
                    clock: None,
                    items,
                    lines: 0,
                    parse_failures: 0,
                    malformed: true,
                };
            }
        };
        for tid in new_writers {
            if !self.named_writers.contains(&tid) {
                self.named_writers.push(tid);
            }
        }
        if names_given {
            // The latest ftrace name of each thread, whichever event gave it; a scheduler name only when it
            // changes it.
            items.retain(|item| match item {
                Item::ThreadName {
                    tid,
                    name,
                    scheduler,
                } => {
                    let unchanged = self.comms.get(tid) == Some(name);
                    if !unchanged {
                        self.comms.insert(*tid, name.clone());
                    }
                    !(unchanged && *scheduler)
                }
                Item::Atrace { .. } => true,
            });
        }
        Bundle {
            clock,
            items,
            lines,
            parse_failures,
            malformed: false,
        }
    }
}

/// A place in the decoder's output: a bundle on the ftrace thread, or events of the packets after it.
enum Slot {
    Bundle(usize),
    Events(Vec<Event>),
}

/// What [`FtraceLane::next_ready`] hands back.
pub(super) enum Ready {
    /// Events of packets read after the bundles before them, to go to the sink now.
    Events(Vec<Event>),
    /// A bundle's items, to go to the sink now.
    Bundle(Bundle),
}

/// The decoder's end of the ftrace thread: bundles out in batches, their [`Bundle`]s back, and the output
/// order.
pub(super) struct FtraceLane {
    to_thread: Sender<Vec<Vec<u8>>>,
    from_thread: Receiver<Vec<Bundle>>,
    /// Item vectors handed back for the thread to fill again.
    recycle: Sender<Vec<Item>>,
    /// Bundles not sent yet: they go in batches, so that the thread is woken once per batch, not per bundle.
    batch: Vec<Vec<u8>>,
    batch_bytes: usize,
    /// Bundles read back, not handed over yet.
    received: VecDeque<Bundle>,
    slots: VecDeque<Slot>,
    bytes_in_flight: usize,
}

impl FtraceLane {
    /// Starts the ftrace thread in `scope`; it ends when the lane is dropped.
    pub(super) fn start<'scope, 'k: 'scope>(
        scope: &'scope std::thread::Scope<'scope, '_>,
        keep_name: KeepName<'k>,
    ) -> Self {
        let (to_thread, batches) = mpsc::channel::<Vec<Vec<u8>>>();
        let (to_decoder, from_thread) = mpsc::channel();
        let (recycle, recycled) = mpsc::channel();
        scope.spawn(move || {
            let mut reader = FtraceReader::new(keep_name);
            for batch in batches {
                let read = batch
                    .iter()
                    .map(|bytes| reader.bundle(bytes, recycled.try_recv().unwrap_or_default()))
                    .collect();
                if to_decoder.send(read).is_err() {
                    return;
                }
            }
        });
        FtraceLane {
            to_thread,
            from_thread,
            recycle,
            batch: Vec::new(),
            batch_bytes: 0,
            received: VecDeque::new(),
            slots: VecDeque::new(),
            bytes_in_flight: 0,
        }
    }

    /// True when nothing is held back: an event can go straight to the sink.
    pub(super) fn is_idle(&self) -> bool {
        self.slots.is_empty()
    }

    /// Holds `event` back behind the bundles in flight.
    pub(super) fn hold(&mut self, event: Event) {
        match self.slots.back_mut() {
            Some(Slot::Events(events)) => events.push(event),
            _ => self.slots.push_back(Slot::Events(vec![event])),
        }
    }

    /// Hands a bundle's emptied item vector back to the ftrace thread.
    pub(super) fn recycle(&self, items: Vec<Item>) {
        // The thread may have ended (it ends when the lane is dropped): the vector is then dropped.
        let _ = self.recycle.send(items);
    }

    /// Queues a bundle for the ftrace thread; its place in the output is here.
    pub(super) fn send(&mut self, bytes: Vec<u8>) {
        self.bytes_in_flight += bytes.len();
        self.batch_bytes += bytes.len();
        self.slots.push_back(Slot::Bundle(bytes.len()));
        self.batch.push(bytes);
        if self.batch_bytes >= BATCH_BYTES {
            self.flush();
        }
    }

    /// Sends the queued bundles to the ftrace thread.
    fn flush(&mut self) {
        if !self.batch.is_empty() {
            self.batch_bytes = 0;
            // The thread holds the receiver until the lane is dropped.
            let _ = self.to_thread.send(std::mem::take(&mut self.batch));
        }
    }

    /// The next thing at the front of the output, in order, if ready: held events, or a bundle's items. With
    /// `all`, waits for every bundle in flight; otherwise only while too many bytes are in flight.
    pub(super) fn next_ready(&mut self, all: bool) -> Option<Ready> {
        match self.slots.pop_front()? {
            Slot::Events(held) => Some(Ready::Events(held)),
            Slot::Bundle(len) => {
                if self.received.is_empty() {
                    let read = if all || self.bytes_in_flight > MAX_BYTES_IN_FLIGHT {
                        self.flush();
                        self.from_thread.recv().ok()
                    } else {
                        self.from_thread.try_recv().ok()
                    };
                    self.received.extend(read.into_iter().flatten());
                }
                match self.received.pop_front() {
                    Some(bundle) => {
                        self.bytes_in_flight -= len;
                        Some(Ready::Bundle(bundle))
                    }
                    None => {
                        self.slots.push_front(Slot::Bundle(len));
                        None
                    }
                }
            }
        }
    }
}
