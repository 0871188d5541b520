// Package procstat reads what the benchmark programs need from /proc.
package procstat
