//! `FrameTimelineEvent` (TracePacket field 76) → [`FrameTimelineEvent`], read straight from the message's bytes:
//! a FrameTimeline-dense trace holds about ten of these per kilobyte, and prost's decode of each (a message per
//! kind, then converted) was the largest part of reading one. Only a message laid out as plain, well-formed
//! protobuf with one member of its `event` oneof is read here ([`super::plain`]); anything else is left to prost
//! ([`super::proto::FrameTimelineEvent`]), whose decode then decides. Field numbers: `frame_timeline_event.proto`
//! (google/perfetto @ ec5d16b1).

use super::event::{EnumCode, FrameLabels, FrameStart, FrameTimelineEvent, JankValues, SliceKind};
use super::plain::{fixed32, key, len_value, skip, varint};
use super::proto;
use super::wire::{Bytes, FIXED32, LEN, VARINT};
use prost::Message;
use std::sync::Arc;

const FRAME_END: u32 = 5;
const FRAME_END_COOKIE: u32 = 1;

/// What a field of a `*Start` message holds.
#[derive(Clone, Copy)]
enum Slot {
    Cookie,
    Token,
    DisplayFrameToken,
    Pid,
    LayerName,
    PresentType,
    OnTimeFinish,
    GpuComposition,
    JankType,
    PredictionType,
    IsBuffer,
    JankSeverityType,
    JankSeverityScore,
    /// A `float` ftl does not keep (`present_delay_millis`, `vsync_resynced_jitter_millis`).
    OtherFloat,
}

use Slot::*;

/// Each `*Start` message's fields, field number n at index n − 1, by the oneof member that holds it.
const EXPECTED_DISPLAY: &[Slot] = &[Cookie, Token, Pid];
const ACTUAL_DISPLAY: &[Slot] = &[
    Cookie,
    Token,
    Pid,
    PresentType,
    OnTimeFinish,
    GpuComposition,
    JankType,
    PredictionType,
    JankSeverityType,
    OtherFloat,
    JankSeverityScore,
];
const EXPECTED_SURFACE: &[Slot] = &[Cookie, Token, DisplayFrameToken, Pid, LayerName];
const ACTUAL_SURFACE: &[Slot] = &[
    Cookie,
    Token,
    DisplayFrameToken,
    Pid,
    LayerName,
    PresentType,
    OnTimeFinish,
    GpuComposition,
    JankType,
    PredictionType,
    IsBuffer,
    JankSeverityType,
    OtherFloat,
    OtherFloat,
    JankSeverityScore,
];

/// The layer names met so far, one shared copy each: a SurfaceFrame event takes a reference to its layer's name,
/// not an allocation of its own (a FrameTimeline-dense trace names a few dozen layers in millions of events).
/// The last name given is compared first, as bytes: consecutive events mostly name the same layer, and comparing a
/// name costs less than hashing it or checking that it is UTF-8 (the last name is).
#[derive(Debug, Default)]
pub(super) struct LayerNames {
    names: rustc_hash::FxHashSet<Arc<str>>,
    last: Option<Arc<str>>,
}

impl LayerNames {
    /// The shared copy of the name whose UTF-8 bytes are `name`; `None` when they are not UTF-8.
    fn get(&mut self, name: &[u8]) -> Option<Arc<str>> {
        if let Some(last) = self.last.as_ref().filter(|last| last.as_bytes() == name) {
            return Some(last.clone());
        }
        let name = std::str::from_utf8(name).ok()?;
        let shared = match self.names.get(name) {
            Some(shared) => shared.clone(),
            None => {
                let shared: Arc<str> = name.into();
                self.names.insert(shared.clone());
                shared
            }
        };
        self.last = Some(shared.clone());
        Some(shared)
    }
}

/// The event of a `FrameTimelineEvent` message: [`read`] from its bytes, else decoded by prost; `None` when prost
/// cannot decode it either (a malformed packet). Layer names are shared through `names`.
pub(super) fn decode(message: &[u8], names: &mut LayerNames) -> Option<FrameTimelineEvent> {
    read(message, names).or_else(|| {
        let event = proto::FrameTimelineEvent::decode(message).ok()?;
        Some(from_prost(event, names))
    })
}

