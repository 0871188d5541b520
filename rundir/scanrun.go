package rundir

import (
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"os"
	"time"

	"github.com/toksweep/toksweep/client"
)

// levelIndex is where each level's lines lie in requests.jsonl, for
// ScanRunDir: its levels in first-appearance order, and per level the byte
// ranges of its lines (a level is appended whole, so usually one range).
type levelIndex struct {
	order  []levelKey
	levels map[levelKey]*levelLines
}

// levelLines are one level's lines: their byte ranges in file order, and
// the level's first Start and last End.
type levelLines struct {
	spans      []span
	start, end time.Duration
}

// span is a byte range of requests.jsonl.
type span struct{ off, n int64 }

// lineKey is what indexLevels decodes of a line.
type lineKey struct {
	Concurrency int           `json:"concurrency"`
	Repeat      int           `json:"repeat"`
	Rate        float64       `json:"rate"`
	Start       time.Duration `json:"start_ns"`
	End         time.Duration `json:"end_ns"`
}

// indexLevels reads requests.jsonl once, keeping only where each level's
// lines are. Its errors are ReadRecords'; on ErrPartialLastLine the index
// holds the lines before it.
func indexLevels(r io.Reader) (levelIndex, error) {
	idx := levelIndex{levels: make(map[levelKey]*levelLines)}
	err := eachLine(r, func(line []byte, off int64) (bool, error) {
		var k lineKey
		if err := json.Unmarshal(line, &k); err != nil {
			return false, err
		}
		key := levelKey{k.Concurrency, k.Rate, k.Repeat}
		li := idx.levels[key]
		if li == nil {
			li = &levelLines{start: k.Start}
			idx.levels[key] = li
			idx.order = append(idx.order, key)
		}
		li.start, li.end = min(li.start, k.Start), max(li.end, k.End)
		n := int64(len(line))
		if last := len(li.spans) - 1; last >= 0 && li.spans[last].off+li.spans[last].n == off {
			li.spans[last].n += n
		} else {
			li.spans = append(li.spans, span{off, n})
		}
		return true, nil
	})
	return idx, err
}

// spanSource reads the records in spans of the file at path, anew on each
// call; the first error is kept in *errp.
func spanSource(path string, spans []span, errp *error) iter.Seq[*client.Record] {
	return func(yield func(*client.Record) bool) {
		f, err := os.Open(path)
		if err == nil {
			defer f.Close()
			stopped := false
			for _, sp := range spans {
				err = EachRecord(io.NewSectionReader(f, sp.off, sp.n), func(r *client.Record) bool {
					stopped = !yield(r)
					return !stopped
				})
				if err != nil {
					// EachRecord counts lines from the span's start.
					err = fmt.Errorf("the lines from byte %d: %w", sp.off, err)
				}
				if err != nil || stopped {
					break
				}
			}
		}
		if err != nil && *errp == nil {
			*errp = fmt.Errorf("reading %s back: %w", RequestsFile, unwrapPath(err))
		}
	}
}
