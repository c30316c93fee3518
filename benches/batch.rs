//! `ftl batch` benchmark: the release `ftl` binary on the real traces replicated (hard links, made once in
//! `target/bench-data/batch/`), reporting traces/s and MB/s with `--jobs 1` vs `--jobs 2` in the same run, and
//! the peak RSS of the process (`/usr/bin/time -f %M`) for 50 vs 200 traces: memory bounded by jobs, not by the fleet.
//!
//! Run with `cargo bench --bench batch`. The files are hard links to three traces, so after the warm-up run
//! they come from the page cache: this measures decoding and analysis, not the disk.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const FLEET: usize = 200;
const SMALL: usize = 50;

/// The real traces of `../shared/traces`.
fn real_traces() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/traces");
    let mut traces: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e != "md"))
        .collect();
    traces.sort();
    assert!(!traces.is_empty(), "no traces in {}", dir.display());
    traces
}

/// `target/bench-data/batch/<count>/` holding `count` hard links (copies if linking fails) to the real traces
/// in rotation; reused when complete.
fn fleet(count: usize) -> (PathBuf, u64) {
    let target = Path::new(env!("CARGO_BIN_EXE_ftl"))
        .ancestors()
        .nth(2)
        .expect("target dir")
        .to_path_buf();
    let dir = target.join(format!("bench-data/batch/{count}"));
    std::fs::create_dir_all(&dir).expect("create bench-data");
    let sources = real_traces();
    let mut bytes = 0;
    for i in 0..count {
        let source = &sources[i % sources.len()];
        let name = source.file_name().expect("file name").to_string_lossy();
        let link = dir.join(format!("{i:04}-{name}"));
        if !link.exists() && std::fs::hard_link(source, &link).is_err() {
            std::fs::copy(source, &link).expect("copy trace");
        }
        bytes += std::fs::metadata(&link).expect("stat").len();
    }
    (dir, bytes)
}

/// Runs `ftl batch DIR --jobs N` under `/usr/bin/time -f %M` and returns (seconds, peak RSS of the ftl process
/// in MiB).
fn run(dir: &Path, jobs: usize) -> (f64, f64) {
    let start = Instant::now();
    let out = Command::new("/usr/bin/time")
        .args(["-f", "%M", env!("CARGO_BIN_EXE_ftl")])
        .args([
            "batch",
            "-q",
            "--format",
            "csv",
            "-o",
            "/dev/null",
            "--jobs",
        ])
        .arg(jobs.to_string())
        .arg(dir)
        .stdout(Stdio::null())
        .output()
        .expect("run /usr/bin/time (GNU time) with ftl");
    let secs = start.elapsed().as_secs_f64();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "ftl batch failed: {stderr}");
    let max_rss_kib: f64 = stderr
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or_else(|| panic!("no max RSS from /usr/bin/time: {stderr}"));
    (secs, max_rss_kib / 1024.0)
}

/// Best of `n` runs (least disturbed by other load).
fn best(dir: &Path, jobs: usize, n: usize) -> (f64, f64) {
    (0..n)
        .map(|_| run(dir, jobs))
        .fold((f64::INFINITY, 0.0), |(s, r), (s2, r2)| {
            (s.min(s2), f64::max(r, r2))
        })
}

fn main() {
    let (big, big_bytes) = fleet(FLEET);
    let (small, _) = fleet(SMALL);
    println!(
        "ftl batch: {FLEET} traces, {:.1} MB (real traces as hard links, page cache warm)",
        big_bytes as f64 / 1e6
    );
    run(&big, 2);
    let mut rate = Vec::new();
    for jobs in [1, 2] {
        let (secs, rss) = best(&big, jobs, 3);
        let traces_s = FLEET as f64 / secs;
        println!(
            "  --jobs {jobs}: {secs:.2} s, {traces_s:.1} traces/s, {:.1} MB/s, peak RSS {rss:.1} MiB",
            big_bytes as f64 / 1e6 / secs
        );
        rate.push(traces_s);
    }
    println!("  speed-up --jobs 2 / --jobs 1: {:.2}×", rate[1] / rate[0]);
    for (count, dir) in [(SMALL, &small), (FLEET, &big)] {
        let (_, rss) = best(dir, 2, 2);
        println!("  peak RSS, --jobs 2, {count:>3} traces: {rss:.1} MiB");
    }
}
