package app

import (
	"context"
	"io"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/client/preflight"
)

// checkState is what the checks before the sweep learn about the target.
type checkState = preflight.Result

// resolveModel fills in --model from /v1/models when it was not given
// (preflight.Model), and the context length the listing gives.
func resolveModel(ctx context.Context, cl *client.Client, o *options) error {
	if o.Model != "" {
		return nil
	}
	id, n, err := preflight.Model(ctx, cl, o.clientConfig())
	if err != nil {
		return err
	}
	o.Model, o.check.ContextLen = id, n
	return nil
}

// preflight sends the pre-flight request p (preflight.Run) and keeps what
// it learned of the target.
func (o *options) preflight(ctx context.Context, cl *client.Client, p client.Prompt, stderr io.Writer) error {
	t := preflight.Target{Config: o.clientConfig(), Prompts: o.allPrompts(), ContextLen: o.check.ContextLen}
	var err error
	o.check, err = preflight.Run(ctx, cl, t, p, stderr)
	return err
}
