//! `ProcessTree` (TracePacket field 2) → thread and process events, read straight from the message's bytes: a
//! tree names hundreds of threads and processes, and prost's messages would copy every `cmdline` argument into a
//! `String` of its own. Only a tree laid out as plain, well-formed protobuf is read here; anything else is left
//! to prost ([`super::proto::ProcessTree`]), whose decode then decides ([`super::plain`]). Field numbers:
//! `process_tree.proto` (google/perfetto @ ec5d16b1).

use super::event::Event;
use super::plain::{key, len_value, skip, text, varint};
use super::wire::{Bytes, LEN, VARINT};

const TREE_PROCESSES: u32 = 1;
const TREE_THREADS: u32 = 2;
const PROCESS_PID: u32 = 1;
const PROCESS_PPID: u32 = 2;
const PROCESS_CMDLINE: u32 = 3;
const PROCESS_UID: u32 = 5;
const THREAD_TID: u32 = 1;
const THREAD_NAME: u32 = 2;
const THREAD_TGID: u32 = 3;

/// Reads process trees ([`TreeReader::events`]), its two vectors reused from tree to tree: a tree's events take
/// tens of kilobytes, and vectors made afresh for each tree cost page faults and copies as they grow.
#[derive(Default)]
pub(super) struct TreeReader {
    threads: Vec<Event>,
    processes: Vec<Event>,
}

impl TreeReader {
    /// The tree's threads, then its processes named by `cmdline[0]` (as Perfetto names them): the events prost's
    /// decode of the same bytes leads to. `None` when the bytes are not that plain — a malformed field, a known
    /// field with another wire type, an overlong varint, a group, a string that is not UTF-8 — and prost must
    /// decide (it may still decode what this declines).
    pub(super) fn events(&mut self, tree: &[u8]) -> Option<impl Iterator<Item = Event> + '_> {
        let (threads, processes) = (&mut self.threads, &mut self.processes);
        threads.clear();
        processes.clear();
        let mut wire = Bytes::new(tree);
        while !wire.at_eof() {
            match key(&mut wire)? {
                (TREE_PROCESSES, LEN) => processes.extend(process(len_value(&mut wire)?)?),
                (TREE_THREADS, LEN) => threads.extend(thread(len_value(&mut wire)?)?),
                (TREE_PROCESSES | TREE_THREADS, _) => return None,
                (_, wire_type) => skip(&mut wire, wire_type)?,
            }
        }
        Some(threads.drain(..).chain(processes.drain(..)))
    }
}

/// One `Process`: an event if it has a pid and a `cmdline`; `Some(None)` if it has not.
fn process(bytes: &[u8]) -> Option<Option<Event>> {
    let mut wire = Bytes::new(bytes);
    let (mut pid, mut uid, mut name) = (None, None, None);
    while !wire.at_eof() {
        match key(&mut wire)? {
            // int32 fields: the varint's low 32 bits, as protobuf reads them.
            (PROCESS_PID, VARINT) => pid = Some(varint(&mut wire)? as i32),
            (PROCESS_UID, VARINT) => uid = Some(varint(&mut wire)? as i32),
            (PROCESS_PPID, VARINT) => drop(varint(&mut wire)?),
            (PROCESS_CMDLINE, LEN) => {
                let arg = text(&mut wire)?;
                name.get_or_insert(arg);
            }
            (PROCESS_PID | PROCESS_PPID | PROCESS_CMDLINE | PROCESS_UID, _) => return None,
            (_, wire_type) => skip(&mut wire, wire_type)?,
        }
    }
    Some(pid.zip(name).map(|(pid, name)| Event::Process {
        pid,
        name: name.to_owned(),
        uid,
    }))
}