/// The event prost's decode of the same bytes converts to ([`from_prost`]); `None` when the bytes are not that
/// plain — see the module doc — and prost must decide. A message with none of the oneof's members is
/// [`FrameTimelineEvent::Empty`].
fn read(message: &[u8], names: &mut LayerNames) -> Option<FrameTimelineEvent> {
    let mut wire = Bytes::new(message);
    let mut event = None;
    while !wire.at_eof() {
        match key(&mut wire)? {
            // A second member replaces or merges into the first in prost: left to it.
            (field @ 1..=FRAME_END, LEN) if event.is_none() => {
                let bytes = len_value(&mut wire)?;
                event = Some(match field {
                    1 => start(
                        SliceKind::ExpectedDisplayFrame,
                        EXPECTED_DISPLAY,
                        bytes,
                        names,
                    )?,
                    2 => start(SliceKind::ActualDisplayFrame, ACTUAL_DISPLAY, bytes, names)?,
                    3 => start(
                        SliceKind::ExpectedSurfaceFrame,
                        EXPECTED_SURFACE,
                        bytes,
                        names,
                    )?,
                    4 => start(SliceKind::ActualSurfaceFrame, ACTUAL_SURFACE, bytes, names)?,
                    _ => frame_end(bytes)?,
                });
            }
            (1..=FRAME_END, _) => return None,
            (_, wire_type) => skip(&mut wire, wire_type)?,
        }
    }
    Some(event.unwrap_or(FrameTimelineEvent::Empty))
}

/// A `FrameEnd` message.
fn frame_end(bytes: &[u8]) -> Option<FrameTimelineEvent> {
    let mut wire = Bytes::new(bytes);
    let mut cookie = None;
    while !wire.at_eof() {
        match key(&mut wire)? {
            (FRAME_END_COOKIE, VARINT) => cookie = Some(varint(&mut wire)? as i64),
            (FRAME_END_COOKIE, _) => return None,
            (_, wire_type) => skip(&mut wire, wire_type)?,
        }
    }
    Some(FrameTimelineEvent::End { cookie })
}

/// A `*Start` message of `kind`, whose fields are `slots`. Scalars are read as prost reads them: an `int64` is
/// the varint's 64 bits, an `int32` their low 32, a `bool` any non-zero value; the last occurrence wins.
fn start(
    kind: SliceKind,
    slots: &[Slot],
    bytes: &[u8],
    names: &mut LayerNames,
) -> Option<FrameTimelineEvent> {
    let mut wire = Bytes::new(bytes);
    let mut s = FrameStart {
        kind,
        cookie: None,
        token: None,
        display_frame_token: None,
        pid: None,
        layer_name: None,
        labels: FrameLabels::default(),
    };
    let (mut present_type, mut prediction_type, mut jank_severity_type) = (None, None, None);
    let (mut on_time_finish, mut gpu_composition, mut is_buffer) = (None, None, None);
    let (mut jank_type, mut jank_severity_score) = (None, None);
    while !wire.at_eof() {
        let (field, wire_type) = key(&mut wire)?;
        let slot = (field as usize).checked_sub(1).and_then(|i| slots.get(i));
        let Some(&slot) = slot else {
            skip(&mut wire, wire_type)?;
            continue;
        };
        match (slot, wire_type) {
            (Cookie, VARINT) => s.cookie = Some(varint(&mut wire)? as i64),
            (Token, VARINT) => s.token = Some(varint(&mut wire)? as i64),
            (DisplayFrameToken, VARINT) => s.display_frame_token = Some(varint(&mut wire)? as i64),
            (Pid, VARINT) => s.pid = Some(varint(&mut wire)? as i32),
            (LayerName, LEN) => s.layer_name = Some(names.get(len_value(&mut wire)?)?),
            (PresentType, VARINT) => present_type = Some(varint(&mut wire)? as i32),
            (PredictionType, VARINT) => prediction_type = Some(varint(&mut wire)? as i32),
            (JankSeverityType, VARINT) => jank_severity_type = Some(varint(&mut wire)? as i32),
            (JankType, VARINT) => jank_type = Some(varint(&mut wire)? as i32),
            (OnTimeFinish, VARINT) => on_time_finish = Some(varint(&mut wire)? != 0),
            (GpuComposition, VARINT) => gpu_composition = Some(varint(&mut wire)? != 0),
            (IsBuffer, VARINT) => is_buffer = Some(varint(&mut wire)? != 0),
            (JankSeverityScore, FIXED32) => jank_severity_score = Some(fixed32(&mut wire)?),
            (OtherFloat, FIXED32) => drop(fixed32(&mut wire)?),
            // A known field with another wire type: prost fails on it.
            _ => return None,
        }
    }
    if matches!(
        kind,
        SliceKind::ActualDisplayFrame | SliceKind::ActualSurfaceFrame
    ) {
        s.labels = FrameLabels {
            present_type: EnumCode::new(present_type),
            on_time_finish,
            gpu_composition,
            prediction_type: EnumCode::new(prediction_type),
            jank_severity_type: EnumCode::new(jank_severity_type),
            is_buffer,
            jank: JankValues::new(jank_type, jank_severity_score),
        };
    }
    Some(FrameTimelineEvent::Start(s))
}

