// Command sendtiming measures issue 22's send-timing claim the way a
// user's setup is: it replays the 300-request Mooncake-format trace of
// sweep's BenchmarkReplaySendTiming (internal/testkit/sendtiming) at each
// speed against the simulator, either in this process (-modes in, as the
// benchmark does) or as a `toksweep serve-sim --record-arrivals` process
// of its own (-modes out), started by PID on a free 127.0.0.1 port for each
// level and stopped by PID (SIGINT, then SIGKILL after 5 s). The
// out-of-process stamps are read from GET /debug/arrivals (wall-clock Unix
// nanoseconds) against the client epoch's wall time: both processes read
// the same system clock. -modes in0 is the in-process simulator without
// its events' send stamps (x_sent_unix_ns), which serve-sim always writes,
// to see what they cost.
//
// With -quiet-wait each level waits (up to that long) for 2 s with the
// machine at least 95% idle; each line says whether it found them and how
// busy the machine was during the level, beside the cores the client (and
// serve-sim) took.
//
// -modes timer sends nothing: it times only the feeder's wait for each
// instant (a timer, a nap, a yield, as sweep's dispatcher waits), the
// floor under the gate stage of the other modes on the same machine.
//
// Each line also says how long the client's threads (and serve-sim's)
// waited for a CPU while runnable during the level (the kernel's
// /proc/PID/task/*/schedstat) and the machine's steal time (the
// hypervisor's), which tell the VM's CPU from the Go scheduler. With
// -stages each request's round trip is traced (httptrace) and matched to
// the server's stamp of it by connection (/debug/arrivals' remote_addrs),
// and each arrival more than 1 ms late is listed with its stages: gate
// (from its instant until the sweep called the client's Send), build,
// conn (GotConn), write (WroteRequest) and server (to the stamp), and put
// down to the longest.
//
// Each round runs every mode at every speed, one fresh simulator per
// level; the modes alternate their order from round to round. It prints a
// line per level (with the 1-minute load average) and, per mode and speed,
// the figures pooled over the rounds: dispatch delay p99, the arrival
// stamps' p99 and worst distance from the schedule, and the mean count of
// the 300 arrivals more than 1 ms off per level.
//
//	go build -o /tmp/toksweep . && go run ./bench/cmd/sendtiming -toksweep /tmp/toksweep -rounds 3
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/toksweep/toksweep/bench/internal/procstat"
	"github.com/toksweep/toksweep/internal/nap"
	"github.com/toksweep/toksweep/internal/testkit/sendtiming"
	"github.com/toksweep/toksweep/sim"
	"github.com/toksweep/toksweep/sim/simtest"
	"github.com/toksweep/toksweep/sweep"
	"github.com/toksweep/toksweep/workload/trace"
)

