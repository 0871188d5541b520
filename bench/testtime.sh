#!/usr/bin/env bash
# testtime.sh [N] [quiet|hogs]: runs the README's test command N times
# (default 3), quiet or beside two `yes >/dev/null` CPU hogs, and prints
# each run's wall time, exit status, the slowest packages and the slowest
# tests. Run it from a warm build cache (go test ./... once first) on a
# machine doing nothing else; the hogs are stopped by PID.
set -u
n=${1:-3}; mode=${2:-quiet}
cd "$(dirname "$0")/.."
out=$(mktemp -d)
for i in $(seq "$n"); do
  pids=()
  if [ "$mode" = hogs ]; then
    yes >/dev/null & pids+=($!)
    yes >/dev/null & pids+=($!)
  fi
  start=$(date +%s.%N)
  go test -race -count=1 -json ./... > "$out/$i.json" 2>&1
  rc=$?
  end=$(date +%s.%N)
  for p in "${pids[@]}"; do kill "$p"; done
  printf '%s run %d: exit %d, %.1f s\n' "$mode" "$i" "$rc" "$(echo "$end - $start" | bc)"
  python3 - "$out/$i.json" <<'PY'
import json, sys
pkgs, tests = {}, []
for line in open(sys.argv[1]):
    try:
        e = json.loads(line)
    except ValueError:
        continue
    if e.get("Action") not in ("pass", "fail") or "Elapsed" not in e:
        continue
    name = e["Package"].split("toksweep/toksweep")[-1].lstrip("/") or "."
    if "Test" not in e:
        pkgs[name] = (e["Elapsed"], e["Action"])
    elif "/" not in e["Test"]:
        tests.append((e["Elapsed"], name, e["Test"], e["Action"]))
for name, (el, a) in sorted(pkgs.items(), key=lambda x: -x[1][0])[:5]:
    print(f"  {el:7.1f} s  {a}  {name}")
for el, name, t, a in sorted(tests, reverse=True)[:15]:
    print(f"  {el:7.1f} s  {a}  {name} {t}")
PY
done
rm -rf "$out"
