//! Short, readable layer names for terminals and charts (full names stay in JSON, CSV and Parquet), and the
//! mark of an absent value.

/// What terminal tables and pictures show for a value the input does not hold (JSON, CSV and Parquet write
/// null): an en dash, never `0` or a hyphen that reads as a minus.
pub const ABSENT: &str = "–";

/// `com.google.samples.apps.nowinandroid` → `com.google...nowinandroid` when longer than 24 characters.
fn short_package(package: &str) -> String {
    let parts: Vec<&str> = package.split('.').collect();
    match (parts.as_slice(), package.chars().count() > 24) {
        ([a, b, .., last], true) if parts.len() > 3 => format!("{a}.{b}...{last}"),
        _ => package.to_string(),
    }
}

/// A readable lane label from a layer name: `TX - com.pkg.app/com.pkg.app.MainActivity#12` →
/// `com.pkg.app / MainActivity#12` (long packages shortened to `com.google...demo`, words before the package
/// kept); `TX - Surface(name=X)/@0x1 - animation-leash of app_transition#5` → `X · leash app_transition#5`; other
/// names keep their text (the drawing cuts what does not fit).
pub fn layer_label(layer: &str) -> String {
    let name = layer.strip_prefix("TX - ").unwrap_or(layer);
    let Some(rest) = name.strip_prefix("Surface(name=") else {
        return window_label(name);
    };
    let (inner, tail) = rest.split_once(")/").unwrap_or((rest, ""));
    let inner = match inner.split_once(' ') {
        Some((head, _)) if inner.contains('{') => format!("{head}}}"),
        _ => window_label(inner),
    };
    match tail.split_once("animation-leash of ") {
        Some((_, what)) => format!("{inner} · leash {what}"),
        None => inner,
    }
}

/// `com.pkg.app/com.pkg.app.MainActivity#12` → `com.pkg.app / MainActivity#12` (words before the package kept);
/// other names unchanged. Not recursive: a crafted name cannot exhaust the stack.
fn window_label(name: &str) -> String {
    let Some((package, activity)) = name.split_once('/') else {
        return name.to_string();
    };
    let activity = activity.rsplit('.').next().unwrap_or(activity);
    let (prefix, package) = package.rsplit_once(' ').unwrap_or(("", package));
    let prefix = if prefix.is_empty() {
        String::new()
    } else {
        format!("{prefix} ")
    };
    format!("{prefix}{} / {activity}", short_package(package))
}

/// The device of a build fingerprint (`brand/product/device:release/id/...`): `google/cheetah/cheetah:13/...`
/// → `cheetah, Android 13`; other text unchanged.
pub fn device(fingerprint: &str) -> String {
    let parse = || {
        let (left, right) = fingerprint.split_once(':')?;
        let product = left.split('/').nth(1)?;
        let release = right.split('/').next()?;
        Some(format!("{product}, Android {release}"))
    };
    parse().unwrap_or_else(|| fingerprint.to_string())
}

/// `text` cut to at most `max_chars` characters by replacing its middle with `…`, keeping the start (what the
/// layer is) and the end (`#123` tells layers apart).
pub fn elide(text: &str, max_chars: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= max_chars || max_chars < 3 {
        return text.to_string();
    }
    let head = (max_chars - 1) / 2;
    let tail = max_chars - 1 - head;
    let mut out: String = chars[..head].iter().collect();
    out.push('…');
    out.extend(&chars[chars.len() - tail..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layer_names_are_shortened_readably() {
        assert_eq!(
            layer_label(
                "TX - com.google.samples.apps.nowinandroid.demo/com.google.samples.apps.nowinandroid.MainActivity#123"
            ),
            "com.google...demo / MainActivity#123"
        );
        assert_eq!(layer_label("TX - StatusBar#0"), "StatusBar#0");
        assert_eq!(
            layer_label("TX - Bounds for - com.pkg.app/com.pkg.app.Main#4"),
            "Bounds for - com.pkg.app / Main#4"
        );
        assert_eq!(
            layer_label(
                "TX - Surface(name=Task=16090)/@0x9b71fa2 - animation-leash of app_transition#50005"
            ),
            "Task=16090 · leash app_transition#50005"
        );
        assert_eq!(
            layer_label(
                "TX - Surface(name=WindowToken{2e93408 type=2019 android.os.BinderProxy@2875bfa})/@0xe430c5 - \
                 animation-leash of token_transform#50013"
            ),
            "WindowToken{2e93408} · leash token_transform#50013"
        );
    }

    #[test]
    fn devices_come_from_fingerprints() {
        assert_eq!(
            device("google/cheetah/cheetah:13/TQ3A.230705.001/10216780:user/release-keys"),
            "cheetah, Android 13"
        );
        assert_eq!(device("emulator"), "emulator");
    }

    #[test]
    fn nested_surface_names_do_not_recurse() {
        let nested = "Surface(name=".repeat(200_000);
        assert!(layer_label(&nested).starts_with("Surface(name="));
    }

    #[test]
    fn long_names_keep_their_start_and_end() {
        assert_eq!(elide("abcdef", 6), "abcdef");
        assert_eq!(elide("abcdefgh", 5), "ab…gh");
        let long = format!("Surface(name={})#50016", "x".repeat(100));
        let short = elide(&long, 72);
        assert_eq!(short.chars().count(), 72);
        assert!(short.starts_with("Surface(name=xx") && short.ends_with("xx)#50016"));
    }
}
