// Package app is toksweep's command line: it defines the commands and flags,
// turns flags into checked configurations, wires client, sweep, report and
// the simulator together, and maps every outcome to an exit status. It
// writes everything the user reads, but one line: main, which adds signals
// and os.Exit, says so itself when a second interrupt exits at once.
package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"unicode"

	"github.com/urfave/cli/v2"

	"github.com/toksweep/toksweep/mode"
	_ "github.com/toksweep/toksweep/mode/builtin" // the built-in modes register themselves
)

// Exit statuses, documented in the README.
const (
	ExitOK          = 0   // the sweep completed (some requests may have failed: failures are data)
	ExitFailure     = 1   // fatal: unreachable server, no successful request, output not writable
	ExitUsage       = 2   // bad flags or values, unknown command
	ExitSLOFailed   = 3   // --fail-on-slo: a level failed the SLO; the files are complete
	ExitInterrupted = 130 // interrupted by SIGINT/SIGTERM/SIGHUP; finished levels are on disk
)

// UsageError is a mistake in the command line. It is reported in one line
// and exits with status 2.
type UsageError = mode.UsageError

func usagef(format string, args ...any) error { return mode.Usagef(format, args...) }

// ErrInterrupted is the cancellation cause main sets on SIGINT, SIGTERM or
// SIGHUP.
var ErrInterrupted = errors.New("interrupted")

// New builds the toksweep command-line application. Output goes to stdout
// (tables) and stderr (progress, warnings, errors).
// Each command binds its flags into a fresh options struct, so an App
// runs one command line: build a new one per run.
func New(stdout, stderr io.Writer) *cli.App {
	commands := []*cli.Command{sweepCommand(stdout, stderr), serveSimCommand(stderr), reportCommand(stdout, stderr), compareCommand(stdout, stderr), planCommand(stdout, stderr), mergeCommand(stdout, stderr), completionCommand(stdout)}
	commands = append(commands, fitCommand(stdout, stderr))
	for _, c := range commands {
		c.Flags = withNames(c.Flags)
		h := cliHelp
		c.Subcommands = append(c.Subcommands, &h)
	}
	return &cli.App{
		Name:                 "toksweep",
		Usage:                "concurrency sweeps of OpenAI-compatible LLM servers, with exact per-stream and aggregate token rates",
		Version:              Version(),
		Writer:               stdout,
		ErrWriter:            stderr,
		HideHelpCommand:      true,
		EnableBashCompletion: true,
		Commands:             commands,
		OnUsageError:         onUsageError,
		ExitErrHandler:       func(*cli.Context, error) {}, // exit statuses are decided by Exit
		Action: func(c *cli.Context) error {
			if name := c.Args().First(); c.Args().Present() {
				if s := closestCommand(c.App.Commands, name); s != "" {
					return usagef("unknown command %q (did you mean %s? see 'toksweep --help')", name, s)
				}
				return usagef("unknown command %q (commands: sweep, serve-sim, report, compare, plan, merge, completion, fit; see 'toksweep --help')", name)
			}
			return cli.ShowAppHelp(c)
		},
		// --header is the only slice flag, and a header value may hold
		// commas ("Accept: a, b"): one --header is one header.
		DisableSliceFlagSeparator: true,
	}
}

// urfave/cli adds its package-level HelpFlag and VersionFlag to every App
// and command it runs, and BoolFlag.Apply writes into the flag it is
// called on: two Apps running at once (the in-process tests) would write
// the same flag. From here on each run applies a copy of them; nothing
// writes cli.HelpFlag or cli.VersionFlag again.
func init() {
	for _, f := range []*cli.Flag{&cli.HelpFlag, &cli.VersionFlag, &cli.BashCompletionFlag} {
		b := (*f).(*cli.BoolFlag)
		*f = &applyCopy{b, b.Names()}
	}
}

// cliHelp is a copy of urfave/cli's "help" subcommand ("toksweep sweep
// help"). cli adds its one package-level help command to each command
// that lacks one, and writes into it (HelpName) on every run: New gives
// each command its own copy instead, itself without one. A first run of a probe App is the
// only way to reach cli's unexported command.
var cliHelp = func() cli.Command {
	probe := &cli.App{Name: "probe", Writer: io.Discard, ErrWriter: io.Discard, HideHelpCommand: true,
		ExitErrHandler: func(*cli.Context, error) {},
		Commands:       []*cli.Command{{Name: "c", Action: func(*cli.Context) error { return nil }}}}
	_ = probe.Run([]string{"probe", "c"})
	h := *probe.Commands[0].Subcommands[0]
	h.HelpName = ""          // the probe's; each run sets its own
	h.HideHelpCommand = true // or cli would add its shared one to the copy
	return h
}()

