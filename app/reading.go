package app

import (
	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/report"
)

// readingFlags is the reader the smoothness figures measure against.
func readingFlags(o *options) []cli.Flag {
	return []cli.Flag{
		&cli.Float64Flag{Name: "reading-speed", Value: report.ReadingSpeed, Destination: &o.ReadingSpeed,
			Usage: "the reader's pace in tok/s for rebuffer_ratio and smooth_share (6 is about 250 words a minute)"},
	}
}

// reading checks --reading-speed.
func (o *options) reading() error {
	if !(o.ReadingSpeed > 0) || o.ReadingSpeed > report.MaxReadingSpeed {
		return usagef("invalid --reading-speed %v: want a positive number of tokens per second up to %g, such as 6", o.ReadingSpeed, report.MaxReadingSpeed)
	}
	return nil
}

// readingConfig is --reading-speed as summary.json records it: absent at
// the default, so runs at the default read and re-render as before.
func (o *options) readingConfig() float64 {
	if o.ReadingSpeed == report.ReadingSpeed {
		return 0
	}
	return o.ReadingSpeed
}

// settings are the run's figure settings: --reading-speed and
// --percentiles, given once to every Summarize and to the run directory.
func (o *options) settings() report.Settings {
	return report.Settings{ReadingSpeed: o.ReadingSpeed, Percentiles: o.Percentiles, Classes: o.classNames()}
}
