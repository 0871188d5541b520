package rate

import (
	"fmt"
	"math"
	"strconv"

	"github.com/toksweep/toksweep/mode/openloop"
	"github.com/toksweep/toksweep/sweep"
)

// Name is the rate mode's name, sweep.RateMode.
const Name = sweep.RateMode

// Mode is the open loop at offered rates, registered in init.
type Mode struct{}

func init() { sweep.Register(Mode{}) }

var _ sweep.Mode = Mode{}

// Name is sweep.RateMode.
func (Mode) Name() string { return Name }

// Rank is 10: the open loops ask first, the rate mode before the replay.
func (Mode) Rank() int { return 10 }

// Open is true: arrivals follow the plan, not the replies.
func (Mode) Open() bool { return true }

// Marks is false: a saved level is recognised by its rate (Claims).
func (Mode) Marks() bool { return false }

// RunsSessions is false.
func (Mode) RunsSessions() bool { return false }

// Claims a level with an offered rate.
func (Mode) Claims(l *sweep.Level) bool { return l.Rate > 0 }

// Unbounded is a level without a cap.
func (Mode) Unbounded(k sweep.LevelKey) bool { return openloop.Uncapped(k) }

// Words are the rate mode's: "rate=16/s", "rate 16 req/s".
func (Mode) Words() sweep.Words {
	return sweep.Words{
		Name:          func(k sweep.LevelKey) string { return openloop.Named(fmt.Sprintf("rate=%g/s", k.Load), k) },
		At:            func(k sweep.LevelKey) string { return fmt.Sprintf("rate %g req/s", k.Load) },
		Unit:          "requests per second",
		Users:         "concurrent users",
		Axis:          "offered rate (req/s)",
		Aggregate:     "at the offered rate",
		Caption:       "at each offered rate; where doubling the rate adds little, it has saturated (the knee)",
		ClientLimited: "were", ClientLimitedOne: "was",
		// The note is left out: "req/s offered" already says the load is
		// a rate.
		Load:  func(k sweep.LevelKey, offered float64, _ string) string { return Text(offered, k.Load) },
		Level: "rate", Levels: "rates",
		Head: "rate/s",
	}
}

// Text is how every sentence names a rate level: the rate its plan
// offered (4 significant digits), the nominal rate in brackets, "23.93
// req/s offered (nominal 25.1)"; a level whose offered rate is not known
// (0 or NaN: none recorded) is "25.1 req/s (nominal)". The console's
// closing paragraph, --rates auto's answer, the time estimate, the level
// lines and plan all name rate levels through it (Words.Load).
func Text(offered, nominal float64) string {
	if !(offered > 0) || math.IsInf(offered, 0) {
		return fmt.Sprintf("%g req/s (nominal)", nominal)
	}
	off, _ := strconv.ParseFloat(strconv.FormatFloat(offered, 'g', 4, 64), 64)
	return fmt.Sprintf("%g req/s offered (nominal %g)", off, nominal)
}
