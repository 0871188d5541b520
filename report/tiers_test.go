package report

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"testing"
	"time"
)

// tierLevels is a replica whose per-user decode falls with load, C=16 run
// twice: its tier figures are the means of the two repeats.
func tierLevels() []LevelStats {
	stats := []LevelStats{
		lvl(1, 80, 80, 100*msec, 0),
		lvl(2, 78, 156, 110*msec, 0),
		lvl(4, 74, 296, 120*msec, 0),
		lvl(8, 66, 528, 150*msec, 0),
		lvl(16, 52, 832, 300*msec, 0),
		lvl(16, 50, 828, 340*msec, 0),
		lvl(32, 28, 896, 900*msec, 0),
		lvl(64, 14, 900, 3*time.Second, 0),
	}
	stats[5].Repeat = 1
	for i := range stats {
		stats[i].DecodeTPSP50 = stats[i].DecodeTPSP10 + 10
	}
	return stats
}

var testTiers = []Tier{
	{"interactive", SLO{DecodeTPS: 70, TTFTP95: 200 * msec}},
	{"standard", SLO{DecodeTPS: 50, TTFTP95: time.Second}},
	{"batch", SLO{DecodeTPS: 10, TTFTP95: 15 * time.Second}},
	{"premium", SLO{DecodeTPS: 100}},
}

// TestJudgeTiersIsRecommendPerTier checks that each tier's answer is the
// single SLO's answer of the same bounds, and the tier rows' figures: the
// answer level's, averaged over its repeats.
func TestJudgeTiersIsRecommendPerTier(t *testing.T) {
	stats := tierLevels()
	answers := JudgeTiers(stats, testTiers)
	for i, a := range answers {
		if want := Recommend(stats, testTiers[i].SLO); !reflect.DeepEqual(a.Rec, want) || !reflect.DeepEqual(a.Tier, testTiers[i]) {
			t.Errorf("tier %s: %+v, want Recommend's %+v", testTiers[i].Name, a, want)
		}
	}
	got := NewTiersJSON(answers, stats)
	c4, c16 := 4, 16
	want := []TierJSON{
		{Name: "interactive", SLO: "decode ≥ 70 tok/s (p10), TTFT p95 ≤ 200ms", Bounds: &SLOConfig{DecodeTPS: 70, TTFTP95Ms: 200},
			Level: "C=4", Concurrency: &c4, Limit: "fails at C=8", LimitReasons: []string{"decode_tps_p10 66.0 < 70"},
			DecodeTPSP50: new(84.0), DecodeTPSP10: new(74.0), TTFTP95Ms: new(120.0), AggregateOutputTPS: new(296.0)},
		{Name: "standard", SLO: "decode ≥ 50 tok/s (p10), TTFT p95 ≤ 1s", Bounds: &SLOConfig{DecodeTPS: 50, TTFTP95Ms: 1000},
			Level: "C=16", Concurrency: &c16, Limit: "fails at C=32", LimitReasons: []string{"decode_tps_p10 28.0 < 50"},
			DecodeTPSP50: new(61.0), DecodeTPSP10: new(51.0), TTFTP95Ms: new(320.0), AggregateOutputTPS: new(830.0)},
		{Name: "batch", SLO: "decode ≥ 10 tok/s (p10), TTFT p95 ≤ 15s", Bounds: &SLOConfig{DecodeTPS: 10, TTFTP95Ms: 15000},
			Level: "C=64", Concurrency: new(64), Limit: "above C=64",
			DecodeTPSP50: new(24.0), DecodeTPSP10: new(14.0), TTFTP95Ms: new(3000.0), AggregateOutputTPS: new(900.0)},
		{Name: "premium", SLO: "decode ≥ 100 tok/s (p10)", Bounds: &SLOConfig{DecodeTPS: 100},
			Limit: "fails at C=1", LimitReasons: []string{"decode_tps_p10 80.0 < 100"}},
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", " ")
		w, _ := json.MarshalIndent(want, "", " ")
		t.Errorf("tiers:\n got %s\nwant %s", g, w)
	}
}

