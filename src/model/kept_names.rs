//! The thread-slice names ftl keeps beyond frames and markers: Perfetto's critical blocking calls, the binder
//! server names (`AIDL::…` / `HIDL::…`) and ART's lock contention, each with the Perfetto file its rule
//! comes from. Asked of every atrace `B` line, so a name is told apart by its first (or last) byte before any
//! comparison.

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
    pub fn matches(self, name: &[u8]) -> bool {
        match self {
            NamePattern::Exact(p) => name == p.as_bytes(),
            NamePattern::Prefix(p) => name.starts_with(p.as_bytes()),
            NamePattern::Contains(p) => memchr::memmem::find(name, p.as_bytes()).is_some(),
        }
    }
}

/// The one substring pattern of [`CRITICAL_BLOCKING_CALLS`].
const BINDER_TRANSACTION: &str = "binder transaction";

/// Its searcher, built once: [`is_critical_blocking_call`] runs it on every name at least as long.
static BINDER_TRANSACTION_FINDER: LazyLock<memchr::memmem::Finder<'static>> =
    LazyLock::new(|| memchr::memmem::Finder::new(BINDER_TRANSACTION));

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
    NamePattern::Contains(BINDER_TRANSACTION),
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
    // The substring pattern needs a search; every other one starts with the name's first byte.
    let first = name.first().copied();
    CRITICAL_BLOCKING_CALLS.iter().any(|p| match *p {
        NamePattern::Exact(s) | NamePattern::Prefix(s) => {
            first == s.as_bytes().first().copied() && p.matches(name)
        }
        NamePattern::Contains(_) => false,
    }) || (name.len() >= BINDER_TRANSACTION.len() && BINDER_TRANSACTION_FINDER.find(name).is_some())
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
    is_critical_blocking_call(name)
        || BINDER_AND_LOCK_PREFIXES
            .iter()
            .any(|p| name[0] == p.as_bytes()[0] && name.starts_with(p.as_bytes()))
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
