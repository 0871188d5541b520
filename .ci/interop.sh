#!/usr/bin/env bash
# interop.sh: sweep a real third-party server, llm-d-inference-sim v0.10.2
# (the vLLM simulator of the llm-d project), and check that toksweep's
# figures agree with the timing the simulator is configured with.
#
# Opt-in: it is not part of `go test ./...`. Usage:
#
#   .ci/interop.sh            build the simulator if it is not cached, then run
#   .ci/interop.sh --cached   run only if the simulator is already cached;
#                                 otherwise print SKIP and exit 0 (for CI)
#
# The simulator is built from the tools module in .ci/interop (its go.mod
# pins v0.10.2), so toksweep's own go.mod stays lean. A cold build downloads
# about 1.7 GB of modules and takes 5 to 10 minutes; the binary is cached as
# $TOKSWEEP_CACHE/llm-d-inference-sim-v0.10.2 (default ~/.cache/toksweep)
# and never enters the repository. Traffic goes to 127.0.0.1 only, although
# the simulator listens on every interface of a free port.
#
# Checks (exit status 1 if any fails):
#   1. below --max-num-seqs (C=1, 2), chat and completions: TTFT p50 within
#      5% of --time-to-first-token, decode tok/s p50 within 5% of
#      1/--inter-token-latency, ITL p50 within 5%, and outputs of exactly
#      max_tokens (ignore_eos). Medians, because a busy machine adds
#      outliers (toksweep flags such levels client-limited, and the script
#      says so); p95 and p10 are printed for information;
#   2. above --max-num-seqs (C=2×max): the queue shows up as TTFT (p95 at
#      least twice the configured TTFT; the server's waiting gauge and
#      queue-time histogram agree), while the decode rate holds;
#   3. a full waiting queue: llm-d reports it as an SSE error event inside
#      HTTP 200; toksweep must count those requests as err_http_429, not as
#      successes with no tokens;
#   4. the server_* columns: the server's running gauge and TTFT histogram.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=v0.10.2
CACHE=${TOKSWEEP_CACHE:-$HOME/.cache/toksweep}
SIMBIN=$CACHE/llm-d-inference-sim-$VERSION
TTFT_MS=100         # --time-to-first-token
ITL_MS=10           # --inter-token-latency
MAX_SEQS=4          # --max-num-seqs
OUT_TOKENS=40       # max_tokens, with ignore_eos
IN_TOKENS=300       # synthetic prompt length
TOL=0.05

cached_only=false
case "${1:-}" in
  --cached) cached_only=true ;;
  "") ;;
  *) echo "usage: $0 [--cached]" >&2; exit 2 ;;
esac

if [ ! -x "$SIMBIN" ]; then
  if $cached_only; then
    echo "interop: SKIP: $SIMBIN is not built (run .ci/interop.sh once to build it)"
    exit 0
  fi
  echo "interop: building llm-d-inference-sim $VERSION into $SIMBIN (cold: 5-10 min, ~1.7 GB of modules)"
  mkdir -p "$CACHE"
  (cd .ci/interop && go build -o "$SIMBIN.tmp" github.com/llm-d/llm-d-inference-sim/cmd/llm-d-inference-sim)
  mv "$SIMBIN.tmp" "$SIMBIN"
fi

WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

go build -o "$WORK/toksweep" .

# free_port prints a TCP port nothing listens on.
free_port() {
  local p
  for _ in $(seq 50); do
    p=$((20000 + RANDOM % 40000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return
    fi
  done
  echo "interop: no free port found" >&2
  exit 1
}

# start_sim NAME ARGS...: starts the simulator on a free port, waits until
# it accepts connections, and sets URL to its /v1 base.
start_sim() {
  local name=$1 port
  shift
  port=$(free_port)
  "$SIMBIN" --port "$port" --model toksweep-interop --mode random --seed 1 "$@" >"$WORK/$name.log" 2>&1 &
  PIDS+=($!)
  URL="http://127.0.0.1:$port/v1"
  for _ in $(seq 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      return
    fi
    sleep 0.1
  done
  echo "interop: $name did not answer on $URL; its log:" >&2
  cat "$WORK/$name.log" >&2
  exit 1
}

# col FILE C NAME: the NAME column of levels.csv's row at concurrency C.
col() {
  awk -F, -v c="$2" -v name="$3" '
    NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) k = i; next }
    $1 == c { print $k; exit }' "$1"
}

FAILED=0
# check LABEL GOT OP WANT [TOL]: OP is "~" (within TOL of WANT, default
# $TOL), ">=", "==" or ">".
check() {
  local label=$1 got=$2 op=$3 want=$4 tol=${5:-$TOL} ok
  if [ -z "$got" ]; then
    ok=1
  else
    case $op in
      "~") ok=$(awk -v g="$got" -v w="$want" -v t="$tol" 'BEGIN { d = (g - w) / w; if (d < 0) d = -d; print (d <= t) ? 0 : 1 }') ;;
      *) ok=$(awk -v g="$got" -v w="$want" "BEGIN { print (g $op w) ? 0 : 1 }") ;;
    esac
  fi
  local mark=ok
  if [ "$ok" != 0 ]; then mark=FAIL; FAILED=1; fi
  if [ "$op" = "~" ]; then
    printf '  %-4s %-44s %10s  want %s ±%.0f%%\n' "$mark" "$label" "${got:-none}" "$want" "$(awk -v t="$tol" 'BEGIN { print t * 100 }')"
  else
    printf '  %-4s %-44s %10s  want %s %s\n' "$mark" "$label" "${got:-none}" "$op" "$want"
  fi
}

