//! What the ftrace events of a whole trace say about threads, and each `FtraceEventBundle` turned into items
//! ([`FtraceReader`]): atrace lines parsed, thread names from `task_newtask` / `task_rename`, and the
//! scheduler's names of the threads that wrote a kept section.

use super::atrace::{self, Atrace, Parsed};
use super::ftrace::{self, FtraceItem};
use rustc_hash::FxHashMap;

/// Which atrace `B` names to copy (see [`super::decode_keeping`]).
pub(super) type KeepName<'k> = &'k dyn Fn(&[u8]) -> bool;

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
