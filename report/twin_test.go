package report

import "testing"

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
