package sweep

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// LevelKey is a level's identity: its mode and the settings of that mode
// that tell it from the sweep's other levels. It is the one way to name
// (Name, At), order (Compare) and compare (==) levels; repeats of a level
// share its key.
type LevelKey struct {
	Mode string // the registered mode's Name: "closed", "rate", "sessions", …
	// Concurrency is a closed loop's workers (or sessions), an open-loop
	// mode's cap on requests in flight (0: none).
	Concurrency int
	// Load is the mode's own load setting, stored as the level's Rate (the
	// records' and levels.csv's "rate"): the nominal offered req/s of the
	// rate mode; 0 in the closed loop. A new mode documents its own (a
	// trace replay's speed).
	Load float64
}

// mode is the key's registered mode; the closed loop for a mode not
// registered.
func (k LevelKey) mode() Mode {
	if m := ModeNamed(k.Mode); m != nil {
		return m
	}
	if m := ModeNamed(ClosedMode); m != nil {
		return m
	}
	return unregistered{}
}

// Name is the level's short name, for tables and charts: "C=4", "rate=16/s".
func (k LevelKey) Name() string { return k.mode().Words().Name(k) }

// At is the level as a sentence names it: "concurrency 4", "rate 16 req/s".
func (k LevelKey) At() string { return k.mode().Words().At(k) }

// String is Name.
func (k LevelKey) String() string { return k.Name() }

// Said is the level as a sentence names it with the rate its plan offered:
// an open-loop mode's Words.Load ("18.2 req/s offered (nominal 16)"), a
// closed loop's Name ("C=4").
func (k LevelKey) Said(offered float64) string {
	if load := k.Words().Load; load != nil {
		return load(k, offered, "")
	}
	return k.Name()
}

// Words are the mode's words.
func (k LevelKey) Words() Words { return k.mode().Words() }

// Compare orders keys: by mode rank, then by the mode's load, then by
// concurrency.
func (k LevelKey) Compare(o LevelKey) int {
	return cmp.Or(cmp.Compare(k.mode().Rank(), o.mode().Rank()), cmp.Compare(k.Load, o.Load), cmp.Compare(k.Concurrency, o.Concurrency))
}

// IsOpen reports whether the key's mode is an open loop: arrivals do not
// wait for replies, so its levels are judged by stability as well as the SLO.
func (k LevelKey) IsOpen() bool { return k.mode().Open() }

// X is the level's place on its mode's load axis: an open-loop mode's
// Load, else the concurrency. A knee's doubling is a doubling of X.
func (k LevelKey) X() float64 {
	if k.IsOpen() {
		return k.Load
	}
	return float64(k.Concurrency)
}

// Unbounded reports whether the level holds no bound on its requests in
// flight (Mode.Unbounded: an open loop without a cap), so that nothing but
// its schedule holds its sender back and it has no C to show.
func (k LevelKey) Unbounded() bool {
	return k.mode().Unbounded(k)
}

// RunsSessions reports whether the level runs multi-turn sessions (its
// mode's Sessions): plan then sizes it in sessions too.
func (k LevelKey) RunsSessions() bool { return k.mode().RunsSessions() }

// NameList names keys in a sentence, each run of keys of one mode in its
// mode's words (Words.List, else their Names): "C=2,4", "rate=8/s,
// rate=16/s"; the runs are comma-separated.
func NameList(ks []LevelKey) string {
	var parts []string
	for len(ks) > 0 {
		n := 1
		for n < len(ks) && ks[n].Mode == ks[0].Mode {
			n++
		}
		run := ks[:n]
		ks = ks[n:]
		if list := run[0].Words().List; list != nil {
			parts = append(parts, list(run))
			continue
		}
		for _, k := range run {
			parts = append(parts, k.Name())
		}
	}
	return strings.Join(parts, ", ")
}

// LevelColumn is how a table heads its column of the levels ks and
// labels each level in it, in their mode's words: levels all of one
// closed-loop mode by their concurrency under its Words.Head ("C",
// sessions' "sessions"); any others (an open loop's, whose Name carries
// its load and cap, or levels of several modes) by their Name under
// "level" ("rate=8/s").
func LevelColumn(ks []LevelKey) (head string, label func(LevelKey) string) {
	if len(ks) > 0 && !ks[0].IsOpen() && ks[0].Words().Head != "" &&
		!slices.ContainsFunc(ks, func(k LevelKey) bool { return k.Mode != ks[0].Mode }) {
		return ks[0].Words().Head, func(k LevelKey) string { return strconv.Itoa(k.Concurrency) }
	}
	return "level", LevelKey.Name
}

