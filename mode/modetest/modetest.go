// Package modetest runs a mode's flags as app does, for the modes' tests:
// bound into a Line, through a real urfave/cli command, then the mode's
// first pass.
package modetest

import (
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/mode"
)

// Mode is what Parse needs of a mode: its flags and its first pass.
type Mode interface {
	Flags(l *mode.Line) []cli.Flag
	Parse(l *mode.Line) error
}

// Parse binds m's flags into l (nil: a fresh Line), runs args through a
// real urfave/cli command and then m's Parse, whose error it returns. A
// flag cli refuses fails the test.
func Parse(t testing.TB, m Mode, l *mode.Line, args ...string) (*mode.Line, error) {
	t.Helper()
	if l == nil {
		l = &mode.Line{}
	}
	// HideHelp: cli's shared help flag would be written by every test
	// running at once.
	app := &cli.App{Name: "t", HideHelp: true, Flags: m.Flags(l), Action: func(*cli.Context) error { return nil }}
	if err := app.Run(append([]string{"t"}, args...)); err != nil {
		t.Fatalf("flags %q: %v", args, err)
	}
	return l, m.Parse(l)
}
