// Package sendtiming is the send-timing measurement of issue 22's trace
// replay, shared by sweep's tests and benchmark (simulator in the same
// process) and bench/cmd/sendtiming (serve-sim in its own process): the
// 300-request Mooncake-format trace they replay, its Replay with token-id
// prompts, and how well a level's sends kept the schedule, read against
// the simulator's arrival stamps.
package sendtiming
