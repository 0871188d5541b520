// Command release builds toksweep's release outputs from this checkout,
// without a Docker daemon (.ci/run runs both, offline):
//
//	go run . image --version v0.1.0 --layout DIR [--push REF]
//	go run . archives --version v0.1.0 --out DIR [--targets linux/amd64,…]
//
// image writes an OCI image index for linux/amd64 and linux/arm64 (FROM
// scratch: the static toksweep binary as entrypoint, user 65532, OCI
// labels) to an OCI layout directory, and with --push also to a registry,
// with the credentials of the default keychain (~/.docker/config.json).
// archives writes a tar.gz (zip for windows) per target and SHA256SUMS.
// Every binary is built with CGO_ENABLED=0 and -trimpath, and stamped with
// the version and the commit (-ldflags -X), which `toksweep --version`
// prints. The tree must be committed (--allow-dirty builds anyway, and
// says so in the version).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout)
	stop()
	var usage usageError
	switch {
	case errors.As(err, &usage):
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

// usageError is a command line that cannot run (exit status 2).
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

const usage = "usage: release image --version V --layout DIR [--push REF] | release archives --version V --out DIR [--targets LIST]"

// run runs one subcommand and prints what it wrote to stdout.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return usageError{usage}
	}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var o options
	o.bind(fs)
	var layoutDir, push, out string
	switch args[0] {
	case "image":
		fs.StringVar(&layoutDir, "layout", "", "the OCI layout directory to write (new or empty)")
		fs.StringVar(&push, "push", "", "also push the index to this registry reference (repo:tag)")
		fs.StringVar(&o.targets, "platforms", "linux/amd64,linux/arm64", "the image's platforms")
		fs.StringVar(&o.caCerts, "ca-certs", "/etc/ssl/certs/ca-certificates.crt", "the CA bundle the image carries (toksweep's TLS roots)")
	case "archives":
		fs.StringVar(&out, "out", "", "the directory to write the archives and SHA256SUMS to (new or empty)")
		fs.StringVar(&o.targets, "targets", allTargets, "the archives' os/arch targets")
	default:
		return usageError{usage}
	}
	if err := fs.Parse(args[1:]); err != nil {
		return usageError{fmt.Sprintf("%s: %v", args[0], err)}
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("%s: unexpected argument %q", args[0], fs.Arg(0))}
	}
	switch {
	case args[0] == "image" && layoutDir == "":
		return usageError{"image: --layout DIR is required"}
	case args[0] == "archives" && out == "":
		return usageError{"archives: --out DIR is required"}
	}
	st, targets, err := o.check(args[0] == "image")
	if err != nil {
		return err
	}
	if args[0] == "image" {
		return buildImage(ctx, imageJob{src: o.src, stamp: st, platforms: targets, caCerts: o.caCerts, source: o.source, layout: layoutDir, push: push}, stdout)
	}
	return buildArchives(ctx, o.src, st, targets, out, stdout)
}
