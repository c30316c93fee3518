//! What ftl asks a device before capturing: its release, model, build and refresh period in one `adb shell`
//! call, whether a package is installed and running, and which SurfaceFlinger layer draws a package's frames
//! (`dumpsys SurfaceFlinger --list` in every release's format: `shared/docs/recording.md` §2.2).

use super::adb::{quote, Adb};
use crate::error::{Error, Result};

/// The device facts a capture is headed by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceInfo {
    /// `ro.build.version.sdk` (28 = Android 9, 31 = 12, 35 = 15, 36 = 16).
    pub sdk: u32,
    /// `ro.build.version.release` ("14").
    pub release: String,
    /// `ro.product.model`.
    pub model: String,
    /// `ro.build.id`.
    pub build: String,
    /// `persist.traced.enable` (Android 9–10 need it "1" for perfetto).
    pub traced_enabled: bool,
    /// The display's current vsync period, ns (line 1 of `dumpsys SurfaceFlinger --latency`); `None` if the
    /// device did not print a plausible one.
    pub vsync_period_ns: Option<i64>,
}

impl DeviceInfo {
    /// The capture file's header comment lines (readers skip leading `#` lines).
    pub fn header(&self, what: &str) -> String {
        let refresh = self.vsync_period_ns.map_or_else(
            || "refresh unknown".to_string(),
            |p| format!("refresh {:.2} Hz (vsync period {p} ns)", 1e9 / p as f64),
        );
        format!(
            "{}: {what}\n# device: {} | build {} | Android {} (SDK {}) | {refresh}\n",
            crate::sources::RECORDED_HEADER,
            self.model,
            self.build,
            self.release,
            self.sdk
        )
    }

    /// "Android 14 (SDK 34)".
    pub fn android(&self) -> String {
        format!("Android {} (SDK {})", self.release, self.sdk)
    }
}

/// Asks the device for its facts in one call. Errors: adb's (no device, unauthorized, …), or an answer that is
/// not a device's (no SDK level).
pub fn device_info(adb: &Adb) -> Result<DeviceInfo> {
    let text = adb.shell(
        "getprop ro.build.version.sdk; getprop ro.build.version.release; getprop ro.product.model; \
         getprop ro.build.id; getprop persist.traced.enable; dumpsys SurfaceFlinger --latency",
    )?;
    let mut lines = text.lines().map(str::trim);
    let mut next = || lines.next().unwrap_or_default().to_string();
    let sdk_line = next();
    let sdk = sdk_line.parse::<u32>().map_err(|_| {
        Error::Device(format!(
            "the device did not say its Android version (getprop ro.build.version.sdk gave {sdk_line:?}): is it \
             fully booted? `adb wait-for-device` waits for it"
        ))
    })?;
    let (release, model, build, traced) = (next(), next(), next(), next());
    let vsync_period_ns = next()
        .parse::<i64>()
        .ok()
        .filter(|p| (1_000_000..=1_000_000_000).contains(p));
    Ok(DeviceInfo {
        sdk,
        release,
        model,
        build,
        traced_enabled: traced == "1",
        vsync_period_ns,
    })
}

/// Checks that `package` is installed and returns its pid when it runs (`None`: installed, not running).
/// Errors: not installed (with the closest installed names), adb's errors.
pub fn package_pid(adb: &Adb, package: &str) -> Result<Option<u32>> {
    let out = adb.shell_status(&format!("pm path {}", quote(package)), None)?;
    if out.status != 0 || !out.text().contains("package:") {
        let listed = adb.shell("cmd package list packages").unwrap_or_default();
        let key = package.rsplit('.').next().unwrap_or(package).to_lowercase();
        let close: Vec<&str> = listed
            .lines()
            .filter_map(|l| l.trim().strip_prefix("package:"))
            .filter(|p| p.to_lowercase().contains(&key))
            .take(5)
            .collect();
        return Err(Error::Device(format!(
            "package {package} is not installed on the device{}",
            if close.is_empty() {
                "; `adb shell pm list packages` lists what is".to_string()
            } else {
                format!(" (installed and alike: {})", close.join(", "))
            }
        )));
    }
    let out = adb.shell_status(&format!("pidof {}", quote(package)), None)?;
    Ok(out
        .text()
        .split_whitespace()
        .next()
        .and_then(|p| p.parse().ok()))
}

/// The package's running pid, or an error saying to start it.
pub fn running_pid(adb: &Adb, package: &str) -> Result<u32> {
    package_pid(adb, package)?.ok_or_else(|| {
        Error::Device(format!(
            "{package} is installed but not running: start it (e.g. `adb shell monkey -p {package} 1`) and run \
             ftl again"
        ))
    })
}

/// The layer names of one `dumpsys SurfaceFlinger --list`, in every release's format: one name per line
/// (Android 9–14), or `RequestedLayerState{<name>[ parentId=N]…}` (15+), whose name may hold spaces and braces
/// and ends at the last `#<digits>` before the attributes.
pub fn parse_layer_list(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|line| match line.strip_prefix("RequestedLayerState{") {
            None => line.to_string(),
            Some(inner) => {
                let inner = inner.strip_suffix('}').unwrap_or(inner);
                requested_layer_name(inner).to_string()
            }
        })
        .filter(|n| !n.is_empty() && !n.starts_with("Display ") && n != "Layers:")
        .collect()
}

