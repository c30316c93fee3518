//! The `adb` executable as ftl runs it: which one (`--adb`, `$ADB`, `PATH`), which device (`-s`, else
//! `$ANDROID_SERIAL`, as adb decides), every call bounded by a timeout, and adb's failures turned into one-line
//! errors that say what to do (adb's own words: `shared/docs/recording.md` §4).

use crate::error::{Error, Result};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;
use wait_timeout::ChildExt;

/// Time allowed to one ordinary adb call (a getprop, a dumpsys, a kill).
pub const CALL_TIMEOUT: Duration = Duration::from_secs(20);

/// What adb prints, on stderr, for a device whose key the user has not accepted (adb's 4 lines).
const UNAUTHORIZED_ADVICE: &str =
    "accept the \"Allow USB debugging\" dialog on the device (adb says: \"Try 'adb kill-server' if that seems \
     wrong. Otherwise check for a confirmation dialog on your device.\")";

/// One adb executable talking to one device (or to whichever single device is attached).
#[derive(Debug, Clone)]
pub struct Adb {
    exe: PathBuf,
    serial: Option<String>,
}

/// What one adb call gave back.
#[derive(Debug)]
pub struct Output {
    /// adb's exit status (the device command's with the shell protocol; 255 for a dropped connection since
    /// 2024, 0 before; -1 when killed by a signal).
    pub status: i32,
    /// Standard output, raw bytes.
    pub stdout: Vec<u8>,
    /// Standard error as text.
    pub stderr: String,
}

impl Output {
    /// Standard output as text (lossy), line ends as the device wrote them.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
}

impl Adb {
    /// The adb to run: `explicit` (`--adb`), else `$ADB`, else `adb` on `PATH`; and the device: `serial`
    /// (`-s`), else `$ANDROID_SERIAL`, else none (adb then needs exactly one device).
    ///
    /// Errors: [`Error::Device`] when no adb executable is found.
    pub fn locate(explicit: Option<&Path>, serial: Option<String>) -> Result<Adb> {
        let exe = match explicit
            .map(Path::to_path_buf)
            .or_else(|| std::env::var_os("ADB").map(PathBuf::from))
        {
            Some(p) if p.is_file() => p,
            Some(p) => {
                return Err(Error::Device(format!(
                    "adb not found at {}: pass the path of the platform-tools adb with --adb PATH",
                    p.display()
                )))
            }
            None => find_on_path("adb").ok_or_else(|| {
                Error::Device(
                    "adb not found on PATH: install Android platform-tools (https://developer.android.com/tools/\
                     releases/platform-tools) or pass --adb PATH"
                        .into(),
                )
            })?,
        };
        let serial = serial
            .or_else(|| std::env::var("ANDROID_SERIAL").ok())
            .filter(|s| !s.is_empty());
        Ok(Adb { exe, serial })
    }

    /// The device's serial as chosen by `-s` / `$ANDROID_SERIAL`, if any.
    pub fn serial(&self) -> Option<&str> {
        self.serial.as_deref()
    }

