//! Blocking-call names as Perfetto shows them: `android_standardize_slice_name` (stdlib `android/slices.sql`)
//! for the names of its critical blocking calls (`android/critical_blocking_calls.sql`), with hex and long
//! numbers replaced as `__intrinsic_strip_hex(name, 2)` does (`replace_numbers_function.cc`).

/// `name` standardised: the critical-blocking-call cases of `android_standardize_slice_name` in its order
/// (monitor contention, SuspendThreadByThreadId, LoadApkAssetsFd, relayoutWindow, coroutine continuations,
/// doFrame, DrawFrames, drawLayer, Texture upload, `GC: Wait For` → `Garbage Collector`, Lock contention,
/// Handler messages), else the name with its numbers stripped.
pub fn standardize(name: &str) -> String {
    const PREFIXES: [(&str, &str); 10] = [
        ("monitor contention with", "monitor contention with <...>"),
        ("SuspendThreadByThreadId", "SuspendThreadByThreadId <...>"),
        ("LoadApkAssetsFd", "LoadApkAssetsFd <...>"),
        ("relayoutWindow", "relayoutWindow <...>"),
        (
            "android.os.Handler: kotlinx.coroutines",
            "CoroutineContinuation",
        ),
        ("Choreographer#doFrame", "Choreographer#doFrame"),
        ("DrawFrames", "DrawFrames"),
        ("Texture upload", "Texture upload"),
        ("JIT compiling", "JIT compiling"),
        ("GC: Wait For", "Garbage Collector"),
    ];
    if let Some((_, to)) = PREFIXES.iter().find(|(p, _)| name.starts_with(p)) {
        return to.to_string();
    }
    if let Some(rest) = name.strip_prefix("drawLayer [") {
        if let Some(close) = rest.find(']') {
            return format!("drawLayer [{}]", &rest[..close]);
        }
    }
    if name.starts_with("Lock contention on") {
        if let Some(open) = name.find(" (") {
            return format!("{} <...>", &name[..open]);
        }
    }
    if let Some(handler) = handler_name(name) {
        return handler;
    }
    strip_hex(name, 2)
}

/// The Handler-message heuristics of `android_standardize_slice_name`: `…Handler: <class>$…` →
/// `Handler: <class>`; `<a.b.c>: <class>$…` → `Handler: <class>`; `<a.b$c>: #n` → `Handler: <a.b>`.
fn handler_name(name: &str) -> Option<String> {
    let before_dollar = |s: &str| strip_hex(s.split('$').next().unwrap_or(s), 2);
    if let Some(at) = name.find("Handler: ") {
        if name[at..].contains('$') {
            return Some(before_dollar(&name[at..]));
        }
    }
    let (head, tail) = name.split_once(": ")?;
    // Perfetto's `substr(name, ': ')` starts at 0: the whole name, cut at its first `$` as the next case.
    if (head.matches('.').count() >= 2 && tail.contains('$'))
        || (head.contains('.') && head.contains('$') && tail.starts_with('#'))
    {
        return Some(format!("Handler: {}", before_dollar(name)));
    }
    None
}

/// Perfetto's `__intrinsic_strip_hex(input, min_digits)`: a run of hex digits that follows `0x`, a
/// non-alphanumeric character or the start, and holds a decimal digit (any run after `0x`), becomes `<num>`
/// when at least `min_digits` long.
pub fn strip_hex(input: &str, min_digits: usize) -> String {
    let b = input.as_bytes();
    let mut out = String::with_capacity(input.len());
    let mut i = 0;
    while i < b.len() {
        let mut replace = false;
        if (b[i] == b'x' || b[i] == b'X') && i >= 1 && b[i - 1] == b'0' {
            out.push(b[i] as char);
            i += 1;
            replace = true;
        } else if !b[i].is_ascii_alphanumeric() {
            // Copy one whole UTF-8 character.
            let len = input[i..].chars().next().map_or(1, char::len_utf8);
            out.push_str(&input[i..i + len]);
            i += len;
        } else if (i == 0 && b[i].is_ascii_hexdigit()) || b[i].is_ascii_digit() {
        } else {
            out.push(b[i] as char);
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && b[i].is_ascii_hexdigit() {
            replace |= b[i].is_ascii_digit();
            i += 1;
        }
        if replace && i - start >= min_digits {
            out.push_str("<num>");
        } else {
            out.push_str(&input[start..i]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_standardised_as_perfetto_does() {
        for (raw, want) in [
            ("monitor contention with owner main (123) at void a.b()", "monitor contention with <...>"),
            ("GC: Wait For Concurrent", "Garbage Collector"),
            ("drawLayer [DoubleShadowNode] 55.0 x 55.0", "drawLayer [DoubleShadowNode]"),
            ("Texture upload(2634389) 192x192", "Texture upload"),
            ("Lock contention on thread list lock (owner tid: 1665)", "Lock contention on thread list lock <...>"),
            ("android.os.Handler: com.android.systemui.qs.TileServiceManager$1", "Handler: com.android.systemui.qs.TileServiceManager"),
            ("android.view.ViewRootImpl$ViewRootHandler: com.android.systemui.someClass$enableMarquee$1", "Handler: com.android.systemui.someClass"),
            ("android.os.AsyncTask$InternalHandler: #1", "Handler: android.os.AsyncTask"),
            ("com.foo.Bar: com.foo.Baz$1", "Handler: com.foo.Bar: com.foo.Baz"),
            ("inflate", "inflate"),
            ("measure", "measure"),
            ("DrawFrames 1234", "DrawFrames"),
        ] {
            assert_eq!(standardize(raw), want, "{raw}");
        }
    }

    #[test]
    fn hex_and_numbers_are_stripped_as_strip_hex_does() {
        for (raw, want) in [
            ("addr 0x7fab12", "addr 0x<num>"),
            ("0xabc", "0x<num>"),
            ("frame 12345 done", "frame <num> done"),
            ("frame 7 done", "frame 7 done"),
            ("deadbeef 1", "deadbeef 1"),
            ("cafe12 x", "<num> x"),
            ("abc12", "<num>"),
            ("xyz12", "xyz<num>"),
            ("a-12b", "a-<num>"),
        ] {
            assert_eq!(strip_hex(raw, 2), want, "{raw}");
        }
    }
}
