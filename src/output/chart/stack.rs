//! Sub-row stacking of overlapping slices within one lane, as the Perfetto UI stacks a track's slices by depth.

use super::data::Bar;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Most sub-rows a lane is split into; slices deeper than that share the last one.
pub const MAX_SUB_ROWS: usize = 4;

/// The sub-row of each interval `[start, end)` (input order): taken in time order (start, then end), each gets the
/// lowest row whose previous interval ended at or before its start (greedy interval partitioning: as many rows as
/// the deepest overlap), capped at `max_rows − 1`. Intervals that only touch share a row; an end before the start
/// counts as the start.
pub fn sub_rows(spans: &[(i64, i64)], max_rows: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..spans.len()).collect();
    order.sort_by_key(|i| spans.get(*i).copied());
    let last = max_rows.max(1) - 1;
    let mut rows = vec![0; spans.len()];
    // Rows in use, by the end of their last interval; rows free again, lowest first.
    let mut busy: BinaryHeap<Reverse<(i64, usize)>> = BinaryHeap::new();
    let mut free: BinaryHeap<Reverse<usize>> = BinaryHeap::new();
    let mut opened = 0;
    for i in order {
        let Some(&(start, end)) = spans.get(i) else {
            continue;
        };
        while let Some(Reverse((e, row))) = busy.peek().copied() {
            if e > start {
                break;
            }
            busy.pop();
            free.push(Reverse(row));
        }
        let row = free.pop().map_or_else(
            || {
                opened += 1;
                opened - 1
            },
            |Reverse(r)| r,
        );
        busy.push(Reverse((end.max(start), row)));
        if let Some(r) = rows.get_mut(i) {
            *r = row.min(last);
        }
    }
    rows
}

/// Sets each bar's [`Bar::row`] by [`sub_rows`] over all of `bars` (at most [`MAX_SUB_ROWS`] rows).
pub fn stack(bars: &mut [Bar]) {
    let spans: Vec<(i64, i64)> = bars.iter().map(|b| (b.start_ns, b.end_ns)).collect();
    for (bar, row) in bars.iter_mut().zip(sub_rows(&spans, MAX_SUB_ROWS)) {
        bar.row = u8::try_from(row).unwrap_or(u8::MAX);
    }
}

/// Number of sub-rows `bars` use (at least one).
pub fn rows_used(bars: &[Bar]) -> usize {
    bars.iter()
        .map(|b| usize::from(b.row) + 1)
        .max()
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_intervals_take_the_lowest_free_row() {
        assert_eq!(sub_rows(&[(0, 10), (5, 15), (12, 20)], 4), vec![0, 1, 0]);
        // Input order does not matter: rows follow time order.
        assert_eq!(sub_rows(&[(12, 20), (0, 10), (5, 15)], 4), vec![0, 0, 1]);
        // Touching intervals share a row; nested ones do not.
        assert_eq!(sub_rows(&[(0, 10), (10, 20), (20, 30)], 4), vec![0, 0, 0]);
        assert_eq!(sub_rows(&[(0, 100), (10, 20), (30, 40)], 4), vec![0, 1, 1]);
        // Row 0 frees up before row 1: the third interval goes back to row 0, the fourth to row 1.
        assert_eq!(
            sub_rows(&[(0, 10), (2, 30), (11, 40), (31, 50)], 4),
            vec![0, 1, 0, 1]
        );
        // 120 Hz expected slices 16.6 ms long every 8.3 ms alternate between two rows.
        let expected: Vec<(i64, i64)> = (0..6).map(|k| (k * 83, k * 83 + 166)).collect();
        assert_eq!(sub_rows(&expected, 4), vec![0, 1, 0, 1, 0, 1]);
        assert!(sub_rows(&[], 4).is_empty());
    }

    #[test]
    fn rows_beyond_the_cap_share_the_last_one() {
        let nested: Vec<(i64, i64)> = (0..6).map(|k| (k, 100)).collect();
        assert_eq!(sub_rows(&nested, 4), vec![0, 1, 2, 3, 3, 3]);
        assert_eq!(sub_rows(&nested, 1), vec![0; 6]);
        assert_eq!(sub_rows(&nested, 0), vec![0; 6]);
        // An interval ending before it starts is a point at its start.
        assert_eq!(sub_rows(&[(10, 5), (10, 12)], 4), vec![0, 0]);
    }
}
