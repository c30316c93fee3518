//! Converts packet timestamps to the trace clock with the trace's `ClockSnapshot` packets, the way Perfetto's
//! `ClockTracker` does: the snapshot used is the latest one whose reading of the source clock is at or before
//! the value (the first snapshot if none is). Android 12 recorded FrameTimeline on MONOTONIC, 13+ on BOOTTIME.

use std::collections::HashMap;

/// Builtin clock id of BOOTTIME, the default trace clock (`builtin_clock.proto`).
pub const BOOTTIME: u32 = 6;

/// The snapshots seen so far and the trace clock they convert to.
#[derive(Debug, Default)]
pub struct ClockConverter {
    trace_clock: Option<u32>,
    /// Each snapshot as `(clock_id, reading_ns)` pairs, kept to re-index if the trace clock changes.
    snapshots: Vec<Vec<(u32, u64)>>,
    /// Per source clock, its readings paired with the trace clock's, for a binary search per conversion (a long
    /// trace has hundreds of snapshots and every FrameTimeline event is converted).
    index: HashMap<u32, SnapshotPairs>,
}

/// The `(source reading, trace clock reading)` pairs of one source clock, ns.
#[derive(Debug)]
struct SnapshotPairs {
    /// From the first snapshot in file order (used for values before every snapshot).
    first: (u64, u64),
    /// All of them, sorted by source reading; equal readings in file order.
    sorted: Vec<(u64, u64)>,
}

impl ClockConverter {
    /// The trace clock: `primary_trace_clock` of the snapshots, else BOOTTIME.
    pub fn trace_clock(&self) -> u32 {
        self.trace_clock.unwrap_or(BOOTTIME)
    }

    /// Records a `ClockSnapshot`.
    pub fn add_snapshot(&mut self, clocks: Vec<(u32, u64)>, primary_trace_clock: Option<u32>) {
        let before = self.trace_clock();
        if let Some(primary) = primary_trace_clock {
            self.trace_clock = Some(primary);
        }
        self.snapshots.push(clocks);
        let target = self.trace_clock();
        let from = if target == before {
            self.snapshots.len() - 1
        } else {
            self.index.clear();
            0
        };
        for snapshot in &self.snapshots[from..] {
            index_snapshot(&mut self.index, snapshot, target);
        }
    }

    /// Converts `value_ns` on `clock_id` to the trace clock, in ns; `None` if no snapshot relates the two clocks.
    pub fn to_trace(&self, clock_id: u32, value_ns: u64) -> Option<i64> {
        if clock_id == self.trace_clock() {
            return Some(saturate(i128::from(value_ns)));
        }
        let pairs = self.index.get(&clock_id)?;
        let at = pairs.sorted.partition_point(|(src, _)| *src <= value_ns);
        let (src, dst) = at
            .checked_sub(1)
            .and_then(|i| pairs.sorted.get(i))
            .copied()
            .unwrap_or(pairs.first);
        Some(saturate(
            i128::from(value_ns) - i128::from(src) + i128::from(dst),
        ))
    }
}

/// Adds one snapshot's readings (the first of each clock id in it) paired with the `target` clock's.
fn index_snapshot(index: &mut HashMap<u32, SnapshotPairs>, snapshot: &[(u32, u64)], target: u32) {
    let reading = |id: u32| snapshot.iter().find(|(c, _)| *c == id).map(|(_, ts)| *ts);
    let Some(dst) = reading(target) else {
        return;
    };
    for (i, &(clock, src)) in snapshot.iter().enumerate() {
        if clock == target || snapshot[..i].iter().any(|(c, _)| *c == clock) {
            continue;
        }
        let pairs = index.entry(clock).or_insert_with(|| SnapshotPairs {
            first: (src, dst),
            sorted: Vec::new(),
        });
        let at = pairs.sorted.partition_point(|(s, _)| *s <= src);
        pairs.sorted.insert(at, (src, dst));
    }
}

fn saturate(v: i128) -> i64 {
    i64::try_from(v).unwrap_or(if v < 0 { i64::MIN } else { i64::MAX })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MONOTONIC: u32 = 3;
    const REALTIME: u32 = 1;

    #[test]
    fn uses_the_latest_snapshot_at_or_before_the_value() {
        let mut c = ClockConverter::default();
        // BOOTTIME runs 1000 ahead of MONOTONIC, then 5000 ahead (suspend in between).
        c.add_snapshot(vec![(MONOTONIC, 100), (BOOTTIME, 1_100)], None);
        c.add_snapshot(vec![(MONOTONIC, 500), (BOOTTIME, 5_500)], None);
        assert_eq!(c.to_trace(MONOTONIC, 499), Some(1_499));
        assert_eq!(c.to_trace(MONOTONIC, 500), Some(5_500));
        assert_eq!(c.to_trace(MONOTONIC, 900), Some(5_900));
        // Before every snapshot: the first one.
        assert_eq!(c.to_trace(MONOTONIC, 10), Some(1_010));
        assert_eq!(c.to_trace(BOOTTIME, 7), Some(7));
        assert_eq!(
            c.to_trace(REALTIME, 7),
            None,
            "no snapshot relates REALTIME"
        );
    }

    #[test]
    fn out_of_order_and_equal_readings_follow_file_order() {
        let mut c = ClockConverter::default();
        c.add_snapshot(vec![(MONOTONIC, 500), (BOOTTIME, 5_500)], None);
        c.add_snapshot(vec![(MONOTONIC, 100), (BOOTTIME, 1_100)], None);
        c.add_snapshot(vec![(MONOTONIC, 500), (BOOTTIME, 6_500)], None);
        assert_eq!(c.to_trace(MONOTONIC, 200), Some(1_200));
        assert_eq!(
            c.to_trace(MONOTONIC, 600),
            Some(6_600),
            "the later of two equal readings"
        );
        assert_eq!(
            c.to_trace(MONOTONIC, 50),
            Some(5_050),
            "the first snapshot in file order"
        );
    }

    #[test]
    fn a_primary_trace_clock_reindexes_earlier_snapshots() {
        let mut c = ClockConverter::default();
        c.add_snapshot(
            vec![(MONOTONIC, 100), (BOOTTIME, 1_100), (REALTIME, 9_100)],
            None,
        );
        c.add_snapshot(vec![(MONOTONIC, 200), (REALTIME, 9_300)], Some(REALTIME));
        assert_eq!(c.trace_clock(), REALTIME);
        assert_eq!(c.to_trace(MONOTONIC, 150), Some(9_150));
        assert_eq!(c.to_trace(MONOTONIC, 250), Some(9_350));
        assert_eq!(c.to_trace(BOOTTIME, 1_200), Some(9_200));
    }
}
