package app

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/internal/testkit/rawserver"
	"github.com/toksweep/toksweep/internal/testkit/sendtiming"
	"github.com/toksweep/toksweep/sim"
)

// serve-sim --record-arrivals serves when each generation request arrived
// at GET /debug/arrivals, as wall-clock Unix nanoseconds (what
// bench/cmd/sendtiming reads across processes); without the flag there is
// no such endpoint.
func TestServeSimRecordArrivals(t *testing.T) {
	t.Parallel()
	for _, record := range []bool{true, false} {
		addr := rawserver.Free(t)
		ctx, cancel := context.WithCancel(context.Background())
		args := []string{"serve-sim", "--addr", addr, "--preset", "fast", "--model", "m"}
		if record {
			args = append(args, "--record-arrivals")
		}
		done := make(chan int, 1)
		go func() {
			code, _, _ := runCLI(t, ctx, args...)
			done <- code
		}()
		base := "http://" + addr
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			resp, err := http.Get(base + "/health")
			if err == nil {
				resp.Body.Close()
				break
			}
			if time.Now().After(deadline) {
				cancel()
				t.Fatalf("serve-sim never answered /health: %v", err)
			}
		}
		before := time.Now().UnixNano()
		resp, err := http.Post(base+"/v1/completions", "application/json", strings.NewReader(`{"model":"m","prompt":"hi","max_tokens":2}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		after := time.Now().UnixNano()
		resp, err = http.Get(base + "/debug/arrivals")
		if err != nil {
			t.Fatal(err)
		}
		var got sim.ArrivalsReply
		decodeErr := json.NewDecoder(resp.Body).Decode(&got)
		resp.Body.Close()
		switch {
		case !record && resp.StatusCode != http.StatusNotFound:
			t.Errorf("without --record-arrivals: GET /debug/arrivals status %d, want 404", resp.StatusCode)
		case record && (resp.StatusCode != http.StatusOK || decodeErr != nil):
			t.Errorf("--record-arrivals: GET /debug/arrivals status %d, %v", resp.StatusCode, decodeErr)
		case record && (len(got.UnixNano) != 1 || got.UnixNano[0] < before || got.UnixNano[0] > after):
			t.Errorf("--record-arrivals: stamps %v, want one in [%d, %d]", got.UnixNano, before, after)
		}
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("serve-sim did not stop on cancel")
		}
	}
}

// The out-of-process send-timing measurement (bench/cmd/sendtiming) runs
// serve-sim with sendtiming.ServeSimArgs and compares it with the
// in-process simulator of sendtiming.SimConfig: the two are the same
// simulator, as sim.New completes them.
func TestServeSimArgsAreSimConfig(t *testing.T) {
	t.Parallel()
	const step = 2 * time.Millisecond
	var got sim.Config
	cmd := simCommand(func(_ context.Context, _ string, cfg sim.Config) error { got = cfg; return nil })
	app := &cli.App{Name: "toksweep", Commands: []*cli.Command{cmd}}
	if err := app.Run(append([]string{"toksweep"}, sendtiming.ServeSimArgs("127.0.0.1:0", step)...)); err != nil {
		t.Fatal(err)
	}
	completed := func(cfg sim.Config) sim.Config {
		s, err := sim.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		return s.Config()
	}
	if a, b := completed(got), completed(sendtiming.SimConfig(step)); !reflect.DeepEqual(a, b) {
		t.Errorf("serve-sim %v gives\n%+v\nwant (sendtiming.SimConfig)\n%+v", sendtiming.ServeSimArgs("127.0.0.1:0", step), a, b)
	}
}