/// One `Thread`: an event if it has a tid; `Some(None)` if it has not.
fn thread(bytes: &[u8]) -> Option<Option<Event>> {
    let mut wire = Bytes::new(bytes);
    let (mut tid, mut tgid, mut name) = (None, None, None);
    while !wire.at_eof() {
        match key(&mut wire)? {
            (THREAD_TID, VARINT) => tid = Some(varint(&mut wire)? as i32),
            (THREAD_TGID, VARINT) => tgid = Some(varint(&mut wire)? as i32),
            (THREAD_NAME, LEN) => name = Some(text(&mut wire)?),
            (THREAD_TID | THREAD_NAME | THREAD_TGID, _) => return None,
            (_, wire_type) => skip(&mut wire, wire_type)?,
        }
    }
    Some(tid.map(|tid| Event::Thread {
        tid,
        tgid,
        name: name.map(str::to_owned),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::ftrace::tests::packet_fields;
    use crate::decode::plain::tests::beside_prost;
    use crate::decode::proto;
    use prost::Message;

    /// A tree's events, read by a fresh [`TreeReader`].
    fn events(tree: &[u8]) -> Option<Vec<Event>> {
        TreeReader::default().events(tree).map(Iterator::collect)
    }

    /// What prost's decode leads to: `None` when it fails.
    fn by_prost(bytes: &[u8]) -> Option<Vec<Event>> {
        let tree = proto::ProcessTree::decode(bytes).ok()?;
        let mut events = Vec::new();
        crate::decode::staged::process_tree(tree, &mut |e| events.push(e));
        Some(events)
    }

    #[test]
    fn real_trees_read_as_prost_decodes_them() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/traces");
        let mut count = 0;
        for name in [
            "pixel6a_a13_startup_warm_60hz.perfetto-trace",
            "emulator_a12_cpu_sampling_60hz.pftrace",
            "pixel7pro_a13_nowinandroid_launch_120hz.perfetto-trace",
        ] {
            let trace = std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
            for tree in packet_fields(&trace, 2) {
                let read = events(tree);
                assert!(read.is_some(), "{name}: a real tree is plain");
                assert_eq!(read, by_prost(tree), "{name}");
                count += read.map_or(0, |e| e.len());
            }
        }
        assert!(count > 1_000, "{count}");
    }

    #[test]
    fn damaged_trees_read_as_prost_decodes_them_or_are_left_to_it() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/traces/pixel6a_a13_startup_warm_60hz.perfetto-trace");
        let trace = std::fs::read(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
        let tree = packet_fields(&trace, 2)
            .into_iter()
            .max_by_key(|t| t.len())
            .unwrap();
        let (read, declined) = beside_prost(&[tree], 3_000, 9, events, by_prost);
        assert!(
            read > 100 && declined > 100,
            "{read} read, {declined} declined"
        );
    }

    #[test]
    fn unusual_fields_are_left_to_prost() {
        // Thread { tid: 5 (as a fixed32), name "a" }: a known field with another wire type.
        let odd_type = [0x12, 0x08, 0x0d, 5, 0, 0, 0, 0x12, 0x01, b'a'];
        assert_eq!(events(&odd_type), None);
        assert_eq!(by_prost(&odd_type), None);
        // Field number 0, wire type 7, a thread overrunning the tree: prost fails on each.
        for bytes in [&[0x02, 0x00][..], &[0x0f, 0x00], &[0x12, 0x05, 0x08, 0x01]] {
            assert_eq!((events(bytes), by_prost(bytes)), (None, None), "{bytes:?}");
        }
        // Unknown fixed and length-delimited fields are skipped; a repeated pid and uid: the last wins; a
        // process without a cmdline makes no event.
        let process = [
            0x08, 0x01, 0x08, 0x02, // pid 1, then pid 2
            0x28, 0x05, 0x28, 0x06, // uid 5, then uid 6
            0x31, 0, 0, 0, 0, 0, 0, 0, 0, // field 6, fixed64
            0x3a, 0x00, // field 7, empty
            0x1a, 0x01, b'p', // cmdline ["p"]
            0x35, 1, 2, 3, 4, // field 6, fixed32
        ];
        let mut tree = vec![0x0a, process.len() as u8];
        tree.extend(process);
        tree.extend([0x0a, 0x02, 0x08, 0x09]); // Process { pid 9 }: no cmdline
        let want = vec![Event::Process {
            pid: 2,
            name: "p".into(),
            uid: Some(6),
        }];
        assert_eq!(events(&tree), Some(want.clone()));
        assert_eq!(by_prost(&tree), Some(want));
        // Thread { name: invalid UTF-8 }.
        assert_eq!(events(&[0x12, 0x03, 0x12, 0x01, 0xff]), None);
        // An unknown group field in a thread: prost skips groups, this reader leaves them to it.
        let group = [0x12, 0x04, 0x08, 0x07, 0x23, 0x24];
        assert_eq!(events(&group), None);
        assert_eq!(
            by_prost(&group),
            Some(vec![Event::Thread {
                tid: 7,
                tgid: None,
                name: None
            }])
        );
        // A tid whose tenth varint byte holds more than the 64th bit: prost rejects it.
        let mut overlong = vec![0x12, 11, 0x08];
        overlong.extend([0xff; 9]);
        overlong.push(0x02);
        assert_eq!(events(&overlong), None);
        assert_eq!(by_prost(&overlong), None);
        // Threads come first, processes keep their first cmdline argument.
        let tree = [
            0x0a, 0x08, // Process {
            0x08, 0x01, // pid 1,
            0x1a, 0x01, b'p', 0x1a, 0x01, b'q', // cmdline [p, q] }
            0x12, 0x02, 0x08, 0x02, // Thread { tid 2 }
        ];
        let want = vec![
            Event::Thread {
                tid: 2,
                tgid: None,
                name: None,
            },
            Event::Process {
                pid: 1,
                name: "p".into(),
                uid: None,
            },
        ];
        assert_eq!(events(&tree), Some(want.clone()));
        assert_eq!(by_prost(&tree), Some(want));
    }
}
