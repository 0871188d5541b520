package rundir_test

// The built-in modes, registered for this package's tests: a saved
// level's mode is found by its name (the config's, the records').
import _ "github.com/toksweep/toksweep/mode/builtin"
