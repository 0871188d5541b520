package rundir

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/report"
)

// recordLine is one line of requests.jsonl: the record and its figures.
type recordLine struct {
	*client.Record
	report.RecordFigures
}

// appendRecord appends r's line of requests.jsonl, with its figures
// against a reader at speed tok/s: the json.Marshal'd client.Record,
// followed on the same object by the request's own figures for readers
// that do not want to recompute them: ttft_ms, decode_tps and e2e_tps
// (null when undefined; ReadRecords ignores them, the raw fields being the
// source of truth). The line is json.Marshal's (appendRecordStd in the tests
// is the definition), but the per-chunk arrays chunk_ns and send_lag_ns,
// most of a long stream's line, are written with strconv rather than
// through reflection, one element at a time (a record is encoded as its
// request finishes, inside the level: bench/results.md, "Cost per token,
// after the hot-path work").
func appendRecord(b []byte, r *client.Record, speed float64) ([]byte, error) {
	bare := *r
	bare.ChunkAt, bare.SendLag = nil, nil // "chunk_ns":null, no send_lag_ns
	line, err := json.Marshal(newRecordLine(&bare, r, speed))
	if err != nil {
		return nil, err
	}
	// Both keys below are found at their own place: a string value escapes
	// its quotes, so neither can match inside one, and every field before
	// chunk_ns is a number or a bool.
	i := bytes.Index(line, nullChunks)
	j := bytes.Index(line, figuresKey)
	if i < 0 || j < i {
		return nil, fmt.Errorf("record line without %s before %s", nullChunks, figuresKey)
	}
	b = append(b, line[:i+len(nullChunks)-len("null")]...)
	b = appendDurations(b, r.ChunkAt)
	b = append(b, line[i+len(nullChunks):j]...)
	if len(r.SendLag) > 0 { // omitempty
		b = append(b, `,"send_lag_ns":`...)
		b = appendDurations(b, r.SendLag)
	}
	return append(append(b, line[j:]...), '\n'), nil
}

// The keys appendRecord splices its arrays at.
var (
	nullChunks = []byte(`"chunk_ns":null`)
	figuresKey = []byte(`,"ttft_ms":`)
)

// appendDurations appends ds as json.Marshal writes a []time.Duration.
func appendDurations(b []byte, ds []time.Duration) []byte {
	if ds == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for k, d := range ds {
		if k > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(d), 10)
	}
	return append(b, ']')
}

// newRecordLine is rec's line, with the figures of r (the same request)
// against a reader at speed tok/s.
func newRecordLine(rec, r *client.Record, speed float64) recordLine {
	return recordLine{Record: rec, RecordFigures: report.NewRecordFigures(r, speed)}
}

// ErrPartialLastLine is the error when the records end in a line with no
// newline that is not whole JSON, what a run killed (kill -9, power cut) in
// the middle of a level's append leaves. ReadRecords returns the records
// before it.
var ErrPartialLastLine = errors.New("ends in a partial line (the run was killed while writing it)")

// ReadRecords reads JSON lines written by appendRecord. Blank lines are
// skipped; an error names the 1-based line it is on. A last line cut short
// gives the records before it and an error matching ErrPartialLastLine.
func ReadRecords(r io.Reader) ([]client.Record, error) {
	var recs []client.Record
	err := EachRecord(r, func(rec *client.Record) bool {
		recs = append(recs, *rec)
		return true
	})
	return recs, err
}

// EachRecord reads JSON lines as ReadRecords does, one record at a time:
// it hands each to yield, a new one every line, until yield returns false
// or the lines end, and returns ReadRecords' errors. Its memory is one
// line's.
func EachRecord(r io.Reader, yield func(*client.Record) bool) error {
	return eachLine(r, func(line []byte, _ int64) (bool, error) {
		rec := new(client.Record)
		if err := decodeRecord(line, rec); err != nil {
			return false, err
		}
		if err := checkRecord(rec); err != nil {
			return false, err
		}
		return yield(rec), nil
	})
}

// checkRecord refuses a record toksweep never writes: an instant before
// the run's epoch (negative), an end before its start, or a token count
// out of its bounds. A crafted record would otherwise become a TTFT of
// −9.2e12 ms or an aggregate of 3.7e21 tok/s.
func checkRecord(r *client.Record) error {
	for _, t := range []time.Duration{r.Sched, r.Start, r.Header, r.FirstToken, r.FirstContent, r.LastToken, r.End} {
		if t < 0 {
			return errors.New("a record with a negative instant (start_ns, end_ns, ...): not a record toksweep writes")
		}
	}
	switch {
	case r.End != 0 && r.End < r.Start:
		return errors.New("a record that ends before it starts: not a record toksweep writes")
	case r.PromptTokens < 0 || r.PromptTokens > client.MaxPromptTokens:
		return fmt.Errorf("a record with prompt_tokens %d, outside 0 to %d", r.PromptTokens, client.MaxPromptTokens)
	case r.CompletionTokens < 0 || r.ReasoningTokens < 0:
		return errors.New("a record with a negative token count")
	}
	return nil
}

