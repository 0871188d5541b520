// Package live owns the sweep's live figures: the client's own account of a
// run, exported while it runs on a Prometheus /metrics endpoint (--listen),
// through the ecosystem's library, client_golang. It is fed as the sweep's
// Observer (sweep.Config.Observer) and by a Doer wrapper that
// sees requests leave and come back; the figures of record stay those of
// levels.csv, and docs/metrics.md ("Live metrics") defines each of these.
//
// Labels are few and bounded: run_id, shard and model on every family,
// mode and level on the per-level ones. No request's data is a label, and
// nothing of the request (URL, headers, key, prompt, reply) is exported.
package live
