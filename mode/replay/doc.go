// Package replay is the trace replay: each level sends a production
// trace's requests (Mooncake, Qwen-Bailian, Azure, BurstGPT) at their
// instants over the level's speed, follow-ups no earlier than their
// parent's end, at most the cap (--max-concurrency) in flight; levels
// keyed by the speed (--replay-speed, a list or auto: the openloop.Search
// in speeds). Mode is its one type, the engine side (sweep.Mode) and the
// command side (app's) at once. It has no shard split: every shard would
// send the whole trace.
package replay