/// The name inside `RequestedLayerState{…}`: the longest prefix ending in `#<digits>` that is followed by the
/// end or by a space (the attributes: `parentId=`, `z=`, `layerStack=`, …); else everything.
fn requested_layer_name(inner: &str) -> &str {
    let bytes = inner.as_bytes();
    let mut best = None;
    for (i, b) in bytes.iter().enumerate() {
        if *b != b'#' {
            continue;
        }
        let digits = bytes[i + 1..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        let end = i + 1 + digits;
        if digits > 0 && (end == bytes.len() || bytes[end] == b' ') {
            best = Some(end);
        }
    }
    best.map_or(inner, |end| &inner[..end])
}

/// The layers that may carry `package`'s frames, best first: a game's SurfaceView buffer (`…(BLAST)#N` from
/// Android 12, `SurfaceView - pkg/…#N` before), then the app window's buffer layer (`pkg/pkg.Activity#N`), then
/// other layers naming the package; containers without buffers (`SurfaceView[…]#N` of the BLAST era, the
/// `<hash> pkg/…` window container) are left out.
pub fn candidate_layers<'a>(layers: &'a [String], package: &str) -> Vec<&'a String> {
    let rank = |name: &str| -> Option<u8> {
        if !name.contains(package) {
            return None;
        }
        let hashed_container = name
            .split_once(' ')
            .is_some_and(|(head, _)| head.chars().all(|c| c.is_ascii_hexdigit()));
        if name.contains("SurfaceView") {
            if name.contains("(BLAST)") {
                Some(0)
            } else if name.starts_with("SurfaceView - ") {
                Some(1)
            } else {
                None
            }
        } else if name.starts_with(package) && name.contains('/') {
            Some(2)
        } else if hashed_container {
            None
        } else {
            Some(3)
        }
    };
    let mut ranked: Vec<(u8, &String)> = layers
        .iter()
        .filter_map(|l| rank(l).map(|r| (r, l)))
        .collect();
    ranked.sort_by_key(|(r, _)| *r);
    ranked.into_iter().map(|(_, l)| l).collect()
}

/// The layer that carries `package`'s frames: the first of [`candidate_layers`]; `None` if there is none.
pub fn pick_layer<'a>(layers: &'a [String], package: &str) -> Option<&'a String> {
    candidate_layers(layers, package).into_iter().next()
}

/// Lists the layers and picks `package`'s (see [`pick_layer`]). Errors: no layer of the package, with the
/// advice to pass `--layer`.
pub fn find_layer(adb: &Adb, package: &str) -> Result<String> {
    let layers = parse_layer_list(&adb.shell("dumpsys SurfaceFlinger --list")?);
    pick_layer(&layers, package).cloned().ok_or_else(|| {
        Error::Device(format!(
            "no SurfaceFlinger layer of {package} (is it in the foreground?): `adb shell dumpsys SurfaceFlinger \
             --list` lists them; pass one with --layer NAME (a game draws on `SurfaceView[{package}/…](BLAST)#N` \
             from Android 12, `SurfaceView - {package}/…#N` before)"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layer_lists_of_every_release_give_names() {
        let a14 = "Display 0 name=\"Built-in Screen\"#2\n7a1c2e0 com.ex.game/com.ex.game.Main#1044\n\
                   com.ex.game/com.ex.game.Main#1051\nSurfaceView[com.ex.game/com.ex.game.Main]#1060\n\
                   SurfaceView[com.ex.game/com.ex.game.Main](BLAST)#1061\nStatusBar#88\n";
        let names = parse_layer_list(a14);
        assert_eq!(names.len(), 5);
        assert_eq!(
            pick_layer(&names, "com.ex.game").unwrap(),
            "SurfaceView[com.ex.game/com.ex.game.Main](BLAST)#1061"
        );
        // `l` in ftl watch cycles through the buffer layers only, never the containers.
        assert_eq!(
            candidate_layers(&names, "com.ex.game"),
            [
                "SurfaceView[com.ex.game/com.ex.game.Main](BLAST)#1061",
                "com.ex.game/com.ex.game.Main#1051"
            ]
        );
        let a15 = "RequestedLayerState{54dfae7 ctrip.android.view/ctrip.Home#28989 parentId=28983}\n\
                   RequestedLayerState{ctrip.android.view/ctrip.Home#29149 parentId=28989}\n\
                   RequestedLayerState{ActivityRecord{5e6ac22 u0 ctrip.android.view/ctrip.Home t329}#28983}\n";
        let names = parse_layer_list(a15);
        assert_eq!(
            names,
            vec![
                "54dfae7 ctrip.android.view/ctrip.Home#28989",
                "ctrip.android.view/ctrip.Home#29149",
                "ActivityRecord{5e6ac22 u0 ctrip.android.view/ctrip.Home t329}#28983"
            ]
        );
        assert_eq!(
            pick_layer(&names, "ctrip.android.view").unwrap(),
            "ctrip.android.view/ctrip.Home#29149"
        );
        let a9 = "SurfaceView - org.videolan.vlc/org.videolan.vlc.Player#0\norg.videolan.vlc/org.videolan.vlc.Player#0\n";
        assert_eq!(
            pick_layer(&parse_layer_list(a9), "org.videolan.vlc").unwrap(),
            "SurfaceView - org.videolan.vlc/org.videolan.vlc.Player#0"
        );
        assert!(pick_layer(&parse_layer_list(a9), "com.other").is_none());
    }
}
