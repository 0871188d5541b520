package promscrape

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
)

// GPUNames are the dcgm-exporter fields read from a GPU host's endpoint
// (NVIDIA's DCGM field identifiers, in the units of dcgm-exporter's
// default counters file).
var GPUNames = struct {
	Power, Util, MemUsed, Energy string
}{
	Power:   "DCGM_FI_DEV_POWER_USAGE",              // gauge, W
	Util:    "DCGM_FI_DEV_GPU_UTIL",                 // gauge, %
	MemUsed: "DCGM_FI_DEV_FB_USED",                  // gauge, MiB of framebuffer used
	Energy:  "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", // counter, mJ since the driver loaded
}

// GPUReading is what one scrape says of one GPU.
type GPUReading struct {
	ID   string // the UUID label; Hostname/gpu without one
	Host string // the Hostname label
	GPU  string // the gpu label: the device's index on its host
	// Power (W), Util (%), MemUsed (MiB) and Energy (mJ, cumulative).
	Power, Util, MemUsed, Energy value
}

// Known reports whether the reading holds any field toksweep reads.
func (g *GPUReading) Known() bool { return g.Power.OK || g.Util.OK || g.MemUsed.OK || g.Energy.OK }

// ParseGPUs reads one dcgm-exporter exposition: a reading per GPU, in the
// order first seen. A GPU is told by its UUID label (else Hostname and
// gpu); a second line of the same field and GPU in one scrape (another
// pod's labels, a MIG instance) is ignored, never added. Lines are read by
// Parse's rules: comments and other metrics skipped, a malformed line
// counted, a body with no sample and a malformed line an error.
func ParseGPUs(r io.Reader) ([]GPUReading, error) {
	var out []GPUReading
	index := map[string]int{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 8<<10), maxLine)
	samples, malformed, firstBad, lineNo := 0, 0, "", 0
	for sc.Scan() {
		lineNo++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		name, v, err := parseSample(line)
		if err != nil {
			if malformed == 0 {
				firstBad = fmt.Sprintf("line %d: %v", lineNo, err)
			}
			malformed++
			continue
		}
		samples++
		field := gpuField(string(name))
		if field == nil || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		l := readLabels(line[len(name):])
		id := l["UUID"]
		if id == "" {
			id = l["Hostname"] + "/" + l["gpu"]
		}
		i, ok := index[id]
		if !ok {
			i = len(out)
			index[id] = i
			out = append(out, GPUReading{ID: id, Host: l["Hostname"], GPU: l["gpu"]})
		}
		if f := field(&out[i]); !f.OK {
			*f = value{v, true}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the exposition: %w", err)
	}
	if samples == 0 && malformed > 0 {
		return nil, fmt.Errorf("not a Prometheus text exposition (%s)", firstBad)
	}
	return out, nil
}

// gpuField is the field of a reading that the metric name fills; nil for
// a metric not read.
func gpuField(name string) func(*GPUReading) *value {
	switch name {
	case GPUNames.Power:
		return func(g *GPUReading) *value { return &g.Power }
	case GPUNames.Util:
		return func(g *GPUReading) *value { return &g.Util }
	case GPUNames.MemUsed:
		return func(g *GPUReading) *value { return &g.MemUsed }
	case GPUNames.Energy:
		return func(g *GPUReading) *value { return &g.Energy }
	}
	return nil
}

// readLabels returns the label set at the start of s (after blanks), which
// parseSample has already checked: name="value" pairs, values unescaped.
func readLabels(s []byte) map[string]string {
	s = bytes.TrimLeft(s, " \t")
	l := map[string]string{}
	if len(s) == 0 || s[0] != '{' {
		return l
	}
	i := 1
	for i < len(s) {
		for i < len(s) && (s[i] == ' ' || s[i] == ',') {
			i++
		}
		if i >= len(s) || s[i] == '}' {
			return l
		}
		eq := bytes.IndexByte(s[i:], '=')
		if eq < 0 {
			return l
		}
		name := string(bytes.TrimSpace(s[i : i+eq]))
		i += eq + 1
		for i < len(s) && s[i] != '"' {
			i++
		}
		i++ // the opening quote
		var v strings.Builder
		for i < len(s) && s[i] != '"' {
			if s[i] == '\\' && i+1 < len(s) {
				i++
				if s[i] == 'n' {
					v.WriteByte('\n')
					i++
					continue
				}
			}
			v.WriteByte(s[i])
			i++
		}
		i++ // the closing quote
		l[name] = v.String()
	}
	return l
}
