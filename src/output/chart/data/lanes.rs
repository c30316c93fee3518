//! The timeline's lanes: bars per layer and for the DisplayFrames, good frames drawn first and janky last, the
//! vsync grid, and which layers fit.

use super::*;

/// One rectangle of a lane. Times in ns on the trace clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bar {
    /// Start, ns.
    pub start_ns: i64,
    /// End, ns.
    pub end_ns: i64,
    /// Fill colour.
    pub rgb: Rgb,
    /// Visible jank (app-thread lanes: a late frame): drawn at least [`JANKY_MIN_PX`] wide and after the others.
    pub janky: bool,
    /// Sub-row within the lane where bars overlap ([`super::stack`]; 0 = top).
    pub row: u8,
}

/// The lanes of one layer (or of SurfaceFlinger's DisplayFrames): expected and actual, and the app-thread pair
/// when the layer's frames have app sections.
#[derive(Debug, Clone, PartialEq)]
pub struct LaneGroup {
    /// Short, readable name of the process / layer.
    pub label: String,
    /// Process id.
    pub pid: i32,
    /// Expected timeline rectangles, in drawing order.
    pub expected: Vec<Bar>,
    /// Actual timeline rectangles, in drawing order: good frames first, janky ones last.
    pub actual: Vec<Bar>,
    /// Distinct present times of the frames shown (not dropped), ns, sorted.
    pub presents_ns: Vec<i64>,
    /// Janky actual frames in the window.
    pub janky: usize,
    /// UI thread and RenderThread lanes (layers with a frame that has app sections only).
    pub app: Option<AppLanes>,
}

impl LaneGroup {
    /// Number of lanes: 2, or 4 with the app-thread pair.
    pub fn lanes(&self) -> usize {
        if self.app.is_some() {
            4
        } else {
            2
        }
    }
}

/// The timeline panel: lanes of the window and the vsync grid.
#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    /// The time range shown.
    pub window: Window,
    /// App layers (by pid, then layer name), then SurfaceFlinger's DisplayFrames.
    pub groups: Vec<LaneGroup>,
    /// Layers with frames in the window that did not fit.
    pub hidden_groups: usize,
    /// Vsync times in the window, ns (empty when the lines would be closer than [`MIN_GRID_SPACING_PX`]).
    pub vsync_ns: Vec<i64>,
}

/// Actual bars in drawing order: good frames first, janky frames last (stable within each).
fn good_then_janky(mut bars: Vec<Bar>) -> Vec<Bar> {
    bars.sort_by_key(|b| b.janky);
    bars
}

/// Vsync times inside the window: each vsync window's grid `end + k·period` (its last expected present, measured
/// period) from its start (from the window start for the first) to the next one's start; empty when lines would
/// be closer than [`MIN_GRID_SPACING_PX`] on a plot `width_px` wide.
pub fn vsync_grid(
    vsync: &crate::analysis::vsync::VsyncModel,
    window: &Window,
    width_px: i32,
) -> Vec<i64> {
    let px_per_ns = f64::from(width_px) / window.len_ns().max(1) as f64;
    let mut lines = Vec::new();
    for (i, w) in vsync.windows.iter().enumerate() {
        let period = w.measured_period_ns;
        if period <= 0 || (period as f64 * px_per_ns) < MIN_GRID_SPACING_PX {
            return Vec::new();
        }
        let from = if i == 0 {
            window.start_ns
        } else {
            w.start_ns.max(window.start_ns)
        };
        let to = vsync
            .windows
            .get(i + 1)
            .map_or(window.end_ns, |next| next.start_ns.min(window.end_ns));
        // `end_ns` is an expected present (on the grid); the grid extends it backwards to the window start.
        let mut t = w.end_ns + (from - w.end_ns).div_euclid(period) * period;
        while t <= to {
            if t >= from {
                lines.push(t);
            }
            t += period;
        }
    }
    lines
}

