package rundir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/report"
	"github.com/toksweep/toksweep/sweep"
)

// A level read back takes its mode from the run's config; a run saved
// before the config named one (testdata/runs/small), or naming a mode this
// build lacks, reads as before: its levels' mode is recovered from their
// records (the closed loop's here).
func TestSavedLevelsTakeTheConfigsMode(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ config, want string }{
		{"", sweep.ClosedMode},
		{sweep.SessionsMode, sweep.SessionsMode},
		{"no-such-mode", sweep.ClosedMode},
	} {
		dir := copySmallRun(t)
		if c.config != "" {
			path := filepath.Join(dir, SummaryFile)
			b, err := os.ReadFile(path)
			must(t, err)
			s := strings.Replace(string(b), `"api": "chat",`, `"api": "chat", "mode": "`+c.config+`",`, 1)
			if s == string(b) {
				t.Fatal(`testdata/runs/small's config has no "api": "chat"`)
			}
			must(t, os.WriteFile(path, []byte(s), 0o644))
		}
		run, err := ReadRunDir(dir)
		must(t, err)
		if got := run.Summary.Config.Mode; got != c.config {
			t.Errorf("config mode %q read as %q", c.config, got)
		}
		for _, s := range run.Stats() {
			if s.Mode != c.want || s.Key().Mode != c.want {
				t.Errorf("config mode %q: level %s is of mode %q, want %q", c.config, report.LevelName(s), s.Mode, c.want)
			}
		}
	}
}
