//! ftrace binder events → [`BinderEvent`]: `binder_transaction` (FtraceEvent field 50) and
//! `binder_transaction_received` (51), the two events Perfetto's `BinderTracker` makes transaction slices from
//! (`src/trace_processor/importers/ftrace/binder_tracker.cc`, `ftrace_parser.cc` `ParseBinderTransaction*`,
//! google/perfetto @ ec5d16b1). Field numbers: `protos/perfetto/trace/ftrace/binder.proto`.
//!
//! Not read: `binder_transaction_alloc_buf` (only adds `data size` / `offsets size` args to the open transaction
//! slice), `binder_command` / `binder_return` (let Perfetto end slices of failed transactions; absent from the
//! `binder_driver` category's events), `binder_lock*` (removed from kernels since 4.14) and `binder_set_priority`
//! (no slice).

use super::wire::{Bytes, Framing, WireError, VARINT};

/// `binder_transaction` in `FtraceEvent`'s oneof.
pub(super) const EVENT_BINDER_TRANSACTION: u32 = 50;
/// `binder_transaction_received` in `FtraceEvent`'s oneof.
pub(super) const EVENT_BINDER_TRANSACTION_RECEIVED: u32 = 51;

// BinderTransactionFtraceEvent.
const TRANSACTION_DEBUG_ID: u32 = 1;
const TRANSACTION_REPLY: u32 = 5;
const TRANSACTION_FLAGS: u32 = 7;
// BinderTransactionReceivedFtraceEvent.
const RECEIVED_DEBUG_ID: u32 = 1;

/// `TF_ONE_WAY`: the transaction expects no reply (binder_tracker.cc `kOneWay`).
const FLAG_ONE_WAY: u32 = 0x01;

/// One binder ftrace event, as Perfetto's `BinderTracker` reads it; the thread is the event's `pid` (a tid).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinderEvent {
    /// `binder_transaction`: the thread sends a transaction (or, with `reply`, the reply to one it received).
    Transaction {
        /// The kernel's id of this transaction (`debug_id`), which its `binder_transaction_received` repeats.
        debug_id: i32,
        /// `reply == 1`: a reply to a synchronous transaction.
        reply: bool,
        /// `flags & TF_ONE_WAY`: asynchronous (oneway), no reply expected.
        oneway: bool,
    },
    /// `binder_transaction_received`: the thread received transaction `debug_id` (a request, or the reply to one
    /// it sent).
    Received {
        /// The `debug_id` of the transaction received.
        debug_id: i32,
    },
}

/// The `binder_transaction` payload `msg`; absent fields read 0, as Perfetto's decoder gives them.
pub(super) fn transaction(msg: &[u8]) -> Result<BinderEvent, WireError> {
    let (mut debug_id, mut reply, mut flags) = (0, 0, 0);
    let mut wire = Bytes::new(msg);
    while !wire.at_eof() {
        match wire.key()? {
            (TRANSACTION_DEBUG_ID, VARINT) => debug_id = wire.varint()? as i32,
            (TRANSACTION_REPLY, VARINT) => reply = wire.varint()? as i32,
            (TRANSACTION_FLAGS, VARINT) => flags = wire.varint()? as u32,
            (_, wire_type) => wire.skip_value(wire_type)?,
        }
    }
    Ok(BinderEvent::Transaction {
        debug_id,
        reply: reply == 1,
        oneway: flags & FLAG_ONE_WAY != 0,
    })
}

/// The `binder_transaction_received` payload `msg`.
pub(super) fn received(msg: &[u8]) -> Result<BinderEvent, WireError> {
    let mut debug_id = 0;
    let mut wire = Bytes::new(msg);
    while !wire.at_eof() {
        match wire.key()? {
            (RECEIVED_DEBUG_ID, VARINT) => debug_id = wire.varint()? as i32,
            (_, wire_type) => wire.skip_value(wire_type)?,
        }
    }
    Ok(BinderEvent::Received { debug_id })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn varint(out: &mut Vec<u8>, field: u32, v: u64) {
        prost::encoding::encode_varint(u64::from(field << 3), out);
        prost::encoding::encode_varint(v, out);
    }

    #[test]
    fn transactions_read_id_reply_and_oneway_and_skip_the_rest() {
        let mut msg = Vec::new();
        varint(&mut msg, TRANSACTION_DEBUG_ID, 4242);
        varint(&mut msg, 2, 77); // target_node
        varint(&mut msg, 3, 1858); // to_proc
        varint(&mut msg, TRANSACTION_REPLY, 1);
        varint(&mut msg, 6, 0x5f); // code
        varint(&mut msg, TRANSACTION_FLAGS, 0x11);
        assert_eq!(
            transaction(&msg).unwrap(),
            BinderEvent::Transaction {
                debug_id: 4242,
                reply: true,
                oneway: true
            }
        );
        // reply is an int: only 1 means a reply.
        let mut odd = Vec::new();
        varint(&mut odd, TRANSACTION_REPLY, 2);
        assert_eq!(
            transaction(&odd).unwrap(),
            BinderEvent::Transaction {
                debug_id: 0,
                reply: false,
                oneway: false
            }
        );
        let mut rcv = Vec::new();
        varint(&mut rcv, RECEIVED_DEBUG_ID, u64::from(u32::MAX));
        assert_eq!(
            received(&rcv).unwrap(),
            BinderEvent::Received { debug_id: -1 }
        );
        assert!(received(&rcv[..rcv.len() - 1]).is_err());
    }
}
