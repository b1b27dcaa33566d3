#!/usr/bin/env bash
# Encrypted file store benchmark (not a test): durable write vs a bare fsync'd write+rename of the same
# size, and read latency at 10 and at 10,000 items, each interleaved with its bare baseline in one run.
#   bash Benchmarks/run-file-store.sh [write-iterations] [read-iterations]
# Populating 10,000 durable items would take minutes of fsyncs that measure nothing, so population runs
# under eatmydata (fsync disabled for that process only) when it is installed; measurements never do.
set -euo pipefail
cd "$(dirname "$0")/.."
WRITES="${1:-300}"
READS="${2:-20000}"
# The benchmark is a target of the Benchmarks package (Benchmarks/Package.swift), built in a folder of its own.
SCRATCH="${BV_BENCH_SCRATCH:-.build-benchmarks}"
mkdir -p "$SCRATCH"
if ! swift build -c release --package-path Benchmarks --scratch-path "$SCRATCH" --product FileStoreBenchmark \
        >"$SCRATCH/file-store-bench-build.log" 2>&1; then
    cat "$SCRATCH/file-store-bench-build.log"
    exit 1
fi
BIN="$SCRATCH/release/FileStoreBenchmark"
# On the same file system as the repository (often not the case for /tmp), in a private directory.
WORK="$(mktemp -d "$PWD/$SCRATCH/file-store-bench.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
FAST=()
if command -v eatmydata >/dev/null; then FAST=(eatmydata); else echo "(eatmydata not installed: populating with real fsyncs, slowly)"; fi
echo "== $(date -u +%FT%TZ) $(uname -srm), $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== file system: $(df -T "$WORK" | awk 'NR==2 {print $2}')"
"${FAST[@]}" "$BIN" populate "$WORK" 10
"${FAST[@]}" "$BIN" populate "$WORK" 10000
sync
"$BIN" writes "$WORK" "$WRITES"
"$BIN" reads "$WORK" 10 "$READS"
"$BIN" reads "$WORK" 10000 "$READS"
