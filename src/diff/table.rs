//! The diff table: one row per matched (or unmatched) process / layer × metric with base, new, deltas, the test,
//! raw and adjusted p-values and a verdict; and the `--fail-on` change conditions over it.

use super::metric::Metric;
use super::stats::{bootstrap_p, welch_p, Correction};
use super::{Key, Sample, Side};
use crate::batch::{split_condition, Op};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

/// A row's verdict (the `verdict` column).
pub mod verdict {
    /// Significantly worse (more jank, longer frames, lower FPS / smoothness).
    pub const REGRESSED: &str = "regressed";
    /// Significantly better.
    pub const IMPROVED: &str = "improved";
    /// Tested; the change is within run-to-run (or block-to-block) noise at the chosen level.
    pub const NO_CHANGE: &str = "no significant change";
    /// Not tested: the metric is not compared (`frames`), is undefined on a side, or the inputs allow no test
    /// (one run per side without frames, e.g. a text capture or a Parquet input).
    pub const NOT_TESTED: &str = "not tested";
    /// The process / layer is only in BASE.
    pub const ONLY_IN_BASE: &str = "only in base";
    /// The process / layer is only in NEW.
    pub const ONLY_IN_NEW: &str = "only in new";
}

/// How `ftl diff` tests.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Significance level of the adjusted p-values (`--alpha`).
    pub alpha: f64,
    /// Adjustment over every (row, metric) tested.
    pub correction: Correction,
    /// Bootstrap resamples per row (single-trace sides).
    pub resamples: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            alpha: 0.05,
            correction: Correction::Holm,
            resamples: 1000,
        }
    }
}

/// One row of the diff table.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DiffRow {
    /// `process` or `layer` (`trace` for Parquet outputs of `ftl batch --by trace`).
    pub level: String,
    /// The process name, normalised ([`super::normalize`]); null on trace rows.
    pub process_name: Option<String>,
    /// The layer name, normalised; null on process and trace rows.
    pub layer_name: Option<String>,
    /// The metric ([`Metric`] name).
    pub metric: String,
    /// BASE's value: the metric of its single run, or the mean over its runs.
    pub base_value: Option<f64>,
    /// NEW's value, likewise.
    pub new_value: Option<f64>,
    /// `new_value − base_value`, in the metric's unit (percentage points for `_pct`).
    pub delta_value: Option<f64>,
    /// `delta_value / |base_value| × 100`; null when the base is 0.
    pub delta_pct: Option<f64>,
    /// BASE runs that have this row.
    pub base_runs: u64,
    /// NEW runs that have this row.
    pub new_runs: u64,
    /// `welch_t` (runs are the unit), `block_bootstrap` (frames of single traces), or `none`.
    pub test: String,
    /// The test's two-sided p-value.
    pub p_value: Option<f64>,
    /// The p-value adjusted over every (row, metric) tested ([`Correction`]).
    pub adjusted_p_value: Option<f64>,
    /// See [`verdict`].
    pub verdict: String,
    /// On `janky_pct` rows, what counts as janky: `FrameTimeline jank tag` (traces), `JankTracker` (gfxinfo),
    /// `PerfDog Jank` (`--latency`); `A vs B` when the sides differ (then not tested).
    pub jank_measure: Option<String>,
}

impl DiffRow {
    /// True for `regressed` and `improved`.
    pub fn is_significant(&self) -> bool {
        self.verdict == verdict::REGRESSED || self.verdict == verdict::IMPROVED
    }

    /// The row's scope for messages: `layer NAME`, `process NAME` or `trace`.
    pub fn scope(&self) -> String {
        match (&self.layer_name, &self.process_name) {
            (Some(l), _) => format!("layer {l}"),
            (None, Some(p)) => format!("process {p}"),
            (None, None) => self.level.clone(),
        }
    }
}

/// A finished comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diff {
    /// `regressed` if any row regressed, else `improved` if any improved, else `no significant change`; `not
    /// tested` when no (row, metric) could be tested (nothing matched, or no test applies).
    pub verdict: String,
    /// `runs` (≥ 2 runs per side: Welch's t-test over runs), `single trace` (block bootstrap over frames), or
    /// `mixed`.
    pub mode: String,
    /// `--alpha`.
    pub alpha: f64,
    /// The p-value adjustment (`holm`, `bh`, `none`).
    pub correction: String,
    /// BASE inputs.
    pub base_runs: usize,
    /// NEW inputs.
    pub new_runs: usize,
    /// (row, metric) pairs tested.
    pub tested: usize,
    /// Rows regressed / improved.
    pub regressed: usize,
    /// Rows improved.
    pub improved: usize,
    /// How to read the statistics (one sentence each).
    pub notes: Vec<String>,
    /// The table.
    pub rows: Vec<DiffRow>,
}

