package trace

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// csvColumns are the header names a CSV format needs: the timestamp, the
// input and the output length.
var csvColumns = map[Format][3]string{
	Azure:    {"TIMESTAMP", "ContextTokens", "GeneratedTokens"},
	BurstGPT: {"Timestamp", "Request tokens", "Response tokens"},
}

// azureLayouts are the timestamp layouts of the Azure traces (2023 has
// seven fractional digits, 2024 may carry a zone).
var azureLayouts = []string{"2006-01-02 15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999-07:00", time.RFC3339Nano}

// readCSV reads an Azure or a BurstGPT trace: a header line, then one
// request per line. Instants are relative to the first (rebase).
func readCSV(r io.Reader, t *Trace) error {
	var (
		col   [3]int
		epoch time.Time // Azure: the first timestamp, so instants stay in range
	)
	header := true
	return lines(r, t, func(l []byte, no int) error {
		cr := csv.NewReader(bytes.NewReader(l))
		cr.FieldsPerRecord = -1
		fields, err := cr.Read()
		if err != nil {
			return fmt.Errorf("invalid CSV: %v", unwrapCSV(err))
		}
		if header {
			header = false
			return t.findColumns(fields, &col)
		}
		get := func(k int) (string, error) {
			if col[k] >= len(fields) {
				return "", fmt.Errorf("no %q field (%d fields)", csvColumns[t.Format][k], len(fields))
			}
			return strings.TrimSpace(fields[col[k]]), nil
		}
		var vals [3]string
		for k := range vals {
			if vals[k], err = get(k); err != nil {
				return err
			}
		}
		in, err := csvInt(vals[1], csvColumns[t.Format][1])
		if err != nil {
			return err
		}
		out, err := csvInt(vals[2], csvColumns[t.Format][2])
		if err != nil {
			return err
		}
		req := Request{Line: no, Input: in, Output: out, ID: int64(len(t.Requests)), Parent: NoParent}
		if t.Format == BurstGPT {
			if out == 0 {
				t.Skipped = append(t.Skipped, Skip{Line: no, Why: "a failed request (Response tokens 0)"})
				return nil
			}
			v, err := strconv.ParseFloat(vals[0], 64)
			if err != nil {
				return fmt.Errorf("column Timestamp %.40q: want seconds", vals[0])
			}
			if req.At, err = seconds(v, "Timestamp"); err != nil {
				return err
			}
			return t.add(req)
		}
		at, err := azureTime(vals[0])
		if err != nil {
			return err
		}
		if epoch.IsZero() {
			epoch = at
		}
		d := at.Sub(epoch)
		if d < -MaxSpan || d > MaxSpan {
			return fmt.Errorf("TIMESTAMP %s is more than %v from the first one", vals[0], MaxSpan)
		}
		req.At = d
		return t.add(req)
	})
}

// findColumns locates the format's columns in a header line.
func (t *Trace) findColumns(fields []string, col *[3]int) error {
	cols := csvColumns[t.Format]
	for k, want := range cols {
		col[k] = -1
		for i, f := range fields {
			if strings.EqualFold(strings.TrimSpace(f), want) {
				col[k] = i
			}
		}
		if col[k] < 0 {
			return fmt.Errorf("the header has no %q column (want %s)", want, strings.Join(cols[:], ","))
		}
	}
	return nil
}

func azureTime(s string) (time.Time, error) {
	for _, layout := range azureLayouts {
		if at, err := time.Parse(layout, s); err == nil {
			return at, nil
		}
	}
	return time.Time{}, fmt.Errorf("TIMESTAMP %.40q: want a time such as 2023-11-16 18:15:46.6805900", s)
}

// csvInt parses a token count (a whole number; "12.0" is accepted, as
// some exports write it).
func csvInt(s, what string) (int, error) {
	if n, err := strconv.Atoi(s); err == nil {
		return n, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != float64(int64(f)) || f < -1e15 || f > 1e15 {
		return 0, fmt.Errorf("%s %.40q: want a whole number of tokens", what, s)
	}
	return int(f), nil
}

func unwrapCSV(err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
