package preflight

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/toksweep/toksweep/client"
	"github.com/toksweep/toksweep/mode"
)

// maxListedModels bounds how many of the server's model ids a message
// quotes: the list is the server's, and may be huge or hostile.
const maxListedModels = 10

// Model is the one model the server lists at /models, and its context
// length (0: not listed), for a command line without --model. It is also
// the first contact with the server, so an unreachable URL or a rejected
// key fails here, before any load. cfg is cl's.
func Model(ctx context.Context, cl *client.Client, cfg client.Config) (id string, contextLen int, err error) {
	limit := cfg.ConnectTimeout + listingWait
	lctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	url := client.RedactURL(cfg.BaseURL)
	models, err := cl.ListModels(lctx)
	if err != nil {
		if ctx.Err() == nil && lctx.Err() != nil { // our limit, not Ctrl-C: the client calls it canceled
			err = fmt.Errorf("no answer from %s/models within %s", url, limit)
		}
		if hint := missingV1(ctx, cfg, err); hint != nil {
			return "", 0, hint
		}
		return "", 0, checkFailed(err, true)
	}
	switch len(models) {
	case 0:
		return "", 0, fmt.Errorf("%s/models lists no model; give --model", url)
	case 1:
		if !cl.UsableModelID(models[0].ID) {
			return "", 0, mode.Usagef("the server's only model id (%q) is too long, not printable or holds a credential; give --model", cl.ShowModelID(models[0].ID))
		}
		return models[0].ID, models[0].MaxModelLen, nil
	}
	return "", 0, mode.Usagef("the server serves %d models; choose one with --model (%s)", len(models), modelList(cl, models))
}

// modelList quotes the first maxListedModels ids, each as ShowModelID
// renders it (scrubbed, one line, bounded), and counts the rest.
func modelList(cl *client.Client, models []client.Model) string {
	ids := make([]string, 0, maxListedModels+1)
	for _, m := range models[:min(len(models), maxListedModels)] {
		ids = append(ids, strconv.Quote(cl.ShowModelID(m.ID)))
	}
	if n := len(models) - maxListedModels; n > 0 {
		ids = append(ids, fmt.Sprintf("and %d more", n))
	}
	return strings.Join(ids, ", ")
}