# info FILE C NAME...: prints columns for information, and a note when
# toksweep flagged the level client-limited.
info() {
  local file=$1 c=$2 line="" name
  shift 2
  for name in "$@"; do line+=" $name=$(col "$file" "$c" "$name")"; done
  printf '  info%s\n' "$line"
  if [ "$(col "$file" "$c" client_limited)" = true ]; then
    echo "  note: toksweep flagged this level client-limited ($(col "$file" "$c" client_limited_reason)): the machine is busy"
  fi
}

sweep() { # sweep OUT ARGS...
  local out=$1
  shift
  "$WORK/toksweep" sweep --url "$URL" --model toksweep-interop --out "$out" \
    --input-tokens "$IN_TOKENS" --max-tokens "$OUT_TOKENS" --ignore-eos --metrics-interval 200ms "$@" \
    >"$out.stdout" 2>"$out.stderr" || { echo "interop: toksweep failed:" >&2; cat "$out.stderr" >&2; exit 1; }
}

DECODE=$(awk -v itl="$ITL_MS" 'BEGIN { print 1000 / itl }')
echo "interop: llm-d-inference-sim $VERSION, --time-to-first-token ${TTFT_MS}ms --inter-token-latency ${ITL_MS}ms --max-num-seqs $MAX_SEQS"
start_sim timing --time-to-first-token "${TTFT_MS}ms" --inter-token-latency "${ITL_MS}ms" \
  --max-num-seqs "$MAX_SEQS" --max-waiting-queue-length 64 --max-model-len 4096

for api in chat completions; do
  out=$WORK/below-$api
  sweep "$out" --api "$api" --levels 1,2 --requests 8
  for c in 1 2; do
    echo "C=$c, --api $api (below --max-num-seqs $MAX_SEQS):"
    check "ttft_p50_ms" "$(col "$out/levels.csv" $c ttft_p50_ms)" "~" "$TTFT_MS"
    check "decode_tps_p50" "$(col "$out/levels.csv" $c decode_tps_p50)" "~" "$DECODE"
    check "itl_p50_ms" "$(col "$out/levels.csv" $c itl_p50_ms)" "~" "$ITL_MS"
    check "completion_tokens_min (ignore_eos)" "$(col "$out/levels.csv" $c completion_tokens_min)" "==" "$OUT_TOKENS"
    check "requests_failed" "$(col "$out/levels.csv" $c requests_failed)" "==" 0
    check "server_ttft_mean_ms (server's histogram)" "$(col "$out/levels.csv" $c server_ttft_mean_ms)" "~" "$TTFT_MS"
    check "server_running_mean (server's gauge)" "$(col "$out/levels.csv" $c server_running_mean)" "~" "$c" 0.15
    info "$out/levels.csv" $c ttft_p95_ms decode_tps_p10 e2e_tps_p50 server_queue_mean_ms
  done
done

C=$((2 * MAX_SEQS))
out=$WORK/above
sweep "$out" --levels "$C" --requests "$((2 * C))"
echo "C=$C (above --max-num-seqs $MAX_SEQS: half the requests wait for a slot):"
check "ttft_p50_ms" "$(col "$out/levels.csv" $C ttft_p50_ms)" ">=" "$TTFT_MS"
check "ttft_p95_ms (queueing shows as TTFT)" "$(col "$out/levels.csv" $C ttft_p95_ms)" ">=" "$((2 * TTFT_MS))"
check "decode_tps_p50 (decode rate holds)" "$(col "$out/levels.csv" $C decode_tps_p50)" "~" "$DECODE"
check "server_waiting_mean (server's gauge)" "$(col "$out/levels.csv" $C server_waiting_mean)" ">" 0
check "server_queue_mean_ms (server's histogram)" "$(col "$out/levels.csv" $C server_queue_mean_ms)" ">=" "$TTFT_MS"
check "requests_failed" "$(col "$out/levels.csv" $C requests_failed)" "==" 0
info "$out/levels.csv" $C server_running_mean server_ttft_mean_ms e2e_tps_p50

echo "queue full (--max-num-seqs 1 --max-waiting-queue-length 1, C=4):"
start_sim queuefull --time-to-first-token 50ms --inter-token-latency 5ms --max-num-seqs 1 --max-waiting-queue-length 1
out=$WORK/queuefull
sweep "$out" --levels 4 --requests 12 --metrics-url off
check "err_http_429 (SSE error event in HTTP 200)" "$(col "$out/levels.csv" 4 err_http_429)" ">" 0
check "requests_ok" "$(col "$out/levels.csv" 4 requests_ok)" ">" 0
check "completion_tokens_min of the successes" "$(col "$out/levels.csv" 4 completion_tokens_min)" "==" "$OUT_TOKENS"

echo "synthetic prompt length: toksweep aims at $IN_TOKENS tokens by its 1.3 tokens/word estimate;"
awk -F'"prompt_tokens":' 'NF > 1 { split($2, a, /[,}]/); s += a[1]; n++ } END { if (n) printf "  llm-d counted %.0f prompt tokens per request on average (its own word-and-punctuation tokenizer)\n", s / n }' \
  "$WORK/below-chat/requests.jsonl"

if [ "$FAILED" != 0 ]; then
  echo "interop: FAIL"
  exit 1
fi
echo "interop: PASS"