impl Timeline {
    /// The lanes of `window`: a group per (pid, layer) with frames in it (2 lanes, 4 with app sections), those
    /// with most janky then most frames kept while they fit in `room` next to SurfaceFlinger's DisplayFrames
    /// (always drawn); vsync grid for a plot `width_px` wide.
    pub fn build(report: &Report, window: Window, room: Room, width_px: i32) -> Timeline {
        let mut layers: BTreeMap<(i32, &str), Vec<&FrameRow>> = BTreeMap::new();
        for f in &report.frames {
            let end = f
                .actual_end_ns
                .or(f.present_ns)
                .unwrap_or(f.actual_start_ns);
            let expected = f.expected_start_ns.zip(f.expected_end_ns);
            if window.overlaps(f.actual_start_ns, end)
                || expected.is_some_and(|(s, e)| window.overlaps(s, e))
            {
                layers.entry((f.pid, &*f.layer_name)).or_default().push(f);
            }
        }
        let mut groups: Vec<LaneGroup> = layers
            .into_iter()
            .map(|((pid, layer), rows)| layer_group(pid, layer, &rows))
            .collect();
        let total = groups.len();
        let shapes: Vec<GroupShape> = groups
            .iter()
            .map(|g| GroupShape {
                janky: g.janky,
                frames: g.actual.len(),
                lanes: g.lanes(),
            })
            .collect();
        let kept = room.keep(&shapes);
        groups = groups
            .into_iter()
            .zip(kept)
            .filter_map(|(g, keep)| keep.then_some(g))
            .collect();
        let hidden_groups = total - groups.len();
        groups.push(display_group(report, &window));
        Timeline {
            window,
            groups,
            hidden_groups,
            vsync_ns: vsync_grid(&report.vsync, &window, width_px),
        }
    }
}

/// One frame as a lane pair draws it.
struct LaneFrame<'a> {
    /// Expected (start, end), ns, if SurfaceFlinger's prediction is known.
    expected: Option<(i64, i64)>,
    /// Actual (start, end), ns.
    actual: (i64, i64),
    /// When it reached the screen, ns; `None` if never (dropped, or the slice never ended).
    present_ns: Option<i64>,
    jank_tag: JankTag,
    severity: &'a str,
}

impl LaneGroup {
    /// The lane pair of `frames`: grey expected bars, coloured actual bars (good first, janky last), presents;
    /// overlapping bars stacked in sub-rows.
    fn new<'a>(
        label: String,
        pid: i32,
        frames: impl Iterator<Item = LaneFrame<'a>> + Clone,
    ) -> LaneGroup {
        let mut expected = frames
            .clone()
            .filter_map(|f| f.expected)
            .map(|(start_ns, end_ns)| Bar {
                start_ns,
                end_ns,
                rgb: EXPECTED_RGB,
                janky: false,
                row: 0,
            })
            .collect::<Vec<Bar>>();
        stack(&mut expected);
        let mut actual: Vec<Bar> = frames
            .clone()
            .map(|f| {
                let class = JankClass::of(f.jank_tag);
                Bar {
                    start_ns: f.actual.0,
                    end_ns: f.actual.1,
                    rgb: class.rgb(f.severity),
                    janky: class.is_janky(),
                    row: 0,
                }
            })
            .collect();
        stack(&mut actual);
        let mut presents_ns: Vec<i64> = frames.filter_map(|f| f.present_ns).collect();
        presents_ns.sort_unstable();
        presents_ns.dedup();
        LaneGroup {
            label,
            pid,
            expected,
            janky: actual.iter().filter(|b| b.janky).count(),
            actual: good_then_janky(actual),
            presents_ns,
            app: None,
        }
    }
}

fn layer_group(pid: i32, layer: &str, rows: &[&FrameRow]) -> LaneGroup {
    let frames = rows.iter().map(|f| LaneFrame {
        expected: f.expected_start_ns.zip(f.expected_end_ns),
        actual: (
            f.actual_start_ns,
            f.actual_end_ns
                .or(f.present_ns)
                .unwrap_or(f.actual_start_ns),
        ),
        present_ns: f.present_ns.filter(|_| !f.dropped),
        jank_tag: f.labels.jank_tag,
        severity: f.labels.jank_severity_type.name(),
    });
    LaneGroup {
        app: app_lanes::build(rows),
        ..LaneGroup::new(layer_label(layer), pid, frames)
    }
}

