package english

import "strconv"

// Plural is n and noun, with an s when n is not 1: "1 line", "0 lines".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
