// Package docs embeds toksweep's written documentation so the binary can
// ship it: the HTML report includes the metric definitions verbatim.
// docs/metrics.md stays the one written definition of every figure; this
// package only makes it available to the code.
package docs

import _ "embed"

// Metrics is the content of docs/metrics.md (Markdown).
//
//go:embed metrics.md
var Metrics string
