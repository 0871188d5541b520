// Package english holds the one way toksweep's messages count things in
// words ("1 request", "3 requests"), for every package that prints them.
package english
