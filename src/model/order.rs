//! [`TsOrder`]: keeps timestamped records in timestamp order while they arrive (stable on ties), so that the
//! model starts pairing without a whole-vector sort, and hands them out in that order while freeing their memory.
//!
//! FrameTimeline events arrive almost sorted: SurfaceFlinger writes a frame's events when its present fence
//! signals, a few vsyncs after they started. So each run of [`RUN`] new records is gathered apart and sorted on
//! its own (on the model's thread while the decoder still reads), then merged into the sorted prefix, of which
//! only the few records newer than the run's oldest move. The prefix's older records, which no later run
//! should reach back to, can be handed out early ([`TsOrder::drain_settled`]) so that the model pairs them while
//! the decoder still reads; a record arriving older than one handed out is noticed ([`TsOrder::broken`]).

use std::collections::VecDeque;

/// Records sorted at a time.
const RUN: usize = 8192;

/// A run reaching further back than this many records stops the incremental order: [`TsOrder::into_ascending`]
/// then sorts everything once, so that a trace whose events arrive far out of order costs one sort, not one
/// long merge per run.
const MAX_OVERLAP: usize = 16 * RUN;

/// Records handed out between two releases of the memory they held.
const RELEASE_EVERY: usize = 1 << 16;

/// Records of the sorted prefix [`TsOrder::drain_settled`] keeps back: a later run reaching back further than
/// this (real traces reach back a few hundred records) breaks the early order.
const DRAIN_LAG: usize = 4 * RUN;

/// Timestamped records, kept sorted by timestamp as they are pushed (ties in push order).
#[derive(Debug)]
pub struct TsOrder<T> {
    /// The records merged and not handed out yet, in order; once not `incremental`, the later ones follow in push
    /// order (sorted only at the end). A ring: records handed out leave its front without moving the rest.
    items: VecDeque<(i64, T)>,
    /// The run being gathered, in push order: sorted and merged into `items` once it holds [`RUN`] records, so
    /// that each record is written twice (here, then in place) rather than sorted where it lies.
    run: Vec<(i64, T)>,
    /// Records pushed in all.
    pushed: usize,
    /// Timestamp of the last record handed out early.
    frontier: Option<i64>,
    /// A record arrived older than one handed out early.
    broken: bool,
    /// False once a run reached further back than [`MAX_OVERLAP`]: the rest waits for one whole sort.
    incremental: bool,
    /// The run's order while it is merged ([`run_order`]).
    keys: Vec<u64>,
}

impl<T> Default for TsOrder<T> {
    fn default() -> Self {
        TsOrder {
            items: VecDeque::new(),
            run: Vec::new(),
            pushed: 0,
            frontier: None,
            broken: false,
            incremental: true,
            keys: Vec::new(),
        }
    }
}

impl<T: Copy> TsOrder<T> {
    /// Number of records pushed.
    pub fn len(&self) -> usize {
        self.pushed
    }

    /// True when a record arrived older than one [`TsOrder::drain_settled`] handed out: the records handed out
    /// so far were not the oldest, and whatever was built from them in order is wrong.
    pub fn broken(&self) -> bool {
        self.broken
    }

    /// Adds a record at `ts`.
    pub fn push(&mut self, ts: i64, item: T) {
        self.pushed += 1;
        // Ties keep push order: a record at the frontier's timestamp goes after those handed out.
        if self.frontier.is_some_and(|f| ts < f) {
            self.broken = true;
        }
        if !self.incremental {
            self.items.push_back((ts, item));
            return;
        }
        self.run.push((ts, item));
        if self.run.len() >= RUN {
            self.settle();
        }
    }

    /// Hands `take` the oldest records, in order, when a run has just been merged, keeping the newest
    /// [`DRAIN_LAG`] back; does nothing otherwise. They are the first records [`TsOrder::into_ascending`] would
    /// have given, unless a record older than the last of them arrives later ([`TsOrder::broken`]).
    pub fn drain_settled(&mut self, mut take: impl FnMut(i64, T)) {
        if !self.incremental || !self.run.is_empty() {
            return;
        }
        let end = self.items.len().saturating_sub(DRAIN_LAG);
        let mut last = None;
        for (ts, item) in self.items.drain(..end) {
            take(ts, item);
            last = Some(ts);
        }
        if last.is_some() {
            self.frontier = last;
        }
    }

