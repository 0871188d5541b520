package mode

import (
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
)

// MaxLevel bounds a concurrency level (and an open loop's cap): each
// worker holds a goroutine, a connection and its buffers, and a mistyped
// 10000000 must be a usage error, not an out-of-memory crash.
const MaxLevel = 100000

// Given is a flag Action recording in *set that the flag was given, where
// an absent flag and its default differ.
func Given[T any](set *bool) func(*cli.Context, T) error {
	return func(*cli.Context, T) error { *set = true; return nil }
}

// JoinInts is ns comma-separated: "1,2,4".
func JoinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}