func main() {
	bin := flag.String("toksweep", "", "toksweep binary for -modes out (go build -o /tmp/toksweep .)")
	modes := flag.String("modes", "in,out", "simulator in this process (in), the same without its events' send stamps (in0), in its own process (out), or no requests, only the feeder's wait for each instant (timer), in this order on odd rounds")
	speedList := flag.String("speeds", "1,2,4", "replay speeds")
	rounds := flag.Int("rounds", 3, "rounds of every mode at every speed")
	step := flag.Duration("step", 2*time.Millisecond, "the simulator's decode step (the benchmark's replayStep)")
	flag.DurationVar(&quietWait, "quiet-wait", 0, "before each level, wait up to this long for 2 s with the machine at least 95% idle (0: don't wait)")
	flag.BoolVar(&stages, "stages", false, "trace each request's stages (httptrace) and attribute each arrival more than 1 ms late to its longest stage")
	flag.Parse()
	if err := run(*bin, strings.Split(*modes, ","), *speedList, *rounds, *step); err != nil {
		fmt.Fprintln(os.Stderr, "sendtiming:", err)
		var u usageError
		if errors.As(err, &u) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

// usageError is a bad flag: exit 2, as flag's own errors.
type usageError struct{ error }

var (
	quietWait time.Duration
	stages    bool
)

type key struct {
	mode  string
	speed float64
}

func run(bin string, modes []string, speedList string, rounds int, step time.Duration) error {
	var speeds []float64
	for _, f := range strings.Split(speedList, ",") {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return usageError{fmt.Errorf("-speeds: %w", err)}
		}
		speeds = append(speeds, v)
	}
	for _, m := range modes {
		if m != "in" && m != "in0" && m != "out" && m != "timer" {
			return usageError{fmt.Errorf("-modes: %q is not in, in0, out or timer", m)}
		}
		if m == "out" && bin == "" {
			return usageError{errors.New("-modes out needs -toksweep BIN")}
		}
	}
	dir, err := os.MkdirTemp("", "sendtiming")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "trace.jsonl")
	if err := os.WriteFile(path, sendtiming.Mooncake(300, 100), 0o644); err != nil {
		return err
	}
	tr, err := trace.ReadFile(path, trace.Options{})
	if err != nil {
		return err
	}
	rp := sendtiming.Replay(tr)
	all := map[key]*sendtiming.Timing{}
	levels := map[key]int{}
	for r := range rounds {
		order := slices.Clone(modes)
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, m := range order {
			for _, sp := range speeds {
				quiet := waitQuiet(quietWait)
				idle0, total0 := procstat.MachineCPU()
				wait0, steal0 := runDelay("self"), steal()
				st, cores, more, err := level(bin, m, rp, sp, step)
				if err != nil {
					return fmt.Errorf("round %d, %s, speed %g: %w", r+1, m, sp, err)
				}
				idle1, total1 := procstat.MachineCPU()
				busy := 0.0
				if total1 > total0 {
					busy = 1 - float64(idle1-idle0)/float64(total1-total0)
				}
				stolen := 0.0
				if total1 > total0 {
					stolen = float64(steal()-steal0) / float64(total1-total0)
				}
				fmt.Printf("round %d %-3s speed %g load %s, quiet before %v, machine %.0f%% busy (%.1f%% stolen), client %s, client threads waited %v for a CPU%s: %v\n",
					r+1, m, sp, sendtiming.LoadAvg(), quiet, 100*busy, 100*stolen, cores, runDelay("self").since(wait0), more.wait, st)
				fmt.Print(more.stages)
				k := key{m, sp}
				if all[k] == nil {
					all[k] = &sendtiming.Timing{}
				}
				all[k].Dispatch = append(all[k].Dispatch, st.Dispatch...)
				all[k].Arrival = append(all[k].Arrival, st.Arrival...)
				levels[k]++
			}
		}
	}
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	fmt.Printf("\n%-4s %-6s %7s %16s %15s %17s %15s\n", "mode", "speed", "levels", "dispatch-p99-ms", "arrival-p99-ms", "arrival-worst-ms", "over-1ms/level")
	for _, m := range modes {
		for _, sp := range speeds {
			k := key{m, sp}
			st := all[k]
			slices.Sort(st.Dispatch)
			slices.Sort(st.Arrival)
			fmt.Printf("%-4s %-6g %7d %16.2f %15.2f %17.2f %15.1f\n", m, sp, levels[k], ms(sendtiming.P(st.Dispatch, 99)),
				ms(sendtiming.P(st.Arrival, 99)), ms(st.Worst()), float64(st.OffBy(time.Millisecond))/float64(levels[k]))
		}
	}
	return nil
}

// extra is what a level reports beside its timing: serve-sim's threads'
// wait for a CPU, and with -stages the late arrivals' stages.
type extra struct{ wait, stages string }

