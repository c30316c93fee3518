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
    run_bin(Path::new(env!("CARGO_BIN_EXE_ftl")), args, path).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `BIN ARGS PATH` under `/usr/bin/time -f %M` (stdout discarded); its wall time and peak RSS in MB.
/// Errors: the binary failed (its stderr), or GNU time gave no peak RSS.
pub fn run_bin(bin: &Path, args: &[&str], path: &Path) -> Result<(Duration, f64), String> {
    let mut all: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
    all.push(path.as_os_str());
    run_timed(bin, &all)
}

/// Runs `BIN ARGS` under `/usr/bin/time -f %M` (stdout discarded); its wall time and peak RSS in MB. Errors: as
/// [`run_bin`].
pub fn run_timed(bin: &Path, args: &[&std::ffi::OsStr]) -> Result<(Duration, f64), String> {
    let start = Instant::now();
    let out = Command::new("/usr/bin/time")
        .args(["-f", "%M"])
        .arg(bin)
        .args(args)
        .stdout(Stdio::null())
        .output()
        .expect("run /usr/bin/time (GNU time)");
    let elapsed = start.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("{} failed: {stderr}", bin.display()));
    }
    let rss_kib: f64 = stderr
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .ok_or_else(|| format!("no peak RSS from /usr/bin/time: {stderr}"))?;
    Ok((elapsed, rss_kib * 1024.0 / 1e6))
}

/// Version of the replica format in the cached file names: bumped whenever `ftl::synth::replicate` writes
/// different bytes, so that a replica built by an older one is never reused. 2: ftrace timestamps and the vsync
/// ids of doFrame / DrawFrame atrace lines are shifted per copy (1, unnamed: FrameTimeline only); 3: `compact_sched`
/// timestamps are shifted too; 4: and binder `debug_id`s.
pub const REPLICA_VERSION: u32 = 4;

/// Time between replica copies, ns.
const SHIFT_NS: u64 = 60_000_000_000;
/// Difference between the ids (cookies, tokens, vsync ids) of consecutive copies.
const ID_STRIDE: i64 = 1 << 32;

/// A replica of `source` of at least `min_bytes` (uncompressed), gzip-compressed if `gzip`, its copies after the
/// first holding what `later` says, under `target/bench-data/` (named with [`REPLICA_VERSION`], `_ft` for
/// FrameTimeline-only copies). Copies are 60 s apart with ids 2³² apart; built copy by copy, so building a 1 GiB
/// replica needs no 1 GiB buffer. Reused when present.
pub fn replica(source: &Path, min_bytes: u64, gzip: bool, later: ftl::synth::Copies) -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench-data");
    std::fs::create_dir_all(&dir).expect("create target/bench-data");
    let raw = std::fs::read(source).expect("read real trace");
    // Later copies differ in size from the original (rewritten varints, or only their FrameTimeline packets):
    // size one.
    let mut two = Vec::new();
    ftl::synth::replicate(&raw, 2, SHIFT_NS, ID_STRIDE, later, &mut two).expect("replicate");
    let copy_bytes = (two.len() - raw.len()) as u64;
    let copies = 1 + min_bytes
        .saturating_sub(raw.len() as u64)
        .div_ceil(copy_bytes);
    let stem = source.file_stem().unwrap_or_default().to_string_lossy();
    let path = dir.join(format!(
        "{stem}_x{copies}{}_r{REPLICA_VERSION}.pftrace{}",
        if later == ftl::synth::Copies::FrameTimelineOnly {
            "_ft"
        } else {
            ""
        },
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
    ftl::synth::replicate(&raw, copies, SHIFT_NS, ID_STRIDE, later, &mut out)
        .expect("write replica");
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
