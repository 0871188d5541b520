// Command measure runs a command and records what it cost the machine: user
// and system CPU time and peak resident set size, from the kernel's rusage
// for the child (wait4), and wall time. It writes them as one JSON object,
// so bench/run.sh needs no GNU time and no parsing of its text.
//
//	measure -o FILE -- COMMAND [ARG...]
//
// The command's standard streams are passed through. SIGINT and SIGTERM are
// forwarded to it. measure exits with the command's exit status.
//
// With -mark TEXT, measure also notes the command's peak RSS so far (VmHWM)
// when TEXT first appears in a line of its standard error: for toksweep,
// "level C=" marks the end of a level (the line is printed once the level
// is summarized, before its records are written out), which tells the
// memory of the load from the memory of writing the results.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/toksweep/toksweep/bench/internal/procstat"
)

// Usage is what measure writes.
type Usage struct {
	Command  []string `json:"command"`
	ExitCode int      `json:"exit_code"`
	UserS    float64  `json:"user_s"`
	SysS     float64  `json:"sys_s"`
	MaxRSSKB int64    `json:"maxrss_kb"` // Linux reports ru_maxrss in KiB
	WallS    float64  `json:"wall_s"`
	// MarkRSSKB is VmHWM when the -mark text appeared (0: it did not).
	MarkRSSKB int64   `json:"mark_hwm_kb,omitempty"`
	MarkS     float64 `json:"mark_s,omitempty"`
}

func main() {
	out := flag.String("o", "", "write the JSON here (default: stdout)")
	mark := flag.String("mark", "", "note the peak RSS when a line of the command's stderr contains this")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: measure [-o FILE] -- COMMAND [ARG...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	code, err := run(*out, *mark, flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "measure:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func run(out, mark string, args []string) (int, error) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	var stderr io.Reader
	if mark != "" {
		cmd.Stderr = nil
		pipe, err := cmd.StderrPipe()
		if err != nil {
			return 0, err
		}
		stderr = pipe
	}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	var markKB int64
	var markAt time.Duration
	if stderr != nil {
		// Read to the end before Wait, which closes the pipe.
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if markKB == 0 && strings.Contains(line, mark) {
				markKB, markAt = procstat.VmHWM(strconv.Itoa(cmd.Process.Pid)), time.Since(start)
			}
			fmt.Fprintln(os.Stderr, line)
		}
	}
	err := cmd.Wait()
	wall := time.Since(start)
	signal.Stop(sigs)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return 0, err
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, errors.New("no rusage on this platform")
	}
	u := Usage{
		Command:  args,
		ExitCode: cmd.ProcessState.ExitCode(),
		UserS:    time.Duration(ru.Utime.Nano()).Seconds(),
		SysS:     time.Duration(ru.Stime.Nano()).Seconds(),
		MaxRSSKB: ru.Maxrss,
		WallS:    wall.Seconds(),

		MarkRSSKB: markKB,
		MarkS:     markAt.Seconds(),
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(u); err != nil {
		return 0, err
	}
	if out == "" {
		_, err = os.Stdout.Write(b.Bytes())
	} else {
		err = os.WriteFile(out, b.Bytes(), 0o644)
	}
	return u.ExitCode, err
}