// level replays one level against a fresh simulator, in this process or
// in its own, and returns its send timing and the cores the client
// process (and serve-sim's) took over the level.
func level(bin, mode string, rp *sweep.Replay, speed float64, step time.Duration) (sendtiming.Timing, string, extra, error) {
	ctx := context.Background()
	var more extra
	if mode == "timer" {
		return timerLevel(rp, speed), "sending nothing", more, nil
	}
	if mode == "in" || mode == "in0" {
		cfg := sendtiming.SimConfig(step)
		cfg.StampSendTime = mode == "in"
		srv := simtest.NewServer(cfg)
		defer srv.Close()
		lvl, epoch, tr, err := runLevel(ctx, rp, speed, srv.URL)
		if err != nil {
			return sendtiming.Timing{}, "", more, err
		}
		st := sendtiming.Of(lvl.Records, srv.Arrivals(), epoch)
		if tr != nil {
			more.stages = lateStages(tr.Stages(lvl.Records, srv.ArrivalsFrom(), epoch))
		}
		return st, fmt.Sprintf("and simulator %.2f cores", lvl.Health.CPUSeconds/lvl.Health.WallSeconds), more, nil
	}
	url, pid, stop, err := startServeSim(bin, step)
	if err != nil {
		return sendtiming.Timing{}, "", more, err
	}
	defer stop()
	t0, c0, w0 := time.Now(), procstat.CPUTime(strconv.Itoa(pid)), runDelay(strconv.Itoa(pid))
	lvl, epoch, tr, err := runLevel(ctx, rp, speed, url)
	if err != nil {
		return sendtiming.Timing{}, "", more, err
	}
	simCores := (procstat.CPUTime(strconv.Itoa(pid)) - c0).Seconds() / time.Since(t0).Seconds()
	more.wait = ", serve-sim's " + runDelay(strconv.Itoa(pid)).since(w0)
	arrivals, err := readArrivals(url)
	if err != nil {
		return sendtiming.Timing{}, "", more, err
	}
	at := make([]time.Time, len(arrivals))
	for i, a := range arrivals {
		at[i] = a.At
	}
	if tr != nil {
		more.stages = lateStages(tr.Stages(lvl.Records, arrivals, epoch))
	}
	return sendtiming.Of(lvl.Records, at, epoch), fmt.Sprintf("%.2f cores, serve-sim %.2f", lvl.Health.CPUSeconds/lvl.Health.WallSeconds, simCores), more, nil
}

// timerLevel is the floor under a level's gate stage: the feeder's wait
// for each of the level's instants (sweep's waitUntil: a timer until 2 ms
// before, a nap (internal/nap) until nap.Margin before, then yielding),
// with no request sent. Its Timing's Dispatch and Arrival are both how
// late each wait returned.
func timerLevel(rp *sweep.Replay, speed float64) sendtiming.Timing {
	tm := nap.New()
	defer tm.Close()
	t0 := time.Now()
	now := func() time.Duration { return time.Since(t0) }
	start := now() + 5*time.Millisecond
	var st sendtiming.Timing
	for _, r := range rp.Requests {
		at := start + time.Duration(float64(r.At)/speed)
		if d := at - 2*time.Millisecond - now(); d > 0 {
			time.Sleep(d)
		}
		for now() < at {
			runtime.Gosched()
			if d := at - nap.Margin - now(); d > 0 {
				tm.Sleep(d)
			}
		}
		late := now() - at
		st.Dispatch = append(st.Dispatch, late)
		st.Arrival = append(st.Arrival, late)
	}
	slices.Sort(st.Dispatch)
	slices.Sort(st.Arrival)
	return st
}

// runLevel is sendtiming.RunLevel, traced with -stages (nil Tracer
// without).
func runLevel(ctx context.Context, rp *sweep.Replay, speed float64, url string) (sweep.Level, time.Time, *sendtiming.Tracer, error) {
	if stages {
		return sendtiming.RunTraced(ctx, rp, speed, url)
	}
	lvl, epoch, err := sendtiming.RunLevel(ctx, rp, speed, url)
	return lvl, epoch, nil, err
}

// maxLateLines bounds the late arrivals a level lists.
const maxLateLines = 30

// lateStages counts the arrivals more than 1 ms after their instant by
// the stage that took longest (sendtiming.Stage.Late) and lists them, with
// the level's stage medians and 99th percentiles.
func lateStages(st []sendtiming.Stage) string {
	var b strings.Builder
	count := map[string]int{}
	unmatched, dialled := 0, 0
	var late []sendtiming.Stage
	var gate, build, conn, write, server []time.Duration
	for _, s := range st {
		if !s.Matched {
			unmatched++
			continue
		}
		if !s.Reused {
			dialled++
		}
		gate, build, conn = append(gate, s.Called-s.Sched), append(build, s.Start-s.Called), append(conn, s.GotConn-s.Start)
		write, server = append(write, s.WroteRequest-s.GotConn), append(server, s.Arrived-s.WroteRequest)
		if s.Arrived-s.Sched > time.Millisecond {
			stage, _ := s.Late()
			count[stage]++
			late = append(late, s)
		}
	}
	pq := func(d []time.Duration) string {
		slices.Sort(d)
		return fmt.Sprintf("%d/%d", sendtiming.P(d, 50).Microseconds(), sendtiming.P(d, 99).Microseconds())
	}
	fmt.Fprintf(&b, "  stages p50/p99 µs: gate %s, build %s, conn %s, write %s, server %s; %d dialled, %d unmatched; late by stage:",
		pq(gate), pq(build), pq(conn), pq(write), pq(server), dialled, unmatched)
	for _, k := range []string{"gate", "build", "conn", "write", "server"} {
		if count[k] > 0 {
			fmt.Fprintf(&b, " %s %d", k, count[k])
		}
	}
	b.WriteString("\n")
	for i, s := range late {
		if i == maxLateLines {
			fmt.Fprintf(&b, "    and %d more\n", len(late)-i)
			break
		}
		fmt.Fprintf(&b, "    %v\n", s)
	}
	return b.String()
}

