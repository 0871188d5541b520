package htmlreport

import (
	"bytes"
	"html"
	"strings"
	"testing"

	"github.com/toksweep/toksweep/report"
)

// The prediction table shows each predicted figure with its 80% interval,
// and the measured value where the grading has the same level and figure
// (whether the interval holds it), "-" where it has none.
func TestWritePredictionTable(t *testing.T) {
	stats := testStats()
	sum := testSummary()
	sum.SimModel = &report.SimModelJSON{File: "model.json", SHA256: "ab"}
	sum.Predictions = []report.PredictionJSON{
		{Level: "C=1", Figures: []report.PredictedFigure{{Name: "ttft_p50_ms", Predicted: 20.5, Lo: 19, Hi: 22}, {Name: "aggregate_output_tps", Predicted: 301.25, Lo: 290, Hi: 310}}},
		{Level: "C=16", Figures: []report.PredictedFigure{{Name: "decode_tps_p50", Predicted: 98.76, Lo: 90.5, Hi: 107}}},
	}
	sum.Grading = []report.GradeJSON{{Level: "C=1", Figures: []report.GradeFigure{{Name: "ttft_p50_ms", Predicted: 20.5, Measured: 21}, {Name: "aggregate_output_tps", Predicted: 301.25, Measured: 320}}}}
	var b bytes.Buffer
	if err := Write(&b, sum, stats, Options{}); err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(b.String())
	for _, w := range []string{
		`<table class="predictions">` + "\n<caption>Predicted, with 80% intervals; measured where the model was fitted on the same level</caption>",
		`<tr><td class="l">C=1</td><td class="l">ttft_p50_ms</td><td>20.5</td><td>19–22</td><td>21</td><td class="l">yes</td></tr>`,
		`<tr><td class="l">C=1</td><td class="l">aggregate_output_tps</td><td>301.2</td><td>290–310</td><td>320</td><td class="l">no</td></tr>`,
		`<tr><td class="l">C=16</td><td class="l">decode_tps_p50</td><td>98.76</td><td>90.5–107</td><td>-</td><td class="l">-</td></tr>`,
	} {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
	if i, j := strings.Index(page, "<h2>Fitted model</h2>"), strings.Index(page, `class="predictions"`); i < 0 || j < i || j > strings.Index(page, `class="grading"`) {
		t.Error("the prediction table is not between the fitted model's line and the grading")
	}
	b.Reset()
	if err := Write(&b, testSummary(), stats, Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "predictions") {
		t.Error("a run without predictions has a prediction table")
	}
}
