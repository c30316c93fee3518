//! The thread-slice names ftl keeps beyond frames and markers: Perfetto's critical blocking calls, the binder
//! server names (`AIDL::…` / `HIDL::…`) and ART's lock contention, each with the Perfetto file its rule
//! comes from. Asked of every atrace `B` line, so a name is told apart by its first (or last) byte, in a table,
//! before any comparison.

use std::sync::LazyLock;

/// A name pattern: the whole name, a prefix (SQL `GLOB 'x*'`), or a substring (`GLOB '*x*'`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NamePattern {
    /// The name equals this.
    Exact(&'static str),
    /// The name starts with this.
    Prefix(&'static str),
    /// The name contains this.
    Contains(&'static str),
}

impl NamePattern {
    /// True if `name` matches.
    #[inline]
    pub fn matches(self, name: &[u8]) -> bool {
        match self {
            NamePattern::Exact(p) => name == p.as_bytes(),
            NamePattern::Prefix(p) => name.starts_with(p.as_bytes()),
            NamePattern::Contains(p) => contains(name, p.as_bytes()),
        }
    }
}

/// Whether `name` contains `pattern`, compared where its first byte is found (a vectorised scan): for names of a
/// few dozen bytes that costs less than a general substring search.
fn contains(name: &[u8], pattern: &[u8]) -> bool {
    let (Some(&first), Some(last_start)) = (pattern.first(), name.len().checked_sub(pattern.len()))
    else {
        return pattern.is_empty();
    };
    memchr::memchr_iter(first, &name[..=last_start]).any(|i| name[i..].starts_with(pattern))
}

/// The one substring pattern of [`CRITICAL_BLOCKING_CALLS`], which the first-byte table cannot hold.
const BINDER_TRANSACTION: NamePattern = NamePattern::Contains("binder transaction");

/// Perfetto's critical blocking calls: the names `_is_relevant_blocking_call_expr` matches in stdlib
/// `android/critical_blocking_calls.sql` (google/perfetto @ ec5d16b1), without its Handler-message heuristics,
/// plus `dequeueBuffer` and `waitForBufferRelease` (`DrawFrames*` durations are reduced by their child
/// `waitForBufferRelease`; `dequeueBuffer` is the RenderThread's wait for a buffer).
pub const CRITICAL_BLOCKING_CALLS: [NamePattern; 29] = [
    NamePattern::Exact("measure"),
    NamePattern::Exact("layout"),
    NamePattern::Exact("configChanged"),
    NamePattern::Exact("animation"),
    NamePattern::Exact("input"),
    NamePattern::Exact("traversal"),
    NamePattern::Exact("Contending for pthread mutex"),
    NamePattern::Exact("postAndWait"),
    NamePattern::Exact("CreateGraphicsPipeline"),
    NamePattern::Exact("flush layers"),
    NamePattern::Exact("flush commands"),
    NamePattern::Exact("queueBuffer"),
    NamePattern::Exact("dequeueBuffer"),
    NamePattern::Exact("waitForBufferRelease"),
    NamePattern::Prefix("monitor contention with"),
    NamePattern::Prefix("SuspendThreadByThreadId"),
    NamePattern::Prefix("LoadApkAssetsFd"),
    BINDER_TRANSACTION,
    NamePattern::Prefix("inflate"),
    NamePattern::Prefix("Lock contention on"),
    NamePattern::Prefix("relayoutWindow"),
    NamePattern::Prefix("ImageDecoder#decode"),
    NamePattern::Prefix("GC: Wait For"),
    NamePattern::Prefix("Recomposer:"),
    NamePattern::Prefix("Compose:"),
    NamePattern::Prefix("draw-VRI"),
    NamePattern::Prefix("drawLayer "),
    NamePattern::Prefix("DrawFrames"),
    NamePattern::Prefix("Texture upload"),
];

/// True if a thread slice named `name` is one of Perfetto's critical blocking calls ([`CRITICAL_BLOCKING_CALLS`]).
pub fn is_critical_blocking_call(name: &[u8]) -> bool {
    by_first_byte(name).any(|(p, critical)| critical && p.matches(name))
        || BINDER_TRANSACTION.matches(name)
}

/// The exact and prefix patterns that can match `name`: those of [`CRITICAL_BLOCKING_CALLS`] (flagged `true`)
/// and [`BINDER_AND_LOCK_PREFIXES`] (`false`) starting with its first byte, found in a table by that byte (most
/// names have none: one lookup tells them apart).
fn by_first_byte(name: &[u8]) -> impl Iterator<Item = (NamePattern, bool)> {
    static TABLE: LazyLock<Vec<Vec<(NamePattern, bool)>>> = LazyLock::new(|| {
        let mut table = vec![Vec::new(); 256];
        let critical = CRITICAL_BLOCKING_CALLS.iter().map(|&p| (p, true));
        let binder_and_lock = BINDER_AND_LOCK_PREFIXES
            .iter()
            .map(|&s| (NamePattern::Prefix(s), false));
        for (p, critical) in critical.chain(binder_and_lock) {
            if let NamePattern::Exact(s) | NamePattern::Prefix(s) = p {
                if let Some(&b) = s.as_bytes().first() {
                    table[usize::from(b)].push((p, critical));
                }
            }
        }
        table
    });
    let patterns = match name.first() {
        Some(&b) => TABLE[usize::from(b)].as_slice(),
        None => &[],
    };
    patterns.iter().copied()
}

/// Prefixes of the names Perfetto's binder and lock tables read beyond the blocking calls: binder server names
/// (`AIDL::*Server`, `AIDL::*server`, `HIDL::*server` in stdlib `android/binder.sql`) and ART's contention slices
/// as `android/monitor_contention.sql` globs them (`monitor contention*`, child `Lock contention*`).
pub const BINDER_AND_LOCK_PREFIXES: [&str; 4] =
    ["AIDL::", "HIDL::", "monitor contention", "Lock contention"];

/// Suffixes of the slices whose names `android/monitor_contention.sql` takes a contention's `lock_name` from (the
/// slice just before it on its thread, and the one or two just after).
pub const LOCK_NAME_SUFFIXES: [&str; 2] = ["_lock_acquire", "_lock_held"];

/// True if ftl keeps a thread slice named `name` for the blocking-call, binder and lock tables.
pub fn keeps(name: &[u8]) -> bool {
    let Some(&last) = name.last() else {
        return false;
    };
    by_first_byte(name).any(|(p, _)| p.matches(name))
        || BINDER_TRANSACTION.matches(name)
        || ((last == b'e' || last == b'd')
            && LOCK_NAME_SUFFIXES
                .iter()
                .any(|s| name.ends_with(s.as_bytes())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocking_calls_match_exact_names_prefixes_and_the_binder_substring() {
        for yes in [
            "measure",
            "queueBuffer",
            "monitor contention with owner x",
            "Lock contention on a monitor lock (owner tid: 1)",
            "AIDL::java::IFoo::bar::client binder transaction",
            "binder transaction async",
            "bbinder transaction",
            "x binder transaction",
            "GC: Wait For Completion",
            "drawLayer x",
            "dequeueBuffer",
        ] {
            assert!(is_critical_blocking_call(yes.as_bytes()), "{yes}");
            assert!(keeps(yes.as_bytes()), "{yes}");
        }
        for no in [
            "measured",
            "",
            "drawLayer",
            "monitor contention",
            "binder reply",
            "binder transactio",
            "binder  transaction",
            "Choreographer#doFrame 1",
        ] {
            assert!(!is_critical_blocking_call(no.as_bytes()), "{no}");
        }
        for kept in [
            "AIDL::java::IFoo::bar::server",
            "HIDL::IComposerClient::executeCommands_2_2::server",
            "monitor contention",
            "mm_lock_acquire",
            "mm_lock_held",
        ] {
            assert!(keeps(kept.as_bytes()), "{kept}");
        }
        for not in ["", "d", "lock_held_x", "binder reply", "AIDL:"] {
            assert!(!keeps(not.as_bytes()), "{not}");
        }
    }
}
