package sweep

import (
	"time"

	"github.com/toksweep/toksweep/client"
)

// Observer is told what a sweep does while it does it, for live views
// (the progress line, the metrics endpoint); the figures of record are
// the levels handed to Run's onLevel. Its methods run on the sweep's
// goroutines and must be cheap.
type Observer interface {
	// LevelStarted is told when a level starts, on Run's goroutine: the
	// level's key only (Mode, Concurrency, Rate, Repeat; no records),
	// what a live view labels the level's figures with, and planned, its
	// number of measured requests (0: bounded by Duration only).
	LevelStarted(l Level, planned int)
	// RequestDone is told about every finished request (warm-up included,
	// flagged), after Config.Sink took its record, on the worker's
	// goroutine, concurrently; it must not keep r.
	RequestDone(r *client.Record)
	// TimerLate is told the lateness of each tick of the level's timer
	// probe (Health.TimerLateMax is the worst of them), on the probe's
	// goroutine.
	TimerLate(d time.Duration)
}

var (
	_ Observer = Observers(nil)
	_ Observer = NopObserver{}
)

// Observers is an Observer that tells each of its observers, in order.
type Observers []Observer

// LevelStarted tells each observer.
func (obs Observers) LevelStarted(l Level, planned int) {
	for _, o := range obs {
		o.LevelStarted(l, planned)
	}
}

// RequestDone tells each observer.
func (obs Observers) RequestDone(r *client.Record) {
	for _, o := range obs {
		o.RequestDone(r)
	}
}

// TimerLate tells each observer.
func (obs Observers) TimerLate(d time.Duration) {
	for _, o := range obs {
		o.TimerLate(d)
	}
}

// NopObserver is an Observer that ignores everything: embedded, it lets a
// type observe only what it implements.
type NopObserver struct{}

// LevelStarted does nothing.
func (NopObserver) LevelStarted(Level, int) {}

// RequestDone does nothing.
func (NopObserver) RequestDone(*client.Record) {}

// TimerLate does nothing.
func (NopObserver) TimerLate(time.Duration) {}

// observer is cfg's Observer; one that ignores everything when none is set.
func observer(cfg Config) Observer {
	if cfg.Observer == nil {
		return NopObserver{}
	}
	return cfg.Observer
}