// applyCopy is a shared BoolFlag that each run applies as its own copy.
// Its names are kept, as namedFlag keeps a command's (app/flagnames.go).
type applyCopy struct {
	*cli.BoolFlag
	names []string
}

func (f applyCopy) Names() []string { return f.names }

func (f applyCopy) Apply(set *flag.FlagSet) error {
	c := *f.BoolFlag
	return c.Apply(set)
}

// GetDefaultText is empty: cli omits a bool flag's default only when the
// flag is a *cli.BoolFlag with DisableDefaultText, which both flags have.
func (f applyCopy) GetDefaultText() string { return "" }

func onUsageError(c *cli.Context, err error, _ bool) error {
	return flagProblem(c, err)
}

// Exit writes err as one line on stderr and returns the exit status for it.
// It is the one place errors reach the user, so it is where one line is
// guaranteed: whatever built the message (errors.Join, a server's words, a
// value the user typed), its lines are joined with "; " (see oneLine).
func Exit(ctx context.Context, err error, stderr io.Writer) int {
	if err == nil {
		return ExitOK
	}
	var ue *UsageError
	switch {
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "toksweep: %s\n", oneLine(ue.Msg))
		return ExitUsage
	case errors.Is(err, ErrInterrupted): // the sweep says where its levels are
		fmt.Fprintf(stderr, "toksweep: %s\n", oneLine(err.Error()))
		return ExitInterrupted
	case errors.As(err, new(*SLOFailure)):
		fmt.Fprintf(stderr, "toksweep: %s\n", oneLine(err.Error()))
		return ExitSLOFailed
	case errors.Is(context.Cause(ctx), ErrInterrupted): // before any level
		fmt.Fprintln(stderr, "toksweep: interrupted")
		return ExitInterrupted
	default:
		fmt.Fprintf(stderr, "toksweep: %s\n", oneLine(err.Error()))
		return ExitFailure
	}
}

// oneLine makes a message one line without dropping any of it: its lines
// (split at any line break, Unicode's included) are trimmed and joined with
// "; ", empty ones left out, and other control characters (a tab, a
// terminal escape) become spaces.
func oneLine(s string) string {
	var b strings.Builder
	for _, l := range strings.FieldsFunc(s, isLineBreak) {
		l = strings.TrimSpace(strings.Map(controlToSpace, l))
		if l == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		b.WriteString(l)
	}
	return b.String()
}

func isLineBreak(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', '\u0085', '\u2028', '\u2029':
		return true
	}
	return false
}

func controlToSpace(r rune) rune {
	if unicode.IsControl(r) {
		return ' '
	}
	return r
}

// version and revision, when set at link time, take precedence over the
// build information: deploy/release stamps a release build with
// -ldflags "-X github.com/toksweep/toksweep/app.version=v1.2.0
// -X github.com/toksweep/toksweep/app.revision=COMMIT".
var version, revision string

// Version is what `toksweep --version` prints and summary.json records:
// the version stamped at link time, else the module version ("dev" for a
// development build), and the revision stamped at link time, else the VCS
// revision when the binary was built from a checkout, with "modified" when
// the tree had uncommitted changes: "v1.2.0 (revision 53571c6a1b2c)",
// "dev (revision 53571c6a1b2c, modified)".
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = &debug.BuildInfo{}
	}
	return versionOf(version, revision, bi)
}

// versionOf is Version from the link-time stamps (empty when unset) and
// the build information.
func versionOf(stampedVersion, stampedRevision string, bi *debug.BuildInfo) string {
	v := stampedVersion
	if v == "" {
		v = bi.Main.Version
	}
	if v == "" || v == "(devel)" {
		v = "dev"
	}
	rev := stampedRevision
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			if stampedRevision == "" {
				rev = s.Value
			}
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	rev = rev[:min(len(rev), 12)]
	switch {
	case rev == "":
		return v
	case modified:
		return v + " (revision " + rev + ", modified)"
	}
	return v + " (revision " + rev + ")"
}
