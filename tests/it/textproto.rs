//! A reader for the `android_frame_timeline_metric` text protos written by trace processor (just enough of the
//! text format for these files: nested blocks and `key: value` lines).

use std::collections::BTreeMap;

/// One `jank_types { ... }` block: its type and counters.
pub type JankTypes = BTreeMap<String, BTreeMap<String, String>>;

/// Scalar fields of one process entry (including `pid` from its metadata) and its jank types.
#[derive(Debug, Default)]
pub struct ProcessEntry {
    pub fields: BTreeMap<String, String>,
    pub jank_types: JankTypes,
}

/// The metric: top-level scalars, top-level jank types, processes by pid.
#[derive(Debug, Default)]
pub struct Metric {
    pub fields: BTreeMap<String, String>,
    pub jank_types: JankTypes,
    pub processes: BTreeMap<i64, ProcessEntry>,
}

pub fn parse(text: &str) -> Metric {
    let mut metric = Metric::default();
    let mut path: Vec<String> = Vec::new();
    let mut current = ProcessEntry::default();
    let mut jank: BTreeMap<String, String> = BTreeMap::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if let Some(name) = line.strip_suffix(" {") {
            path.push(name.to_string());
            continue;
        }
        if line == "}" {
            let closed = path.pop().expect("balanced braces");
            match (closed.as_str(), path.len()) {
                ("jank_types", 1) => take_jank(&mut jank, &mut metric.jank_types),
                ("jank_types", 2) => take_jank(&mut jank, &mut current.jank_types),
                ("process", 1) => {
                    let entry = std::mem::take(&mut current);
                    let pid = entry.fields["pid"].parse().expect("pid");
                    metric.processes.insert(pid, entry);
                }
                _ => {}
            }
            continue;
        }
        let (key, value) = line.split_once(": ").expect("key: value");
        let value = value.trim_matches('"').to_string();
        let depth: Vec<&str> = path.iter().map(String::as_str).collect();
        match depth.as_slice() {
            [_] => {
                metric.fields.insert(key.into(), value);
            }
            [_, "process"] => {
                current.fields.insert(key.into(), value);
            }
            [_, "process", "process"] if key == "pid" => {
                current.fields.insert(key.into(), value);
            }
            [.., "jank_types"] => {
                jank.insert(key.into(), value);
            }
            _ => {}
        }
    }
    metric
}

fn take_jank(jank: &mut BTreeMap<String, String>, into: &mut JankTypes) {
    let mut block = std::mem::take(jank);
    let name = block.remove("type").expect("jank type name");
    into.insert(name, block);
}