/// A fixed seed per row key, so that a row's bootstrap does not depend on which other rows exist.
fn seed(key: &Key) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    key.hash(&mut h);
    h.finish() ^ 0x5eed_f71d_0000_0001
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// The rows of one key.
fn compare(key: &Key, base: &[&Sample], new: &[&Sample], options: &Options) -> Vec<DiffRow> {
    let frames = |side: &[&Sample]| -> Option<Vec<super::metric::FrameSample>> {
        let mut all = Vec::new();
        for s in side {
            all.extend_from_slice(s.frames.as_deref()?);
        }
        Some(all)
    };
    let runs_test = base.len() >= 2 && new.len() >= 2;
    let pooled = (!runs_test && !base.is_empty() && !new.is_empty())
        .then(|| frames(base).zip(frames(new)))
        .flatten();
    let (pooled_values, boot) = match &pooled {
        Some((b, n)) => {
            let mut scratch = Default::default();
            (
                Some((
                    super::metric::of_frames(b.iter(), &mut scratch),
                    super::metric::of_frames(n.iter(), &mut scratch),
                )),
                Some(bootstrap_p(b, n, options.resamples, seed(key))),
            )
        }
        None => (None, None),
    };
    let name = |s: &str| (!s.is_empty()).then(|| s.to_string());
    let measure = |side: &[&Sample]| side.iter().find_map(|s| s.jank_measure);
    let measures = match (measure(base), measure(new)) {
        (Some(b), Some(n)) if b != n => Some(format!("{b} vs {n}")),
        (b, n) => b.or(n).map(str::to_string),
    };
    let comparable = !measures.as_deref().is_some_and(|m| m.contains(" vs "));
    let verdict = if base.is_empty() {
        verdict::ONLY_IN_NEW
    } else if new.is_empty() {
        verdict::ONLY_IN_BASE
    } else {
        verdict::NOT_TESTED
    };
    let row = |metric: String, base_value: Option<f64>, new_value: Option<f64>| {
        let delta = base_value.zip(new_value).map(|(b, n)| n - b);
        DiffRow {
            level: key.level.name().into(),
            process_name: name(&key.process),
            layer_name: name(&key.layer),
            metric,
            base_value,
            new_value,
            delta_value: delta,
            delta_pct: delta
                .zip(base_value)
                .filter(|(_, b)| *b != 0.0)
                .map(|(d, b)| d / b.abs() * 100.0),
            base_runs: base.len() as u64,
            new_runs: new.len() as u64,
            test: "none".into(),
            p_value: None,
            adjusted_p_value: None,
            verdict: verdict.into(),
            jank_measure: None,
        }
    };
    let mut rows: Vec<DiffRow> = Metric::ALL
        .iter()
        .map(|&m| {
            let i = m.index();
            let per_run = |side: &[&Sample]| -> Vec<f64> {
                side.iter().filter_map(|s| s.values[i]).collect()
            };
            let (b_runs, n_runs) = (per_run(base), per_run(new));
            let (mut base_value, mut new_value) = (mean(&b_runs), mean(&n_runs));
            let (mut test, mut p) = ("none", None);
            if m.higher_is_worse().is_some() && (comparable || m != Metric::JankyPct) {
                if runs_test {
                    p = welch_p(&b_runs, &n_runs);
                    test = "welch_t";
                } else if let (Some((b, n)), Some(boot)) = (&pooled_values, &boot) {
                    if m.from_frames() {
                        base_value = b[i];
                        new_value = n[i];
                        p = boot[i];
                        test = "block_bootstrap";
                    }
                }
            }
            if p.is_none() {
                test = "none";
            }
            DiffRow {
                test: test.into(),
                p_value: p,
                jank_measure: measures.clone().filter(|_| m == Metric::JankyPct),
                ..row(m.name().into(), base_value, new_value)
            }
        })
        .collect();
    rows.extend(
        cause_shares(base, new)
            .into_iter()
            .map(|(cause, b, n)| row(format!("{CAUSE_SHARE}{cause}"), b, n)),
    );
    rows
}

/// The metric-name prefix of the cause rows: `cause_share_pct:<cause>`.
pub const CAUSE_SHARE: &str = "cause_share_pct:";

