#!/usr/bin/env bash
# bench/run.sh: toksweep's performance benchmarks (issue #5), one command.
#
#   bench/run.sh            full run, about 4 minutes: C = 1, 100, 250, 500, 1000, twice
#                           each; writes bench/results.md
#   bench/run.sh --quick    under a minute: C = 1, 100, 250, 1000, once, shorter streams;
#                           writes bench/bin/results-quick.md (bench/results.md is left alone)
#   bench/run.sh --keep     keep the work directory (raw outputs) and print its path
#   bench/run.sh --nice N   run the simulator and the clients at nice N (e.g. -10, as
#                           root) so that other processes on a shared host disturb less
#
# It builds toksweep and the helpers into bench/bin/, runs the hot-path
# benchmarks (go test -bench), measures the idle cost of the health probe's
# ticker (bench/cmd/tickcost), starts `toksweep serve-sim` as a separate
# process on a free loopback port, and at each concurrency C runs toksweep
# and then bench/rawclient against it, each under bench/cmd/measure
# (rusage), alternating. bench/cmd/tabulate then writes the results and
# prints them. Every load is bounded (requests and a timeout) and targets
# 127.0.0.1 only; the simulator is stopped by its PID on exit. See
# bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=full keep=0 nice=0
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) mode=quick ;;
    --keep) keep=1 ;;
    --nice) nice=${2:?--nice needs a value}; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument $1 (want --quick, --keep, --nice N)" >&2; exit 2 ;;
  esac
  shift
done
prio=()
if [ "$nice" != 0 ]; then
  if nice -n "$nice" true 2>/dev/null && [ "$(nice -n "$nice" nice)" = "$nice" ]; then
    prio=(nice -n "$nice")
  else
    echo "run.sh: warning: cannot run at nice $nice here; running at the default priority" >&2
    nice=0
  fi
fi

# The load. The simulator steps every ITL with no per-sequence or context
# cost and a prefill too fast to matter, so every stream gets one token per
# 10 ms whatever C is, TTFT is one step (10-20 ms), and up to 2000 streams
# run at once: whatever slows the figures down is the machine, not the model.
itl=10ms
sim_flags=(--preset fast --max-num-seqs 2000 --max-model-len 8192 --decode-base "$itl"
  --decode-per-seq 0 --decode-per-ctx-token 0 --prefill-rate 1e9 --jitter 0)
results=bench/results.md
if [ "$mode" = quick ]; then
  results=bench/bin/results-quick.md
  levels=(1 100 250 1000) max_tokens=100 rounds=2 min_requests=5 reps=1 tick_for=2s
  bench_flags=(-benchtime 200ms -count 1)
else
  levels=(1 100 250 500 1000) max_tokens=200 rounds=3 min_requests=10 reps=2 tick_for=5s
  bench_flags=(-count 3)
fi
requests() { local r=$(( $1 * rounds )); echo $(( r > min_requests ? r : min_requests )); }
run_timeout=300 # seconds, per client run

bin=bench/bin
. bench/lib.sh
bench_workdir bench "$keep"
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt 4096 ]; then
  echo "run.sh: warning: ulimit -n is $(ulimit -n); C=1000 needs about 2100 (client and server)" >&2
fi

echo "run.sh: building into $bin/" >&2
mkdir -p "$bin"
go build -o "$bin/toksweep" .
go build -o "$bin/rawclient" ./bench/rawclient
go build -o "$bin/measure" ./bench/cmd/measure
go build -o "$bin/tabulate" ./bench/cmd/tabulate
go build -o "$bin/tickcost" ./bench/cmd/tickcost
go build -o "$bin/levelmem" ./bench/cmd/levelmem

