package sweep

import "testing"

func TestPartWorkersSplitAndRotate(t *testing.T) {
	for _, n := range []int{1, 2, 3, 4, 7} {
		for _, c := range []int{n, n + 1, 10, 16, 63} {
			for k := range 2 * n {
				total := 0
				for i := range n {
					w := Part{Index: i, Of: n}.Workers(c, k)
					total += w
					// The shards that carry the remainder are k, k+1, … (mod n).
					extra := (i-k+n*k)%n < c%n
					if want := c / n; (extra && w != want+1) || (!extra && w != want) {
						t.Errorf("C=%d N=%d level %d: shard %d runs %d workers (extra %v)", c, n, k, i, w, extra)
					}
				}
				if total != c {
					t.Errorf("C=%d N=%d level %d: the shards run %d workers in all", c, n, k, total)
				}
			}
		}
	}
}
