package sweep

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/toksweep/toksweep/client"
)

// funcObserver is a test's Observer: it tells its funcs, when set.
type funcObserver struct {
	NopObserver
	done func(*client.Record)
	late func(time.Duration)
}

func (f funcObserver) RequestDone(r *client.Record) {
	if f.done != nil {
		f.done(r)
	}
}

func (f funcObserver) TimerLate(d time.Duration) {
	if f.late != nil {
		f.late(d)
	}
}

// logObserver writes down what it is told, in order.
type logObserver struct {
	mu  sync.Mutex
	log []string
}

func (l *logObserver) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.log = append(l.log, s)
}

func (l *logObserver) LevelStarted(lv Level, planned int) {
	l.add(fmt.Sprintf("start %s C=%d repeat %d planned %d records %d", lv.Mode, lv.Concurrency, lv.Repeat, planned, len(lv.Records)))
}

func (l *logObserver) RequestDone(r *client.Record) {
	l.add(fmt.Sprintf("done C=%d warmup %v", r.Concurrency, r.Warmup))
}

func (l *logObserver) TimerLate(time.Duration) {}

// TestObserversSeeTheSweep: each observer of Observers is told, in the
// order the sweep goes, of each level's start (its key and planned
// measured requests, no records) and then of each of its requests, warm-up
// included; a level bounded by Duration alone plans 0.
func TestObserversSeeTheSweep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := &logObserver{}, &logObserver{}
		cfg := Config{Load: ClosedLoad(1, 1), Requests: 2, Warmup: 1, Repeat: 2, Prompt: Cycle(prompts(1)), Observer: Observers{a, b}}
		if _, err := collect(t, context.Background(), cfg, newFake(time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		var want []string
		for level := range 4 {
			want = append(want, fmt.Sprintf("start closed C=1 repeat %d planned 2 records 0", level),
				"done C=1 warmup true", "done C=1 warmup false", "done C=1 warmup false")
		}
		if !slices.Equal(a.log, want) || !slices.Equal(b.log, want) {
			t.Errorf("observed\n%q\n%q\nwant\n%q", a.log, b.log, want)
		}

		d := &logObserver{}
		cfg = Config{Load: ClosedLoad(2), Duration: 10 * time.Millisecond, Prompt: Cycle(prompts(1)), Observer: d}
		if _, err := collect(t, context.Background(), cfg, newFake(time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		if len(d.log) == 0 || d.log[0] != "start closed C=2 repeat 0 planned 0 records 0" {
			t.Errorf("a --duration level starts as %q", d.log)
		}
	})
}
