package sim

import (
	"slices"
	"testing"
)

// hashesOf is n made-up block hashes starting at base.
func hashesOf(base uint64, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = base + uint64(i)
	}
	return out
}

// fill takes n blocks, registers them under hs and releases them, as a
// finished request does.
func fill(t *testing.T, p *blockPool, hs []uint64) {
	t.Helper()
	blocks, ok := p.allocate(nil, len(hs))
	if !ok {
		t.Fatalf("cannot allocate %d blocks with %d free", len(hs), p.numFree())
	}
	for i, h := range hs {
		p.register(blocks[i], h)
	}
	p.release(blocks)
}

// Eviction takes the least recently used unreferenced block, and a cache
// hit makes a prefix recently used again.
func TestBlockPoolEvictsLRU(t *testing.T) {
	p := newBlockPool(4*BlockSize, true)
	a, b := hashesOf(100, 2), hashesOf(200, 2)
	fill(t, p, a)
	fill(t, p, b)
	if p.usage() != 0 || p.numFree() != 4 {
		t.Fatalf("after two finished requests: usage %v, free %d; want 0, 4", p.usage(), p.numFree())
	}
	// a is older, but a hit on it makes b the least recently used.
	hit := p.lookup(a, 2)
	if len(hit) != 2 {
		t.Fatalf("lookup(a) hit %d blocks, want 2", len(hit))
	}
	p.take(hit)
	p.release(hit)
	if _, ok := p.allocate(nil, 2); !ok {
		t.Fatal("cannot allocate 2 of 4 free blocks")
	}
	if got := len(p.lookup(b, 2)); got != 0 {
		t.Errorf("b (least recently used) still hits %d blocks", got)
	}
	if got := len(p.lookup(a, 2)); got != 2 {
		t.Errorf("a (recently hit) hits %d blocks, want 2", got)
	}
}

// A request's blocks are queued for eviction last block first, so a
// partial eviction keeps the start of its prefix.
func TestBlockPoolEvictsTailFirst(t *testing.T) {
	p := newBlockPool(3*BlockSize, true)
	a := hashesOf(100, 3)
	fill(t, p, a)
	if _, ok := p.allocate(nil, 1); !ok {
		t.Fatal("cannot allocate 1 block")
	}
	if got := len(p.lookup(a, 3)); got != 2 {
		t.Errorf("after evicting one block, a hits %d blocks, want its first 2", got)
	}
}

// Blocks in use are never evicted: an allocation that would need them
// fails and takes nothing, and the cached prefix in use still hits.
func TestBlockPoolKeepsReferenced(t *testing.T) {
	p := newBlockPool(4*BlockSize, true)
	a := hashesOf(100, 3)
	held, _ := p.allocate(nil, 3)
	for i, h := range a {
		p.register(held[i], h)
	}
	if _, ok := p.allocate(nil, 2); ok {
		t.Fatal("allocated 2 blocks with 1 free and 3 in use")
	}
	if p.numFree() != 1 || p.usage() != 0.75 {
		t.Errorf("a failed allocation changed the pool: free %d, usage %v", p.numFree(), p.usage())
	}
	if got := len(p.lookup(a, 3)); got != 3 {
		t.Errorf("prefix in use hits %d blocks, want 3", got)
	}
	// A second user shares the cached blocks: usage counts them once, and
	// taking them does not use up the free block.
	hit := p.lookup(a, 3)
	if !p.canTake(hit, 1) {
		t.Fatal("cannot take 3 shared blocks and 1 new one")
	}
	p.take(hit)
	more, ok := p.allocate(hit, 1)
	if !ok || p.usage() != 1 {
		t.Fatalf("shared prefix plus one block: ok %v, usage %v; want true, 1", ok, p.usage())
	}
	p.release(held)
	if p.usage() != 1 {
		t.Errorf("after the first user left, usage %v, want 1 (the second still holds them)", p.usage())
	}
	p.release(more)
	if p.usage() != 0 || !slices.Equal(p.lookup(a, 3), hit) {
		t.Errorf("after both left: usage %v, want 0 and a still cached", p.usage())
	}
}

// Without prefix caching nothing is looked up or registered.
func TestBlockPoolCachingOff(t *testing.T) {
	p := newBlockPool(4*BlockSize, false)
	fill(t, p, hashesOf(100, 2))
	if got := p.lookup(hashesOf(100, 2), 2); len(got) != 0 {
		t.Errorf("caching off: lookup hit %d blocks", len(got))
	}
}
