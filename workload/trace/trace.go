package trace

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/toksweep/toksweep/internal/english"
	"github.com/toksweep/toksweep/workload"
)

// Format names a trace format, the values of --trace-format.
type Format string

// The trace formats.
const (
	Mooncake Format = "mooncake"
	Bailian  Format = "bailian"
	Azure    Format = "azure"
	BurstGPT Format = "burstgpt"
)

// Formats lists the formats in the order the docs give them.
var Formats = []Format{Mooncake, Bailian, Azure, BurstGPT}

// BlockSize is the tokens one hash id stands for, by format (the formats
// without hash ids have none).
func (f Format) BlockSize() int {
	switch f {
	case Mooncake:
		return 512
	case Bailian:
		return 16
	}
	return 0
}

// ParseFormat checks a --trace-format value ("" or "auto": detect).
func ParseFormat(s string) (Format, error) {
	if s == "" || s == "auto" {
		return "", nil
	}
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown trace format %q (want auto, mooncake, bailian, azure or burstgpt)", s)
}

// Bounds on a trace beyond workload's: the longest span a trace may cover
// (a mistyped timestamp must not make a replay last centuries), the largest
// hash id (exact in a float64, as JSON readers see it).
const (
	MaxSpan   = 366 * 24 * time.Hour
	MaxHashID = 1<<53 - 1
)

// NoParent is the Parent of a request that starts a conversation, or of any
// request of a format without sessions.
const NoParent = -1

// Request is one request of a trace.
type Request struct {
	Line   int           // 1-based line of the file
	At     time.Duration // from the trace's first request
	Input  int           // prompt tokens
	Output int           // output tokens
	Hashes []int64       // the prompt's blocks, BlockSize tokens each (the last may be partial); nil without hash ids
	// ID and Parent are Bailian's chat_id and parent_chat_id (NoParent for
	// a first turn); Turn its turn. Other formats: ID is the index, Parent
	// NoParent, Turn 0.
	ID, Parent int64
	Turn       int
}

// Skip is a line that was skipped, and why.
type Skip struct {
	Line int
	Why  string
}

// Trace is a parsed trace.
type Trace struct {
	Name      string
	Format    Format
	BlockSize int // tokens per hash id; 0 for a format without hash ids
	Requests  []Request
	Skipped   []Skip
}

// Options are the reader's choices: a forced format (detected when empty)
// and a block size (the format's when 0).
type Options struct {
	Format    Format
	BlockSize int
}

// MaxBlockSize bounds --trace-block-size.
const MaxBlockSize = 1 << 20

// ReadFile reads the trace at path within the bounds.
func ReadFile(path string, o Options) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path, o)
}

// errTooLarge is a trace over workload.MaxDatasetBytes.
var errTooLarge = fmt.Errorf("larger than %d MiB, toksweep's bound on a trace", workload.MaxDatasetBytes>>20)

