#!/usr/bin/env bash
# End-to-end check of --listen against a real Prometheus server: a short
# sweep of the built-in simulator is scraped each second, then Prometheus's
# HTTP API must agree with the run's levels.csv: the TTFT count and the
# output-token counter equal its sums, and each level's TTFT p95 from
# histogram_quantile is within that bucket's width of ttft_p95_ms.
# Everything is on 127.0.0.1, in its own temp dir, and stopped by PID.
# Without prometheus, curl or jq it says so and exits 0 (SKIP).
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in prometheus curl jq bc python3; do
  if ! command -v "$tool" >/dev/null; then
    echo "prom-e2e: SKIP: $tool is not installed (Debian/Ubuntu: apt-get install prometheus curl jq bc python3)"
    exit 0
  fi
done

tmp=$(mktemp -d)
prom_pid=""
cleanup() {
  if [ -n "$prom_pid" ]; then kill "$prom_pid" 2>/dev/null || true; wait "$prom_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo $((20000 + RANDOM % 20000)); }
listen=127.0.0.1:$(free_port)
web=127.0.0.1:$(free_port)

go build -o "$tmp/toksweep" .
cat >"$tmp/prometheus.yml" <<EOF
global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: toksweep
    static_configs: [{targets: ["$listen"]}]
EOF
prometheus --config.file "$tmp/prometheus.yml" --storage.tsdb.path "$tmp/data" \
  --web.listen-address "$web" >"$tmp/prometheus.log" 2>&1 &
prom_pid=$!
for _ in $(seq 100); do
  curl -fs "http://$web/-/ready" >/dev/null 2>&1 && break
  sleep 0.1
done
if ! curl -fs "http://$web/-/ready" >/dev/null; then
  echo "prom-e2e: FAIL: Prometheus did not start"; tail -5 "$tmp/prometheus.log"; exit 1
fi

# Two levels of 4 s each: several scrapes per level; the endpoint waits for
# one last scrape after the run, so Prometheus holds the final figures.
"$tmp/toksweep" sweep --sim --levels 1,4 --duration 4s --max-tokens 32 \
  --listen "$listen" --out "$tmp/run" >/dev/null 2>"$tmp/sweep.err" || {
  echo "prom-e2e: FAIL: the sweep failed"; tail -3 "$tmp/sweep.err"; exit 1; }
sleep 1.5 # the last scrape's samples become queryable

query() { curl -fs "http://$web/api/v1/query" --data-urlencode "query=$1"; }
scalar() { query "$1" | jq -r '.data.result[0].value[1] // "none"'; }
# Range selectors skip the staleness markers written once the endpoint closed.
ttft_count=$(scalar 'sum(last_over_time(toksweep_ttft_seconds_count[10m]))')
out_tokens=$(scalar 'sum(last_over_time(toksweep_output_tokens_total[10m]))')

col() { # col NAME: the column's values, one per levels.csv row
  python3 - "$tmp/run/levels.csv" "$1" <<'EOF'
import csv, sys
for row in csv.DictReader(open(sys.argv[1])):
    print(row[sys.argv[2]])
EOF
}
want_count=$(col requests_ok | paste -sd+ | bc)
want_tokens=$(paste -d'*' <(col requests_ok) <(col completion_tokens_mean) | paste -sd+ | bc -l)

fail=0
echo "prom-e2e: TTFT count $ttft_count, levels.csv requests_ok sum $want_count"
[ "$ttft_count" = "$want_count" ] || { echo "prom-e2e: FAIL: TTFT count"; fail=1; }
echo "prom-e2e: output tokens $out_tokens, levels.csv requests_ok × completion_tokens_mean sum $want_tokens"
python3 -c "import sys; sys.exit(0 if abs(float('$out_tokens') - float('$want_tokens')) < 0.5 else 1)" ||
  { echo "prom-e2e: FAIL: output tokens"; fail=1; }

# Per level: histogram_quantile's p95 against ttft_p95_ms, within the width
# of the bucket that holds the exact value.
buckets=$(query 'sum by (le) (last_over_time(toksweep_ttft_seconds_bucket[10m]))' | jq -r '.data.result[].metric.le')
while IFS=, read -r level exact_ms; do
  got=$(scalar "histogram_quantile(0.95, sum by (le) (last_over_time(toksweep_ttft_seconds_bucket{level=\"$level\"}[10m])))")
  if python3 - "$got" "$exact_ms" $buckets <<'EOF'
import sys
got, exact = float(sys.argv[1]), float(sys.argv[2]) / 1000
les = sorted(float(b) for b in sys.argv[3:] if b != "+Inf")
lo = max([b for b in les if b < exact], default=0.0)
hi = min([b for b in les if b >= exact], default=les[-1])
print(f"prom-e2e: p95 {got:.4f}s, levels.csv {exact:.4f}s, bucket ({lo:.4f}, {hi:.4f}]")
sys.exit(0 if abs(got - exact) <= hi - lo else 1)
EOF
  then echo "prom-e2e: level $level TTFT p95 ok"; else echo "prom-e2e: FAIL: level $level TTFT p95 $got s vs $exact_ms ms"; fail=1; fi
done < <(python3 - "$tmp/run/levels.csv" <<'EOF'
import csv, sys
for row in csv.DictReader(open(sys.argv[1])):
    print(f"C={row['concurrency']},{row['ttft_p95_ms']}")
EOF
)

[ "$fail" = 0 ] && echo "prom-e2e: PASS"
exit "$fail"
