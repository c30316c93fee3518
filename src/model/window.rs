//! Analysis windows: `--window START..END` (times after the first FrameTimeline slice) and `--marker NAME` (the
//! span of each atrace section or CUJ with that name), and restricting a [`Timeline`] to the frames inside them.
//!
//! A frame is inside a window when all of it is: it starts at or after the window's start and reaches the screen
//! at or before its end. For an actual SurfaceFrame that is [actual start, present] (present = the end of the
//! DisplayFrame whose token it carries, else its own end); for an actual DisplayFrame [start, present fence];
//! a frame that never ended is never inside. A frame that starts inside and presents after the end is left out,
//! as is one that started before the window. Expected slices follow their actual slice (same process and
//! token); app sections and CUJs are kept when inside. Several windows (several marker occurrences, or
//! `--window` and `--marker` together) keep the frames inside any of them.

use super::frame::Timeline;
use super::sections::{marker_matches, AppSections};
use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

/// What the user asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WindowSpec {
    /// `--window` ranges, ns after the first FrameTimeline slice.
    pub ranges: Vec<(i64, i64)>,
    /// `--marker` names (exact, or a prefix ending in `*`).
    pub markers: Vec<String>,
}

impl WindowSpec {
    /// True when no window was asked for (the whole trace).
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty() && self.markers.is_empty()
    }
}

/// One window on the trace clock, ns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Span {
    /// What made it: `window` or the marker's section name.
    pub label: String,
    /// Start, ns.
    pub start_ns: i64,
    /// End, ns.
    pub end_ns: i64,
}

impl Span {
    /// True if `[start, end]` lies inside the window.
    pub fn contains(&self, start_ns: i64, end_ns: i64) -> bool {
        start_ns >= self.start_ns && end_ns <= self.end_ns
    }
}

/// A time like `1500ms`, `4s` or `1.5` (seconds), in ns.
fn parse_time(text: &str) -> Option<i64> {
    let t = text.trim();
    let (number, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1e6)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1e9)
    } else {
        (t, 1e9)
    };
    let v: f64 = number.trim().parse().ok()?;
    (v.is_finite() && v >= 0.0).then(|| (v * scale).round() as i64)
}

/// Parses `START..END` (each `<number>ms`, `<number>s` or a bare number of seconds), e.g. `1500ms..4s` or
/// `1.5..4`, into ns.
pub fn parse_range(text: &str) -> Result<(i64, i64), String> {
    let bad =
        || format!("expected START..END such as 1500ms..4s or 1.5..4 (seconds), got '{text}'");
    let (start, end) = text.split_once("..").ok_or_else(bad)?;
    let (start_ns, end_ns) = parse_time(start).zip(parse_time(end)).ok_or_else(bad)?;
    if start_ns >= end_ns {
        return Err(format!("the window must end after it starts, got '{text}'"));
    }
    Ok((start_ns, end_ns))
}

/// The first FrameTimeline slice start: the origin of `--window`.
pub fn origin_ns(timeline: &Timeline) -> i64 {
    timeline
        .expected
        .iter()
        .chain(&timeline.actual)
        .map(|s| s.ts_ns)
        .min()
        .unwrap_or(0)
}

/// The windows of `spec` on `timeline`, in time order. A marker section that never ended runs to the end of the
/// trace. Errors: a marker that names no section of the trace.
pub fn spans(spec: &WindowSpec, timeline: &Timeline) -> Result<Vec<Span>, String> {
    let origin = origin_ns(timeline);
    let mut out: Vec<Span> = spec
        .ranges
        .iter()
        .map(|&(s, e)| Span {
            label: "window".into(),
            start_ns: origin.saturating_add(s),
            end_ns: origin.saturating_add(e),
        })
        .collect();
    let app = &timeline.app;
    for marker in &spec.markers {
        let before = out.len();
        let named = app
            .sections
            .iter()
            .map(|s| (s.name, s.ts, s.dur))
            .chain(app.async_sections.iter().map(|s| (s.name, s.ts, s.dur)));
        for (name, ts, dur) in named {
            if marker_matches(marker, app.name(name).as_bytes()) {
                out.push(Span {
                    label: app.name(name).to_string(),
                    start_ns: ts,
                    end_ns: if dur >= 0 { ts + dur } else { i64::MAX },
                });
            }
        }
        if out.len() == before {
            return Err(format!(
                "--marker '{marker}' names no atrace section or CUJ of the trace ({} kept sections: {})",
                app.names.len(),
                known_names(app)
            ));
        }
    }
    out.sort_by_key(|s| (s.start_ns, s.end_ns));
    Ok(out)
}

fn known_names(app: &AppSections) -> String {
    let mut names: Vec<&str> = app.names.iter().map(String::as_str).take(5).collect();
    if app.names.len() > 5 {
        names.push("…");
    }
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

/// Keeps the frames of `timeline` inside any of `spans` (see the module doc); `spans` empty keeps nothing.
pub fn restrict(mut timeline: Timeline, spans: &[Span]) -> Timeline {
    let inside = |start: i64, end: i64| spans.iter().any(|w| w.contains(start, end));
    // Present fence per DisplayFrame token.
    let presents: FxHashMap<i64, i64> = timeline
        .actual
        .iter()
        .filter(|s| s.kind.is_display())
        .filter_map(|s| Some((s.token, s.end_ns()?)))
        .collect();
    timeline.actual.retain(|s| {
        let Some(end) = s.end_ns() else { return false };
        let on_screen = if s.kind.is_display() {
            end
        } else {
            presents.get(&s.display_frame_token).copied().unwrap_or(end)
        };
        inside(s.ts_ns, on_screen.max(end))
    });
    let kept: FxHashSet<(i32, i64)> = timeline.actual.iter().map(|s| (s.pid, s.token)).collect();
    timeline
        .expected
        .retain(|s| kept.contains(&(s.pid, s.token)));
    let app = &mut timeline.app;
    app.sections
        .retain(|s| s.dur >= 0 && inside(s.ts, s.ts + s.dur));
    app.async_sections
        .retain(|s| s.dur >= 0 && inside(s.ts, s.ts + s.dur));
    timeline
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_parse_like_report_window() {
        assert_eq!(
            parse_range("1500ms..4s"),
            Ok((1_500_000_000, 4_000_000_000))
        );
        assert_eq!(parse_range("1.5..4"), Ok((1_500_000_000, 4_000_000_000)));
        assert!(parse_range("4..1").is_err());
        assert!(parse_range("x..1").is_err());
    }

    #[test]
    fn a_frame_presented_after_the_end_is_outside() {
        let w = Span {
            label: "window".into(),
            start_ns: 100,
            end_ns: 200,
        };
        assert!(w.contains(100, 200));
        assert!(!w.contains(150, 201));
        assert!(!w.contains(99, 150));
    }
}
