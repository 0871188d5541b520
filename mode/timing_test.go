package mode

import (
	"testing"
	"time"
)

func TestAbout(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		9 * time.Second: "a few seconds", 23 * time.Second: "about 25 seconds", 59 * time.Second: "about 60 seconds", 80 * time.Second: "about 1 minute",
		27 * time.Minute: "about 27 minutes", 150 * time.Minute: "about 2.5 hours",
	} {
		if got := About(d); got != want {
			t.Errorf("About(%v) = %q, want %q", d, got, want)
		}
	}
}
