//go:build linux

package app

import (
	"golang.org/x/sys/unix"

	"github.com/toksweep/toksweep/rundir"
)

// clockSync reads the kernel's clock-sync state (adjtimex, read only).
func clockSync() rundir.ClockSync {
	var tx unix.Timex
	state, err := unix.Adjtimex(&tx)
	if err != nil {
		return rundir.ClockSync{}
	}
	return rundir.ClockSync{
		Known:      true,
		Synced:     state != unix.TIME_ERROR && tx.Status&unix.STA_UNSYNC == 0,
		EstErrorUS: int64(tx.Esterror),
		MaxErrorUS: int64(tx.Maxerror),
	}
}