// TestTierNeedsEveryLowerLevel checks the recommendation's rule holds per
// tier: a level passing above a failing one is not the answer; a repeat
// failing fails its level; an untrusted level stops the answer below it.
func TestTierNeedsEveryLowerLevel(t *testing.T) {
	stats := []LevelStats{lvl(1, 80, 80, 0, 0), lvl(2, 30, 150, 0, 0), lvl(4, 70, 280, 0, 0), lvl(8, 60, 400, 0, 0), lvl(8, 39, 390, 0, 0)}
	stats[4].Repeat = 1
	tiers := []Tier{{"a", SLO{DecodeTPS: 40}}, {"b", SLO{DecodeTPS: 20}}}
	got := NewTiersJSON(JudgeTiers(stats, tiers), stats)
	if got[0].Level != "C=1" || got[0].Limit != "fails at C=2" {
		t.Errorf("tier a: level %q limit %q, want C=1, fails at C=2 (C=4 passes above a failing C=2)", got[0].Level, got[0].Limit)
	}
	if got[1].Level != "C=8" || got[1].Limit != "above C=8" {
		t.Errorf("tier b: level %q limit %q, want C=8, above C=8", got[1].Level, got[1].Limit)
	}
	stats[3].AggregateOutputTPS = math.NaN() // C=8's first repeat finished nothing: no verdict
	got = NewTiersJSON(JudgeTiers(stats, tiers), stats)
	if got[1].Level != "C=4" || got[1].Limit != "C=8 unjudged" {
		t.Errorf("tier b with C=8 untrusted: level %q limit %q, want C=4, C=8 unjudged", got[1].Level, got[1].Limit)
	}
}

// TestTierOpenLoopAnswer checks an open-loop tier's answer is its rate.
func TestTierOpenLoopAnswer(t *testing.T) {
	stats := []LevelStats{lvl(0, 80, 80, 0, 0), lvl(0, 30, 150, 0, 0)}
	stats[0].Rate, stats[1].Rate = 2, 4
	got := NewTiersJSON(JudgeTiers(stats, []Tier{{"a", SLO{DecodeTPS: 40}}}), stats)
	if g := got[0]; g.Level != "rate=2/s" || g.Concurrency != nil || g.Rate == nil || *g.Rate != 2 || g.Limit != "fails at rate=4/s" {
		t.Errorf("open-loop tier: %+v", g)
	}
}

func TestWriteTiers(t *testing.T) {
	stats := tierLevels()
	var b bytes.Buffer
	if err := WriteTiers(&b, NewTiersJSON(JudgeTiers(stats, testTiers[1:]), stats)); err != nil {
		t.Fatal(err)
	}
	want := "\n" + TierTableTitle + ":\n" +
		"tier      SLO                                      level  decode p50  decode p10  TTFT p95 ms  output tok/s  limit\n" +
		"standard  decode ≥ 50 tok/s (p10), TTFT p95 ≤ 1s   C=16         61.0        51.0          320           830  fails at C=32\n" +
		"batch     decode ≥ 10 tok/s (p10), TTFT p95 ≤ 15s  C=64         24.0        14.0         3000           900  above C=64\n" +
		"premium   decode ≥ 100 tok/s (p10)                 none            -           -            -             -  fails at C=1\n" +
		"standard fails at C=32: decode_tps_p10 28.0 < 50.\n" +
		"premium fails at C=1: decode_tps_p10 80.0 < 100.\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	if err := WriteTiers(&b, nil); err != nil || b.Len() != 0 {
		t.Errorf("no tiers wrote %q, %v; want nothing", b.String(), err)
	}
}

// TestTierConfigRoundTrip checks summary.json's config records the tiers
// as they were given, so that a merge judges against the same ones.
func TestTierConfigRoundTrip(t *testing.T) {
	tiers := append(slices.Clone(testTiers), Tier{"strict", SLO{ErrorRate: new(0.0), MaxGapP95: time.Second, TPOTP99: 50 * msec, E2EP95: 30 * time.Second, E2ETPS: 5}})
	b, err := json.Marshal(RunConfig{SLOTiers: NewTierConfigs(tiers)})
	if err != nil {
		t.Fatal(err)
	}
	var c RunConfig
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	if got := c.Tiers(); !reflect.DeepEqual(got, tiers) {
		t.Errorf("tiers after the round trip:\n got %+v\nwant %+v", got, tiers)
	}
	if (*RunConfig)(nil).Tiers() != nil || (&RunConfig{}).Tiers() != nil {
		t.Error("a run without tiers has tiers")
	}
}
