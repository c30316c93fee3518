//! Polling a text source off a device — `dumpsys SurfaceFlinger --latency LAYER`, `dumpsys gfxinfo PKG
//! framestats`, `logcat -d` — within the history each keeps, so that no frame is lost: each poll gives the text
//! to append to the capture file (which ftl reads as any capture) and the new frames' present times.
//! Budgets: `shared/docs/recording.md` §2.3 (127 frames of FrameTracker, 64 display frames of FrameTimeline,
//! 120 HWUI frames: 0.44 s at 144 Hz on the tightest path).

use super::adb::{quote, Adb};
use super::probe;
use crate::error::{Error, Result};
use crate::sources::{gfxinfo, sf_latency};
use std::path::Path;
use std::time::Duration;

/// A text source ftl can poll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextSource {
    /// `dumpsys SurfaceFlinger --latency LAYER`.
    Latency,
    /// `dumpsys gfxinfo PKG framestats`.
    Gfxinfo,
    /// `logcat -d` in threadtime format (Choreographer's skipped frames, HWUI's Davey! lines).
    Logcat,
}

/// What one poll brought.
#[derive(Debug, Default)]
pub struct Poll {
    /// Text to append to the capture file (a dump of the new frames, or the new log lines).
    pub text: String,
    /// Present times of the frames first seen in this poll, ns on the device's clock, ascending.
    pub presents_ns: Vec<i64>,
    /// The vsync period the device printed with this poll, ns (`--latency` line 1).
    pub period_ns: Option<i64>,
    /// The window's janky frames as the device's JankTracker printed them (gfxinfo), %.
    pub janky_pct: Option<f64>,
    /// Something the user should know (a layer recreated, frames possibly lost), for stderr.
    pub notes: Vec<String>,
}

/// One source being polled off one device.
#[derive(Debug)]
pub struct Poller {
    adb: Adb,
    source: TextSource,
    package: Option<String>,
    /// The layer (`Latency`) or window (`Gfxinfo`) followed.
    target: Option<String>,
    /// Whether the layer was chosen by the user (then never re-chosen).
    fixed_layer: bool,
    /// Newest present already handed out, ns.
    last_present: Option<i64>,
    /// Last log line already handed out.
    last_log_line: Option<String>,
    /// The device's SDK level (logcat's default format is threadtime from Android 7, SDK 24).
    sdk: u32,
}

impl Poller {
    /// Prepares polling `source`: finds the layer (`--latency`, from `layer` or `package`), takes the current
    /// history as the baseline (frames presented before now are not handed out), resets gfxinfo's counters,
    /// clears the log. Errors: adb's; no layer for the package; a package that is not running (gfxinfo).
    pub fn start(
        adb: &Adb,
        sdk: u32,
        source: TextSource,
        package: Option<&str>,
        layer: Option<&str>,
    ) -> Result<Poller> {
        let mut poller = Poller {
            adb: adb.clone(),
            source,
            package: package.map(str::to_string),
            target: layer.map(str::to_string),
            fixed_layer: layer.is_some(),
            last_present: None,
            last_log_line: None,
            sdk,
        };
        match source {
            TextSource::Latency => {
                if poller.target.is_none() {
                    let pkg = package.ok_or_else(|| {
                        Error::Usage("--source latency needs --app PKG or --layer NAME".into())
                    })?;
                    poller.target = Some(probe::find_layer(adb, pkg)?);
                }
                // The baseline: what the layer presented before now is history, not the capture.
                poller.poll()?;
            }
            TextSource::Gfxinfo => {
                let pkg = package
                    .ok_or_else(|| Error::Usage("--source gfxinfo needs --app PKG".into()))?;
                probe::running_pid(adb, pkg)?;
                adb.shell(&format!("dumpsys gfxinfo {} reset", quote(pkg)))?;
            }
            TextSource::Logcat => {
                adb.shell("logcat -c")?;
            }
        }
        Ok(poller)
    }