fn display_group(report: &Report, window: &Window) -> LaneGroup {
    let rows: Vec<_> = report
        .display_frames
        .iter()
        .flatten()
        .filter(|d| {
            window.overlaps(d.actual_start_ns, d.present_ns.unwrap_or(d.actual_start_ns))
                || d.expected_start_ns
                    .zip(d.expected_end_ns)
                    .is_some_and(|(s, e)| window.overlaps(s, e))
        })
        .collect();
    let frames = rows.iter().map(|d| LaneFrame {
        expected: d.expected_start_ns.zip(d.expected_end_ns),
        actual: (d.actual_start_ns, d.present_ns.unwrap_or(d.actual_start_ns)),
        present_ns: d.present_ns,
        jank_tag: d.labels.jank_tag,
        severity: d.labels.jank_severity_type.name(),
    });
    let pid = rows.first().map_or(0, |d| d.pid);
    LaneGroup::new("SurfaceFlinger / DisplayFrames".into(), pid, frames)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{frame, report};
    use super::*;
    use crate::analysis::frames::{DisplayFrameRow, TracedLabels};
    use crate::model::jank::Severity;

    #[test]
    fn lanes_draw_good_frames_first_and_janky_last_in_perfetto_colours() {
        let frames = vec![
            frame(0, 100, JankTag::SelfJank, Severity::Full),
            frame(50, 150, JankTag::NoJank, Severity::None),
            frame(120, 300, JankTag::BufferStuffing, Severity::Partial),
            frame(200, 260, JankTag::OtherJank, Severity::Partial),
        ];
        let display = vec![DisplayFrameRow {
            pid: 1,
            actual_start_ns: 90,
            present_ns: Some(160),
            expected_start_ns: Some(80),
            expected_end_ns: Some(150),
            labels: TracedLabels {
                jank_tag: JankTag::SelfJank,
                jank_severity_type: Severity::Full,
                ..Default::default()
            },
            ..Default::default()
        }];
        let r = report(frames, display);
        let window = Window::choose(WindowSpec::All, &r.frames, 0, 400);
        let t = Timeline::build(&r, window, Room::pairs(8), 400);
        assert_eq!(t.groups.len(), 2);
        let app = &t.groups[0];
        assert_eq!(app.label, "com.app / Main#1");
        let colours: Vec<(i64, Rgb, bool)> = app
            .actual
            .iter()
            .map(|b| (b.start_ns, b.rgb, b.janky))
            .collect();
        assert_eq!(
            colours,
            vec![
                (50, Rgb(0x4C, 0xAF, 0x50), false),
                (120, Rgb(0xDC, 0xED, 0xC8), false),
                (0, Rgb(0xFF, 0x57, 0x22), true),
                (200, Rgb(0xFF, 0xF9, 0xC4), true),
            ]
        );
        assert_eq!(app.janky, 2);
        assert!(app.expected.iter().all(|b| b.rgb == EXPECTED_RGB) && app.expected.len() == 4);
        assert_eq!(app.presents_ns, vec![105, 155, 265, 305]);
        let sf = &t.groups[1];
        assert_eq!(sf.label, "SurfaceFlinger / DisplayFrames");
        assert_eq!(
            sf.actual,
            vec![Bar {
                start_ns: 90,
                end_ns: 160,
                rgb: Rgb(0xFF, 0x57, 0x22),
                janky: true,
                row: 0,
            }]
        );
        assert_eq!(sf.expected.len(), 1);
        // A window that excludes everything but the first frame.
        let narrow = Window {
            start_ns: 0,
            end_ns: 40,
            ..window
        };
        let t = Timeline::build(&r, narrow, Room::pairs(8), 400);
        assert_eq!(t.groups[0].actual.len(), 1);
        assert!(t.groups[1].actual.is_empty());
    }

    #[test]
    fn layers_that_do_not_fit_are_the_least_janky_and_counted() {
        let mut frames = Vec::new();
        for (i, janky) in [(0, false), (1, true), (2, false)] {
            let mut f = frame(
                i * 10,
                i * 10 + 5,
                if janky {
                    JankTag::SelfJank
                } else {
                    JankTag::NoJank
                },
                Severity::Full,
            );
            f.layer_name = format!("layer{i}").as_str().into();
            frames.push(f);
        }
        frames.push(FrameRow {
            layer_name: "layer2".into(),
            ..frame(30, 35, JankTag::NoJank, Severity::None)
        });
        let r = report(frames, Vec::new());
        let window = Window::choose(WindowSpec::All, &r.frames, 0, 100);
        let t = Timeline::build(&r, window, Room::pairs(3), 100);
        let labels: Vec<&str> = t.groups.iter().map(|g| g.label.as_str()).collect();
        assert_eq!(
            labels,
            vec!["layer1", "layer2", "SurfaceFlinger / DisplayFrames"]
        );
        assert_eq!(t.hidden_groups, 1);
    }

    #[test]
    fn vsync_grid_is_on_the_period_and_skipped_when_too_dense() {
        let mut vsync = crate::analysis::vsync::VsyncModel::default();
        vsync.windows.push(crate::analysis::vsync::VsyncWindow {
            start_ns: 2_000,
            end_ns: 5_000,
            measured_period_ns: 100,
            ..Default::default()
        });
        let window = Window {
            origin_ns: 0,
            start_ns: 850,
            end_ns: 1_300,
            choice: WindowChoice::All,
        };
        assert_eq!(
            vsync_grid(&vsync, &window, 450),
            vec![900, 1_000, 1_100, 1_200, 1_300]
        );
        // 100 ns is 2 px on 900 ns / 18 px: too dense.
        assert!(vsync_grid(
            &vsync,
            &Window {
                end_ns: 1_750,
                ..window
            },
            18
        )
        .is_empty());
    }
}
