//! Perfetto's own FrameTimeline parser tests (T1–T3 in ../shared/peer-tests/README.md): `ftl slices` gives
//! exactly trace processor's rows, in ts order; and its metric.

use crate::common::{ftl_ok, parse_csv, shared};
use crate::golden::assert_metric_matches;

/// `ftl slices` rows stably sorted by ts (Perfetto's queries order by ts; ties keep slice-id order).
fn by_ts(rows: Vec<Vec<String>>) -> Vec<Vec<String>> {
    let mut rows = rows;
    rows.sort_by_key(|r| r[0].parse::<i64>().unwrap());
    rows
}

fn check(test: &str, timeline: &str) {
    let dir = shared().join("peer-tests");
    let trace = dir.join(format!("{test}.pb"));
    let ours = ftl_ok(&["slices", trace.to_str().unwrap(), "--timeline", timeline]);
    let (our_header, our_rows) = parse_csv(&ours);
    let expected =
        std::fs::read_to_string(dir.join(format!("{test}.{timeline}_frame_timeline_slice.csv")))
            .unwrap();
    let (header, rows) = parse_csv(&expected);
    assert_eq!(our_header, header);
    assert_eq!(by_ts(our_rows), rows, "{test} {timeline}");
}

#[test]
fn t1_expected_frame_timeline_events() {
    check("frame_timeline_events", "expected");
}

#[test]
fn t2_actual_frame_timeline_events() {
    check("frame_timeline_events", "actual");
}

#[test]
fn t3_display_power_mode_change() {
    check("frame_timeline_power_mode", "actual");
}

#[test]
fn peer_metrics_equal_trace_processor() {
    let dir = shared().join("peer-tests");
    for test in ["frame_timeline_events", "frame_timeline_power_mode"] {
        assert_metric_matches(
            &dir.join(format!("{test}.pb")),
            &dir.join(format!("{test}.android_frame_timeline_metric.textproto")),
        );
    }
}
