//! Which lane groups fit the timeline band: its room in px, and the groups kept when not all fit.

/// The room of the timeline band: lanes and gaps that fit in its height.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Room {
    /// Height available to the lanes, px.
    pub height: i32,
    /// Smallest lane height, px.
    pub lane: i32,
    /// Gap per group, px.
    pub gap: i32,
}

/// What [`Room::keep`] needs of a lane group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupShape {
    /// Janky frames in the window.
    pub janky: usize,
    /// Frames in the window.
    pub frames: usize,
    /// Lanes: 2, or 4 with the app-thread pair.
    pub lanes: usize,
}

/// Lanes of SurfaceFlinger's DisplayFrames group, always drawn.
const DISPLAY_LANES: usize = 2;

impl Room {
    /// Room for exactly `n` two-lane groups.
    pub fn pairs(n: usize) -> Room {
        Room {
            height: i32::try_from(n).unwrap_or(i32::MAX / 3) * 3,
            lane: 1,
            gap: 1,
        }
    }

    /// True if `lanes` lanes in `groups` groups fit.
    pub fn fits(&self, lanes: usize, groups: usize) -> bool {
        let px = |n: usize, each: i32| {
            i64::try_from(n)
                .unwrap_or(i64::MAX)
                .saturating_mul(i64::from(each))
        };
        px(lanes, self.lane).saturating_add(px(groups, self.gap)) <= i64::from(self.height)
    }

    /// Which of the app layers' `groups` to draw next to SurfaceFlinger's DisplayFrames (two lanes, always drawn):
    /// all if they fit; else, by most janky then most frames (earlier first on ties), each that still fits — a
    /// four-lane group that does not fit may leave room for a later two-lane one.
    pub fn keep(&self, groups: &[GroupShape]) -> Vec<bool> {
        let lanes: usize = groups.iter().map(|g| g.lanes).sum();
        if self.fits(lanes + DISPLAY_LANES, groups.len() + 1) {
            return vec![true; groups.len()];
        }
        let mut rank: Vec<usize> = (0..groups.len()).collect();
        rank.sort_by_key(|i| {
            groups
                .get(*i)
                .map(|g| (std::cmp::Reverse(g.janky), std::cmp::Reverse(g.frames)))
        });
        let mut kept = vec![false; groups.len()];
        let mut used = (DISPLAY_LANES, 1);
        for i in rank {
            let n = groups.get(i).map_or(DISPLAY_LANES, |g| g.lanes);
            if self.fits(used.0 + n, used.1 + 1) {
                used = (used.0 + n, used.1 + 1);
                if let Some(k) = kept.get_mut(i) {
                    *k = true;
                }
            }
        }
        kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(janky: usize, frames: usize, lanes: usize) -> GroupShape {
        GroupShape {
            janky,
            frames,
            lanes,
        }
    }

    #[test]
    fn lanes_and_gaps_fit_the_height() {
        let room = Room {
            height: 100,
            lane: 9,
            gap: 6,
        };
        // 4 pairs: 8 × 9 + 4 × 6 = 96 px; 5 pairs: 120 px.
        assert!(room.fits(8, 4) && !room.fits(10, 5));
        // Two four-lane groups and a pair: 10 × 9 + 3 × 6 = 108 px.
        assert!(!room.fits(10, 3) && room.fits(6, 2));
        assert!(Room::pairs(3).fits(6, 3) && !Room::pairs(3).fits(7, 3));
        assert!(!room.fits(usize::MAX, usize::MAX));
    }

    #[test]
    fn four_lane_groups_take_twice_the_room_of_a_pair() {
        // layer0: a pair, 1 frame; layer1: janky, with app lanes; layer2: a pair, 2 frames.
        let groups = [shape(0, 1, 2), shape(1, 1, 4), shape(0, 2, 2)];
        // Three pairs of room: DisplayFrames (2 lanes) and layer1 (4 lanes) fill it.
        assert_eq!(Room::pairs(3).keep(&groups), vec![false, true, false]);
        // One pair more: layer2 (more frames than layer0) fits too.
        assert_eq!(Room::pairs(4).keep(&groups), vec![false, true, true]);
        assert_eq!(Room::pairs(5).keep(&groups), vec![true; 3]);
        // A four-lane group that does not fit leaves its room to a smaller one ranked after it.
        let groups = [shape(5, 9, 4), shape(0, 1, 2)];
        assert_eq!(Room::pairs(2).keep(&groups), vec![false, true]);
        // No room at all: DisplayFrames only.
        assert_eq!(Room::pairs(1).keep(&groups), vec![false, false]);
        assert!(Room::pairs(1).keep(&[]).is_empty());
    }
}
