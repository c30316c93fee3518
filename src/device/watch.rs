//! `ftl watch`: a text source polled off a device and shown live — FPS, PerfDog Jank / BigJank, JankTracker
//! janky % (gfxinfo), a frame-time sparkline and the worst recent frames — in a terminal view (ratatui), or one
//! line per second with `--plain`. The numbers are ftl's pacing code ([`crate::analysis::pacing`]) over the
//! polled presents, so `ftl analyze` of the saved file gives the same FPS per second.

use super::adb::Adb;
use super::poll::{Poll, Poller, TextSource};
use super::probe::DeviceInfo;
use super::{CaptureFile, Interrupts};
use crate::analysis::pacing;
use crate::error::Result;
use std::io::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// One second of the watched layer, as `--plain` prints it.
#[derive(Debug, Clone, PartialEq)]
pub struct Second {
    /// Seconds since the first present watched, at the end of this second (1 for the first whole second).
    pub t_s: u64,
    /// Presents in the second (ftl analyze's `fps_per_second`).
    pub fps: u64,
    /// PerfDog Jank intervals ending in the second (BigJanks included).
    pub jank: u64,
    /// PerfDog BigJank intervals ending in the second.
    pub big_jank: u64,
}

/// The presents watched so far and the per-second numbers over them.
#[derive(Debug, Default)]
pub struct Live {
    /// Present times, ns on the device clock, ascending.
    pub presents_ns: Vec<i64>,
    /// When the first present was polled (to tell the device's time between presents).
    first_polled: Option<(Instant, i64)>,
    /// Seconds already reported.
    reported: u64,
    /// The device's JankTracker janky % of the last poll (gfxinfo).
    pub janky_pct: Option<f64>,
}

impl Live {
    /// Adds a poll's new presents.
    pub fn push(&mut self, poll: &Poll) {
        if self.first_polled.is_none() {
            if let Some(first) = poll.presents_ns.first() {
                self.first_polled = Some((Instant::now(), *first));
            }
        }
        self.presents_ns.extend_from_slice(&poll.presents_ns);
        self.janky_pct = poll.janky_pct.or(self.janky_pct);
    }

    /// The seconds that ended since the last call: every whole second before the newest present, and — when
    /// the layer went idle — the seconds the device's clock (estimated from the first poll) has passed by more
    /// than `grace`.
    pub fn ended(&mut self, grace: Duration) -> Vec<Second> {
        let Some(&t0) = self.presents_ns.first() else {
            return Vec::new();
        };
        let mut counts = pacing::fps_per_second(&self.presents_ns);
        if let Some((polled, first)) = self.first_polled {
            let device_now = first + polled.elapsed().as_nanos() as i64 - grace.as_nanos() as i64;
            let idle_whole = ((device_now - t0).max(0) / 1_000_000_000) as usize;
            if idle_whole > counts.len() {
                counts.resize(idle_whole, 0);
            }
        }
        let mut janks = vec![(0u64, 0u64); counts.len()];
        for j in pacing::perfdog_janks(&self.presents_ns) {
            let end = self.presents_ns[j.index + 1];
            if let Some(w) = janks.get_mut(((end - t0) / 1_000_000_000) as usize) {
                w.0 += 1;
                w.1 += u64::from(j.big);
            }
        }
        let from = self.reported as usize;
        self.reported = counts.len() as u64;
        (from..counts.len())
            .map(|k| Second {
                t_s: k as u64 + 1,
                fps: counts[k],
                jank: janks[k].0,
                big_jank: janks[k].1,
            })
            .collect()
    }

    /// Frame times (present to present) of the last `n` frames, ms.
    pub fn recent_frame_ms(&self, n: usize) -> Vec<f64> {
        let from = self.presents_ns.len().saturating_sub(n + 1);
        self.presents_ns[from..]
            .windows(2)
            .map(|w| (w[1] - w[0]) as f64 / 1e6)
            .collect()
    }
}

