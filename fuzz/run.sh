#!/usr/bin/env bash
# Fuzzes every reader of ftl for SECONDS each (default 60), from seed corpora built here, then runs the
# truncation sweep (every 4 KiB prefix and seeded cuts inside packets) over every real trace in ../shared.
#
#   fuzz/run.sh [SECONDS]
#
# Needs the nightly toolchain (libFuzzer's instrumentation) and cargo-fuzz, installed from crates.io if missing.
# A crash leaves its input in fuzz/artifacts/TARGET/; replay it with `cargo +nightly fuzz run TARGET FILE`, and
# turn it into a regression test under tests/it before fixing it.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-60}
shared=../../shared
[ -d "$shared/traces" ] || { echo "fuzz/run.sh needs ../shared (real traces) next to the project" >&2; exit 2; }
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked

# Seeds: the committed synthetic traces, the heads of the real traces (a cut trace is valid input), the real
# captures, and one Choreographer log in each logcat format.
seed() { mkdir -p "corpus/$1"; cp "$2" "corpus/$1/$(basename "$2")"; }
for f in ../testdata/*.pftrace ../testdata/*.gz; do seed trace "$f"; seed tables "$f"; seed file "$f"; done
for f in "$shared"/traces/*; do
  case $f in *README*) continue ;; esac
  mkdir -p corpus/trace corpus/tables corpus/file
  head -c 262144 "$f" > "corpus/trace/head_$(basename "$f")"
  cp "corpus/trace/head_$(basename "$f")" corpus/tables/
  cp "corpus/trace/head_$(basename "$f")" corpus/file/
done
for f in "$shared"/text/*latency*.txt; do seed sf_latency "$f"; seed file "$f"; done
for f in "$shared"/text/*gfxinfo*.txt; do seed gfxinfo "$f"; seed file "$f"; done
mkdir -p corpus/logcat
msg='Skipped 31 frames!  The application may be doing too much work on its main thread.'
printf 'I/Choreographer( 4242): %s\n' "$msg" > corpus/logcat/brief.txt
printf '11-23 10:00:00.500 I/Choreographer( 4242): %s\n' "$msg" > corpus/logcat/time.txt
printf '11-23 10:00:00.500  4242  4249 I Choreographer: %s\n' "$msg" > corpus/logcat/threadtime.txt
cp corpus/logcat/*.txt corpus/file/

status=0
for target in trace tables file sf_latency gfxinfo logcat; do
  echo "== $target: $seconds s"
  # -detect_leaks=0: LeakSanitizer counts glibc's thread-exit registration for the still-running read-ahead
  # thread (32 bytes from __cxa_thread_atexit_impl) as a leak at the end of an input.
  cargo +nightly fuzz run "$target" "corpus/$target" -- -max_total_time="$seconds" -max_len=1048576 \
    -detect_leaks=0 \
    || { echo "== $target: crash, input in fuzz/artifacts/$target/" >&2; status=1; }
done

echo "== truncation sweep over every real trace"
(cd .. && FTL_SWEEP_ALL_TRACES=1 cargo test --release --test it every_prefix_of_a_real_trace) || status=1
exit $status
