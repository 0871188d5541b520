// Package procstat reads what the benchmark programs need from /proc.
package procstat

import (
	"fmt"
	"os"
	"strconv"
	"strings"
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