    /// Sorts the run and merges it into the records merged so far: only those newer than the run's oldest move.
    fn settle(&mut self) {
        run_order(&self.run, &mut self.keys);
        let Some(&(oldest, _)) = self.keys.first().map(|&k| &self.run[place(k)]) else {
            return;
        };
        // Merged records at `oldest` stay before the run's: they were pushed first.
        let from = self.items.partition_point(|(ts, _)| *ts <= oldest);
        if self.items.len() - from > MAX_OVERLAP {
            self.incremental = false;
            self.items.extend(self.run.drain(..));
            return;
        }
        let older = self.items.split_off(from);
        let mut older = older.into_iter().peekable();
        let mut keys = self.keys.iter();
        // Interleaved while merged records newer than the run's next remain (a few); then one of the two is
        // empty and the other follows whole.
        while older.peek().is_some() {
            let Some(&key) = keys.next() else { break };
            let record = self.run[place(key)];
            while let Some(o) = older.next_if(|(ts, _)| *ts <= record.0) {
                self.items.push_back(o);
            }
            self.items.push_back(record);
        }
        let run = &self.run;
        self.items.extend(keys.map(|&key| run[place(key)]));
        self.items.extend(older);
        self.run.clear();
    }

    /// The records not handed out yet, in timestamp order (stable), each one's memory released soon after it is
    /// handed out.
    pub fn into_ascending(mut self) -> Ascending<T> {
        if self.incremental {
            self.settle();
        }
        let mut items = Vec::from(self.items);
        if !self.incremental {
            items.sort_by_key(|(ts, _)| *ts);
        }
        // Reversed, the order is a stack: popping it hands out ascending timestamps, ties in push order.
        items.reverse();
        items.shrink_to_fit();
        Ascending(items)
    }
}

/// Bits of a run key that hold the record's place in its run.
const PLACE_BITS: u32 = 13;
const _: () = assert!(RUN <= 1 << PLACE_BITS);

/// The order of `run` (at most [`RUN`] records) by timestamp, stable, as `keys` whose low [`PLACE_BITS`] are the
/// records' places: an unstable sort of integer keys that are unique (the place breaks ties, [`run_key`]), cheaper
/// than moving the records through a stable sort's merges, and one 64-bit integer compares faster than a
/// (timestamp, place) pair (about half the sorting time on FrameTimeline-dense runs). A run spanning 2⁵¹ ns (26
/// days) or more, whose keys would not fit, has its places stably sorted by timestamp instead.
fn run_order<T>(run: &[(i64, T)], keys: &mut Vec<u64>) {
    keys.clear();
    let Some(oldest) = run.iter().map(|(ts, _)| *ts).min() else {
        return;
    };
    let newest = run.iter().map(|(ts, _)| *ts).max().unwrap_or(oldest);
    if newest.abs_diff(oldest) >> (64 - PLACE_BITS) != 0 {
        keys.extend(0..run.len() as u64);
        keys.sort_by_key(|&place| run[place as usize].0);
        return;
    }
    keys.extend(
        run.iter()
            .zip(0u32..)
            .map(|((ts, _), place)| run_key(ts.abs_diff(oldest), place)),
    );
    sort_keys(keys);
}

/// Moves an insertion sort may make per item before [`sort_nearly_sorted_by_key`] hands the rest to the standard
/// library's sort: about 8 instructions each (on the dense replica a run of keys sorts in 86 per key against 118
/// for the standard sort), so that items far out of order cost at most about twice the sort.
const SHIFTS_PER_KEY: usize = 16;

/// Sorts `keys` ([`sort_nearly_sorted_by_key`]): FrameTimeline events arrive a few places from theirs
/// (SurfaceFlinger writes a frame's start and end events as it learns of them: on the dense replica 39 % of events
/// are older than the one before, and a run of [`RUN`] holds 8.6 inversions per event). The keys are unique, so
/// the stable order is the one sorted order.
fn sort_keys(keys: &mut [u64]) {
    sort_nearly_sorted_by_key(keys, |k| k);
}

