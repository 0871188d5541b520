package closed

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/toksweep/toksweep/sweep"
)

// Mode is the closed loop, registered in init.
type Mode struct{}

func init() { sweep.Register(Mode{}) }

var _ sweep.Mode = Mode{}

// Name is sweep.ClosedMode.
func (Mode) Name() string { return sweep.ClosedMode }

// Rank is 100: the closed loop asks last; it takes what no other mode does.
func (Mode) Rank() int { return 100 }

// Open is false: arrivals wait for the replies.
func (Mode) Open() bool { return false }

// Marks is false: a level read back without a mode is the closed loop's.
func (Mode) Marks() bool { return false }

// RunsSessions is false.
func (Mode) RunsSessions() bool { return false }

// Claims every level no mode before it claims.
func (Mode) Claims(*sweep.Level) bool { return true }

// Unbounded is false: the workers bound the requests in flight.
func (Mode) Unbounded(sweep.LevelKey) bool { return false }

// Words are the closed loop's: "C=4", "concurrency 4".
func (Mode) Words() sweep.Words {
	return sweep.Words{
		Name:          func(k sweep.LevelKey) string { return fmt.Sprintf("C=%d", k.Concurrency) },
		At:            func(k sweep.LevelKey) string { return fmt.Sprintf("concurrency %d", k.Concurrency) },
		Unit:          "concurrent users",
		Users:         "concurrent users",
		Axis:          "concurrency (requests in flight)",
		Aggregate:     "all C in flight",
		Caption:       "with C requests in flight; where doubling C adds little, it has saturated (the knee)",
		ClientLimited: "may have been",
		List:          List,
		Head:          "C",
	}
}

// List is the closed loop's and the sessions' Words.List: their
// concurrencies after one "C=", "C=2,4".
func List(ks []sweep.LevelKey) string {
	cs := make([]string, len(ks))
	for i, k := range ks {
		cs[i] = strconv.Itoa(k.Concurrency)
	}
	return "C=" + strings.Join(cs, ",")
}