{
  echo "mode: $mode ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
  echo "toksweep commit: $(git describe --always --dirty 2>/dev/null || echo unknown)"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "simulator: toksweep serve-sim ${sim_flags[*]}"
  echo "per level: --max-tokens $max_tokens, --requests max(${rounds}×C, $min_requests), one level per toksweep process; each client run $reps time(s) per C, alternating, figures pooled"
  echo "priority: nice $nice (simulator and clients)"
  echo "hot-path benchmarks: go test -run '^\$' -bench ... -benchmem ${bench_flags[*]} ./client ./bench"
} > "$work/meta.txt"

echo "run.sh: 1. hot-path benchmarks" >&2
go test -run '^$' -bench 'ParseChunk$|ParseChunkStd|JSONValid|LineScanFloor|StreamParse|Do$|HTTPLineScanFloor' \
  -benchmem "${bench_flags[@]}" ./client ./bench | tee "$work/gotest.txt" >&2

echo "run.sh: the health probe's cost when idle ($tick_for)" >&2
"${prio[@]}" "$bin/tickcost" -d "$tick_for" | tee "$work/tickcost.json" >&2

echo "run.sh: starting the simulator" >&2
start_sim "${sim_flags[@]}"
echo "run.sh: simulator PID $sim_pid serving $model at $url" >&2

tck=$(getconf CLK_TCK)
server_cpu() { awk -v t="$tck" '{printf "%.3f\n", ($14 + $15) / t}' "/proc/$sim_pid/stat"; }
# CPU time every process on the machine used so far (busy time of all CPUs).
machine_cpu() { awk -v t="$tck" '/^cpu / {printf "%.3f\n", ($2 + $3 + $4 + $7 + $8 + $9) / t}' /proc/stat; }
delta() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f\n", b - a }'; }

# one NAME DIR MARK CMD...: runs one client under measure (noting its peak
# RSS when MARK appears on its stderr), recording the server's and the
# machine's CPU over the run.
one() {
  local name=$1 dir=$2 mark=$3; shift 3
  local s0 m0 status=0
  s0=$(server_cpu) m0=$(machine_cpu)
  timeout "$run_timeout" "${prio[@]}" "$bin/measure" -o "$dir/$name.usage.json" -mark "$mark" -- "$@" \
    > "$dir/$name.out" 2> "$dir/$name.log" || status=$?
  delta "$s0" "$(server_cpu)" > "$dir/$name.server_cpu"
  delta "$m0" "$(machine_cpu)" > "$dir/$name.machine_cpu"
  if [ "$status" != 0 ]; then echo "run.sh: $name exited with status $status (see the results)" >&2; fi
}

for c in "${levels[@]}"; do
  r=$(requests "$c")
  for rep in $(seq "$reps"); do
    d="$work/c$c/r$rep"
    mkdir -p "$d"
    cut -d' ' -f1-3 /proc/loadavg > "$d/loadavg"
    echo "run.sh: C=$c, $r requests of $max_tokens tokens, run $rep of $reps: toksweep" >&2
    one toksweep "$d" "level C=" "$bin/toksweep" sweep --url "$url" --model "$model" --levels "$c" --requests "$r" \
      --max-tokens "$max_tokens" --request-timeout 60s --out "$d/toksweep"
    grep '^level' "$d/toksweep.log" >&2 || true
    echo "run.sh: C=$c, run $rep of $reps: raw client" >&2
    one raw "$d" "" "$bin/rawclient" -url "$url" -model "$model" -c "$c" -requests "$r" \
      -max-tokens "$max_tokens" -timeout "$((run_timeout - 10))s"
    cat "$d/raw.out" >&2
  done
done
c=${levels[-1]} r=$(requests "${levels[-1]}")
echo "run.sh: C=$c: where toksweep's memory goes (bench/cmd/levelmem)" >&2
timeout "$run_timeout" "${prio[@]}" "$bin/levelmem" -url "$url" -model "$model" -c "$c" -requests "$r" \
  -max-tokens "$max_tokens" > "$work/levelmem.json" || echo "run.sh: levelmem failed" >&2
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$work/meta.txt"

"$bin/tabulate" -work "$work" -itl "$itl" -out "$results"
echo "run.sh: wrote $results" >&2
