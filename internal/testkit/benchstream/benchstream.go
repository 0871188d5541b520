package benchstream

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Chunks is the number of token chunks in the stream.
const Chunks = 2000

// Transcript is the recorded stream Build starts from, under the module's
// testdata/transcripts.
const Transcript = "llmd-chat-stream-usage.sse"

// Load builds the stream from Transcript; root is the module root
// relative to the calling test's package ("..").
func Load(tb testing.TB, root string) []byte {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "testdata", "transcripts", Transcript))
	if err != nil {
		tb.Fatal(err)
	}
	return Build(raw)
}

// Build returns a stream in the recorded format of transcript (llm-d's,
// read from Transcript): its role chunk, Chunks content chunks (the first
// content chunk with its text cycled through a few words, escapes
// included), its finish chunk, a usage chunk and [DONE].
func Build(transcript []byte) []byte {
	var events [][]byte
	for _, e := range bytes.SplitAfter(transcript, []byte("\n\n")) {
		if len(bytes.TrimSpace(e)) > 0 {
			events = append(events, e)
		}
	}
	role, content, finish := events[0], string(events[1]), events[len(events)-3]
	words := []string{"Today ", "it ", "is ", "partially ", "cloudy ", "and ", "the", " answer", "\\n\\n", "\\\"x\\\""}
	var b bytes.Buffer
	b.Write(role)
	for i := range Chunks {
		b.WriteString(strings.Replace(content, `"Today "`, `"`+words[i%len(words)]+`"`, 1))
	}
	b.Write(finish)
	fmt.Fprintf(&b, "data: {\"id\":\"x\",\"usage\":{\"prompt_tokens\":6,\"completion_tokens\":%d},\"choices\":[]}\n\n", Chunks)
	b.WriteString("data: [DONE]\n\n")
	return b.Bytes()
}