    /// The command polled, as the capture file's header names it (`ftl record: ` follows
    /// [`sources::RECORDED_HEADER`](crate::sources::RECORDED_HEADER)).
    pub fn describe(&self) -> String {
        let pkg = self.package.as_deref().unwrap_or_default();
        match self.source {
            TextSource::Latency => format!(
                "{}{}",
                sf_latency::RECORDED_COMMAND.trim_start_matches("# ftl record: "),
                quote(self.target().unwrap_or_default())
            ),
            TextSource::Gfxinfo => format!("dumpsys gfxinfo {} framestats", quote(pkg)),
            TextSource::Logcat => self.logcat_dump().to_string(),
        }
    }

    /// The layer or window followed (`None` for logcat, or gfxinfo before its first frame).
    pub fn target(&self) -> Option<&str> {
        self.target.as_deref()
    }

    /// Follows `layer` from the next poll on (`--latency`; its history before now is not handed out).
    pub fn follow(&mut self, layer: &str) {
        self.target = Some(layer.to_string());
        self.fixed_layer = true;
        self.last_present = None;
    }

    /// The package's layers that may carry its frames, best first ([`probe::candidate_layers`]). Errors: adb's.
    pub fn layers(&self) -> Result<Vec<String>> {
        let pkg = self.package.as_deref().unwrap_or_default();
        let all = probe::parse_layer_list(&self.adb.shell("dumpsys SurfaceFlinger --list")?);
        Ok(probe::candidate_layers(&all, pkg)
            .into_iter()
            .cloned()
            .collect())
    }

    /// How often to poll: well inside the history each source keeps at 144 Hz.
    pub fn interval(&self) -> Duration {
        match self.source {
            TextSource::Latency | TextSource::Gfxinfo => Duration::from_millis(400),
            TextSource::Logcat => Duration::from_secs(1),
        }
    }

    /// Polls once. Errors: adb's (a disconnect is [`Error::Disconnected`]); a device that stopped answering
    /// like a device (an empty answer from an old adb client after a drop is checked with `adb get-state`).
    pub fn poll(&mut self) -> Result<Poll> {
        match self.source {
            TextSource::Latency => self.poll_latency(),
            TextSource::Gfxinfo => self.poll_gfxinfo(),
            TextSource::Logcat => self.poll_logcat(),
        }
    }

    /// Runs one device command of a poll; an empty answer from a device that `adb get-state` no longer lists
    /// means an old adb client lost it (those exit 0).
    fn dump(&self, command: &str) -> Result<String> {
        let text = self.adb.shell(command)?;
        if text.trim().is_empty() && !self.adb.attached() {
            return Err(self.adb.disconnected(command));
        }
        Ok(text)
    }

