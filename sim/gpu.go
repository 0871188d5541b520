package sim

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// The simulated GPUs' power model. Each of Config.GPUs devices draws
//
//	P(t) = GPUIdleWatts + GPUWattsPerSeq × B(t)
//
// where B is the running batch's size, and its energy counter is ∫P dt
// since the server started: idle × elapsed plus per-seq × the batch's
// slot-seconds over the steps that have ended (a step counts when it
// ends, so a scrape between levels, when the batch is empty, sees it all).
// Its utilisation is the share of the time since the previous scrape of
// /gpu/metrics during which the batch was not empty, as DCGM averages
// over its sample period; its memory used is GPUBaseMiB + GPUKVMiB × the
// KV cache's usage.

// maxGPUScrapes bounds the scrapes GPUScrapes keeps.
const maxGPUScrapes = 100_000

// GPUScrape is what one scrape of /gpu/metrics was answered, per GPU (all
// GPUs read the same), with the server's own instant and token count: the
// truth a test compares a load generator's telemetry with.
type GPUScrape struct {
	At              time.Time
	PowerW          float64 // the power served, W
	EnergyMJ        int64   // the energy counter served, mJ
	GeneratedTokens int64   // output tokens emitted so far, all requests
}

// gpuMeter integrates the batch over the steps; guarded by metrics.mu.
type gpuMeter struct {
	epoch          time.Time
	slotNs, busyNs float64 // ∫B dt and ∫[B > 0] dt over the ended steps
	lastAt         time.Time
	lastBusyNs     float64
	scrapes        []GPUScrape
}

// stepped adds one ended step of n sequences, modelled from start to end.
func (m *metrics) stepped(start, end time.Time, n int) {
	defer m.lock()()
	d := float64(end.Sub(start))
	if d <= 0 || n == 0 {
		return
	}
	m.gpu.slotNs += d * float64(n)
	m.gpu.busyNs += d
}

// drafted counts one verified draft of k tokens, accepted of them kept.
func (m *metrics) drafted(k, accepted int) {
	defer m.lock()()
	m.specDrafts++
	m.specDraftTokens += int64(k)
	m.specAccepted += int64(accepted)
}

// GPUScrapes returns what every scrape of /gpu/metrics was answered
// (the first maxGPUScrapes), oldest first.
func (s *Server) GPUScrapes() []GPUScrape {
	defer s.met.lock()()
	return append([]GPUScrape(nil), s.met.gpu.scrapes...)
}

func (s *Server) handleGPUMetrics(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	_ = s.met.writeGPU(w, s.cfg, int(s.eng.nRunning.Load()), time.Now())
}

// writeGPU writes dcgm-exporter's exposition of the GPUs at now, with a
// batch of running sequences.
func (m *metrics) writeGPU(w io.Writer, cfg Config, running int, now time.Time) error {
	defer m.lock()()
	g := &m.gpu
	power := cfg.GPUIdleWatts + cfg.GPUWattsPerSeq*float64(running)
	energy := int64(1e3*cfg.GPUIdleWatts*now.Sub(g.epoch).Seconds() + 1e3*cfg.GPUWattsPerSeq*g.slotNs/1e9)
	util := 0.0
	if d := float64(now.Sub(g.lastAt)); d > 0 {
		util = min(100, 100*(g.busyNs-g.lastBusyNs)/d)
	}
	g.lastAt, g.lastBusyNs = now, g.busyNs
	mem := cfg.GPUBaseMiB + cfg.GPUKVMiB*m.kvUsage
	if len(g.scrapes) < maxGPUScrapes {
		g.scrapes = append(g.scrapes, GPUScrape{At: now, PowerW: power, EnergyMJ: energy, GeneratedTokens: m.genTokens})
	}
	p := &promWriter{w: w}
	for _, f := range []struct {
		name, typ, help, v string
	}{
		{"DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", strconv.FormatFloat(util, 'f', 0, 64)},
		{"DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).", strconv.FormatFloat(mem, 'f', 0, 64)},
		{"DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", strconv.FormatFloat(power, 'f', 6, 64)},
		{"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter", "Total energy consumption since boot (in mJ).", strconv.FormatInt(energy, 10)},
	} {
		if f.name == "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION" && cfg.GPUNoEnergyCounter {
			continue
		}
		p.family(f.name, f.typ, f.help)
		for i := range cfg.GPUs {
			p.printf("%s{gpu=\"%d\", UUID=\"%s\", device=\"nvidia%d\", modelName=\"toksweep simulated GPU\", Hostname=\"toksweep-sim\"} %s\n",
				f.name, i, gpuUUID(i), i, f.v)
		}
	}
	return p.err
}

// gpuUUID is the simulated GPU i's UUID, in NVIDIA's shape.
func gpuUUID(i int) string { return fmt.Sprintf("GPU-00000000-0000-4000-8000-%012d", i) }
