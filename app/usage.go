package app

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/urfave/cli/v2"
)

// Go's flag package words its parse errors for Go programmers ("flag
// provided but not defined: -levl", "invalid value "abc" for flag -requests:
// parse error"). flagProblem rewrites them as one line that names the flag
// the way the user typed it (--levels) and says what it accepts.
var (
	reUnknownFlag = regexp.MustCompile(`^flag provided but not defined: -+((?s).+)$`)
	reBadValue    = regexp.MustCompile(`^invalid (?:boolean )?value ("(?:[^"\\]|\\.)*") for (?:flag )?-+([^:]+): (.*)$`)
	reNoArgument  = regexp.MustCompile(`^flag needs an argument: -+(.+)$`)
)

// flagProblem turns a flag-parsing error of command c into a UsageError.
func flagProblem(c *cli.Context, err error) *UsageError {
	msg := err.Error()
	help := helpHint(c)
	var flags []cli.Flag
	if c != nil && c.Command != nil {
		flags = c.Command.Flags
	}
	if m := reUnknownFlag.FindStringSubmatch(msg); m != nil {
		return usageMsg("unknown flag %s%s", flagShown(m[1]), unknownFlagHint(c, flags, m[1], help))
	}
	if m := reBadValue.FindStringSubmatch(msg); m != nil {
		want := wantOf(findFlag(flags, m[2]))
		switch {
		case want == "":
			want = m[3]
		case strings.Contains(m[3], "out of range"):
			want += " (out of range)"
		}
		return usageMsg("invalid --%s %s: want %s", m[2], m[1], want)
	}
	if m := reNoArgument.FindStringSubmatch(msg); m != nil {
		f := findFlag(flags, m[1])
		if want := wantOf(f); want != "" {
			return usageMsg("--%s needs a value: %s", m[1], want)
		}
		if u, ok := f.(cli.DocGenerationFlag); ok && u.GetUsage() != "" {
			return usageMsg("--%s needs a value: %s", m[1], u.GetUsage())
		}
		return usageMsg("--%s needs a value (%s)", m[1], help)
	}
	return usageMsg("%s (%s)", oneLine(msg), help)
}

// flagShown is an unknown flag as typed, quoted when it holds a space or
// a character that does not print.
func flagShown(name string) string {
	if strings.ContainsFunc(name, func(r rune) bool { return r == ' ' || !unicode.IsPrint(r) }) {
		return fmt.Sprintf("%q", "--"+name)
	}
	return "--" + name
}

func usageMsg(format string, args ...any) *UsageError {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// helpHint points at the help of the command being parsed.
func helpHint(c *cli.Context) string {
	if c != nil && c.Command != nil && c.Command.Name != "" && (c.App == nil || c.Command.Name != c.App.Name) {
		return "see 'toksweep " + c.Command.Name + " --help'"
	}
	return "see 'toksweep --help'"
}

// unknownFlagHint suggests the closest flag of the command, or the command a
// flag belongs to when it was given before the command.
func unknownFlagHint(c *cli.Context, flags []cli.Flag, name, help string) string {
	if s := closestFlag(flags, name); s != "" {
		return fmt.Sprintf(" (did you mean --%s? %s)", s, help)
	}
	if c != nil && c.App != nil && c.Command != nil && c.Command.Name == c.App.Name {
		for _, cmd := range c.App.Commands {
			if findFlag(cmd.Flags, name) != nil {
				return fmt.Sprintf(": flags go after the command, as in 'toksweep %s --%s ...'", cmd.Name, name)
			}
		}
	}
	return " (" + help + ")"
}

// closestFlag returns urfave/cli's suggestion for a mistyped flag name
// (cli.SuggestFlag, by Jaro-Winkler similarity), without its dashes, or ""
// when it is not a likely typo.
func closestFlag(flags []cli.Flag, name string) string {
	if cli.SuggestFlag == nil {
		return ""
	}
	return likelyTypo(name, strings.TrimLeft(cli.SuggestFlag(flags, name, true), "-"))
}

// closestCommand returns urfave/cli's suggestion for a mistyped command
// (cli.SuggestCommand), or "" when it is not a likely typo.
func closestCommand(cmds []*cli.Command, name string) string {
	var visible []*cli.Command
	for _, c := range cmds {
		if !c.Hidden {
			visible = append(visible, c)
		}
	}
	if cli.SuggestCommand == nil {
		return ""
	}
	// SuggestCommand words its answer with cli.SuggestDidYouMeanTemplate
	// and also weighs the help command; keep the name, and only ours.
	var s string
	if _, err := fmt.Sscanf(cli.SuggestCommand(visible, name), cli.SuggestDidYouMeanTemplate, &s); err != nil {
		return ""
	}
	for _, c := range visible {
		if c.HasName(s) {
			return likelyTypo(name, s)
		}
	}
	return ""
}

// likelyTypo keeps a suggestion only when it starts like what was typed:
// Jaro-Winkler always names the nearest candidate, however far it is, and
// "--bogus" deserves no "did you mean --burstiness?". A typo keeps the first
// two characters ("--level", "swep"); a one-letter name must match that.
func likelyTypo(typed, suggestion string) string {
	n := min(2, len(typed))
	if len(suggestion) < 2 || n == 0 || !strings.HasPrefix(suggestion, typed[:n]) {
		return ""
	}
	return suggestion
}

// findFlag is the flag of flags named name, as built (not its namedFlag),
// or nil.
func findFlag(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return unnamed(f)
			}
		}
	}
	return nil
}

// wantOf says what a flag of f's type accepts; "" when unknown.
func wantOf(f cli.Flag) string {
	switch f.(type) {
	case *cli.IntFlag, *cli.Int64Flag, *cli.UintFlag, *cli.Uint64Flag:
		return "an integer"
	case *cli.Float64Flag:
		return "a number"
	case *cli.DurationFlag:
		return "a duration such as 500ms, 90s or 5m"
	case *cli.BoolFlag:
		return "true or false"
	}
	return ""
}
