//! `ftl batch` benchmark: the release `ftl` binary on the real traces replicated (hard links, made once in
//! `target/bench-data/batch/`), reporting traces/s and MB/s with `--jobs 1` vs `--jobs 2` in the same run, and
//! the peak RSS of the process (`/usr/bin/time -f %M`, MB) for 50 vs 200 traces: memory bounded by jobs, not by the fleet.
//! Then `ftl diff` of two sets of 20 against `ftl batch` on both sets (target: diff ≤ 1.2× the two batches).
//!
//! Run with `cargo bench --bench batch`. The files are hard links to three traces, so after the warm-up run
//! they come from the page cache: this measures decoding and analysis, not the disk.

use std::path::{Path, PathBuf};

mod common;

const FLEET: usize = 200;
const SMALL: usize = 50;
/// Runs per side of the `ftl diff` comparison.
const DIFF_RUNS: usize = 20;

/// `target/bench-data/batch/<count>/` holding `count` hard links (copies if linking fails) to the real traces
/// in rotation; reused when complete.
fn fleet(count: usize) -> (PathBuf, u64) {
    fleet_in(&count.to_string(), count)
}

/// `target/bench-data/batch/<name>/` holding `count` hard links to the real traces in rotation.
fn fleet_in(name: &str, count: usize) -> (PathBuf, u64) {
    let target = Path::new(env!("CARGO_BIN_EXE_ftl"))
        .ancestors()
        .nth(2)
        .expect("target dir")
        .to_path_buf();
    let dir = target.join(format!("bench-data/batch/{name}"));
    std::fs::create_dir_all(&dir).expect("create bench-data");
    let sources = common::real_traces();
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

/// Runs `ftl batch DIR --jobs N`; (seconds, peak RSS of the ftl process in MB).
fn run(dir: &Path, jobs: usize) -> (f64, f64) {
    let jobs = jobs.to_string();
    let args = [
        "batch",
        "-q",
        "--format",
        "csv",
        "-o",
        "/dev/null",
        "--jobs",
        &jobs,
    ];
    let (elapsed, rss_mb) = common::run_ftl(&args, dir);
    (elapsed.as_secs_f64(), rss_mb)
}

/// Best of `n` runs (least disturbed by other load).
fn best(dir: &Path, jobs: usize, n: usize) -> (f64, f64) {
    (0..n)
        .map(|_| run(dir, jobs))
        .fold((f64::INFINITY, 0.0), |(s, r), (s2, r2)| {
            (s.min(s2), f64::max(r, r2))
        })
}

/// Seconds of `ftl diff BASE NEW` and of `ftl batch BASE` + `ftl batch NEW`, best of `n` each, interleaved.
fn diff_vs_batch(base: &Path, new: &Path, n: usize) -> (f64, f64) {
    let (mut diff, mut batch) = (f64::INFINITY, f64::INFINITY);
    let base_arg = base.to_str().expect("utf-8 path");
    for _ in 0..n {
        let args = [
            "diff",
            base_arg,
            "--format",
            "csv",
            "-o",
            "/dev/null",
            "--jobs",
            "2",
        ];
        diff = diff.min(common::run_ftl(&args, new).0.as_secs_f64());
        batch = batch.min(run(base, 2).0 + run(new, 2).0);
    }
    (diff, batch)
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
            "  --jobs {jobs}: {secs:.2} s, {traces_s:.1} traces/s, {:.1} MB/s, peak RSS {rss:.1} MB",
            big_bytes as f64 / 1e6 / secs
        );
        rate.push(traces_s);
    }
    println!("  speed-up --jobs 2 / --jobs 1: {:.2}×", rate[1] / rate[0]);
    for (count, dir) in [(SMALL, &small), (FLEET, &big)] {
        let (_, rss) = best(dir, 2, 2);
        println!("  peak RSS, --jobs 2, {count:>3} traces: {rss:.1} MB");
    }
    let (base, _) = fleet_in("diff-base", DIFF_RUNS);
    let (new, _) = fleet_in("diff-new", DIFF_RUNS);
    let (diff, batch) = diff_vs_batch(&base, &new, 3);
    println!(
        "ftl diff, {DIFF_RUNS} vs {DIFF_RUNS} traces, --jobs 2: {diff:.2} s; ftl batch on both sets: {batch:.2} s; \
         diff / batch = {:.2}× (target ≤ 1.2×)",
        diff / batch
    );
}
