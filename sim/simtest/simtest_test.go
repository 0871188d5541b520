package simtest_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/toksweep/toksweep/sim"
	"github.com/toksweep/toksweep/sim/simtest"
)

func TestNewServerServesUntilClosed(t *testing.T) {
	cfg, err := sim.Preset("fast")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Model = "simtest-model"
	s := simtest.NewServer(cfg)
	resp, err := http.Get(s.URL + "/v1/models")
	if err != nil {
		s.Close()
		t.Fatal(err)
	}
	var models struct {
		Data []struct{ ID string } `json:"data"`
	}
	err = json.NewDecoder(resp.Body).Decode(&models)
	resp.Body.Close()
	if err != nil || len(models.Data) != 1 || models.Data[0].ID != cfg.Model {
		t.Errorf("/v1/models: %+v (%v), want the one model %q", models, err, cfg.Model)
	}
	s.Close()
	if resp, err := http.Get(s.URL + "/v1/models"); err == nil {
		resp.Body.Close()
		t.Error("the server still answers after Close")
	}
}

func TestNewServerPanicsOnABadConfig(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewServer accepted MaxNumSeqs -1")
		}
	}()
	cfg, _ := sim.Preset("fast")
	cfg.MaxNumSeqs = -1
	simtest.NewServer(cfg).Close()
}
