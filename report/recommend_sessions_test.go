package report

import (
	"strings"
	"testing"

	"github.com/toksweep/toksweep/sweep"
)

// A sessions run's closing paragraph counts its levels in the sessions
// mode's words, as its table heads them "sessions": "still growing at 4
// concurrent sessions", "serves 2 concurrent sessions", "At 4 concurrent
// sessions the SLO fails", "saturates beyond 2 concurrent sessions"; the
// same levels run as a closed loop keep its "concurrent requests" and
// "concurrent users". Before, a sessions run said "still growing at 4
// concurrent requests".
func TestSessionsSentenceCountsSessions(t *testing.T) {
	as := func(mode string, stats []LevelStats) []LevelStats {
		out := make([]LevelStats, len(stats))
		for i, s := range stats {
			s.Mode = mode
			out[i] = s
		}
		return out
	}
	growing := []LevelStats{lvl(1, 80, 80, 0, 0), lvl(2, 79, 158, 0, 0), lvl(4, 78, 310, 0, 0)}
	knee := []LevelStats{lvl(1, 80, 100, 0, 0), lvl(2, 70, 200, 0, 0), lvl(4, 30, 205, 0, 0)}
	for _, tc := range []struct {
		name  string
		stats []LevelStats
		slo   SLO
		sess  []string // in the sessions run's sentence
		loop  []string // in the closed loop's
	}{
		{"still growing", growing, SLO{}, []string{"still growing at 4 concurrent sessions"}, []string{"still growing at 4 concurrent requests"}},
		{"SLO fails at 4", knee, SLO{DecodeTPS: 50},
			[]string{"serves 2 concurrent sessions with", "At 4 concurrent sessions the SLO fails", "saturates beyond 2 concurrent sessions"},
			[]string{"serves 2 concurrent users with", "At 4 concurrent users the SLO fails", "saturates beyond 2 concurrent requests"}},
		{"none passes", growing, SLO{DecodeTPS: 100}, []string{"at 1 concurrent session "}, []string{"at 1 concurrent user "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sess := as(sweep.SessionsMode, tc.stats)
			got := Recommend(sess, tc.slo).Sentence(sess)
			for _, want := range tc.sess {
				if !strings.Contains(got, want) {
					t.Errorf("sessions sentence lacks %q:\n%s", want, got)
				}
			}
			if strings.Contains(got, "concurrent request") || strings.Contains(got, "concurrent user") {
				t.Errorf("sessions sentence counts requests or users:\n%s", got)
			}
			loop := as(sweep.ClosedMode, tc.stats)
			got = Recommend(loop, tc.slo).Sentence(loop)
			for _, want := range tc.loop {
				if !strings.Contains(got, want) {
					t.Errorf("closed-loop sentence lacks %q:\n%s", want, got)
				}
			}
		})
	}
}
