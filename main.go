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
	"time"

	"github.com/toksweep/toksweep/app"
)

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)

	// The first SIGINT/SIGTERM/SIGHUP cancels the run: in-flight requests stop, the
	// partial level is written, and toksweep exits 130; any other command
	// (or a sweep not yet writing its run) exits 130 within
	// app.PromptExitWait. Signals within
	// app.SignalDebounce of the first are the same interrupt (timeout(1)
	// signals the child and then its whole process group, so one interrupt
	// arrives twice). A later one exits without finishing the run, but
	// only once the file being written is whole (bounded by
	// app.HardExitWait), so every file stays valid.
	// A closed terminal (SIGHUP) is an interrupt too, so a dropped ssh
	// session still leaves a finished run directory; and a closed pipe on
	// stdout or stderr (| head) makes writes fail instead of killing the
	// process before its files are finished.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	signal.Ignore(syscall.SIGPIPE)
	go func() {
		<-sigs
		first := time.Now()
		cancel(app.ErrInterrupted)
		// A command that does not stop on the context (a long compare, a
		// read blocked on a FIFO) exits 130 after app.PromptExitWait.
		go func() {
			time.Sleep(app.PromptExitWait)
			if !app.WritesOnInterrupt() {
				app.SettleFiles(app.HardExitWait)
				fmt.Fprintln(os.Stderr, "toksweep: interrupted")
				os.Exit(app.ExitInterrupted)
			}
		}()
		for range sigs {
			if time.Since(first) >= app.SignalDebounce {
				break
			}
		}
		fmt.Fprintln(os.Stderr, "toksweep: second interrupt; exiting once the file being written is whole, without finishing the run")
		app.SettleFiles(app.HardExitWait)
		os.Exit(app.ExitInterrupted)
	}()

	err := app.New(os.Stdout, os.Stderr).RunContext(ctx, os.Args)
	os.Exit(app.Exit(ctx, err, os.Stderr))
}
