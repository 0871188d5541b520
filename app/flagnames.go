package app

import "github.com/urfave/cli/v2"

// namedFlag is a flag whose names are worked out once, when first asked
// (only the command that runs asks). urfave/cli v2 asks a flag for its
// names (cli.FlagNames, a regexp replace per name) whenever it looks a flag
// up by name, and before every command it runs it looks up each flag that
// is not on the command line by walking the command's flags: the square of
// the flags in regexp runs, about 4,000 for a sweep (a few milliseconds;
// 58 times that under -race). With the names kept, a lookup compares
// strings.
type namedFlag struct {
	plainFlag
	names []string
}

// plainFlag is what every one of cli's single-value flag types implements,
// and all that cli asks of one (a slice flag also takes cli's separator
// setting, which is unexported: it stays as it is).
type plainFlag interface {
	cli.ActionableFlag
	cli.RequiredFlag
	cli.CategorizableFlag
	cli.DocGenerationFlag
}

// Names is the flag's names. An App runs one command line, on one
// goroutine: nothing asks at once.
func (f *namedFlag) Names() []string {
	if f.names == nil {
		f.names = f.plainFlag.Names()
	}
	return f.names
}

// withNames returns flags with each single-value flag's names kept
// (namedFlag); the flags themselves, and so their Destinations and Actions,
// are the same.
func withNames(flags []cli.Flag) []cli.Flag {
	out := make([]cli.Flag, len(flags))
	for i, f := range flags {
		out[i] = f
		if s, ok := f.(cli.DocGenerationSliceFlag); ok && s.IsSliceFlag() {
			continue
		}
		if p, ok := f.(plainFlag); ok {
			out[i] = &namedFlag{plainFlag: p}
		}
	}
	return out
}

// unnamed is the flag namedFlag holds, or f itself.
func unnamed(f cli.Flag) cli.Flag {
	if n, ok := f.(*namedFlag); ok {
		return n.plainFlag
	}
	return f
}
