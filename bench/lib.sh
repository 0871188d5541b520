# Shared by bench/run.sh and bench/scale.sh (source it; not run on its own).
#
# bench_workdir NAME KEEP makes a temporary work directory in $work, and
# arranges that on exit the simulator in $sim_pid (if any) is stopped and
# the directory removed, unless KEEP is 1. It also raises the open-file
# limit to the hard limit: 1000+ streams need 1000+ sockets per process.
bench_workdir() {
  local name=$1
  bench_keep=$2
  work=$(mktemp -d "${TMPDIR:-/tmp}/toksweep-$name.XXXXXX")
  bench_name=$name
  sim_pid=
  trap bench_cleanup EXIT
  ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
}

bench_cleanup() {
  if [ -n "$sim_pid" ]; then
    kill "$sim_pid" 2>/dev/null || true
    wait "$sim_pid" 2>/dev/null || true
  fi
  if [ "$bench_keep" = 1 ]; then echo "$bench_name: raw outputs kept in $work" >&2; else rm -rf "$work"; fi
}

# start_sim FLAGS...: starts serve-sim ($bin/toksweep) on a free port of
# 127.0.0.1, run under the command prefix in the array prio if it is set
# (e.g. nice), and sets url and model; exits if it does not start.
start_sim() {
  ${prio+"${prio[@]}"} "$bin/toksweep" serve-sim --addr 127.0.0.1:0 "$@" 2> "$work/sim.log" &
  sim_pid=$!
  url= model=
  for _ in $(seq 100); do
    line=$(grep -m1 'serving model' "$work/sim.log" 2>/dev/null || true)
    if [ -n "$line" ]; then
      model=$(sed -E 's/.*serving model "([^"]*)".*/\1/' <<<"$line")
      url=$(sed -E 's#.* on (http://[^ ]*/v1).*#\1#' <<<"$line")
      return
    fi
    kill -0 "$sim_pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "$bench_name: the simulator did not start" >&2; cat "$work/sim.log" >&2; exit 1
}
