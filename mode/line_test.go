package mode

import (
	"testing"

	"github.com/urfave/cli/v2"
)

func TestSettingsAreEachModes(t *testing.T) {
	t.Parallel()
	type a struct{ N int }
	type b struct{ S string }
	var l Line
	Settings[a](&l, "a").N = 3
	Settings[b](&l, "b").S = "x"
	if Settings[a](&l, "a").N != 3 || Settings[b](&l, "b").S != "x" {
		t.Error("a mode's settings are not kept between calls")
	}
	// A name asked for with another type is a new value of that type:
	// the modes' names are their registry's, so this is a programming
	// error that must not panic.
	if Settings[b](&l, "a").S != "" {
		t.Error("settings of another type leaked")
	}
}

func TestUsagef(t *testing.T) {
	t.Parallel()
	err := Usagef("invalid --x %d", 3)
	if ue, ok := err.(*UsageError); !ok || ue.Msg != "invalid --x 3" || err.Error() != ue.Msg {
		t.Errorf("%T %v", err, err)
	}
}

func TestGivenAndJoin(t *testing.T) {
	t.Parallel()
	var set bool
	var n int
	app := &cli.App{Name: "t", HideHelp: true, Flags: []cli.Flag{&cli.IntFlag{Name: "n", Destination: &n, Action: Given[int](&set)}},
		Action: func(*cli.Context) error { return nil }}
	if err := app.Run([]string{"t"}); err != nil || set {
		t.Fatalf("absent flag: set %v, %v", set, err)
	}
	if err := app.Run([]string{"t", "--n", "0"}); err != nil || !set || n != 0 {
		t.Fatalf("--n 0: set %v n %d, %v", set, n, err)
	}
	if JoinInts([]int{1, 2, 4}) != "1,2,4" || JoinInts(nil) != "" {
		t.Errorf("JoinInts %q", JoinInts([]int{1, 2, 4}))
	}
}