// steal is the machine's steal time in jiffies (/proc/stat's cpu line,
// its eighth number): time the hypervisor ran something else while this
// VM's CPUs had work; 0 where it cannot be read. procstat.MachineCPU's
// total includes it.
func steal() uint64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	f := strings.Fields(strings.SplitN(string(b), "\n", 2)[0])
	if len(f) < 9 {
		return 0
	}
	n, _ := strconv.ParseUint(f[8], 10, 64)
	return n
}

// runDelay is the time process pid's threads have spent runnable but
// waiting for a CPU, and how many times they were given one (the second
// and third fields of /proc/PID/task/*/schedstat), summed over its
// threads now; zeros where it cannot be read.
func runDelay(pid string) schedWait {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%s/task/*/schedstat", pid))
	var sum schedWait
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		if f := strings.Fields(string(b)); len(f) >= 3 {
			ns, _ := strconv.ParseInt(f[1], 10, 64)
			n, _ := strconv.ParseInt(f[2], 10, 64)
			sum.wait += time.Duration(ns)
			sum.slices += n
		}
	}
	return sum
}

// schedWait is runDelay's reading.
type schedWait struct {
	wait   time.Duration
	slices int64
}

// since says how long the threads waited since w0, over how many
// timeslices, and the mean wait per timeslice.
func (w schedWait) since(w0 schedWait) string {
	d, n := w.wait-w0.wait, w.slices-w0.slices
	if n <= 0 {
		return "?"
	}
	return fmt.Sprintf("%v over %d timeslices (%v each)", d.Round(time.Millisecond), n, (d / time.Duration(n)).Round(100*time.Nanosecond))
}

// waitQuiet waits up to max for 2 s in which the machine was at least 95%
// idle, and says whether it found them.
func waitQuiet(max time.Duration) bool {
	for deadline := time.Now().Add(max); time.Now().Before(deadline); {
		i0, t0 := procstat.MachineCPU()
		time.Sleep(2 * time.Second)
		i1, t1 := procstat.MachineCPU()
		if t1 > t0 && float64(i1-i0)/float64(t1-t0) >= 0.95 {
			return true
		}
	}
	return false
}

// startServeSim starts `bin serve-sim` on a free loopback port and waits
// for its /health; stop ends it by its PID.
func startServeSim(bin string, step time.Duration) (url string, pid int, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", 0, nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, sendtiming.ServeSimArgs(addr, step)...)
	var stderr bytes.Buffer // quoted when it fails
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return "", 0, nil, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	stop = func() {
		_ = cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}
	url = "http://" + addr
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		select {
		case err := <-done:
			done <- err
			return "", 0, nil, fmt.Errorf("serve-sim (pid %d) exited: %v: %s", cmd.Process.Pid, err, stderr.String())
		default:
		}
		if resp, err := http.Get(url + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url, cmd.Process.Pid, stop, nil
			}
		}
	}
	stop()
	return "", 0, nil, fmt.Errorf("serve-sim (pid %d) not healthy on %s within 10 s", cmd.Process.Pid, addr)
}

// readArrivals reads serve-sim's GET /debug/arrivals as wall-clock
// instants (no monotonic reading: compared on the wall clock), with the
// address each came from.
func readArrivals(url string) ([]sim.Arrival, error) {
	resp, err := http.Get(url + "/debug/arrivals")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /debug/arrivals: %s", resp.Status)
	}
	var r sim.ArrivalsReply
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return nil, fmt.Errorf("GET /debug/arrivals: %w", err)
	}
	at := make([]sim.Arrival, len(r.UnixNano))
	for i, ns := range r.UnixNano {
		at[i].At = time.Unix(0, ns)
		if i < len(r.RemoteAddrs) {
			at[i].RemoteAddr = r.RemoteAddrs[i]
		}
	}
	return at, nil
}
