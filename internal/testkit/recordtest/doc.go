// Package recordtest builds hand-made records and levels for the tests
// that check exact figures on them (report's, rundir's), and the golden
// sweep both render: one set of builders, not a copy per package.
package recordtest
