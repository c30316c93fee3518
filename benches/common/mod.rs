//! Shared by the benchmarks: the real traces of `../shared/traces`, large replicas of them (rewritten cookies,
//! tokens and timestamps, `ftl::synth::replicate`) built once under `target/bench-data/`, and running the release
//! `ftl` binary under `/usr/bin/time` for its wall time and peak RSS.
#![allow(dead_code)] // each benchmark uses a part

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// `../shared/traces`; panics with its name when the real traces are missing.
fn traces_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/traces");
    assert!(
        dir.is_dir(),
        "the benchmarks need real traces in {}",
        dir.display()
    );
    dir
}

/// `../shared/traces/<name>`.
pub fn real_trace(name: &str) -> PathBuf {
    traces_dir().join(name)
}

/// Every real trace of `../shared/traces` (not its README), sorted.
pub fn real_traces() -> Vec<PathBuf> {
    let mut traces: Vec<PathBuf> = std::fs::read_dir(traces_dir())
        .expect("list ../shared/traces")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e != "md"))
        .collect();
    traces.sort();
    traces
}

/// Runs the release `ftl ARGS PATH` under `/usr/bin/time -f %M` (stdout discarded); its wall time and peak RSS
/// in MB. Panics if ftl fails.
pub fn run_ftl(args: &[&str], path: &Path) -> (Duration, f64) {
    let start = Instant::now();
    let out = Command::new("/usr/bin/time")
        .args(["-f", "%M", env!("CARGO_BIN_EXE_ftl")])
        .args(args)
        .arg(path)
        .stdout(Stdio::null())
        .output()
        .expect("run /usr/bin/time (GNU time) with ftl");
    let elapsed = start.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "ftl failed: {stderr}");
    let rss_kib: f64 = stderr
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or_else(|| panic!("no peak RSS from /usr/bin/time: {stderr}"));
    (elapsed, rss_kib * 1024.0 / 1e6)
}

/// A replica of `source` of at least `min_bytes` (uncompressed), gzip-compressed if `gzip`, under
/// `target/bench-data/`. Copies are 60 s apart with ids 2³² apart; built copy by copy, so building a 1 GiB replica
/// needs no 1 GiB buffer. Reused when present.
pub fn replica(source: &Path, min_bytes: u64, gzip: bool) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    std::fs::create_dir_all(&dir).expect("create target/bench-data");
    let raw = std::fs::read(source).expect("read real trace");
    let copies = min_bytes.div_ceil(raw.len() as u64);
    let stem = source.file_stem().unwrap_or_default().to_string_lossy();
    let path = dir.join(format!(
        "{stem}_x{copies}.pftrace{}",
        if gzip { ".gz" } else { "" }
    ));
    if path.exists() {
        return path;
    }
    eprintln!("building {} ...", path.display());
    let tmp = path.with_extension("partial");
    let file = BufWriter::new(File::create(&tmp).expect("create bench trace"));
    let mut out: Box<dyn Write> = if gzip {
        Box::new(flate2::write::GzEncoder::new(
            file,
            flate2::Compression::default(),
        ))
    } else {
        Box::new(file)
    };
    ftl::synth::replicate(&raw, copies, 60_000_000_000, 1 << 32, &mut out).expect("write replica");
    drop(out);
    std::fs::rename(&tmp, &path).expect("rename bench trace");
    path
}

/// A `dumpsys SurfaceFlinger --latency` capture of at least `min_bytes` under `target/bench-data/`: the real rows
/// of `../shared/text/catapult_sf_latency_3frames.txt` repeated with timestamps shifted by their span, polled as
/// back-to-back dumps of 127 rows each (the period line before each), as a collector polling for hours writes.
/// Reused when present.
pub fn latency_replica(min_bytes: u64) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/text/catapult_sf_latency_3frames.txt");
    let text = std::fs::read_to_string(&source).expect("read the real --latency capture");
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let period: i64 = lines
        .next()
        .expect("period line")
        .trim()
        .parse()
        .expect("period");
    let rows: Vec<[i64; 3]> = lines
        .map(|l| {
            let v: Vec<i64> = l
                .split_whitespace()
                .map(|f| f.parse().expect("integer"))
                .collect();
            [v[0], v[1], v[2]]
        })
        .collect();
    let span = rows.last().expect("rows")[1] - rows[0][1] + period;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    std::fs::create_dir_all(&dir).expect("create target/bench-data");
    let path = dir.join(format!("sf_latency_{}MB.txt", min_bytes / 1_000_000));
    if path.exists() {
        return path;
    }
    eprintln!("building {} ...", path.display());
    let tmp = path.with_extension("partial");
    let mut out = BufWriter::new(File::create(&tmp).expect("create bench capture"));
    let (mut written, mut row) = (0u64, 0i64);
    while written < min_bytes {
        let mut dump = format!("{period}\n");
        for _ in 0..127 {
            let r = rows[(row % rows.len() as i64) as usize];
            let shift = (row / rows.len() as i64) * span;
            dump.push_str(&format!(
                "{}\t{}\t{}\n",
                r[0] + shift,
                r[1] + shift,
                r[2] + shift
            ));
            row += 1;
        }
        out.write_all(dump.as_bytes()).expect("write bench capture");
        written += dump.len() as u64;
    }
    out.flush().expect("flush bench capture");
    drop(out);
    std::fs::rename(&tmp, &path).expect("rename bench capture");
    path
}