/// `ftl watch`'s options, resolved.
#[derive(Debug, Clone)]
pub struct WatchOptions {
    /// `Latency` or `Gfxinfo`.
    pub source: TextSource,
    /// The app.
    pub package: Option<String>,
    /// The layer to watch (`--latency`), instead of the package's.
    pub layer: Option<String>,
    /// Save the polled frames here as a capture `ftl` reads (from the start; `s` toggles it in the live view).
    pub output: Option<PathBuf>,
    /// One line per second instead of the live view.
    pub plain: bool,
    /// Stop after this long (default: Ctrl-C, or `q`).
    pub duration: Option<Duration>,
}

/// Watches until Ctrl-C, `q`, the duration, or a disconnect. Errors: adb's and the device's; a disconnect after
/// something was saved is reported with the file kept.
pub fn watch(
    adb: &Adb,
    info: &DeviceInfo,
    options: &WatchOptions,
    interrupts: &Interrupts,
) -> Result<()> {
    let mut poller = Poller::start(
        adb,
        info.sdk,
        options.source,
        options.package.as_deref(),
        options.layer.as_deref(),
    )?;
    let header = |poller: &Poller| info.header(&poller.describe());
    let mut saving = match &options.output {
        Some(path) => Some(CaptureFile::create(path, &header(&poller))?),
        None => None,
    };
    let mut view = if options.plain {
        None
    } else {
        Some(view::Terminal::open()?)
    };
    let started = Instant::now();
    let mut live = Live::default();
    let mut status = String::new();
    let outcome = loop {
        let polled = Instant::now();
        let poll = match poller.poll() {
            Ok(p) => p,
            Err(e) => break Err(e),
        };
        if let Some(file) = saving.as_mut() {
            if let Err(e) = file.append(&poll.text) {
                break Err(e);
            }
        }
        for note in &poll.notes {
            if options.plain {
                eprintln!("ftl: {note}");
            } else {
                status = note.clone();
            }
        }
        live.push(&poll);
        let layer = poller.target().unwrap_or("?").to_string();
        let ended = live.ended(Duration::from_millis(1500));
        if options.plain {
            let mut out = std::io::stdout().lock();
            for s in &ended {
                let _ = writeln!(
                    out,
                    "t={}s fps={:.1} jank={} big_jank={} layer={layer}",
                    s.t_s, s.fps as f64, s.jank, s.big_jank
                );
            }
            let _ = out.flush();
        }
        let done =
            interrupts.count() > 0 || options.duration.is_some_and(|d| started.elapsed() >= d);
        if done {
            break Ok(());
        }
        // Wait for the next poll; the live view redraws and reads keys meanwhile.
        while polled.elapsed() < poller.interval() {
            if let Some(v) = view.as_mut() {
                let key = v.draw(&view::Screen {
                    info,
                    layer: &layer,
                    source: options.source,
                    live: &live,
                    saving: saving.is_some(),
                    status: &status,
                })?;
                match key {
                    Some(view::Key::Quit) => return finish(view, saving),
                    Some(view::Key::NextLayer) => match next_layer(&poller, &layer) {
                        Ok(Some(next)) => {
                            poller.follow(&next);
                            live = Live::default();
                            status = format!("now watching {next}");
                        }
                        Ok(None) => status = "no other layer of the app".into(),
                        Err(e) => status = e.to_string(),
                    },
                    Some(view::Key::Save) => {
                        if saving.take().is_some() {
                            status = "saving stopped".into();
                        } else {
                            let path = options.output.clone().unwrap_or_else(default_save_path);
                            saving = Some(CaptureFile::create(&path, &header(&poller))?);
                            status = format!("saving to {}", path.display());
                        }
                    }
                    None => {}
                }
            } else {
                std::thread::sleep(Duration::from_millis(20));
            }
            if interrupts.count() > 0 {
                break;
            }
        }
    };
    finish(view, saving)?;
    outcome
}

/// Closes the live view and the saved file.
fn finish(view: Option<view::Terminal>, saving: Option<CaptureFile>) -> Result<()> {
    drop(view);
    saving.map_or(Ok(()), CaptureFile::finish)
}

