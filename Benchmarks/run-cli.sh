#!/usr/bin/env bash
# Whole-process benchmark: `biometrics-vault show` of a plain item vs `secret-tool lookup` of the same
# item (python keyring's attributes), and vs python `keyring.get_password` of it, with hyperfine.
# Goals (Docs/Benchmarks.md): show <= 1.20x secret-tool lookup; show >= 10x faster than python keyring.
# Without a usable Secret Service it compares the file store's `show` against `cat` of a file, and says so.
#   bash Benchmarks/run-cli.sh     # SCRATCH=.build-xyz to build elsewhere; RUNS=20 ROUNDS=6
#                                  # BV_PYTHON_KEYRING=<python with keyring> (default: python3, if it has it)
# The CLI is built as the .deb's is: release, -static-swift-stdlib (dynamic Foundation alone costs ~5-6 ms at
# start) and the link flags of scripts/lib/fast-start-link-flags.sh.
# Interleaving: each round runs every command RUNS times, and the order of the commands rotates from round
# to round, so drift in the machine's load hits all of them alike; a ratio is the median of the rounds'
# ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH=${SCRATCH:-.build}
RUNS=${RUNS:-20}
ROUNDS=${ROUNDS:-6}
command -v hyperfine >/dev/null || { apt-get update -qq && apt-get install -y -qq hyperfine >/dev/null; }

# shellcheck source=../scripts/lib/fast-start-link-flags.sh
source scripts/lib/fast-start-link-flags.sh
bv_fast_start_flags "$SCRATCH"
swift build -c release --product biometrics-vault --static-swift-stdlib --scratch-path "$SCRATCH" "${BV_FAST_START_FLAGS[@]}" 2>&1 | tail -n 1
BIN="$(swift build -c release --static-swift-stdlib --scratch-path "$SCRATCH" "${BV_FAST_START_FLAGS[@]}" --show-bin-path)/biometrics-vault"

WORK=$(mktemp -d /tmp/bv-cli-bench.XXXXXX)
SERVICE="bv-cli-bench-$$"
export XDG_DATA_HOME=$WORK/data XDG_STATE_HOME=$WORK/state
ITEM='{"user":"bench","token":"0123456789abcdef0123456789abcdef0123456789abcdef","url":"https://example.invalid/api"}'
PYTHON=${BV_PYTHON_KEYRING:-python3}

commands=()
if "$BIN" list --json --service "$SERVICE" 2>/dev/null | grep -q '"store":"secret-service"'; then
    MODE=secret-service
    echo "$ITEM" | "$BIN" store bench --service "$SERVICE" --store secret-service >/dev/null
    trap '"$BIN" reset bench --service "$SERVICE" --store secret-service >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT
    OURS="$BIN show bench --service $SERVICE"
    THEIRS="secret-tool lookup service $SERVICE username bench"
    [ -n "$($THEIRS)" ] && [ -n "$($OURS)" ]
    commands=("$OURS" "$THEIRS")
    KEYRING="$PYTHON -c \"import keyring; print(keyring.get_password('$SERVICE', 'bench'))\""
    if "$PYTHON" -c "import keyring; assert keyring.get_password('$SERVICE', 'bench')" >/dev/null 2>&1; then
        commands+=("$KEYRING")
    else
        echo "NOTE: $PYTHON cannot read the item with python keyring: that comparison is left out."
        KEYRING=""
    fi
else
    MODE=file
    echo "NOTE: no usable Secret Service here (see 'biometrics-vault doctor'): comparing the file store's"
    echo "      'show' with 'cat' of a plain file instead of 'secret-tool lookup'."
    trap 'rm -rf "$WORK"' EXIT
    echo "$ITEM" | "$BIN" store bench --service "$SERVICE" --store file >/dev/null
    printf '%s\n' "$ITEM" > "$WORK/plain.json"
    OURS="$BIN show bench --service $SERVICE --store file"
    THEIRS="cat $WORK/plain.json"
    KEYRING=""
    commands=("$OURS" "$THEIRS")
fi
stripped=$WORK/stripped
strip -o "$stripped" "$BIN"
echo "mode: $MODE; binary: $BIN ($(stat -c %s "$BIN") bytes; stripped $(stat -c %s "$stripped") bytes)"
rm -f "$stripped"

ratios=(); keyring_ratios=()
for round in $(seq "$ROUNDS"); do
    # Rotate the order: round 1 runs ours first, round 2 the second command first, ...
    count=${#commands[@]}; shift_by=$(( (round - 1) % count )); ordered=()
    for i in $(seq 0 $((count - 1))); do ordered+=("${commands[$(( (i + shift_by) % count ))]}"); done
    hyperfine -N --runs "$RUNS" --warmup 3 --style none --export-json "$WORK/round$round.json" "${ordered[@]}" >/dev/null
    read -r r o t k kr < <(python3 - "$WORK/round$round.json" "$OURS" "$THEIRS" "$KEYRING" <<'PY'
import json, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
ours, theirs = results[sys.argv[2]]["median"], results[sys.argv[3]]["median"]
keyring = results[sys.argv[4]]["median"] if sys.argv[4] in results else None
print(f'{ours / theirs:.2f} {ours*1000:.2f} {theirs*1000:.2f}',
      f'{keyring*1000:.2f} {keyring / ours:.1f}' if keyring else '- -')
PY
)
    line="round $round: biometrics-vault show ${o} ms, $( [ "$MODE" = file ] && echo cat || echo secret-tool ) ${t} ms, ratio ${r}x"
    if [ "$k" != "-" ]; then line+="; python-keyring ${k} ms, python-keyring/show ${kr}x"; keyring_ratios+=("$kr"); fi
    echo "$line"
    ratios+=("$r")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else printf "%.2f\n", (a[NR/2]+a[NR/2+1])/2}'; }
echo "median ratio ($MODE): $(median "${ratios[@]}")x (goal for secret-service: <= 1.20x)"
if [ "${#keyring_ratios[@]}" -gt 0 ]; then
    echo "median python keyring / show: $(median "${keyring_ratios[@]}")x (goal: >= 10x)"
fi