/// Per cause seen on either side (`ftl explain causes`): its share of the late frames, %, on each side — the
/// mean over the runs that know their causes and have late frames (`None` when no run does). Shown, not tested.
fn cause_shares(base: &[&Sample], new: &[&Sample]) -> Vec<(String, Option<f64>, Option<f64>)> {
    fn known<'s>(side: &[&'s Sample]) -> Vec<&'s super::Causes> {
        side.iter()
            .filter_map(|s| s.causes.as_ref())
            .filter(|c| c.late_frames > 0)
            .collect()
    }
    let (b, n) = (known(base), known(new));
    let names: BTreeSet<&String> = b.iter().chain(&n).flat_map(|c| c.frames.keys()).collect();
    let share = |runs: &[&super::Causes], cause: &String| -> Option<f64> {
        let shares: Vec<f64> = runs
            .iter()
            .map(|c| {
                c.frames.get(cause).copied().unwrap_or(0) as f64 * 100.0 / c.late_frames as f64
            })
            .collect();
        mean(&shares)
    };
    names
        .into_iter()
        .map(|c| (c.clone(), share(&b, c), share(&n, c)))
        .collect()
}

/// Every run's sample of each key of a side.
fn gather(side: &Side) -> BTreeMap<&Key, Vec<&Sample>> {
    let mut m: BTreeMap<&Key, Vec<&Sample>> = BTreeMap::new();
    for run in &side.runs {
        for (k, s) in &run.rows {
            m.entry(k).or_default().push(s);
        }
    }
    m
}

/// Compares two sides: rows matched by [`Key`] across every run of each side (a key missing from some runs is
/// compared over the runs that have it), each metric tested: Welch's t-test over per-run values when
/// both sides have ≥ 2 runs, else a circular block bootstrap over the frames of all runs of each side, else not
/// tested. p-values are adjusted over every test of the diff; a row is `regressed` / `improved` when its adjusted
/// p-value is below `alpha` and its delta goes the worse / better way ([`Metric::higher_is_worse`]).
pub fn diff(base: &Side, new: &Side, options: &Options) -> Diff {
    let (b, n) = (gather(base), gather(new));
    let keys: BTreeSet<&Key> = b.keys().chain(n.keys()).copied().collect();
    let keys: Vec<&Key> = keys.into_iter().collect();
    let none: Vec<&Sample> = Vec::new();
    let mut rows: Vec<DiffRow> = keys
        .par_iter()
        .flat_map_iter(|k| {
            compare(
                k,
                b.get(k).unwrap_or(&none),
                n.get(k).unwrap_or(&none),
                options,
            )
        })
        .collect();
    let tested: Vec<usize> = (0..rows.len())
        .filter(|&i| rows[i].p_value.is_some())
        .collect();
    let p: Vec<f64> = tested.iter().filter_map(|&i| rows[i].p_value).collect();
    for (&i, q) in tested.iter().zip(options.correction.adjust(&p)) {
        let r = &mut rows[i];
        r.adjusted_p_value = Some(q);
        let worse_up = r
            .metric
            .parse::<Metric>()
            .ok()
            .and_then(Metric::higher_is_worse);
        let d = r.delta_value.unwrap_or(0.0);
        r.verdict = match (q < options.alpha && d != 0.0, worse_up) {
            (true, Some(up)) if (d > 0.0) == up => verdict::REGRESSED,
            (true, Some(_)) => verdict::IMPROVED,
            _ => verdict::NO_CHANGE,
        }
        .into();
    }
    let count = |v: &str| rows.iter().filter(|r| r.verdict == v).count();
    let (regressed, improved) = (count(verdict::REGRESSED), count(verdict::IMPROVED));
    let (bn, nn) = (base.runs.len(), new.runs.len());
    let mode = if bn >= 2 && nn >= 2 {
        "runs"
    } else if bn == 1 && nn == 1 {
        "single trace"
    } else {
        "mixed"
    };
    let mut notes = vec![format!(
        "p-values adjusted with {} over {} tests; significant: adjusted p < {}.",
        match options.correction {
            Correction::Holm => "Holm's method",
            Correction::BenjaminiHochberg => "Benjamini-Hochberg",
            Correction::None => "no correction",
        },
        p.len(),
        options.alpha
    )];
    if mode == "runs" {
        notes.push(
            "Runs are the unit: Welch's t-test on the per-run values; base/new are means over runs.".into(),
        );
    } else {
        notes.push(format!(
            "A side with one run: frames are resampled with a circular block bootstrap (blocks of sqrt(n) \
             consecutive frames, {} resamples, fixed seed); this is weaker evidence than repeated runs: it \
             measures noise within one recording, not between recordings.",
            options.resamples
        ));
    }
    Diff {
        verdict: if regressed > 0 {
            verdict::REGRESSED
        } else if improved > 0 {
            verdict::IMPROVED
        } else if p.is_empty() {
            verdict::NOT_TESTED
        } else {
            verdict::NO_CHANGE
        }
        .into(),
        mode: mode.into(),
        alpha: options.alpha,
        correction: options.correction.name().into(),
        base_runs: bn,
        new_runs: nn,
        tested: p.len(),
        regressed,
        improved,
        notes,
        rows,
    }
}

