// Package mode owns what the load modes share on their command side: the
// checked command line a mode reads (Line) and keeps its own settings in,
// the time estimate's inputs and the Estimate a mode makes of them
// (Timing), what a mode's start is given and adds to a run's output (Start,
// Run), and the judges of a finished level that the adaptive level
// choosers ask (JudgeLevels, JudgeRates). Each mode is a package under it
// (mode/closed, …), one type that is both its engine side (sweep.Mode) and
// its command side (app's), registered in its init; mode/builtin links the
// built-in ones. It imports no mode and nothing of app.
package mode
