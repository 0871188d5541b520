// Package openloop owns what the open-loop modes (mode/rate, mode/replay)
// share: the cap on requests in flight and what it bounds (a level's
// name, its warm connections, its abort count), the search of the highest
// stable load meeting the SLO (Search), and the bound on an offered rate.
// It is no mode: it registers nothing.
package openloop
