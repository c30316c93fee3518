//! `ftl report -o report.html`: one self-contained, offline HTML page — its CSS and JavaScript inline
//! (`assets/report/`), its data a gzip+base64 block the page inflates with the browser's `DecompressionStream`,
//! and a Content-Security-Policy that forbids every fetch — with a zoomable timeline, hover card, filters and
//! linked panels. The same input and version give the same bytes.

mod capture_data;
mod data;

use crate::analysis::Analysis;
use crate::error::{Error, Result};
use base64::Engine;
pub use data::PageData;
use flate2::write::GzEncoder;
use rustc_hash::FxHashMap;
use serde::Serialize;
use std::io::Write;
use std::path::Path;

/// The page; its markers are filled in this order ([`fill`]).
const TEMPLATE: &str = include_str!("../../../assets/report/report.html");
const CSS: &str = include_str!("../../../assets/report/report.css");
const JS: &str = include_str!("../../../assets/report/report.js");

/// Version of the page's data block (`schema` in it): bumped when a field changes meaning or goes.
pub const SCHEMA: u32 = 1;

/// Options of an HTML report.
#[derive(Debug, Clone, Default)]
pub struct HtmlOptions {
    /// A URL the trace can be fetched from by Perfetto UI: the page then links each frame to it.
    pub trace_url: Option<String>,
    /// Replace process, layer and section names with placeholders ([`PageData::redact`]).
    pub redact: bool,
}

/// Values interned in first-use order: columns hold their index (strings, colours).
#[derive(Debug)]
pub struct Interned<K> {
    index: FxHashMap<K, u32>,
    list: Vec<K>,
}

impl<K> Default for Interned<K> {
    fn default() -> Self {
        Interned {
            index: FxHashMap::default(),
            list: Vec::new(),
        }
    }
}

impl<K: std::hash::Hash + Eq + Clone> Interned<K> {
    /// The index of `key`, a new one the first time.
    pub fn of<Q>(&mut self, key: &Q) -> u32
    where
        K: std::borrow::Borrow<Q>,
        Q: std::hash::Hash + Eq + ToOwned<Owned = K> + ?Sized,
    {
        if let Some(&i) = self.index.get(key) {
            return i;
        }
        let i = self.list.len() as u32;
        self.list.push(key.to_owned());
        self.index.insert(key.to_owned(), i);
        i
    }

    /// The values by index.
    pub fn list(&self) -> &[K] {
        &self.list
    }
}

/// Interned strings.
pub type Strings = Interned<String>;

/// The non-empty lines of `ftl analyze`'s verdict `text`, trimmed: the page's header lines.
fn verdict_lines(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// The data block with what every page carries: its schema and ftl's version.
#[derive(Serialize)]
struct Block<'a, T: Serialize> {
    schema: u32,
    ftl_version: &'static str,
    #[serde(flatten)]
    data: &'a T,
}

/// Writes the HTML report of `analysis` to `path`; gzipped when the name ends in `.gz`. Errors:
/// [`Error::Output`] naming the file.
pub fn write(analysis: &Analysis, path: &Path, options: &HtmlOptions) -> Result<()> {
    let mut data = match analysis {
        Analysis::Trace(report) => PageData::trace(report, options.trace_url.as_deref()),
        Analysis::Capture(report) => capture_data::capture(report),
    };
    if options.redact {
        data.redact();
    }
    let page = page(data.title(), &data);
    write_page(&page, path)
}

/// The data of a batch's index page: the ranked triage rows; each row's `trace` names its report, `<trace>.html`
/// beside the index.
#[derive(Serialize)]
struct Index<'a> {
    kind: &'static str,
    title: &'static str,
    rows: &'a [crate::batch::TriageRow],
}

/// Writes `ftl batch --format html`'s index page, the triage table `rows` (ranked) linking to each input's report,
/// to `path`. Errors: [`Error::Output`] naming the file.
pub fn write_index(rows: &[crate::batch::TriageRow], path: &Path) -> Result<()> {
    let title = "ftl batch — triage";
    let index = Index {
        kind: "batch",
        title,
        rows,
    };
    write_page(&page(title, &index), path)
}

/// The data of `ftl diff --html`: the comparison as `--format json` writes it, each side's frame durations as
/// 1,001 quantiles (0, 0.1 %, …, 100 %; the CDF drawn), and the matched layers' janky %.
#[derive(Serialize)]
struct DiffPage<'a> {
    kind: &'static str,
    title: &'a str,
    diff: &'a crate::diff::table::Diff,
    base_frames: usize,
    new_frames: usize,
    base_quantiles_ms: Vec<f64>,
    new_quantiles_ms: Vec<f64>,
    /// `[layer, base janky %, new janky %, verdict]`.
    layers: Vec<(&'a str, f64, f64, &'a str)>,
}

