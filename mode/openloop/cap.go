package openloop

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/toksweep/toksweep/sweep"
)

// MaxRate bounds an offered rate (requests per second): a mistyped 1e9
// must be a usage error, not a plan of a billion arrivals. A replay's
// speeds are bounded by the rate they offer.
const MaxRate = 10000

// abortAfter is how many requests of an uncapped open-loop level must all
// fail with one client-side error before the level is aborted.
const abortAfter = 8

// Chooser chooses an open loop's loads one at a time (a Search). Next is
// called after the previous level (all its repeats) has been handed on,
// so that it can judge it first.
type Chooser interface {
	Next() (load float64, ok bool)
}

// Keys iterates over the level keys of mode name at cap: the chooser's
// loads when it is set, else the list's.
func Keys(name string, cap int, loads []float64, ch Chooser) func() (sweep.LevelKey, bool) {
	key := func(x float64) sweep.LevelKey { return sweep.LevelKey{Mode: name, Concurrency: cap, Load: x} }
	i := 0
	return func() (sweep.LevelKey, bool) {
		if ch != nil {
			x, ok := ch.Next()
			return key(x), ok
		}
		if i >= len(loads) {
			return sweep.LevelKey{}, false
		}
		i++
		return key(loads[i-1]), true
	}
}

// Uncapped reports whether level k has no cap on its requests in flight
// (an open loop's Concurrency is its cap, 0 for none): its Unbounded.
func Uncapped(k sweep.LevelKey) bool { return k.Concurrency == 0 }

// AbortAfter is an open-loop level's: the cap's requests, else 8.
func AbortAfter(k sweep.LevelKey) int {
	if Uncapped(k) {
		return abortAfter
	}
	return k.Concurrency
}

// Named is a level's name with its cap after it: "rate=4/s C≤2"; the name
// alone when uncapped.
func Named(name string, k sweep.LevelKey) string {
	if Uncapped(k) {
		return name
	}
	return name + fmt.Sprintf(" C≤%d", k.Concurrency)
}

// JoinRates lists loads as the flags take them: "1,2.5,4".
func JoinRates(rs []float64) string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = strconv.FormatFloat(r, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}
