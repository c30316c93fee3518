//! The UI thread and RenderThread lanes under an app layer: each frame's doFrame and DrawFrame, coloured by its late stage.

use super::data::{Bar, Rgb};
use super::stack::stack;
use crate::analysis::app::blame::LateStage;
use crate::analysis::app::cause::{StateKind, StatePiece};
use crate::analysis::frames::FrameRow;

/// Colour of the app sections of a frame that was not late: a neutral grey-green.
pub const ON_TIME_RGB: Rgb = Rgb(0xA3, 0xB5, 0xA0);

/// The colour of the app sections of a frame made late by `stage` (one per stage, none of them a jank colour).
pub fn stage_rgb(stage: LateStage) -> Rgb {
    match stage {
        // Material Purple 600, Indigo 600, Cyan 800, Pink 600, Amber 600, Brown 300.
        LateStage::UiThread => Rgb(0x8E, 0x24, 0xAA),
        LateStage::RenderThread => Rgb(0x39, 0x49, 0xAB),
        LateStage::Gpu => Rgb(0x00, 0x83, 0x8F),
        LateStage::App => Rgb(0xD8, 0x1B, 0x60),
        LateStage::SurfaceFlinger => Rgb(0xFF, 0xB3, 0x00),
        LateStage::Stuffing => Rgb(0xA1, 0x88, 0x7F),
    }
}

/// The colour Perfetto UI gives a thread state (`colorForThreadState`, `ui/src/plugins/dev.perfetto.Sched/
/// common.ts`): Running dark green, Runnable lime, Uninterruptible Sleep orange (IO) or desaturated red
/// (non-IO), other states indigo; Sleeping, white there, is a light grey here so that it shows on white.
pub fn state_rgb(kind: StateKind) -> Rgb {
    match kind {
        StateKind::Running => Rgb(0x31, 0x7D, 0x31),
        StateKind::Runnable | StateKind::RunnablePreempted => Rgb(0x99, 0xBA, 0x36),
        StateKind::UninterruptibleIo => Rgb(0xFF, 0x99, 0x00),
        StateKind::UninterruptibleNonIo => Rgb(0xA2, 0x5B, 0x57),
        StateKind::Sleeping => Rgb(0xE2, 0xE2, 0xE2),
        StateKind::Other => Rgb(0x40, 0x51, 0xB5),
    }
}

/// The stage in words, for the legend and the lane labels.
pub fn stage_words(stage: LateStage) -> &'static str {
    match stage {
        LateStage::UiThread => "UI thread",
        LateStage::RenderThread => "RenderThread",
        LateStage::Gpu => "GPU",
        LateStage::App => "app (no thread sections)",
        LateStage::SurfaceFlinger => "SurfaceFlinger",
        LateStage::Stuffing => "buffer stuffing",
    }
}

/// The pair of app-thread lanes of one layer. Bars in drawing order: on-time frames first, late ones last.
#[derive(Debug, Clone, PartialEq)]
pub struct AppLanes {
    /// Each frame's `Choreographer#doFrame` on the UI thread.
    pub ui: Vec<Bar>,
    /// Each frame's `DrawFrame` span on the RenderThread (first start to last end).
    pub render: Vec<Bar>,
    /// Late frames with app sections, per stage (stages with none left out), in [`LateStage::ALL`] order.
    pub late: Vec<(LateStage, usize)>,
    /// The UI thread's states over each doFrame, in Perfetto's colours (empty without scheduler data).
    pub ui_states: Vec<Bar>,
    /// The RenderThread's states over each frame's DrawFrames.
    pub rt_states: Vec<Bar>,
    /// Each late frame's cause at the start of its late thread's section (`ftl explain causes`).
    pub causes: Vec<(i64, String)>,
}

/// The app-thread lanes of a layer's `frames`; `None` when no frame has a doFrame or DrawFrame (a trace without
/// the app's atrace sections). Bars are stacked in sub-rows where they overlap.
pub fn build(frames: &[&FrameRow]) -> Option<AppLanes> {
    let with_sections: Vec<&FrameRow> = frames
        .iter()
        .copied()
        .filter(|f| {
            let w = f.app_work.get();
            w.ui_start_ns.is_some() || w.rt_start_ns.is_some()
        })
        .collect();
    if with_sections.is_empty() {
        return None;
    }
    let ui = lane(&with_sections, |f| {
        let w = f.app_work.get();
        let start = w.ui_start_ns?;
        Some((start, w.ui_dur_ns.map(|d| start + d)))
    });
    let render = lane(&with_sections, |f| {
        let w = f.app_work.get();
        Some((w.rt_start_ns?, w.rt_end_ns))
    });
    let late = LateStage::ALL
        .iter()
        .map(|s| {
            let n = with_sections
                .iter()
                .filter(|f| f.late_stage == Some(*s))
                .count();
            (*s, n)
        })
        .filter(|(_, n)| *n > 0)
        .collect();
    let states = |pieces: fn(&FrameRow) -> &[StatePiece]| -> Vec<Bar> {
        with_sections
            .iter()
            .flat_map(|f| pieces(f))
            .map(|p| Bar {
                start_ns: p.ts,
                end_ns: p.end,
                rgb: state_rgb(p.kind),
                janky: false,
                row: 0,
            })
            .collect()
    };
    let ui_states = states(|f| f.threads.0.as_deref().map_or(&[], |t| &t.ui_states));
    let rt_states = states(|f| f.threads.0.as_deref().map_or(&[], |t| &t.rt_states));
    let causes = with_sections
        .iter()
        .filter_map(|f| {
            let cause = f.threads.cause()?;
            let w = f.app_work.get();
            let at = match f.late_stage? {
                LateStage::RenderThread => w.rt_start_ns,
                _ => w.ui_start_ns.or(w.rt_start_ns),
            }?;
            Some((at, cause.to_string()))
        })
        .collect();
    Some(AppLanes {
        ui,
        render,
        late,
        ui_states,
        rt_states,
        causes,
    })
}

