package report

import (
	"cmp"
	"strconv"
	"time"
)

// Value is one level's value of one column, before formatting: a number,
// a count, a text, a boolean, a JSON-only object, or no value (the zero
// Value). Column formats it for each output under the one "no value" rule.
type Value struct {
	kind valueKind
	num  float64
	n    int
	text string
	flag bool
	obj  any
}

type valueKind int

const (
	noValue valueKind = iota
	numberValue
	countValue
	textValue
	flagValue
	objectValue // summary.json only: marshalled as is
)

// number is a rate, mean or fraction; NaN and ±Inf are no value.
func number(v float64) Value {
	if !defined(v) {
		return Value{}
	}
	return Value{kind: numberValue, num: v}
}

// millis is a time figure in milliseconds; NoSample is no value.
func millis(d time.Duration) Value { return number(Ms(d)) }

func count(n int) Value    { return Value{kind: countValue, n: n} }
func text(s string) Value  { return Value{kind: textValue, text: s} }
func boolean(b bool) Value { return Value{kind: flagValue, flag: b} }
func object(v any) Value   { return Value{kind: objectValue, obj: v} }
func countIf(ok bool, n int) Value {
	if !ok {
		return Value{}
	}
	return count(n)
}

// csv formats v as a levels.csv cell: no value is the empty cell.
func (v Value) csv(decimals int) string {
	switch v.kind {
	case numberValue:
		return CSVNum(v.num, decimals)
	case countValue:
		return strconv.Itoa(v.n)
	case textValue:
		return v.text
	case flagValue:
		return strconv.FormatBool(v.flag)
	}
	return ""
}

// json is v in summary.json: no value is null.
func (v Value) json(decimals int) any {
	switch v.kind {
	case numberValue:
		return rounded(v.num, decimals)
	case countValue:
		return v.n
	case textValue:
		return v.text
	case flagValue:
		return v.flag
	case objectValue:
		return v.obj
	}
	return nil
}

// people formats v for the console and report.html: no value (and empty
// text) is NoValue.
func (v Value) people(decimals int) string {
	switch v.kind {
	case numberValue:
		return Num(v.num, decimals)
	case countValue:
		return strconv.Itoa(v.n)
	case textValue:
		return cmp.Or(v.text, NoValue)
	case flagValue:
		return strconv.FormatBool(v.flag)
	}
	return NoValue
}
