#!/usr/bin/env bash
# bench/soak.sh: issue 15 §1, memory that does not grow with run length.
#
#   bench/soak.sh MINUTES...          one closed-loop level per MINUTES, in order,
#                                     each as long as that (--duration), against one
#                                     serve-sim in its own process
#
# C=500 streams (env C) of 500 tokens (MAX_TOKENS) at one token per 40 ms
# (ITL): 12 500 tok/s in all, 25 000 requests' worth of records an hour.
# Each run prints one row (bench/cmd/runstat's columns: the peak RSS is the
# whole process's, from the kernel) plus the size of its requests.jsonl.
# BIN (default: build this tree into bench/bin/toksweep) is the toksweep
# binary to measure, e.g. an older commit's, to show the growth it had.
# Every run is bounded (timeout: MINUTES + 3 min); loads go to 127.0.0.1
# only and the simulator is stopped by PID. KEEP=1 keeps the work directory.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { sed -n '2,17p' "$0"; exit 2; }
c=${C:-500}
mt=${MAX_TOKENS:-500}
itl=${ITL:-40ms}
bin=bench/bin
. bench/lib.sh
bench_workdir soak "${KEEP:-0}"
mkdir -p "$bin"
if [ -z "${BIN:-}" ]; then
  go build -o "$bin/toksweep" .
  BIN=$bin/toksweep
fi
go build -o "$bin/measure" ./bench/cmd/measure
go build -o "$bin/runstat" ./bench/cmd/runstat
start_sim --preset fast --max-num-seqs "$((c + 100))" --kv-cache-tokens 100000000 --max-num-batched-tokens 0 \
  --decode-base "$itl" --decode-per-seq 0 --decode-per-ctx-token 0 --prefill-rate 1e9 --jitter 0

echo "# soak.sh, $(date -u +%Y-%m-%dT%H:%M:%SZ), $BIN ($("$BIN" --version 2>/dev/null | head -1)), C=$c, $mt tokens at $itl, load average $(cut -d' ' -f1-3 /proc/loadavg), nproc $(nproc)"
printf 'minutes\tclient\tC\tok\tfailed\ttokens\tCPU s\tCPU s/1k tok\tpeak RSS KB\tKB/stream\tin flight\tITL p50 ms\tITL p99 ms\tdelay TTFT p99 ms\tdelay ITL p50 ms\tp99 ms\tmax ms\trequests.jsonl MB\n'
for m in "$@"; do
  d="$work/soak-${m}m-$RANDOM"
  timeout "$(awk "BEGIN{print int($m * 60 + 180)}")" "$bin/measure" -o "$d.usage.json" -- "$BIN" sweep --url "$url" --model "$model" \
    --levels "$c" --duration "${m}m" --max-tokens "$mt" --request-timeout 120s --out "$d" \
    > "$d.out" 2> "$d.log" || echo "soak.sh: ${m} min exited $? (see $d.log)" >&2
  row=$("$bin/runstat" -label toksweep -run "$d" -usage "$d.usage.json" || true)
  printf '%s\t%s\t%s\n' "$m" "$row" "$(du -m "$d/requests.jsonl" 2>/dev/null | cut -f1)"
done
