// Package closed is the closed-loop mode: C workers, each sending its next
// request when its last one ends, levels keyed by C (--levels, a list or
// auto: the adaptive Search bounded by --auto-max). Mode is its one type,
// the engine side (sweep.Mode) and the command side (app's) at once; it
// takes every command line no other mode takes. The multi-turn sessions
// mode shares its levels (Settings.Load, Load).
package closed
