//! The diff as terminal text (the verdict first) and as Markdown for a pull-request comment.

use super::table::{verdict, Diff, DiffRow};
use crate::output::label;
use comfy_table::{presets::UTF8_BORDERS_ONLY, Cell, CellAlignment, Table};
use std::fmt::Write;

/// Metrics shown for every matched row (besides the significant changes).
const HEADLINE: [&str; 3] = ["janky_pct", "frame_dur_ms_p90", "frame_dur_ms_p99"];

fn num(v: Option<f64>) -> String {
    v.map_or_else(|| label::ABSENT.into(), |v| format!("{v:.2}"))
}

fn signed(v: Option<f64>, unit: &str) -> String {
    v.map_or_else(|| label::ABSENT.into(), |v| format!("{v:+.2}{unit}"))
}

fn p(v: Option<f64>) -> String {
    v.map_or_else(
        || label::ABSENT.into(),
        |v| {
            if v < 1e-3 {
                format!("{v:.1e}")
            } else {
                format!("{v:.3}")
            }
        },
    )
}

/// The row's name: the layer, else the process.
fn name(r: &DiffRow) -> String {
    r.layer_name
        .as_deref()
        .or(r.process_name.as_deref())
        .unwrap_or("(all)")
        .to_string()
}

/// The one-line verdict with its counts.
pub fn headline(d: &Diff) -> String {
    let how = match d.mode.as_str() {
        "runs" => "runs compared with Welch's t-test",
        "single trace" => "single traces compared with a block bootstrap (weaker)",
        _ => "block bootstrap over the frames of each side (weaker)",
    };
    format!(
        "{}: {} regressed, {} improved of {} tests; base {} run(s), new {} run(s); {how}; {} alpha {}",
        d.verdict.to_uppercase(),
        d.regressed,
        d.improved,
        d.tested,
        d.base_runs,
        d.new_runs,
        d.correction,
        d.alpha
    )
}

/// Rows worth showing: significant changes first (worst adjusted p first), then the headline metrics of matched
/// rows, in table order.
fn shown(d: &Diff) -> Vec<&DiffRow> {
    let mut sig: Vec<&DiffRow> = d.rows.iter().filter(|r| r.is_significant()).collect();
    sig.sort_by(|a, b| {
        (a.verdict != verdict::REGRESSED)
            .cmp(&(b.verdict != verdict::REGRESSED))
            .then(
                a.adjusted_p_value
                    .unwrap_or(1.0)
                    .total_cmp(&b.adjusted_p_value.unwrap_or(1.0)),
            )
    });
    let matched = |r: &&DiffRow| r.base_runs > 0 && r.new_runs > 0;
    sig.extend(
        d.rows
            .iter()
            .filter(matched)
            .filter(|r| !r.is_significant() && HEADLINE.contains(&r.metric.as_str())),
    );
    sig
}

fn unmatched(d: &Diff) -> Vec<(String, &str)> {
    let mut out: Vec<(String, &str)> = d
        .rows
        .iter()
        .filter(|r| r.verdict == verdict::ONLY_IN_BASE || r.verdict == verdict::ONLY_IN_NEW)
        .map(|r| (r.scope(), r.verdict.as_str()))
        .collect();
    out.dedup();
    out
}

/// The columns of a shown row: level, name, metric, base, new, change, change %, adjusted p, verdict.
fn cells(r: &DiffRow, width: usize) -> [String; 9] {
    [
        r.level.clone(),
        label::elide(&name(r), width),
        r.metric.clone(),
        num(r.base_value),
        num(r.new_value),
        signed(r.delta_value, ""),
        signed(r.delta_pct, " %"),
        p(r.adjusted_p_value),
        r.verdict.clone(),
    ]
}

const HEADER: [&str; 9] = [
    "level",
    "name",
    "metric",
    "base",
    "new",
    "change",
    "change %",
    "adjusted p",
    "verdict",
];

