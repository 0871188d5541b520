#!/usr/bin/env bash
# bench/scale.sh: issue 15's scale and cost benchmarks, one mode per call.
#
#   bench/scale.sh cost      C = 1 and 100: toksweep (as built, with --metrics-url off,
#                            and with the probe off too) against bench/rawclient, same
#                            simulator, alternating (in an order that rotates), REPS
#                            times each (about 2 minutes);
#                            scrape-100hz scrapes /metrics every 10 ms instead of every
#                            second, which magnifies the scrape's cost 100 times
#   bench/scale.sh scrape    C = 100 only: as built, --metrics-url off and scrape-100hz,
#                            alternating, REPS times each (about 25 s per round): the
#                            scrape's share with more pairs in the same minutes
#   bench/scale.sh observer  C = 8 against a stepped model (25 ms ITL, 4 slots, so
#                            requests queue): ITL p99 as built, without the /metrics
#                            scrape, without the probe, without both (about 2 minutes)
#   bench/scale.sh c10k      C = 10 000 against serve-sim in its own process, paced at
#                            1 s per token (10k tok/s in all), 2 rounds of 20-token
#                            requests; bounded at 240 s (about 1-2 minutes)
#
# Each prints a table (one row per client run, bench/cmd/runstat's columns)
# on stdout; paste it into bench/results.md with the date and load average
# it prints. Environment: REPS (default 2), KEEP=1 to keep the work
# directory. Builds go to bench/bin/; loads go to 127.0.0.1 only, every
# client run is bounded by a timeout, and the simulator is stopped by PID.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=${1:-}
case "$mode" in
  cost|scrape|observer|c10k) ;;
  *) sed -n '2,24p' "$0"; exit 2 ;;
esac
reps=${REPS:-2}
bin=bench/bin
. bench/lib.sh
bench_workdir scale "${KEEP:-0}"

mkdir -p "$bin"
go build -o "$bin/toksweep" .
go build -tags toksweep_noprobe -o "$bin/toksweep-noprobe" .
go build -o "$bin/rawclient" ./bench/rawclient
go build -o "$bin/measure" ./bench/cmd/measure
go build -o "$bin/runstat" ./bench/cmd/runstat

# ts LABEL C REQUESTS MAX_TOKENS BIN [FLAGS...]: one toksweep level under measure.
ts() {
  local label=$1 c=$2 n=$3 mt=$4 b=$5; shift 5
  local d="$work/$label-c$c-$RANDOM"
  timeout 240 "$bin/measure" -o "$d.usage.json" -- "$bin/$b" sweep --url "$url" --model "$model" \
    --levels "$c" --requests "$n" --max-tokens "$mt" --request-timeout 120s --out "$d" "$@" \
    > "$d.out" 2> "$d.log" || echo "scale.sh: $label C=$c exited $? (see $d.log)" >&2
  "$bin/runstat" -label "$label" -run "$d" -usage "$d.usage.json" || tail -3 "$d.log" >&2
}

# raw C REQUESTS MAX_TOKENS: the raw client under measure.
raw() {
  local d="$work/raw-c$1-$RANDOM"
  timeout 240 "$bin/measure" -o "$d.usage.json" -- "$bin/rawclient" -url "$url" -model "$model" \
    -c "$1" -requests "$2" -max-tokens "$3" -timeout 200s > "$d.json" 2> "$d.log"
  "$bin/runstat" -label raw -raw "$d.json" -usage "$d.usage.json"
}

echo "# scale.sh $mode, $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git describe --always --dirty 2>/dev/null || echo unknown), load average $(cut -d' ' -f1-3 /proc/loadavg), nproc $(nproc)"
printf 'client\tC\tok\tfailed\ttokens\tCPU s\tCPU s/1k tok\tpeak RSS KB\tKB/stream\tin flight\tITL p50 ms\tITL p99 ms\tdelay TTFT p99 ms\tdelay ITL p50 ms\tp99 ms\tmax ms\n'
case "$mode" in
cost)
  start_sim --preset fast --max-num-seqs 2000 --decode-base 10ms --decode-per-seq 0 \
    --decode-per-ctx-token 0 --prefill-rate 1e9 --jitter 0
  for c in 1 100; do
    n=$(( c == 1 ? 5 : 3 * c ))
    for r in $(seq "$reps"); do
      raw "$c" "$n" 200
      # The variants' order rotates from rep to rep, so that none always has
      # the same slot: in a fixed order, as built (run right after the raw
      # client) came out 0.02-0.05x above --metrics-url off, and 0.01x below
      # with the two swapped.
      for i in 0 1 2 3; do
        case $(( (i + r - 1) % 4 )) in
          0) ts toksweep "$c" "$n" 200 toksweep ;;
          1) ts metrics-off "$c" "$n" 200 toksweep --metrics-url off ;;
          2) ts probe+metrics-off "$c" "$n" 200 toksweep-noprobe --metrics-url off ;;
          3) ts scrape-100hz "$c" "$n" 200 toksweep --metrics-interval 10ms ;;
        esac
      done
    done
  done
  ;;
scrape)
  start_sim --preset fast --max-num-seqs 2000 --decode-base 10ms --decode-per-seq 0 \
    --decode-per-ctx-token 0 --prefill-rate 1e9 --jitter 0
  for r in $(seq "$reps"); do
    for i in 0 1 2; do
      case $(( (i + r - 1) % 3 )) in
        0) ts toksweep 100 300 200 toksweep ;;
        1) ts metrics-off 100 300 200 toksweep --metrics-url off ;;
        2) ts scrape-100hz 100 300 200 toksweep --metrics-interval 10ms ;;
      esac
    done
  done
  ;;
observer)
  start_sim --preset fast --max-num-seqs 4 --decode-base 25ms --decode-per-seq 0 \
    --decode-per-ctx-token 0 --jitter 0
  for _ in $(seq "$reps"); do
    ts toksweep 8 32 60 toksweep
    ts metrics-off 8 32 60 toksweep --metrics-url off
    ts probe-off 8 32 60 toksweep-noprobe
    ts both-off 8 32 60 toksweep-noprobe --metrics-url off
  done
  ;;
c10k)
  start_sim --preset fast --max-num-seqs 10000 --kv-cache-tokens 20000000 --max-num-batched-tokens 0 --decode-base 1s \
    --decode-per-seq 0 --decode-per-ctx-token 0 --prefill-rate 1e9 --jitter 0
  ts toksweep 10000 20000 20 toksweep
  ;;
esac
echo "# load average at end $(cut -d' ' -f1-3 /proc/loadavg)"
