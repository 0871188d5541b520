// Package sessions is the multi-turn sessions mode: a closed loop whose C
// workers each run one conversation after another (--turns: synthetic
// sessions; --multi-turn: a dataset's conversations, at most --max-turns
// turns each), pausing --think-time between turns; --requests counts
// turns. Mode is its one type, the engine side (sweep.Mode) and the
// command side (app's) at once. Its levels are the closed loop's (--levels,
// a list or auto: closed.Settings, closed.Load) keyed as sessions; its
// flags shape the prompt set, whose conversations its Load hands to the
// engine's session loop (sweep.SessionLoop).
package sessions