/// The terminal report: the verdict line, the significant changes and headline metrics of every matched row,
/// unmatched rows, and how to read the statistics.
pub fn text(d: &Diff) -> String {
    let mut out = headline(d) + "\n\n";
    let mut t = Table::new();
    t.load_preset(UTF8_BORDERS_ONLY)
        .set_header(HEADER.iter().map(Cell::new));
    for r in shown(d) {
        t.add_row(cells(r, 48));
    }
    for i in 3..8 {
        if let Some(c) = t.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    let _ = writeln!(out, "{t}");
    let causes = cause_rows(d);
    if !causes.is_empty() {
        let mut t = Table::new();
        t.load_preset(UTF8_BORDERS_ONLY)
            .set_header(HEADER.iter().map(Cell::new));
        for r in causes {
            t.add_row(cells(r, 48));
        }
        let _ = writeln!(
            out,
            "Causes of late frames, share of late frames % (`ftl explain causes`; not tested)\n{t}"
        );
    }
    let unmatched = unmatched(d);
    if !unmatched.is_empty() {
        let _ = writeln!(out, "Unmatched ({}):", unmatched.len());
        for (scope, v) in unmatched {
            let _ = writeln!(out, "  {v}: {scope}");
        }
    }
    for n in &d.notes {
        let _ = writeln!(out, "{n}");
    }
    out
}

/// Per matched process, its five causes with the largest share on either side (largest first).
fn cause_rows(d: &Diff) -> Vec<&DiffRow> {
    let mut rows: Vec<&DiffRow> = d
        .rows
        .iter()
        .filter(|r| r.level == "process" && r.metric.starts_with(super::table::CAUSE_SHARE))
        .filter(|r| r.base_runs > 0 && r.new_runs > 0)
        .collect();
    let top = |r: &DiffRow| r.base_value.unwrap_or(0.0).max(r.new_value.unwrap_or(0.0));
    rows.sort_by(|a, b| {
        a.process_name
            .cmp(&b.process_name)
            .then(top(b).total_cmp(&top(a)))
            .then(a.metric.cmp(&b.metric))
    });
    let mut shown = 0;
    let mut last = None;
    rows.retain(|r| {
        if last != Some(&r.process_name) {
            (last, shown) = (Some(&r.process_name), 0);
        }
        shown += 1;
        shown <= 5
    });
    rows
}

/// A Markdown table cell: pipes escaped, on one line.
fn md(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn md_table(out: &mut String, rows: &[&DiffRow]) {
    let _ = writeln!(out, "| {} |", HEADER.join(" | "));
    let _ = writeln!(out, "|{}", "---|".repeat(HEADER.len()));
    for r in rows {
        let c: Vec<String> = cells(r, usize::MAX).iter().map(|c| md(c)).collect();
        let _ = writeln!(out, "| {} |", c.join(" | "));
    }
}

/// The Markdown for a pull-request comment: a heading with the verdict, a pipe table of the significant changes
/// and headline metrics, unmatched rows, the notes, and every tested row in a collapsed `<details>` table.
pub fn markdown(d: &Diff) -> String {
    let mut out = format!("### ftl diff: {}\n\n{}\n\n", d.verdict, md(&headline(d)));
    md_table(&mut out, &shown(d));
    let causes = cause_rows(d);
    if !causes.is_empty() {
        let _ = writeln!(
            out,
            "\nCauses of late frames, share of late frames % (not tested):\n"
        );
        md_table(&mut out, &causes);
    }
    let unmatched = unmatched(d);
    if !unmatched.is_empty() {
        let _ = writeln!(out, "\nUnmatched:\n");
        for (scope, v) in unmatched {
            let _ = writeln!(out, "- {v}: `{}`", scope.replace('`', "'"));
        }
    }
    out.push('\n');
    for n in &d.notes {
        let _ = writeln!(out, "> {}", md(n));
    }
    let tested: Vec<&DiffRow> = d.rows.iter().filter(|r| r.p_value.is_some()).collect();
    let _ = writeln!(
        out,
        "\n<details><summary>All {} tests</summary>\n",
        tested.len()
    );
    md_table(&mut out, &tested);
    out.push_str("\n</details>\n");
    out
}