/// Where a frame's section lies in a lane: start and end (`None`: never ended), ns; `None` if it has none.
type Section = fn(&FrameRow) -> Option<(i64, Option<i64>)>;

/// The bars of one lane: each frame's `section` in its late stage's colour, stacked, on-time first and late last.
fn lane(frames: &[&FrameRow], section: Section) -> Vec<Bar> {
    let mut bars: Vec<Bar> = frames
        .iter()
        .filter_map(|f| {
            let (start_ns, end_ns) = section(f)?;
            Some(Bar {
                start_ns,
                // A section that never ended is drawn as a point at its start.
                end_ns: end_ns.unwrap_or(start_ns).max(start_ns),
                rgb: f.late_stage.map_or(ON_TIME_RGB, stage_rgb),
                janky: f.late_stage.is_some(),
                row: 0,
            })
        })
        .collect();
    stack(&mut bars);
    bars.sort_by_key(|b| b.janky);
    bars
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::app::blame::AppWork;

    fn frame(ui: Option<(i64, i64)>, rt: Option<(i64, i64)>, stage: Option<LateStage>) -> FrameRow {
        FrameRow {
            app_work: AppWork {
                ui_start_ns: ui.map(|u| u.0),
                ui_dur_ns: ui.map(|u| u.1 - u.0),
                rt_start_ns: rt.map(|r| r.0),
                rt_end_ns: rt.map(|r| r.1),
            }
            .into(),
            late_stage: stage,
            ..Default::default()
        }
    }

    #[test]
    fn layers_without_app_sections_get_no_lanes() {
        let f = frame(None, None, Some(LateStage::App));
        assert_eq!(build(&[&f]), None);
        assert_eq!(build(&[]), None);
    }

    #[test]
    fn bars_are_coloured_by_late_stage_stacked_and_late_last() {
        let frames = [
            frame(Some((0, 10)), Some((10, 14)), Some(LateStage::UiThread)),
            frame(Some((8, 12)), Some((12, 30)), None),
            frame(Some((20, 24)), Some((24, 28)), Some(LateStage::Gpu)),
            frame(None, None, Some(LateStage::App)),
        ];
        let refs: Vec<&FrameRow> = frames.iter().collect();
        let lanes = build(&refs).unwrap();
        let ui: Vec<(i64, i64, Rgb, u8)> = lanes
            .ui
            .iter()
            .map(|b| (b.start_ns, b.end_ns, b.rgb, b.row))
            .collect();
        assert_eq!(
            ui,
            vec![
                (8, 12, ON_TIME_RGB, 1),
                (0, 10, stage_rgb(LateStage::UiThread), 0),
                (20, 24, stage_rgb(LateStage::Gpu), 0),
            ]
        );
        let rt: Vec<(i64, u8, bool)> = lanes
            .render
            .iter()
            .map(|b| (b.start_ns, b.row, b.janky))
            .collect();
        // [12, 30] overlaps both others, which do not overlap each other.
        assert_eq!(rt, vec![(12, 1, false), (10, 0, true), (24, 0, true)]);
        // The frame without sections is not counted.
        assert_eq!(
            lanes.late,
            vec![(LateStage::UiThread, 1), (LateStage::Gpu, 1)]
        );
    }

    #[test]
    fn every_stage_has_its_own_colour_and_none_is_a_jank_or_expected_colour() {
        use super::super::data::{JankClass, EXPECTED_RGB};
        let mut colours: Vec<Rgb> = LateStage::ALL.iter().map(|s| stage_rgb(*s)).collect();
        colours.push(ON_TIME_RGB);
        let taken: Vec<Rgb> = JankClass::ALL
            .iter()
            .flat_map(|c| [c.rgb("Full"), c.rgb("Partial")])
            .chain([EXPECTED_RGB])
            .collect();
        assert!(colours.iter().all(|c| !taken.contains(c)));
        let n = colours.len();
        colours.sort_by_key(|c| (c.0, c.1, c.2));
        colours.dedup();
        assert_eq!(colours.len(), n);
    }
}