// Read reads a trace from r; name is used in errors ("NAME:LINE: why").
func Read(r io.Reader, name string, o Options) (*Trace, error) {
	if o.BlockSize < 0 || o.BlockSize > MaxBlockSize {
		return nil, fmt.Errorf("trace block size %d: want 1 to %d tokens", o.BlockSize, MaxBlockSize)
	}
	br := bufio.NewReaderSize(&limited{r: r, n: workload.MaxDatasetBytes}, 64<<10)
	if bom, _ := br.Peek(3); string(bom) == "\xef\xbb\xbf" {
		_, _ = br.Discard(3)
	}
	f := o.Format
	if f == "" {
		head, _ := br.Peek(64 << 10)
		var err error
		if f, err = Detect(head); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	t := &Trace{Name: name, Format: f, BlockSize: cmpOr(o.BlockSize, f.BlockSize())}
	var err error
	switch f {
	case Mooncake, Bailian:
		err = readJSONL(br, t)
	case Azure, BurstGPT:
		err = readCSV(br, t)
	default:
		err = fmt.Errorf("unknown trace format %q", f)
	}
	if err != nil {
		return nil, err
	}
	if len(t.Requests) == 0 {
		return nil, fmt.Errorf("%s: no requests to replay (%s skipped)", name, english.Plural(len(t.Skipped), "line"))
	}
	rebase(t.Requests)
	if span := t.Requests[len(t.Requests)-1].At; span > MaxSpan {
		return nil, fmt.Errorf("%s: spans %v, over %v, toksweep's bound on a trace", name, span.Round(time.Hour), MaxSpan)
	}
	return t, nil
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// rebase sorts the requests by instant (stably) and makes the first one 0.
func rebase(rs []Request) {
	slices.SortStableFunc(rs, func(a, b Request) int { return int(a.At - b.At) })
	first := rs[0].At
	for i := range rs {
		rs[i].At -= first
	}
}

// Detect names the format of a trace from its first non-blank line (and the
// header of a CSV).
func Detect(head []byte) (Format, error) {
	line := head
	for len(line) > 0 {
		var l []byte
		l, line, _ = bytes.Cut(line, []byte("\n"))
		l = bytes.TrimSpace(l)
		if len(l) == 0 {
			continue
		}
		s := string(l)
		switch {
		case l[0] == '{' && strings.Contains(s, `"chat_id"`):
			return Bailian, nil
		case l[0] == '{' && strings.Contains(s, `"hash_ids"`) || l[0] == '{' && strings.Contains(s, `"input_length"`):
			return Mooncake, nil
		case strings.Contains(s, "ContextTokens") && strings.Contains(s, "GeneratedTokens"):
			return Azure, nil
		case strings.Contains(s, "Request tokens") && strings.Contains(s, "Response tokens"):
			return BurstGPT, nil
		}
		break
	}
	return "", errors.New("not a trace toksweep knows (Mooncake or Bailian JSONL, Azure or BurstGPT CSV with its header); --trace-format names it")
}

// limited reads r, failing with errTooLarge once more than n bytes would be
// read (a device given as a file must not be read without end).
type limited struct {
	r io.Reader
	n int64
}

func (l *limited) Read(p []byte) (int, error) {
	if l.n < 0 {
		return 0, errTooLarge
	}
	p = p[:min(int64(len(p)), l.n+1)]
	k, err := l.r.Read(p)
	l.n -= int64(k)
	if l.n < 0 {
		return 0, errTooLarge
	}
	return k, err
}

// lines calls each with every non-blank line of r and its 1-based number,
// within the bounds on a line and on the requests.
func lines(r io.Reader, t *Trace, each func(line []byte, no int) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), workload.MaxPromptBytes)
	no := 1
	for ; sc.Scan(); no++ {
		l := bytes.TrimSpace(sc.Bytes())
		if len(l) == 0 {
			continue
		}
		if len(t.Requests) == workload.MaxPrompts {
			return fmt.Errorf("%s:%d: more than %d requests, toksweep's bound on a trace", t.Name, no, workload.MaxPrompts)
		}
		if err := each(l, no); err != nil {
			return fmt.Errorf("%s:%d: %w", t.Name, no, err)
		}
	}
	switch err := sc.Err(); {
	case errors.Is(err, bufio.ErrTooLong):
		return fmt.Errorf("%s:%d: line longer than %d MiB, toksweep's bound on one line", t.Name, no, workload.MaxPromptBytes>>20)
	case errors.Is(err, errTooLarge):
		return fmt.Errorf("%s: %w", t.Name, err)
	case err != nil:
		return fmt.Errorf("%s:%d: %w", t.Name, no, err)
	}
	return nil
}

// add checks a request's lengths and hash ids and keeps it, or skips it
// when its output length is 0 (nothing to replay).
func (t *Trace) add(r Request) error {
	switch {
	case r.Output == 0:
		t.Skipped = append(t.Skipped, Skip{Line: r.Line, Why: "output length 0"})
		return nil
	case r.Input < 1 || r.Input > workload.MaxInputTokens:
		return fmt.Errorf("input length %d: want 1 to %d", r.Input, workload.MaxInputTokens)
	case r.Output < 0 || r.Output > workload.MaxOutputTokens:
		return fmt.Errorf("output length %d: want 1 to %d", r.Output, workload.MaxOutputTokens)
	}
	if t.BlockSize > 0 {
		if blocks := (r.Input + t.BlockSize - 1) / t.BlockSize; len(r.Hashes) > blocks {
			return fmt.Errorf("%d hash ids for %d input tokens: at most %d blocks of %d tokens (--trace-block-size)", len(r.Hashes), r.Input, blocks, t.BlockSize)
		}
	}
	for _, h := range r.Hashes {
		if h < 0 || h > MaxHashID {
			return fmt.Errorf("hash id %d: want 0 to 2^53-1", h)
		}
	}
	t.Requests = append(t.Requests, r)
	return nil
}

// seconds converts a timestamp in seconds, checking its bounds.
func seconds(v float64, what string) (time.Duration, error) {
	if !(v >= 0) || v > MaxSpan.Seconds() {
		return 0, fmt.Errorf("%s %v: want 0 to %v seconds", what, v, MaxSpan.Seconds())
	}
	return time.Duration(v * float64(time.Second)), nil
}