/// Sorts `items` by `key`, stably: by insertion while the items lie a few places from where they belong, else,
/// once the moves exceed [`SHIFTS_PER_KEY`] per item, by the standard library's stable sort (from the partly
/// sorted state, which keeps equal keys in their first order). Items in order cost one comparison each.
pub(crate) fn sort_nearly_sorted_by_key<T: Copy, K: Ord>(items: &mut [T], key: impl Fn(T) -> K) {
    let mut budget = items.len() * SHIFTS_PER_KEY;
    for i in 1..items.len() {
        let item = items[i];
        let k = key(item);
        let mut hole = i;
        while hole > 0 && key(items[hole - 1]) > k {
            if budget == 0 {
                items[hole] = item;
                items.sort_by_key(|&x| key(x));
                return;
            }
            budget -= 1;
            items[hole] = items[hole - 1];
            hole -= 1;
        }
        items[hole] = item;
    }
}

/// The place in its run of the record of a [`run_order`] key.
fn place(key: u64) -> usize {
    (key & ((1 << PLACE_BITS) - 1)) as usize
}

/// A record's sort key in its run: its time after the run's oldest (below 2⁵¹ ns) in the high bits, its place in
/// the run in the low [`PLACE_BITS`].
fn run_key(since_oldest_ns: u64, place: u32) -> u64 {
    (since_oldest_ns << PLACE_BITS) | u64::from(place)
}

/// The records of a [`TsOrder`] in order; the vector holding them shrinks as they are taken.
#[derive(Debug)]
pub struct Ascending<T>(Vec<(i64, T)>);

impl<T> Iterator for Ascending<T> {
    type Item = (i64, T);

    fn next(&mut self) -> Option<Self::Item> {
        let item = self.0.pop()?;
        if self.0.len().is_multiple_of(RELEASE_EVERY) {
            self.0.shrink_to_fit();
        }
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.0.len(), Some(self.0.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    #[test]
    fn keys_sort_whether_nearly_sorted_or_not() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for len in [0, 1, 2, 100, RUN] {
            // Each key displaced by up to `reach` places; the largest reaches exhaust the insertion budget.
            for reach in [0, 1, 17, 300, len] {
                let mut keys: Vec<u64> = (0..len as u64)
                    .map(|i| i + rng.random_range(0..=reach as u64) * 2)
                    .map(|k| k << PLACE_BITS)
                    .zip(0u64..)
                    .map(|(k, place)| k | place)
                    .collect();
                let mut expected = keys.clone();
                expected.sort_unstable();
                sort_keys(&mut keys);
                assert_eq!(keys, expected, "len {len}, reach {reach}");
            }
        }
    }

    #[test]
    fn nearly_sorted_items_sort_stably_whether_nearly_sorted_or_not() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        for len in [0, 1, 2, 100, 3000] {
            // Keys repeat (a tenth as many as items), so stability shows; the largest reaches exhaust the budget.
            for reach in [0, 1, 17, 300, len] {
                let mut items: Vec<(u64, usize)> = (0..len)
                    .map(|i| ((i as u64 + rng.random_range(0..=reach as u64)) / 10, i))
                    .collect();
                let mut expected = items.clone();
                expected.sort_by_key(|&(k, _)| k);
                sort_nearly_sorted_by_key(&mut items, |(k, _)| k);
                assert_eq!(items, expected, "len {len}, reach {reach}");
            }
        }
    }

    /// Pushes `(ts, push index)` records and checks the order against a whole stable sort.
    fn check(timestamps: &[i64]) -> TsOrder<usize> {
        let mut order = TsOrder::default();
        for (i, ts) in timestamps.iter().enumerate() {
            order.push(*ts, i);
        }
        let mut want: Vec<(i64, usize)> = timestamps.iter().copied().zip(0..).collect();
        want.sort_by_key(|(ts, _)| *ts);
        let probe = TsOrder {
            items: order.items.clone(),
            run: order.run.clone(),
            keys: Vec::new(),
            ..order
        };
        let got: Vec<(i64, usize)> = probe.into_ascending().collect();
        assert_eq!(got, want);
        order
    }

    #[test]
    fn run_keys_order_as_time_then_place() {
        let max_place = (1 << PLACE_BITS) - 1;
        let pairs = [
            (0, 0),
            (0, 7),
            (0, max_place),
            (1, 0),
            (5, 3),
            ((1 << (64 - PLACE_BITS)) - 1, max_place),
        ];
        for w in pairs.windows(2) {
            assert!(run_key(w[0].0, w[0].1) < run_key(w[1].0, w[1].1), "{w:?}");
        }
        for (since, place) in pairs {
            assert_eq!(run_key(since, place) & max_place as u64, u64::from(place));
        }
    }