// IsZero reports whether k is no level (an answer not found).
func (k LevelKey) IsZero() bool { return k == LevelKey{} }

// Mode is a load model's engine side: what the sweep, report, plan and
// the renderers need to know of a level of the mode, found by its name
// (a LevelKey's Mode, a saved level's), and never its settings. Each
// mode is one type in its own package (mode/NAME), registered in its
// init (Register); the same type is the mode's command side (app).
type Mode interface {
	// Name is the mode's LevelKey.Mode.
	Name() string
	// Rank orders modes: when a saved level's mode is recovered (Claims),
	// lower ranks ask first; and Compare sorts by it. The command line
	// asks the modes in the same order which one it chose.
	Rank() int
	// Open reports whether arrivals follow a schedule, not the replies
	// (an open loop).
	Open() bool
	// Marks reports whether the sweep sets each record's Mode to the
	// mode's name, so that a saved level is recognised by its records
	// (ClaimMode) where its settings alone would be taken for another
	// mode's.
	Marks() bool
	// RunsSessions reports whether the mode's levels run multi-turn
	// sessions (the records' Session), so that plan sizes them in
	// sessions as well as requests.
	RunsSessions() bool
	// Claims reports whether a level read back from its records is this
	// mode's (its Mode field unset).
	Claims(l *Level) bool
	// Unbounded reports whether level k sends with no bound on its
	// requests in flight (an open loop without a cap).
	Unbounded(k LevelKey) bool
	// Words are how the mode speaks of its levels.
	Words() Words
}

// Load is what the chosen mode built for one sweep (Config.Load): its
// levels and how each one's requests arrive.
type Load interface {
	// Mode is the name of the registered mode that built it.
	Mode() string
	// Keys iterates over the sweep's level keys in run order. Each call
	// starts over: a sweep calls it once.
	Keys() func() (LevelKey, bool)
	// Measured is the planned number of measured requests of level k
	// when cfg.Requests is positive, or when neither it nor cfg.Duration
	// is.
	Measured(cfg *Config, k LevelKey) int
	// Arrivals is level k's arrival process; measured is Measured's
	// count, or Unlimited (Duration only).
	Arrivals(cfg *Config, k LevelKey, measured, repeat int) (Arrivals, error)
	// WarmConns is how many connections to open before level k.
	WarmConns(k LevelKey) int
	// AbortAfter is how many requests of level k must all fail with one
	// client-side error before the level is aborted.
	AbortAfter(k LevelKey) int
}

// Prompter is a Load that brings its own prompts (multi-turn sessions),
// so that the sweep needs no Config.Prompt.
type Prompter interface {
	OwnPrompts() bool
}

// Words are how a mode speaks of its levels: the console, report.html,
// charts, plan and the closing sentences read them from here.
type Words struct {
	Name func(k LevelKey) string // short: "C=4", "rate=16/s"
	At   func(k LevelKey) string // in a sentence: "concurrency 4", "rate 16 req/s"
	// Unit is what a level's load is counted in: "concurrent users",
	// "requests per second", "concurrent sessions".
	Unit string
	// Users is what plan's --users counts when it sizes from a level:
	// "concurrent users" (a closed loop's workers, an open loop's mean in
	// flight), sessions' "concurrent sessions".
	Users string
	// Axis labels a chart's load axis: the load's name, then its unit in
	// brackets ("offered rate (req/s)"); a chart's title names the load
	// by the words before the brackets ("… vs offered rate").
	Axis string
	// Aggregate is the Aggregate table's header note: "all C in flight".
	Aggregate string
	// Caption is the aggregate chart's note in report.html, after "What
	// the server delivers ".
	Caption string
	// ClientLimited is the verb of the cautions and notes about
	// client-limited levels (Limited): "were" (the client measured its
	// own delay) or "may have been"; ClientLimitedOne is its verb for one
	// level ("was"; empty: ClientLimited).
	ClientLimited, ClientLimitedOne string
	// List names several levels of the mode in a sentence: the closed
	// loop's "C=2,4"; nil: their Names, comma-separated (NameList).
	List func(ks []LevelKey) string
	// Open-loop modes only, for the closing paragraph's sentences
	// (report's recommendation). Load names a level's load in a sentence:
	// with offered, the rate the level realised (0: not known), and a
	// note for the brackets ("": none): the rate mode's RateText, "23.93
	// req/s offered (nominal 25)" (it leaves the note out), a replay's
	// "speed 2×" and "speed 2× (offered 24.3 req/s, open loop)". Level
	// and Levels are what the levels are, one and many: "rate", "rates".
	// (Open-loop modes only, as the above.)
	Load          func(k LevelKey, offered float64, note string) string
	Level, Levels string
	// Offered is an open-loop level's load on its level line, after its
	// Name, which says the mode's own load: a replay's "offered 2.4 req/s"
	// (the name says the speed; "": nothing to add); nil: Load's words
	// (the rate mode's RateText, its nominal rate in the brackets).
	Offered func(k LevelKey, offered float64) string
	// Running is what a closed-loop level of the mode holds running, one
	// of them, as the closing paragraph counts its levels ("serves N …",
	// "still growing at N …"): sessions' "concurrent session"; empty: the
	// closed loop's "concurrent user" (its users) and "concurrent request"
	// (its knee).
	Running string
	// Head is the heading of the tables' load column: a closed loop's
	// concurrency column ("C", sessions' "sessions"), an open loop's load
	// column ("rate/s", "speed×"; its concurrency column, the cap, is "C").
	Head string
}

