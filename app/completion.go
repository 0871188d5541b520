package app

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"
)

// completionCommand is `toksweep completion bash|zsh|fish`: the shell's
// completion script on stdout. Bash and zsh ask toksweep itself for the
// words (cli's --generate-bash-completion); fish gets every command and
// flag written out (cli's ToFishCompletion).
func completionCommand(stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print the shell completion script for bash, zsh or fish",
		UsageText: "toksweep completion bash|zsh|fish\n\nsource <(toksweep completion bash)    # bash, or zsh\ntoksweep completion fish > ~/.config/fish/completions/toksweep.fish",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("completion takes one shell: bash, zsh or fish")
			}
			var script string
			switch shell := c.Args().First(); shell {
			case "bash":
				script = bashCompletion
			case "zsh":
				script = "autoload -U +X bashcompinit && bashcompinit\n" + bashCompletion
			case "fish":
				s, err := c.App.ToFishCompletion()
				if err != nil {
					return err
				}
				script = s
			default:
				return usagef("unknown shell %q: want bash, zsh or fish", shell)
			}
			_, err := fmt.Fprint(stdout, script)
			return err
		},
	}
}

// bashCompletion completes a toksweep command line with the words
// toksweep gives for it: its commands, or a command's flags after a "-".
const bashCompletion = `_toksweep_complete() {
  local word="${COMP_WORDS[COMP_CWORD]}" words
  if [[ "$word" == -* ]]; then
    words=$("${COMP_WORDS[@]:0:COMP_CWORD}" "$word" --generate-bash-completion 2>/dev/null)
  else
    words=$("${COMP_WORDS[@]:0:COMP_CWORD}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=($(compgen -W "$words" -- "$word"))
}
complete -o bashdefault -o default -F _toksweep_complete toksweep
`
