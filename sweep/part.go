package sweep

// Workers is the part's share of concurrency c at level k, the closed
// loop's split as the arrival plan's is Part.of: c/Of, plus one for c mod
// Of of the shards, a set that rotates with k so that no
// shard always carries the remainder.
func (p Part) Workers(c, k int) int {
	i, n := p.Index, max(p.Of, 1)
	w := c / n
	if ((i-k)%n+n)%n < c%n {
		w++
	}
	return w
}