/// Quantiles of `sorted` at 0, 0.1 %, …, 100 % (nearest rank below); empty for no values.
fn quantiles(sorted: &[f64]) -> Vec<f64> {
    if sorted.is_empty() {
        return Vec::new();
    }
    (0..=1000)
        .map(|q| sorted[q * (sorted.len() - 1) / 1000])
        .collect()
}

/// Writes `ftl diff --html`'s page for comparison `d` and its picture's data to `path`. Errors: [`Error::Output`]
/// naming the file.
pub fn write_diff(
    d: &crate::diff::table::Diff,
    picture: &crate::output::chart::diff::DiffChart,
    path: &Path,
) -> Result<()> {
    let page_data = DiffPage {
        kind: "diff",
        title: &picture.title,
        diff: d,
        base_frames: picture.base_ms.len(),
        new_frames: picture.new_ms.len(),
        base_quantiles_ms: quantiles(&picture.base_ms),
        new_quantiles_ms: quantiles(&picture.new_ms),
        layers: picture
            .layers
            .iter()
            .map(|l| (l.layer.as_str(), l.base_pct, l.new_pct, l.verdict.as_str()))
            .collect(),
    };
    write_page(&page(&picture.title, &page_data), path)
}

/// Writes `page` to `path` (gzipped for a `.gz` name).
pub fn write_page(page: &str, path: &Path) -> Result<()> {
    let fail = |e: std::io::Error| Error::Output {
        path: path.to_path_buf(),
        cause: e.to_string(),
    };
    let gz = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"));
    let bytes = if gz {
        gzip(page.as_bytes())
    } else {
        page.as_bytes().to_vec()
    };
    std::fs::write(path, bytes).map_err(fail)
}

/// `bytes` gzipped ([`gzipped`]).
fn gzip(bytes: &[u8]) -> Vec<u8> {
    gzipped(|w| w.write_all(bytes))
}

/// What `write` writes, gzipped with no time or name in the header (deterministic), through a 64 KiB buffer.
/// Writing to memory cannot fail.
fn gzipped(write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut buffered = std::io::BufWriter::with_capacity(1 << 16, &mut encoder);
    let _ = write(&mut buffered).and_then(|()| buffered.flush());
    drop(buffered);
    encoder.finish().unwrap_or_default()
}

/// The page for `data`: the template with its title, style, data block and script.
pub fn page<T: Serialize>(title: &str, data: &T) -> String {
    let block = Block {
        schema: SCHEMA,
        ftl_version: env!("CARGO_PKG_VERSION"),
        data,
    };
    // The JSON goes straight into the compressor (a dense trace's is tens of MB, its gzip a tenth of that).
    let gz = gzipped(|w| serde_json::to_writer(w, &block).map_err(std::io::Error::from));
    let encoded = base64::engine::general_purpose::STANDARD.encode(gz);
    fill(
        TEMPLATE,
        &[
            ("{{title}}", &escape(title)),
            ("/*{{css}}*/", CSS),
            ("{{data}}", &encoded),
            ("/*{{js}}*/", JS),
        ],
    )
}

/// `template` with each marker replaced by its value, markers found in order in the template only (a value
/// never gets filled in).
fn fill(template: &str, parts: &[(&str, &str)]) -> String {
    let mut out =
        String::with_capacity(template.len() + parts.iter().map(|p| p.1.len()).sum::<usize>());
    let mut rest = template;
    for (marker, value) in parts {
        let Some((head, tail)) = rest.split_once(marker) else {
            continue;
        };
        out.push_str(head);
        out.push_str(value);
        rest = tail;
    }
    out.push_str(rest);
    out
}

/// `text` as HTML text.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_fill_in_template_order_and_values_are_not_filled() {
        let out = fill("a{{x}}b{{y}}c", &[("{{x}}", "{{y}}"), ("{{y}}", "Y")]);
        assert_eq!(out, "a{{y}}bYc");
    }

    #[test]
    fn the_template_holds_every_marker_in_order() {
        let at = |m: &str| TEMPLATE.find(m).unwrap_or_else(|| panic!("{m} missing"));
        assert!(at("{{title}}") < at("/*{{css}}*/"));
        assert!(at("/*{{css}}*/") < at("{{data}}"));
        assert!(at("{{data}}") < at("/*{{js}}*/"));
    }

    #[test]
    fn titles_are_escaped() {
        assert_eq!(escape("<a & \"b\">"), "&lt;a &amp; &quot;b&quot;&gt;");
    }
}