/// The app's layer after `current` in [`Poller::layers`]' order, wrapping.
fn next_layer(poller: &Poller, current: &str) -> Result<Option<String>> {
    let layers = poller.layers()?;
    let at = layers.iter().position(|l| l == current);
    Ok(layers
        .iter()
        .cycle()
        .skip(at.map_or(0, |i| i + 1))
        .take(layers.len())
        .find(|l| *l != current)
        .cloned())
}

/// `ftl-watch-<unix seconds>.txt` in the current directory.
fn default_save_path() -> PathBuf {
    let stamp = super::unix_seconds();
    PathBuf::from(format!("ftl-watch-{stamp}.txt"))
}

/// The live terminal view (ratatui over crossterm).
mod view {
    use super::{Live, TextSource};
    use crate::device::probe::DeviceInfo;
    use crate::error::{Error, Result};
    use ratatui::crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
    use ratatui::layout::{Constraint, Layout};
    use ratatui::style::{Color, Style};
    use ratatui::text::Line;
    use ratatui::widgets::{Block, Paragraph, Sparkline};
    use std::time::Duration;

    /// A key the view acts on.
    pub enum Key {
        Quit,
        NextLayer,
        Save,
    }

    /// The terminal in the alternate screen; restored when dropped.
    pub struct Terminal(ratatui::DefaultTerminal);

    impl Terminal {
        pub fn open() -> Result<Terminal> {
            Ok(Terminal(ratatui::try_init().map_err(term)?))
        }

        /// Draws `screen` and waits up to 50 ms for a key.
        pub fn draw(&mut self, screen: &Screen) -> Result<Option<Key>> {
            self.0.draw(|frame| render(frame, screen)).map_err(term)?;
            if !event::poll(Duration::from_millis(50)).map_err(term)? {
                return Ok(None);
            }
            Ok(match event::read().map_err(term)? {
                Event::Key(k) if k.kind == KeyEventKind::Press => match k.code {
                    KeyCode::Char('q') | KeyCode::Esc => Some(Key::Quit),
                    KeyCode::Char('c') if k.modifiers.contains(KeyModifiers::CONTROL) => {
                        Some(Key::Quit)
                    }
                    KeyCode::Char('l') => Some(Key::NextLayer),
                    KeyCode::Char('s') => Some(Key::Save),
                    _ => None,
                },
                _ => None,
            })
        }
    }

    /// A terminal failure, named so.
    fn term(e: std::io::Error) -> Error {
        Error::Device(format!(
            "the terminal: {e} (use --plain where there is no interactive terminal)"
        ))
    }

    impl Drop for Terminal {
        fn drop(&mut self) {
            ratatui::restore();
        }
    }

