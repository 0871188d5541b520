package workload

import (
	"bytes"
	"fmt"
	"io"
)

// Bounds on every input, so that a mistyped size or a device given as a
// file (/dev/zero, /dev/urandom) is a one-line error, not gigabytes of
// memory. docs/guide.md ("Bounds") lists them.
const (
	// MaxInputTokens bounds --input-tokens (and its STDDEV): above the
	// largest context windows served today. A synthetic prompt takes about
	// 5.3 bytes per token, and a set holds up to 128 of them.
	MaxInputTokens = 1_000_000
	// MaxOutputTokens bounds a request's max_tokens (--max-tokens, a JSONL
	// "max_tokens").
	MaxOutputTokens = 1_000_000
	// MaxPromptBytes bounds --prompt-file and one line of a JSONL dataset.
	MaxPromptBytes = 16 << 20
	// MaxDatasetBytes bounds a --dataset file (ShareGPT_V3, the usual
	// benchmark set, is 673 MB).
	MaxDatasetBytes = 1 << 30
	// MaxPrompts bounds the requests a dataset may hold.
	MaxPrompts = 1_000_000
)

// errTooLarge is a dataset over MaxDatasetBytes.
var errTooLarge = fmt.Errorf("larger than %d MiB, toksweep's bound on a dataset", MaxDatasetBytes>>20)

// boundedReader reads r, failing with errTooLarge (and setting over) once
// more than n bytes would be read: unlike io.LimitReader, it tells a long
// input from one that ends at the bound.
type boundedReader struct {
	r    io.Reader
	n    int64
	over bool
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.n <= 0 {
		var one [1]byte
		if k, err := b.r.Read(one[:]); k > 0 {
			b.over = true
			return 0, errTooLarge
		} else if err != nil {
			return 0, err
		}
		return 0, nil
	}
	p = p[:min(int64(len(p)), b.n)]
	k, err := b.r.Read(p)
	b.n -= int64(k)
	return k, err
}

// readBounded reads all of r if it holds at most limit bytes; ok is false
// when it holds more, and then at most limit+1 bytes were read.
func readBounded(r io.Reader, limit int64) (data []byte, ok bool, err error) {
	data, err = io.ReadAll(io.LimitReader(r, limit+1))
	return data, int64(len(data)) <= limit, err
}

// lineReader passes r through and counts its lines, so that an input offset
// (a json.Decoder's) can be turned into a line number without keeping the
// input: it keeps only the bytes read since the last forget.
type lineReader struct {
	r     io.Reader
	mark  int64  // the offset of kept[0]
	lines int    // line ends before mark
	kept  []byte // the bytes from mark on
}

func (l *lineReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	l.kept = append(l.kept, p[:n]...)
	return n, err
}

// forget drops the bytes before offset off, counting their lines.
func (l *lineReader) forget(off int64) {
	k := int(min(max(off-l.mark, 0), int64(len(l.kept))))
	l.lines += bytes.Count(l.kept[:k], []byte("\n"))
	l.kept = append(l.kept[:0], l.kept[k:]...)
	l.mark += int64(k)
}

// lineAt is the 1-based line that offset off is on; off must not be before
// the last forget.
func (l *lineReader) lineAt(off int64) int {
	k := int(min(max(off-l.mark, 0), int64(len(l.kept))))
	return l.lines + bytes.Count(l.kept[:k], []byte("\n")) + 1
}