/// prost's `FrameTimelineEvent` as ftl's event.
fn from_prost(ev: proto::FrameTimelineEvent, names: &mut LayerNames) -> FrameTimelineEvent {
    use proto::frame_timeline_event::Event as E;
    let mut start =
        |kind, cookie, token, display_frame_token, pid, layer_name: Option<String>, labels| {
            FrameTimelineEvent::Start(FrameStart {
                kind,
                cookie,
                token,
                display_frame_token,
                pid,
                layer_name: layer_name.and_then(|n| names.get(n.as_bytes())),
                labels,
            })
        };
    match ev.event {
        None => FrameTimelineEvent::Empty,
        Some(E::FrameEnd(e)) => FrameTimelineEvent::End { cookie: e.cookie },
        Some(E::ExpectedDisplayFrameStart(e)) => start(
            SliceKind::ExpectedDisplayFrame,
            e.cookie,
            e.token,
            None,
            e.pid,
            None,
            FrameLabels::default(),
        ),
        Some(E::ExpectedSurfaceFrameStart(e)) => start(
            SliceKind::ExpectedSurfaceFrame,
            e.cookie,
            e.token,
            e.display_frame_token,
            e.pid,
            e.layer_name,
            FrameLabels::default(),
        ),
        Some(E::ActualDisplayFrameStart(e)) => {
            let labels = FrameLabels {
                present_type: EnumCode::new(e.present_type),
                on_time_finish: e.on_time_finish,
                gpu_composition: e.gpu_composition,
                prediction_type: EnumCode::new(e.prediction_type),
                jank_severity_type: EnumCode::new(e.jank_severity_type),
                is_buffer: None,
                jank: JankValues::new(e.jank_type, e.jank_severity_score),
            };
            start(
                SliceKind::ActualDisplayFrame,
                e.cookie,
                e.token,
                None,
                e.pid,
                None,
                labels,
            )
        }
        Some(E::ActualSurfaceFrameStart(e)) => {
            let labels = FrameLabels {
                present_type: EnumCode::new(e.present_type),
                on_time_finish: e.on_time_finish,
                gpu_composition: e.gpu_composition,
                prediction_type: EnumCode::new(e.prediction_type),
                jank_severity_type: EnumCode::new(e.jank_severity_type),
                is_buffer: e.is_buffer,
                jank: JankValues::new(e.jank_type, e.jank_severity_score),
            };
            start(
                SliceKind::ActualSurfaceFrame,
                e.cookie,
                e.token,
                e.display_frame_token,
                e.pid,
                e.layer_name,
                labels,
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::ftrace::tests::packet_fields;
    use crate::decode::plain::tests::beside_prost;

    /// What prost's decode converts to: `None` when it fails. Compared through `Debug`, which shows a NaN score
    /// read from the same bytes the same way.
    fn by_prost(bytes: &[u8]) -> Option<String> {
        let event = proto::FrameTimelineEvent::decode(bytes).ok()?;
        Some(format!(
            "{:?}",
            from_prost(event, &mut LayerNames::default())
        ))
    }

    fn by_reader(bytes: &[u8]) -> Option<String> {
        read(bytes, &mut LayerNames::default()).map(|e| format!("{e:?}"))
    }

    fn real_events() -> Vec<Vec<u8>> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/traces");
        let mut events = Vec::new();
        for name in [
            "pixel6a_a13_startup_warm_60hz.perfetto-trace",
            "emulator_a12_cpu_sampling_60hz.pftrace",
            "pixel7pro_a13_nowinandroid_launch_120hz.perfetto-trace",
        ] {
            let trace = std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
            events.extend(packet_fields(&trace, 76).into_iter().map(<[u8]>::to_vec));
        }
        events
    }

    #[test]
    fn real_events_read_as_prost_decodes_them() {
        let events = real_events();
        let mut read = Vec::new();
        for bytes in &events {
            let got = by_reader(bytes);
            assert!(got.is_some(), "a real event is plain: {bytes:?}");
            assert_eq!(got, by_prost(bytes));
            read.extend(got);
        }
        assert!(events.len() > 5_000, "{}", events.len());
        // Starts of the four kinds, and ends.
        for kind in [
            "kind: ExpectedDisplayFrame,",
            "kind: ActualDisplayFrame,",
            "kind: ExpectedSurfaceFrame,",
            "kind: ActualSurfaceFrame,",
            "End {",
        ] {
            assert!(read.iter().any(|t| t.contains(kind)), "{kind}");
        }
    }

    #[test]
    fn damaged_events_read_as_prost_decodes_them_or_are_left_to_it() {
        let events = real_events();
        let originals: Vec<&[u8]> = events.iter().map(Vec::as_slice).collect();
        let (read, declined) = beside_prost(&originals, 20_000, 76, by_reader, by_prost);
        assert!(
            read > 1_000 && declined > 1_000,
            "{read} read, {declined} declined"
        );
    }

    #[test]
    fn unusual_messages_are_left_to_prost_or_read_as_it_reads_them() {
        let both = |bytes: &[u8]| (by_reader(bytes), by_prost(bytes));
        // No member: an empty event. A FrameEnd whose cookie repeats: the last wins; unknown fields skipped
        // (varint, fixed64, length-delimited, fixed32).
        assert_eq!(by_reader(&[]), Some("Empty".into()));
        let end = [
            0x2a, 0x16, // frame_end {
            0x08, 0x01, 0x08, 0x07, // cookie 1, cookie 7
            0x10, 0x05, // field 2 varint
            0x19, 0, 0, 0, 0, 0, 0, 0, 0, // field 3 fixed64
            0x22, 0x00, // field 4 empty
            0x2d, 1, 2, 3, 4, // field 5 fixed32 }
        ];
        assert_eq!(by_reader(&end), Some("End { cookie: Some(7) }".into()));
        assert_eq!(both(&end).0, both(&end).1);
        // An int32 pid written as a 64-bit varint keeps its low 32 bits; a bool of 2 is true; a float score.
        let mut actual = vec![0x12, 0x12]; // actual_display_frame_start {
        actual.extend([
            0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
        ]); // pid -1
        actual.extend([0x28, 0x02]); // on_time_finish 2
        actual.extend([0x5d, 0x00, 0x00, 0x80, 0x3f]); // jank_severity_score 1.0 }
        let (got, want) = both(&actual);
        assert!(
            got.as_ref().is_some_and(|g| g.contains("pid: Some(-1)")),
            "{got:?}"
        );
        assert_eq!(got, want);
        // Left to prost: two members (prost merges or replaces), a member with another wire type, a known
        // field with another wire type, a layer name that is not UTF-8, an overlong varint, a group, a field
        // number 0; prost rejects all but the first and the group.
        let two_members = [0x2a, 0x02, 0x08, 0x01, 0x2a, 0x02, 0x08, 0x02];
        assert_eq!(by_reader(&two_members), None);
        assert_eq!(
            by_prost(&two_members),
            Some("End { cookie: Some(2) }".into())
        );
        let group = [0x2a, 0x04, 0x08, 0x01, 0x33, 0x34];
        assert_eq!(by_reader(&group), None);
        assert_eq!(by_prost(&group), Some("End { cookie: Some(1) }".into()));
        let mut overlong = vec![0x2a, 11, 0x08];
        overlong.extend([0xff; 9]);
        overlong.push(0x02);
        for bytes in [
            &[0x28, 0x01][..],               // frame_end as a varint
            &[0x2a, 0x05, 0x09, 0, 0, 0, 0], // cookie as a truncated fixed64
            &[0x1a, 0x03, 0x2a, 0x01, 0xff], // layer_name not UTF-8
            &overlong,                       // a tenth byte above 1
            &[0x02, 0x00],                   // field number 0
            &[0x22, 0x02, 0x5d, 0x00],       // a truncated float
        ] {
            assert_eq!(both(bytes), (None, None), "{bytes:?}");
        }
    }
}
