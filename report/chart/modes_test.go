package chart_test

// The built-in modes, registered for this package's tests: a level's
// words (its name, its unit) are its mode's.
import _ "github.com/toksweep/toksweep/mode/builtin"
