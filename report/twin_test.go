package report

import (
	"slices"
	"testing"
)

// The steered search's closing sentence names its calibration levels and
// those measured again, and its cost against the twin's full search.
func TestTwinSentence(t *testing.T) {
	t.Parallel()
	j := &TwinJSON{Search: "closed", Predictions: 5, Levels: 7, LoadSeconds: 7.74,
		Calibration: []string{"C=1", "C=2", "C=4", "C=8"}, Remeasured: []string{"C=8"},
		FullLevels: 8, FullLoadSeconds: 20}
	want := "The closed search, steered by the twin (5 fits), ran 7 levels (C=1,C=2,C=4,C=8 short, for calibration; C=8 again at full length), 7.7 load-seconds on the server; the twin's full search ran 8 levels, 20.0 load-seconds (the steered search spent 39% of that)."
	if got := j.Sentence(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	j.Calibration, j.Remeasured, j.FullLevels = nil, nil, 0
	want = "The closed search, steered by the twin (5 fits), ran 7 levels, 7.7 load-seconds on the server; the twin ran no full search."
	if got := j.Sentence(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

// A steered run's calibration run of a level measured again at full
// length is left out of the levels its answer reads, once the full run
// ran (every repeat of it, with --repeat 2); a level remeasured whose
// full run never came (the run stopped) keeps its calibration run, and
// so does a calibration level that was not remeasured.
func TestTwinKeptLeavesOutReplacedCalibrationRuns(t *testing.T) {
	t.Parallel()
	lvl := func(c, repeat, ok int) LevelStats {
		return LevelStats{Mode: "closed", Concurrency: c, Repeat: repeat, RequestsOK: ok}
	}
	for _, tc := range []struct {
		name       string
		repeat     int
		remeasured []string
		stats      []LevelStats
		want       []int // the requests of the levels kept
	}{
		{"one repeat", 1, []string{"C=8"}, []LevelStats{lvl(4, 0, 4), lvl(8, 0, 8), lvl(8, 1, 32), lvl(12, 0, 48)}, []int{4, 32, 48}},
		{"two repeats", 2, []string{"C=8"}, []LevelStats{lvl(4, 0, 4), lvl(4, 1, 5), lvl(8, 0, 8), lvl(8, 1, 9), lvl(8, 2, 32), lvl(8, 3, 33)}, []int{4, 5, 32, 33}},
		{"the full run never came", 1, []string{"C=4", "C=8"}, []LevelStats{lvl(4, 0, 4), lvl(4, 1, 16), lvl(8, 0, 8)}, []int{16, 8}},
		{"nothing remeasured", 1, nil, []LevelStats{lvl(4, 0, 4), lvl(8, 0, 8)}, []int{4, 8}},
		{"repeat 0 (one run)", 0, []string{"C=8"}, []LevelStats{lvl(8, 0, 8), lvl(8, 1, 32)}, []int{32}},
	} {
		j := &TwinJSON{Calibration: []string{"C=4", "C=8"}, Remeasured: tc.remeasured}
		var got []int
		for _, s := range j.Kept(tc.stats, &RunConfig{Repeat: tc.repeat}) {
			got = append(got, s.RequestsOK)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: kept levels of %v requests, want %v", tc.name, got, tc.want)
		}
	}
	var none *TwinJSON
	if got := none.Kept([]LevelStats{lvl(4, 0, 4)}, nil); len(got) != 1 {
		t.Errorf("an unsteered run keeps %d of its 1 level", len(got))
	}
}