// The arrays decodeRecord reads itself, as json.Marshal writes them.
var (
	chunkKey = []byte(`"chunk_ns":[`)
	lagKey   = []byte(`"send_lag_ns":[`)
)

// decodeRecord is json.Unmarshal(line, rec), several times faster on a
// long stream's line: the per-chunk arrays chunk_ns and send_lag_ns, most
// of the line, are parsed here, and encoding/json decodes the rest. A line
// not as json.Marshal writes a record (spaces in an array, a key twice,
// anything but integers) is left whole to json.Unmarshal, with its result
// and its errors.
func decodeRecord(line []byte, rec *client.Record) error {
	rest, chunks, ok := cutArray(line, chunkKey)
	if ok {
		var lags *[]time.Duration
		if rest, lags, ok = cutArray(rest, lagKey); ok {
			if err := json.Unmarshal(rest, rec); err != nil {
				return err
			}
			if chunks != nil { // else json.Unmarshal found the key, if any
				rec.ChunkAt = *chunks
			}
			if lags != nil {
				rec.SendLag = *lags
			}
			return nil
		}
	}
	return json.Unmarshal(line, rec)
}

// cutArray finds the one key`[…]` in line and parses the integers of the
// array. It returns line with the array replaced by null, the integers (nil
// when line has no such key: line is returned as it is) and whether it
// could parse them; a key seen twice, or an array with anything but
// integers as json.Marshal writes them, is not parsed.
func cutArray(line, key []byte) ([]byte, *[]time.Duration, bool) {
	i := bytes.Index(line, key)
	if i < 0 {
		return line, nil, true
	}
	j := i + len(key)
	end := bytes.IndexByte(line[j:], ']')
	if end < 0 || bytes.Contains(line[j:], key) {
		return nil, nil, false
	}
	arr := line[j : j+end]
	vs := make([]time.Duration, 0, bytes.Count(arr, []byte{','})+1)
	for k := 0; k < len(arr); {
		v, n, ok := parseInt(arr[k:])
		if !ok {
			return nil, nil, false
		}
		vs = append(vs, time.Duration(v))
		if k += n; k == len(arr) {
			break
		}
		if arr[k] != ',' || k+1 == len(arr) {
			return nil, nil, false
		}
		k++
	}
	out := make([]byte, 0, len(line)-len(arr)+2)
	out = append(append(append(out, line[:j-1]...), "null"...), line[j+end+1:]...)
	return out, &vs, true
}

// parseInt parses a JSON integer at the start of b (no fraction, exponent
// or leading zero) that fits an int64: its value and length.
func parseInt(b []byte) (int64, int, bool) {
	n, neg := 0, false
	if n < len(b) && b[n] == '-' {
		neg, n = true, 1
	}
	start := n
	var u uint64
	for n < len(b) && b[n] >= '0' && b[n] <= '9' {
		if u > (math.MaxUint64-9)/10 {
			return 0, 0, false
		}
		u = u*10 + uint64(b[n]-'0')
		n++
	}
	digits := n - start
	if digits == 0 || digits > 19 || (digits > 1 && b[start] == '0') {
		return 0, 0, false
	}
	if neg {
		if u > 1<<63 {
			return 0, 0, false
		}
		return -int64(u), n, true // -(1<<63) wraps to itself
	}
	if u > math.MaxInt64 {
		return 0, 0, false
	}
	return int64(u), n, true
}

// errLongLine is the error of a line over MaxRecordLine.
var errLongLine = fmt.Errorf("a line over %d MiB, toksweep's bound", MaxRecordLine>>20)

// readLine is bufio.Reader.ReadBytes('\n') that fails with errLongLine
// once the line passes limit bytes, having read no more than limit plus
// one buffer of it.
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(line)+len(frag) > limit {
			return nil, errLongLine
		}
		line = append(line, frag...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, err
		}
	}
}

// eachLine hands each non-blank line of r, with its byte offset, to f
// until f returns false or an error, or the lines end. An error of f names
// the 1-based line; on a last line with no newline that is not whole JSON
// it matches ErrPartialLastLine.
func eachLine(r io.Reader, f func(line []byte, off int64) (bool, error)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var off int64
	for n := 1; ; n++ {
		// A long stream's record holds one offset per chunk, so lines are
		// long, but within MaxRecordLine.
		line, err := readLine(br, MaxRecordLine)
		if len(bytes.TrimSpace(line)) > 0 {
			more, ferr := f(line, off)
			if ferr != nil {
				if errors.Is(err, io.EOF) && line[len(line)-1] != '\n' && !json.Valid(line) {
					return fmt.Errorf("line %d: %w", n, ErrPartialLastLine)
				}
				return fmt.Errorf("line %d: %w", n, ferr)
			}
			if !more {
				return nil
			}
		}
		off += int64(len(line))
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
	}
}