    #[test]
    fn runs_of_any_span_sort_stably() {
        // Spans of 2⁵¹ ns or more take the plain stable sort; just below, the keys' top bits are used.
        let below = (1i64 << 51) - 1;
        for ts in [
            vec![3, 1, 2, 1, 3, 0],
            vec![below, 0, below, 5, 0, below - 1],
            vec![1 << 51, 0, 1 << 51, 7, 0],
            vec![i64::MAX, i64::MIN, 0, -1, i64::MAX, i64::MIN, 1],
        ] {
            let run: Vec<(i64, usize)> = ts.iter().copied().zip(0..).collect();
            let mut want = run.clone();
            want.sort_by_key(|(t, _)| *t);
            let mut keys = Vec::new();
            run_order(&run, &mut keys);
            let got: Vec<(i64, usize)> = keys.iter().map(|&k| run[place(k)]).collect();
            assert_eq!(got, want, "{ts:?}");
        }
    }

    #[test]
    fn records_come_out_as_a_stable_sort_puts_them() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        // Almost sorted with ties, as FrameTimeline events arrive: each late by up to `lateness`.
        for lateness in [0, 3, 100, 5 * RUN as i64] {
            let ts: Vec<i64> = (0..5 * RUN as i64 + 17)
                .map(|i| (i - rng.random_range(0..=lateness)) / 4)
                .collect();
            assert!(check(&ts).incremental);
        }
        // A run reaching back over the whole prefix falls back to one sort, with the same order.
        let mut ts: Vec<i64> = (0..MAX_OVERLAP as i64 + 3 * RUN as i64).collect();
        let last = ts.len() - 1;
        ts[last] = -5;
        assert!(!check(&ts).incremental);
        // Nothing, one record, all equal, descending.
        check(&[]);
        check(&[9]);
        check(&vec![4; 3 * RUN]);
        let descending: Vec<i64> = (0..RUN as i64 / 2).rev().collect();
        check(&descending);
    }

    #[test]
    fn records_handed_out_early_and_the_rest_make_the_stable_sort() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        for lateness in [0, 3, 100, RUN as i64] {
            let ts: Vec<i64> = (0..9 * RUN as i64 + 5)
                .map(|i| (i - rng.random_range(0..=lateness)) / 4)
                .collect();
            let mut order = TsOrder::default();
            let mut got = Vec::new();
            for (i, t) in ts.iter().enumerate() {
                order.push(*t, i);
                order.drain_settled(|t, i| got.push((t, i)));
            }
            let early = got.len();
            assert!(!order.broken());
            assert_eq!(order.len(), ts.len());
            got.extend(order.into_ascending());
            let mut want: Vec<(i64, usize)> = ts.iter().copied().zip(0..).collect();
            want.sort_by_key(|(t, _)| *t);
            assert_eq!(got, want, "lateness {lateness}");
            assert!(
                early >= ts.len() - DRAIN_LAG - RUN,
                "{early} handed out early"
            );
        }
    }

    #[test]
    fn a_record_older_than_one_handed_out_breaks_the_order() {
        let mut order = TsOrder::default();
        let mut taken = 0;
        for ts in 0..(DRAIN_LAG + RUN) as i64 {
            order.push(ts, ());
            order.drain_settled(|_, _| taken += 1);
        }
        assert_eq!(taken, RUN);
        // At the frontier's timestamp is still in order (after it, by push order); before it is not.
        order.push(RUN as i64 - 1, ());
        assert!(!order.broken());
        order.push(RUN as i64 - 2, ());
        assert!(order.broken());
    }

    #[test]
    fn the_incremental_order_merges_only_what_overlaps() {
        // Two runs, the second starting before the first ends: the merge interleaves them by timestamp, ties
        // with the earlier run first.
        let mut ts: Vec<i64> = (0..RUN as i64).map(|i| 2 * i).collect();
        ts.extend((0..RUN as i64).map(|i| 2 * (RUN as i64 - 10) + i));
        let order = check(&ts);
        assert_eq!((order.items.len(), order.run.len()), (2 * RUN, 0));
        assert!(order.incremental);
    }
}