    fn poll_latency(&mut self) -> Result<Poll> {
        let mut poll = Poll::default();
        let layer = self.target.clone().unwrap_or_default();
        let text = self.dump(&format!(
            "dumpsys SurfaceFlinger --latency {}",
            quote(&layer)
        ))?;
        let parsed = sf_latency::read(text.as_bytes(), Path::new("adb"), Some(&layer));
        let capture = match parsed {
            Ok(c) => c,
            Err(_) if text.lines().filter(|l| !l.trim().is_empty()).count() <= 1 => {
                // Only the period line: the layer is gone (from Android 13, its #N changes when the surface is
                // recreated). Choose again.
                if let (false, Some(pkg)) = (self.fixed_layer, self.package.as_deref()) {
                    let now = probe::find_layer(&self.adb, pkg)?;
                    if now != layer {
                        poll.notes
                            .push(format!("layer {layer} is gone; following {now}"));
                        self.target = Some(now);
                    }
                }
                poll.period_ns = text.trim().parse().ok();
                return Ok(poll);
            }
            Err(e) => {
                return Err(Error::Device(format!(
                    "the device's `dumpsys SurfaceFlinger --latency` answer is not readable: {e}"
                )))
            }
        };
        poll.period_ns = capture.series.period_ns;
        let presents: Vec<i64> = capture
            .series
            .frames
            .iter()
            .filter_map(|f| f.present_ns)
            .collect();
        let Some(last) = self.last_present else {
            // The first poll is the baseline: its frames were presented before the capture began.
            self.last_present = Some(presents.iter().copied().max().unwrap_or(i64::MIN));
            return Ok(poll);
        };
        let ring_full =
            capture.rows >= 127 && capture.diagnostics.count(sf_latency::note::EMPTY_SLOT) == 0;
        if ring_full && last != i64::MIN && presents.first().is_some_and(|oldest| *oldest > last) {
            poll.notes.push(
                "a poll came too late: frames between two polls may be missing (the device was slow to answer)"
                    .into(),
            );
        }
        let mut rows = String::new();
        for f in capture.series.frames.iter() {
            let Some(present) = f.present_ns.filter(|p| *p > last) else {
                continue;
            };
            rows.push_str(&format!(
                "{}\t{present}\t{}\n",
                f.desired_present_ns.unwrap_or(0),
                f.ready_ns.unwrap_or(0)
            ));
            poll.presents_ns.push(present);
        }
        if let Some(newest) = poll.presents_ns.last() {
            self.last_present = Some(*newest);
        }
        if let Some(period) = poll.period_ns {
            poll.text = format!("{period}\n{rows}\n");
        }
        Ok(poll)
    }

    fn poll_gfxinfo(&mut self) -> Result<Poll> {
        let pkg = self.package.clone().unwrap_or_default();
        let text = self.dump(&format!("dumpsys gfxinfo {} framestats", quote(&pkg)))?;
        let capture = gfxinfo::read(
            text.as_bytes(),
            Path::new("adb"),
            &gfxinfo::Options::default(),
        )
        .map_err(|e| Error::Device(format!("gfxinfo of {pkg}: {e}")))?;
        let mut poll = Poll {
            text,
            ..Poll::default()
        };
        let series = capture.series();
        let window = match &self.target {
            Some(w) => series.iter().find(|s| &s.layer_name == w),
            None => series.iter().max_by_key(|s| s.frames.len()),
        };
        if let Some(s) = window {
            poll.janky_pct = capture
                .processes
                .iter()
                .flat_map(|p| &p.windows)
                .find(|w| w.name == s.layer_name)
                .and_then(|w| w.summary.as_ref()?.janky_pct);
            self.target = Some(s.layer_name.clone());
            poll.period_ns = s.period_ns;
            let mut presents: Vec<i64> = s.frames.iter().filter_map(|f| f.present_ns).collect();
            presents.sort_unstable();
            for p in presents {
                if self.last_present.is_none_or(|last| p > last) {
                    poll.presents_ns.push(p);
                    self.last_present = Some(p);
                }
            }
        }
        Ok(poll)
    }

    /// The log dump command: `logcat -d`, in threadtime format (the default from Android 7, asked for before).
    fn logcat_dump(&self) -> &'static str {
        if self.sdk >= 24 {
            "logcat -d"
        } else {
            "logcat -d -v threadtime"
        }
    }

    fn poll_logcat(&mut self) -> Result<Poll> {
        let text = self.dump(self.logcat_dump())?;
        let lines: Vec<&str> = text.lines().collect();
        // New lines: those after the last one handed out (the buffer may have wrapped: then all of them).
        let from = self
            .last_log_line
            .as_deref()
            .and_then(|last| lines.iter().rposition(|l| *l == last))
            .map_or(0, |i| i + 1);
        let mut poll = Poll::default();
        for l in &lines[from..] {
            poll.text.push_str(l);
            poll.text.push('\n');
        }
        if let Some(last) = lines.last() {
            self.last_log_line = Some((*last).to_string());
        }
        Ok(poll)
    }
}
