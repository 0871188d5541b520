package procstat

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// VmHWM is the peak resident set size so far of process pid ("self" for
// this one), in KiB; 0 when /proc cannot tell.
func VmHWM(pid string) int64 { return statusKB(pid, "VmHWM:") }

// VmRSS is the resident set size now of process pid, in KiB; 0 when /proc
// cannot tell.
func VmRSS(pid string) int64 { return statusKB(pid, "VmRSS:") }

func statusKB(pid, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%s/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb
		}
	}
	return 0
}

// MachineCPU is the machine's idle and total CPU time in jiffies
// (/proc/stat's cpu line), zeros where it cannot be read.
func MachineCPU() (idle, total uint64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	f := strings.Fields(strings.SplitN(string(b), "\n", 2)[0])
	for i, v := range f[1:] {
		n, _ := strconv.ParseUint(v, 10, 64)
		total += n
		if i == 3 || i == 4 { // idle, iowait
			idle += n
		}
	}
	return idle, total
}

// CPUTime is the CPU time process pid has taken (/proc/PID/stat's utime
// and stime, at the usual 100 ticks a second), 0 where it cannot be read.
func CPUTime(pid string) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%s/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // after the command name
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	k, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+k) * 10 * time.Millisecond
}
