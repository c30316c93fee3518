//! Capturing on an Android device through the `adb` executable: `ftl record` (a Perfetto trace, or a text source
//! polled into a capture file) and `ftl watch` (live pacing numbers). Nothing here speaks adb's protocol: any adb
//! works, and the tests put a fake one first (`tests/fake_adb`).

pub mod adb;
pub mod poll;
pub mod probe;
pub mod record;
pub mod watch;

use crate::error::{Error, Result};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Ctrl-C presses seen since [`Interrupts::install`]: the first stops a capture cleanly, the second aborts.
#[derive(Debug, Clone, Default)]
pub struct Interrupts(Arc<AtomicU32>);

impl Interrupts {
    /// Counts SIGINT / SIGTERM from now on instead of dying. Errors: a handler is already installed.
    pub fn install() -> Result<Interrupts> {
        let interrupts = Interrupts::default();
        let counter = interrupts.0.clone();
        ctrlc::set_handler(move || {
            counter.fetch_add(1, Ordering::SeqCst);
        })
        .map_err(|e| Error::Device(format!("cannot catch Ctrl-C: {e}")))?;
        Ok(interrupts)
    }

    /// Presses so far.
    pub fn count(&self) -> u32 {
        self.0.load(Ordering::SeqCst)
    }
}

/// A progress line on stderr over `duration` (positions in ms), hidden when stderr is not a terminal.
pub fn progress(duration: Duration, what: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(duration.as_millis() as u64);
    let style = indicatif::ProgressStyle::with_template(&format!(
        "{what} {{bar:30}} {{elapsed}} / {} s  {{msg}}  (Ctrl-C stops and keeps it)",
        duration.as_secs()
    ))
    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
    bar.set_style(style);
    bar
}

/// A capture file being written poll by poll: each poll is flushed, so what was polled survives an abort.
#[derive(Debug)]
pub struct CaptureFile {
    path: PathBuf,
    file: std::fs::File,
}

impl CaptureFile {
    /// Creates `path` and writes `header`. Errors: the file cannot be created or written (a full disk).
    pub fn create(path: &Path, header: &str) -> Result<CaptureFile> {
        let file = std::fs::File::create(path).map_err(|e| Error::Output {
            path: path.to_path_buf(),
            cause: e.to_string(),
        })?;
        let mut capture = CaptureFile {
            path: path.to_path_buf(),
            file,
        };
        capture.append(header)?;
        Ok(capture)
    }

    /// Appends `text` and flushes it to the file. Errors: a write fails (a full disk).
    pub fn append(&mut self, text: &str) -> Result<()> {
        self.file
            .write_all(text.as_bytes())
            .and_then(|()| self.file.flush())
            .map_err(|e| Error::Output {
                path: self.path.clone(),
                cause: e.to_string(),
            })
    }

    /// Syncs the file to disk. Errors: the sync fails.
    pub fn finish(self) -> Result<()> {
        self.file.sync_all().or_else(|e| {
            // Character devices and pipes cannot be synced; that is no failure of the capture.
            if e.kind() == std::io::ErrorKind::InvalidInput {
                Ok(())
            } else {
                Err(Error::Output {
                    path: self.path.clone(),
                    cause: e.to_string(),
                })
            }
        })
    }
}

/// Seconds since the Unix epoch on the host (0 if the clock is before it): the stamp in the default names of
/// recorded and saved files.
pub fn unix_seconds() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A duration as users write it: `10s`, `1500ms`, `2m`, or a bare number of seconds. Errors: anything else,
/// zero or negative.
pub fn parse_duration(text: &str) -> std::result::Result<Duration, String> {
    let t = text.trim();
    let (number, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1e-3)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60.0)
    } else if let Some(n) = t.strip_suffix('h') {
        (n, 3600.0)
    } else {
        (t, 1.0)
    };
    match number.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v * scale < 1e7 => {
            Ok(Duration::from_secs_f64(v * scale))
        }
        _ => Err(format!(
            "{text:?} is not a duration: write 10s, 1500ms, 2m or a number of seconds"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_as_users_write_them() {
        assert_eq!(parse_duration("10s"), Ok(Duration::from_secs(10)));
        assert_eq!(parse_duration("1500ms"), Ok(Duration::from_millis(1500)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("2.5"), Ok(Duration::from_millis(2500)));
        assert!(parse_duration("0s").is_err());
        assert!(parse_duration("soon").is_err());
    }
}