    /// What the view shows.
    pub struct Screen<'a> {
        pub info: &'a DeviceInfo,
        pub layer: &'a str,
        pub source: TextSource,
        pub live: &'a Live,
        pub saving: bool,
        pub status: &'a str,
    }

    /// The view of the live numbers: headline numbers, the frame-time sparkline, the worst recent frames.
    pub fn render(frame: &mut ratatui::Frame, screen: &Screen) {
        let Screen {
            info,
            layer,
            source,
            live,
            saving,
            status,
        } = *screen;
        let [head, numbers, spark, worst, foot] = Layout::vertical([
            Constraint::Length(3),
            Constraint::Length(3),
            Constraint::Length(8),
            Constraint::Min(3),
            Constraint::Length(1),
        ])
        .areas(frame.area());
        let refresh = info
            .vsync_period_ns
            .map_or_else(String::new, |p| format!(", {:.0} Hz", 1e9 / p as f64));
        frame.render_widget(
            Paragraph::new(Line::from(format!(
                "{} — {}{refresh} — {} {layer}",
                info.model,
                info.android(),
                if source == TextSource::Gfxinfo {
                    "window"
                } else {
                    "layer"
                }
            )))
            .block(Block::bordered().title(" ftl watch ")),
            head,
        );
        let presents = &live.presents_ns;
        let last_second = presents.last().map_or(0, |last| {
            presents
                .iter()
                .rev()
                .take_while(|p| **p > last - 1_000_000_000)
                .count()
        });
        let perfdog = pacing_totals(presents);
        let janky = live
            .janky_pct
            .map_or_else(|| "–".to_string(), |p| format!("{p:.2} %"));
        frame.render_widget(
            Paragraph::new(Line::from(format!(
                "FPS {last_second:>4}   PerfDog Jank {:>4}   BigJank {:>4}   JankTracker janky {janky}   frames {}",
                perfdog.0,
                perfdog.1,
                presents.len()
            )))
            .block(Block::bordered().title(" last second / totals ")),
            numbers,
        );
        let times = live.recent_frame_ms(spark.width.saturating_sub(2) as usize);
        let bars: Vec<u64> = times.iter().map(|t| t.round() as u64).collect();
        frame.render_widget(
            Sparkline::default()
                .data(&bars)
                .style(Style::default().fg(Color::Cyan))
                .block(Block::bordered().title(" frame time (ms), newest right ")),
            spark,
        );
        // The slowest frames of the last 10 s of frames, with how long before the newest each ended.
        let newest = presents.last().copied().unwrap_or(0);
        let mut recent: Vec<(i64, i64)> = presents
            .windows(2)
            .rev()
            .take_while(|w| w[1] > newest - 10_000_000_000)
            .map(|w| (w[1] - w[0], newest - w[1]))
            .collect();
        recent.sort_by_key(|r| std::cmp::Reverse(r.0));
        let lines: Vec<Line> = recent
            .iter()
            .take(worst.height.saturating_sub(2) as usize)
            .map(|(dur, ago)| {
                Line::from(format!(
                    "{:8.1} ms   ended {:.1} s before the newest frame",
                    *dur as f64 / 1e6,
                    *ago as f64 / 1e9
                ))
            })
            .collect();
        frame.render_widget(
            Paragraph::new(lines)
                .block(Block::bordered().title(" slowest frames of the last 10 s ")),
            worst,
        );
        frame.render_widget(
            Paragraph::new(format!(
                "q quit · l next layer · s {} saving   {status}",
                if saving { "stop" } else { "start" }
            )),
            foot,
        );
    }

    /// PerfDog's Jank and BigJank over every present watched.
    fn pacing_totals(presents: &[i64]) -> (u64, u64) {
        crate::analysis::pacing::perfdog(presents).map_or((0, 0), |p| (p.jank, p.big_jank))
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn the_view_shows_the_numbers() {
            let info = DeviceInfo {
                sdk: 34,
                release: "14".into(),
                model: "Pixel 7".into(),
                build: "AP1A".into(),
                traced_enabled: true,
                vsync_period_ns: Some(16_666_666),
            };
            let mut live = Live {
                presents_ns: (0..130).map(|i| 1_000_000_000 + i * 16_666_666).collect(),
                ..Live::default()
            };
            live.presents_ns.push(live.presents_ns[129] + 200_000_000);
            let backend = ratatui::backend::TestBackend::new(100, 20);
            let mut terminal = ratatui::Terminal::new(backend).unwrap();
            terminal
                .draw(|f| {
                    let screen = Screen {
                        info: &info,
                        layer: "L#1",
                        source: TextSource::Latency,
                        live: &live,
                        saving: false,
                        status: "",
                    };
                    render(f, &screen)
                })
                .unwrap();
            let text: String = terminal
                .backend()
                .buffer()
                .content()
                .iter()
                .map(|c| c.symbol())
                .collect();
            assert!(text.contains("Pixel 7 — Android 14 (SDK 34), 60 Hz — layer L#1"));
            // The 200 ms frame: the second up to the newest present holds it and the 49 presents before it
            // (800 ms / 16.67 ms + 1); one PerfDog BigJank.
            assert!(
                text.contains("FPS   50   PerfDog Jank    1   BigJank    1"),
                "{text}"
            );
            assert!(
                text.contains("200.0 ms   ended 0.0 s before the newest frame"),
                "{text}"
            );
        }
    }
}
