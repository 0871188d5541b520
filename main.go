// Command toksweep runs concurrency sweeps against OpenAI-compatible LLM
// servers and reports, per level, what one user sees (time to first token,
// decode and end-to-end token rates) and what the server delivers in total.
//
// main only wires signals and the exit status; the command line lives in
// package app.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/toksweep/toksweep/app"
)

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)

	// The first SIGINT/SIGTERM cancels the run: in-flight requests stop, the
	// partial level is written, and toksweep exits 130. A second one exits at
	// once.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		cancel(app.Interrupted)
		<-sigs
		fmt.Fprintln(os.Stderr, "toksweep: second interrupt; exiting without finishing the files")
		os.Exit(app.ExitInterrupted)
	}()

	err := app.New(os.Stdout, os.Stderr).RunContext(ctx, os.Args)
	os.Exit(app.Exit(ctx, err, os.Stderr))
}