/// What a `--fail-on` condition compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// NEW's value, as `ftl batch --fail-on` does (`janky_pct>5`).
    Absolute,
    /// The delta (`janky_pct>+1`: up by more than 1 point).
    Delta,
    /// The delta in % of BASE (`frame_dur_ms_p90>+10%`).
    Relative,
}

/// A CI gate over the diff table: `METRIC OP NUMBER` (NEW's value, as in `ftl batch`), `METRIC OP ±NUMBER`
/// (the change) or `METRIC OP ±NUMBER%` (the change relative to BASE). OP is one of `> >= < <= == !=`. A change
/// condition holds only for a significant row (`regressed` / `improved`) unless significance is waived.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gate {
    /// The metric.
    pub metric: Metric,
    /// The comparison.
    pub op: Op,
    /// The number compared with (points / unit of the metric, or % for [`Change::Relative`]).
    pub threshold: f64,
    /// What is compared.
    pub change: Change,
}

impl Gate {
    /// True if the condition holds for `row` (a matched row of this gate's metric); `significance`: a change
    /// must also be significant.
    pub fn holds(&self, row: &DiffRow, significance: bool) -> bool {
        if row.metric != self.metric.name() || row.base_runs == 0 || row.new_runs == 0 {
            return false;
        }
        let value = match self.change {
            Change::Absolute => {
                return row
                    .new_value
                    .is_some_and(|v| self.op.holds(v, self.threshold))
            }
            Change::Delta => row.delta_value,
            Change::Relative => row.delta_pct,
        };
        value.is_some_and(|v| self.op.holds(v, self.threshold))
            && (!significance || row.is_significant())
    }
}

impl fmt::Display for Gate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (sign, pct) = match self.change {
            Change::Absolute => ("", ""),
            Change::Delta => (if self.threshold >= 0.0 { "+" } else { "" }, ""),
            Change::Relative => (if self.threshold >= 0.0 { "+" } else { "" }, "%"),
        };
        write!(
            f,
            "{}{}{sign}{}{pct}",
            self.metric,
            self.op.symbol(),
            self.threshold
        )
    }
}

impl FromStr for Gate {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = |why: &str| {
            format!("'{s}': {why}; expected METRIC OP [+|-]NUMBER[%], e.g. janky_pct>+1 or frame_dur_ms_p90>+10%")
        };
        let (name, op, number) = split_condition(s).map_err(|e| bad(&e))?;
        let signed = number.starts_with(['+', '-']);
        let (number, relative) = match number.strip_suffix('%') {
            Some(n) => (n.trim(), true),
            None => (number, false),
        };
        let threshold: f64 = number
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| bad(&format!("'{number}' is not a number")))?;
        Ok(Gate {
            metric: name.parse().map_err(|e: String| bad(&e))?,
            op,
            threshold,
            change: match (relative, signed) {
                (true, _) => Change::Relative,
                (false, true) => Change::Delta,
                (false, false) => Change::Absolute,
            },
        })
    }
}

