#!/usr/bin/env bash
# Whole-process benchmark: `biometrics-vault show` of a plain item vs `secret-tool lookup` of the same
# item (python keyring's attributes), with hyperfine. Goal (shared performance anchors): <= 1.5x.
# Without a usable Secret Service it compares the file store's `show` against `cat` of a file, and says so.
#   bash Benchmarks/run-cli.sh            # SCRATCH=.build-xyz to build elsewhere; RUNS=40 ROUNDS=3
# The CLI is built in release with -static-swift-stdlib (dynamic Foundation alone costs ~5-6 ms at start).
# Rounds alternate the order of the two commands; the reported ratio is the median of the rounds' ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH=${SCRATCH:-.build}
RUNS=${RUNS:-40}
ROUNDS=${ROUNDS:-3}
command -v hyperfine >/dev/null || { apt-get update -qq && apt-get install -y -qq hyperfine >/dev/null; }

swift build -c release --product biometrics-vault --static-swift-stdlib --scratch-path "$SCRATCH" 2>&1 | tail -n 1
BIN="$(swift build -c release --static-swift-stdlib --scratch-path "$SCRATCH" --show-bin-path)/biometrics-vault"

WORK=$(mktemp -d /tmp/bv-cli-bench.XXXXXX)
SERVICE="bv-cli-bench-$$"
export XDG_DATA_HOME=$WORK/data XDG_STATE_HOME=$WORK/state
ITEM='{"user":"bench","token":"0123456789abcdef0123456789abcdef0123456789abcdef","url":"https://example.invalid/api"}'

if "$BIN" list --json --service "$SERVICE" 2>/dev/null | grep -q '"store":"secret-service"'; then
    MODE=secret-service
    echo "$ITEM" | "$BIN" store bench --service "$SERVICE" --store secret-service >/dev/null
    trap '"$BIN" reset bench --service "$SERVICE" --store secret-service >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT
    OURS="$BIN show bench --service $SERVICE"
    THEIRS="secret-tool lookup service $SERVICE username bench"
    [ -n "$($THEIRS)" ] && [ -n "$($OURS)" ]
else
    MODE=file
    echo "NOTE: no usable Secret Service here (see 'biometrics-vault doctor'): comparing the file store's"
    echo "      'show' with 'cat' of a plain file instead of 'secret-tool lookup'."
    trap 'rm -rf "$WORK"' EXIT
    echo "$ITEM" | "$BIN" store bench --service "$SERVICE" --store file >/dev/null
    printf '%s\n' "$ITEM" > "$WORK/plain.json"
    OURS="$BIN show bench --service $SERVICE --store file"
    THEIRS="cat $WORK/plain.json"
fi
echo "mode: $MODE; binary: $BIN ($(du -h "$BIN" | cut -f1))"

ratios=()
for round in $(seq "$ROUNDS"); do
    if (( round % 2 )); then first=$OURS; second=$THEIRS; else first=$THEIRS; second=$OURS; fi
    hyperfine -N --runs "$RUNS" --warmup 3 --style none --export-json "$WORK/round$round.json" "$first" "$second" >/dev/null
    ratio=$(python3 - "$WORK/round$round.json" "$OURS" <<'PY'
import json, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
ours = results.pop(sys.argv[2])
theirs = next(iter(results.values()))
print(f'{ours["median"] / theirs["median"]:.2f} {ours["median"]*1000:.2f} {theirs["median"]*1000:.2f}')
PY
)
    read -r r o t <<<"$ratio"
    echo "round $round: biometrics-vault show ${o} ms, $( [ "$MODE" = file ] && echo cat || echo secret-tool ) ${t} ms, ratio ${r}x"
    ratios+=("$r")
done
median=$(printf '%s\n' "${ratios[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
echo "median ratio ($MODE): ${median}x (goal for secret-service: <= 1.5x)"