    /// Runs `adb [-s SERIAL] ARGS`, feeding `stdin` if given, killed after `timeout`. The status is not
    /// checked. Errors: adb cannot be started, or it did not finish in time.
    pub fn run(&self, args: &[&str], stdin: Option<&[u8]>, timeout: Duration) -> Result<Output> {
        let mut cmd = Command::new(&self.exe);
        if let Some(serial) = &self.serial {
            cmd.args(["-s", serial]);
        }
        cmd.args(args)
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // Its own process group: the terminal's Ctrl-C goes to ftl, which stops the device side itself, and not
        // to the adb call in flight.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let shown = || format!("adb {}", args.join(" "));
        let mut child = cmd
            .spawn()
            .map_err(|e| Error::Device(format!("cannot run {}: {e}", self.exe.display())))?;
        let pipe = |r: Option<Box<dyn Read + Send>>| {
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                if let Some(mut r) = r {
                    let _ = r.read_to_end(&mut buf);
                }
                buf
            })
        };
        let out = pipe(
            child
                .stdout
                .take()
                .map(|s| Box::new(s) as Box<dyn Read + Send>),
        );
        let err = pipe(
            child
                .stderr
                .take()
                .map(|s| Box::new(s) as Box<dyn Read + Send>),
        );
        if let (Some(bytes), Some(mut input)) = (stdin, child.stdin.take()) {
            // A device that exits early closes the pipe: its status says why, not the write.
            let _ = input.write_all(bytes);
        }
        let status = match child.wait_timeout(timeout) {
            Ok(Some(status)) => status,
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(Error::Device(format!(
                    "`{}` did not answer within {} s: the device or the adb server hangs; unplug and replug the \
                     device, or run `adb kill-server`",
                    shown(),
                    timeout.as_secs()
                )));
            }
            Err(e) => return Err(Error::Device(format!("`{}`: {e}", shown()))),
        };
        Ok(Output {
            status: status.code().unwrap_or(-1),
            stdout: out.join().unwrap_or_default(),
            stderr: String::from_utf8_lossy(&err.join().unwrap_or_default()).into_owned(),
        })
    }

    /// Runs `adb shell COMMAND` (one device-side command line, `;` / `&&` chains allowed) and returns its
    /// output when it exits 0. Errors: every adb failure as [`Adb::check`] words it; a non-zero device status
    /// as the command's own last stderr (or stdout) line.
    pub fn shell(&self, command: &str) -> Result<String> {
        let out = self.shell_status(command, None)?;
        if out.status != 0 {
            let said = last_line(&out.stderr).or_else(|| last_line(&out.text()));
            return Err(Error::Device(format!(
                "`adb shell {command}` failed (exit {}){}",
                out.status,
                said.map(|s| format!(": {s}")).unwrap_or_default()
            )));
        }
        Ok(out.text())
    }

    /// Runs `adb shell COMMAND` with optional stdin and returns the device's status and output. Errors: adb
    /// failures (no device, unauthorized, offline, disconnected, timeout), as [`Adb::check`].
    pub fn shell_status(&self, command: &str, stdin: Option<&[u8]>) -> Result<Output> {
        let out = self.run(&["shell", command], stdin, CALL_TIMEOUT)?;
        self.check(out, &format!("adb shell {command}"))
    }

    /// Turns adb's own failures into errors: device selection (none, several, not found, unauthorized,
    /// offline), and a dropped connection (exit 255 with nothing said; since 2024) — the rest is passed on.
    pub fn check(&self, out: Output, what: &str) -> Result<Output> {
        if let Some(e) = selection_error(&out.stderr, self.serial()) {
            return Err(match e {
                Error::Device(m) if m.starts_with("more than one device") => {
                    Error::Device(format!("{m} (attached: {})", self.serials().join(", ")))
                }
                e => e,
            });
        }
        if out.status == 255 && out.stderr.trim().is_empty() {
            return Err(self.disconnected(what));
        }
        Ok(out)
    }

    /// The error of a device that went away during `what`, after asking `adb get-state` to be sure.
    pub fn disconnected(&self, what: &str) -> Error {
        Error::Disconnected(format!(
            "the device disconnected during `{what}`{}",
            match self.run(&["get-state"], None, Duration::from_secs(5)) {
                Ok(o) if o.status == 0 => String::new(),
                Ok(o) => last_line(&o.stderr)
                    .map(|s| format!(" (adb get-state: {s})"))
                    .unwrap_or_default(),
                Err(_) => String::new(),
            }
        ))
    }

    /// The serials `adb devices` lists (empty if it cannot be asked).
    pub fn serials(&self) -> Vec<String> {
        let listed = self
            .run(&["devices"], None, Duration::from_secs(5))
            .map(|o| o.text())
            .unwrap_or_default();
        listed
            .lines()
            .skip(1)
            .filter_map(|l| l.split_whitespace().next().map(str::to_string))
            .collect()
    }

    /// True if adb still lists the device as attached and ready (`adb get-state` says `device`).
    pub fn attached(&self) -> bool {
        self.run(&["get-state"], None, Duration::from_secs(5))
            .is_ok_and(|o| o.status == 0 && o.text().trim() == "device")
    }

    /// Copies device file `remote` to `local`: `adb pull` from Android 10 on, `adb exec-out cat` before (where
    /// adb pull may not read /data/misc/perfetto-traces). Errors: adb's, or the file missing.
    pub fn pull(&self, remote: &str, local: &Path, sdk: u32, timeout: Duration) -> Result<()> {
        let shown = local.display().to_string();
        if sdk >= 29 {
            let out = self.run(&["pull", remote, &shown], None, timeout)?;
            let out = self.check(out, &format!("adb pull {remote}"))?;
            if out.status != 0 {
                return Err(Error::Device(format!(
                    "adb pull {remote} failed: {}",
                    last_line(&out.stderr).unwrap_or_else(|| format!("exit {}", out.status))
                )));
            }
            return Ok(());
        }
        let out = self.run(&["exec-out", "cat", remote], None, timeout)?;
        let out = self.check(out, &format!("adb exec-out cat {remote}"))?;
        std::fs::write(local, &out.stdout).map_err(|e| Error::Output {
            path: local.to_path_buf(),
            cause: e.to_string(),
        })
    }
}

