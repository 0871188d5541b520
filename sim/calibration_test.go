package sim

import (
	"context"
	"fmt"
	"testing"
	"time"
)

const kimiPreset = "kimi-k2.5-int4-8gpu-pcie"

// The seed story's two figures for Kimi-K2.5 INT4 on 8 PCIe GPUs.
const (
	kimiDecodeRate = 81.0 // tok/s, single stream, 512-token outputs, (tokens−1)/(last−first)
	kimiE2ERate    = 76.2 // tok/s, single stream, 2048 tokens / (end − request start)
)

func startKimi(t *testing.T, scale float64) (*Server, string) {
	t.Helper()
	cfg, err := Preset(kimiPreset)
	if err != nil {
		t.Fatal(err)
	}
	cfg.TimeScale = scale
	return startSim(t, cfg)
}

// TestKimiCalibration measures the preset the way the story did, from the
// client side: the decode rate of a streamed 512-token reply, and the
// end-to-end rate of a non-streamed 2048-token reply timed around the whole
// request, as the story's curl one-liner did. Scaled runs multiply the
// measured rate by TimeScale. The three runs pace themselves on the
// simulator's clock and use little CPU, so they run at once, each with its
// own simulator (each checks its steps were on time, eventuallyOn).
func TestKimiCalibration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		scale   float64
		tokens  int
		measure func(t *testing.T, url string, tokens int) float64
		want    float64
	}{
		{"decode 512 at scale 1", 1, 512, measureDecode, kimiDecodeRate},
		{"decode 512 at scale 0.25", 0.25, 512, measureDecode, kimiDecodeRate},
		{"end to end 2048 at scale 0.25", 0.25, 2048, measureE2E, kimiE2ERate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.scale == 1 && testing.Short() {
				t.Skip("6s at full scale; the scaled run covers it in -short")
			}
			s, url := startKimi(t, tt.scale)
			eventuallyOn(t, serverLate(s), func() error {
				got := tt.measure(t, url, tt.tokens) * tt.scale
				t.Logf("%.2f tok/s (target %.1f)", got, tt.want)
				if !within(got, tt.want, 0.03) {
					return fmt.Errorf("%.2f tok/s, want %.1f ±3%%", got, tt.want)
				}
				return nil
			})
		})
	}
}

func measureDecode(t *testing.T, url string, tokens int) float64 {
	return timeStream(t, url, EssayPrompt, tokens).decodeRate()
}

func measureE2E(t *testing.T, url string, tokens int) float64 {
	start := time.Now()
	body := decodeBody(t, post(t, context.Background(), url+"/v1/chat/completions", chatBody(EssayPrompt, tokens)))
	elapsed := time.Since(start)
	got, _ := path(body, "usage", "completion_tokens").(float64)
	if int(got) != tokens {
		t.Fatalf("completion_tokens = %v, want %d", got, tokens)
	}
	return got / elapsed.Seconds()
}