/// The `--fail-on` message: per gate that holds, the rows it holds for; empty if none holds.
pub fn gate_failures(diff: &Diff, gates: &[Gate], significance: bool) -> String {
    let mut out = String::new();
    for g in gates {
        let hits: Vec<String> = diff
            .rows
            .iter()
            .filter(|r| g.holds(r, significance))
            .map(|r| {
                let v = |x: Option<f64>| {
                    x.map_or_else(
                        || crate::output::label::ABSENT.into(),
                        |x| format!("{x:.2}"),
                    )
                };
                format!(
                    "{} ({} {} -> {}, {}{}, adjusted p {})",
                    r.scope(),
                    r.metric,
                    v(r.base_value),
                    v(r.new_value),
                    if r.delta_value.unwrap_or(0.0) >= 0.0 {
                        "+"
                    } else {
                        ""
                    },
                    v(r.delta_value),
                    r.adjusted_p_value.map_or_else(
                        || crate::output::label::ABSENT.into(),
                        |p| format!("{p:.2e}")
                    )
                )
            })
            .collect();
        if !hits.is_empty() {
            out.push_str(&format!(
                "ftl: --fail-on {g} holds for {} rows: {}\n",
                hits.len(),
                hits.join("; ")
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gates_parse_change_syntax() {
        let g: Gate = "janky_pct>+1".parse().unwrap();
        assert_eq!(
            (g.metric, g.op, g.threshold, g.change),
            (Metric::JankyPct, Op::Gt, 1.0, Change::Delta)
        );
        let g: Gate = "frame_dur_ms_p90 > +10%".parse().unwrap();
        assert_eq!((g.threshold, g.change), (10.0, Change::Relative));
        assert_eq!(g.to_string(), "frame_dur_ms_p90>+10%");
        let g: Gate = "fps_mean<-5".parse().unwrap();
        assert_eq!((g.op, g.threshold, g.change), (Op::Lt, -5.0, Change::Delta));
        let g: Gate = "janky_pct>5".parse().unwrap();
        assert_eq!(g.change, Change::Absolute);
        for bad in [
            "janky_pct",
            "nope>+1",
            "janky_pct>+x",
            "janky_pct>%",
            "janky_pct=>1",
        ] {
            assert!(bad.parse::<Gate>().is_err(), "{bad}");
        }
    }

    #[test]
    fn cause_shares_are_means_over_runs_that_know_their_causes() {
        let sample = |late: u64, causes: &[(&str, u64)]| Sample {
            process_name: Some("p".into()),
            layer_name: None,
            values: [None; Metric::COUNT],
            frames: None,
            jank_measure: None,
            causes: Some(crate::diff::Causes {
                late_frames: late,
                frames: causes.iter().map(|(c, n)| (c.to_string(), *n)).collect(),
            }),
        };
        // Base: 1/4 and 3/4 binder over two runs; a run without late frames is left out.
        let (b1, b2, b3) = (
            sample(4, &[("binder:system_server", 1), ("gc", 2)]),
            sample(4, &[("binder:system_server", 3)]),
            sample(0, &[]),
        );
        let n1 = sample(10, &[("gc", 5)]);
        let shares = cause_shares(&[&b1, &b2, &b3], &[&n1]);
        assert_eq!(
            shares,
            vec![
                ("binder:system_server".to_string(), Some(50.0), Some(0.0)),
                ("gc".to_string(), Some(25.0), Some(50.0)),
            ]
        );
        let key = Key {
            level: crate::diff::Level::Process,
            process: "p".into(),
            layer: String::new(),
        };
        let rows = compare(&key, &[&b1, &b2], &[&n1], &Options::default());
        let gc = rows
            .iter()
            .find(|r| r.metric == "cause_share_pct:gc")
            .unwrap();
        assert_eq!(
            (
                gc.base_value,
                gc.new_value,
                gc.delta_value,
                gc.verdict.as_str()
            ),
            (Some(25.0), Some(50.0), Some(25.0), verdict::NOT_TESTED)
        );
        // Unknown causes (a Parquet side) give no value.
        let mut unknown = sample(4, &[]);
        unknown.causes = None;
        assert_eq!(
            cause_shares(&[&unknown], &[&n1]),
            vec![("gc".to_string(), None, Some(50.0))]
        );
    }

    fn row(delta: f64, verdict: &str) -> DiffRow {
        DiffRow {
            metric: "janky_pct".into(),
            base_value: Some(2.0),
            new_value: Some(2.0 + delta),
            delta_value: Some(delta),
            delta_pct: Some(delta / 2.0 * 100.0),
            base_runs: 1,
            new_runs: 1,
            verdict: verdict.into(),
            ..DiffRow::default()
        }
    }

    #[test]
    fn gates_need_significance_unless_waived() {
        let g: Gate = "janky_pct>+1".parse().unwrap();
        assert!(g.holds(&row(1.5, verdict::REGRESSED), true));
        assert!(!g.holds(&row(1.5, verdict::NO_CHANGE), true));
        assert!(g.holds(&row(1.5, verdict::NO_CHANGE), false));
        assert!(!g.holds(&row(0.5, verdict::REGRESSED), true));
        let rel: Gate = "janky_pct>+50%".parse().unwrap();
        assert!(rel.holds(&row(1.5, verdict::REGRESSED), true), "+75 %");
        assert!(!rel.holds(&row(0.8, verdict::REGRESSED), true), "+40 %");
        let mut unmatched = row(5.0, verdict::ONLY_IN_NEW);
        unmatched.base_runs = 0;
        assert!(!g.holds(&unmatched, false));
    }
}