/// The error adb's device-selection messages stand for, if `stderr` holds one (`adb: ` prefix since 2020,
/// `error: ` before).
fn selection_error(stderr: &str, serial: Option<&str>) -> Option<Error> {
    let said = stderr
        .lines()
        .map(|l| {
            l.trim()
                .trim_start_matches("adb: ")
                .trim_start_matches("error: ")
                .trim_start_matches("failed to get feature set: ")
        })
        .find(|l| !l.is_empty())?;
    let message = if said.starts_with("no devices/emulators found")
        || said.starts_with("no devices found")
    {
        "no device attached (adb: no devices/emulators found): connect one with USB debugging on, or start an \
         emulator; `adb devices` lists what adb sees"
            .to_string()
    } else if said.starts_with("more than one device") {
        "more than one device attached (adb: more than one device/emulator): choose one with -s SERIAL or \
         $ANDROID_SERIAL; `adb devices` lists the serials"
            .to_string()
    } else if said.starts_with("device unauthorized") {
        format!("the device is unauthorized: {UNAUTHORIZED_ADVICE}")
    } else if said.starts_with("device offline") {
        "the device is offline (adb: device offline): unplug and replug it, or run `adb reconnect`"
            .to_string()
    } else if said.starts_with("device still authorizing")
        || said.starts_with("device still connecting")
    {
        format!("the device is not ready ({said}): wait a moment and run ftl again")
    } else if let Some(rest) = said.strip_prefix("device '") {
        let name = rest.split('\'').next().unwrap_or(rest);
        format!(
            "device '{name}' not found{}: `adb devices` lists the attached serials",
            if serial == Some(name) {
                " (from -s / $ANDROID_SERIAL)"
            } else {
                ""
            }
        )
    } else {
        return None;
    };
    Some(Error::Device(message))
}

/// The last non-empty line of `text`, trimmed.
pub fn last_line(text: &str) -> Option<String> {
    text.lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .map(str::to_string)
}

/// `name` found in a directory of `$PATH`.
fn find_on_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// `text` as one word of the device's shell (adb joins its arguments with spaces and escapes nothing): as it is
/// when it holds only characters no shell treats specially (package names, paths), else in single quotes, a
/// `'` written as `'\''` (layer names hold spaces, `$`, `[`, `(` and `#`).
pub fn quote(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "._-/:=+,@%".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        return text.to_string();
    }
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adb_selection_messages_become_advice() {
        let msg = |s: &str| selection_error(s, Some("X1")).map(|e| e.to_string());
        assert!(msg("adb: no devices/emulators found\n")
            .unwrap()
            .contains("no device attached"));
        assert!(msg("adb: more than one device/emulator\n")
            .unwrap()
            .contains("-s SERIAL"));
        assert!(
            msg("adb: device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set\n")
                .unwrap()
                .contains("Allow USB debugging")
        );
        assert!(msg("adb: device offline\n").unwrap().contains("offline"));
        assert!(msg("adb: device 'X1' not found\n")
            .unwrap()
            .contains("device 'X1' not found (from -s"));
        assert!(msg("error: device offline\n").unwrap().contains("offline"));
        assert!(msg("/system/bin/sh: perfetto: not found\n").is_none());
    }

    #[test]
    fn device_side_quoting_keeps_names_whole() {
        assert_eq!(
            quote("SurfaceView[a/b](BLAST)#12"),
            "'SurfaceView[a/b](BLAST)#12'"
        );
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(quote("com.example.app"), "com.example.app");
        assert_eq!(
            quote("/data/misc/perfetto-traces/ftl-1.pftrace"),
            "/data/misc/perfetto-traces/ftl-1.pftrace"
        );
    }
}