// Limited is the verb of a sentence saying that n of the mode's levels
// were flagged client-limited: ClientLimitedOne for one level when the
// mode has it, else ClientLimited ("may have been", "was", "were").
func (w Words) Limited(n int) string {
	if n == 1 {
		return cmp.Or(w.ClientLimitedOne, w.ClientLimited)
	}
	return w.ClientLimited
}

// ClosedMode is the closed loop's name, the mode of a key with none.
const ClosedMode = "closed"

// The names of the other built-in modes, each its package's Name, here
// so that the packages below the modes can name their levels.
const (
	SessionsMode = "sessions" // multi-turn sessions (mode/sessions)
	RateMode     = "rate"     // the open loop at offered rates (mode/rate)
	ReplayMode   = "replay"   // the trace replay (mode/replay)
)

var (
	modesMu sync.RWMutex
	modes   []Mode
)

// Register adds a mode; a second mode of one name panics.
func Register(m Mode) {
	modesMu.Lock()
	defer modesMu.Unlock()
	if slices.ContainsFunc(modes, func(o Mode) bool { return o.Name() == m.Name() }) {
		panic(fmt.Sprintf("sweep: mode %q registered twice", m.Name()))
	}
	modes = append(modes, m)
	slices.SortStableFunc(modes, func(a, b Mode) int { return cmp.Compare(a.Rank(), b.Rank()) })
}

// Modes lists the registered modes by rank.
func Modes() []Mode {
	modesMu.RLock()
	defer modesMu.RUnlock()
	return slices.Clone(modes)
}

// ModeNamed is the registered mode of that name; nil if none.
func ModeNamed(name string) Mode {
	for _, m := range Modes() {
		if m.Name() == name {
			return m
		}
	}
	return nil
}

// Key is the level's key: its Mode, or the first mode that claims its
// records when it was read back without one.
func (l *Level) Key() LevelKey {
	k := LevelKey{Mode: l.Mode, Concurrency: l.Concurrency, Load: l.Rate}
	if k.Mode == "" {
		k.Mode = ClaimMode(l)
	}
	return k
}

// ClaimMode is the name of the first mode that claims l: the mode its
// first record names (Mode.Marks), else the first whose Claims takes it;
// the closed loop when none does.
func ClaimMode(l *Level) string {
	for r := range l.All() {
		if r.Mode != "" && ModeNamed(r.Mode) != nil {
			return r.Mode
		}
		break
	}
	for _, m := range Modes() {
		if m.Claims(l) {
			return m.Name()
		}
	}
	return ClosedMode
}

// unregistered is the mode of a key whose mode, and the closed loop, are
// not registered (a test binary without the modes): plain words.
type unregistered struct{}

func (unregistered) Name() string            { return "" }
func (unregistered) Rank() int               { return math.MaxInt }
func (unregistered) Open() bool              { return false }
func (unregistered) Marks() bool             { return false }
func (unregistered) RunsSessions() bool      { return false }
func (unregistered) Claims(*Level) bool      { return false }
func (unregistered) Unbounded(LevelKey) bool { return false }
func (unregistered) Words() Words {
	name := func(k LevelKey) string { return fmt.Sprintf("%s C=%d load=%g", k.Mode, k.Concurrency, k.Load) }
	return Words{Name: name, At: name}
}
