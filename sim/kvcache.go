package sim

import "container/list"

// blockPool is the paged KV cache: a fixed number of BlockSize-token blocks,
// handed to running sequences, with vLLM's prefix caching on top. A block
// that holds a full block of prompt tokens is registered under its chained
// hash; when its last user lets go it stays cached but becomes evictable,
// and a later prompt with the same prefix can take it back instead of
// recomputing it. Unreferenced blocks sit in one free queue, least recently
// used first; a new block is taken from the front, which evicts whatever it
// cached. Referenced blocks are never evicted. As in vLLM, blocks that were
// never used come first, so a cold cache evicts nothing.
//
// The pool is owned by the scheduler goroutine.
type blockPool struct {
	total   int // blocks
	fresh   int // blocks never handed out
	caching bool

	refs   []int32         // per block handed out so far: its users
	hash   []uint64        // its registered hash, when hashed
	hashed []bool          //
	elem   []*list.Element // its place in free, nil while referenced
	free   *list.List      // unreferenced blocks (int32 ids), LRU first
	cached map[uint64]int32
	used   int // referenced blocks
}

func newBlockPool(tokens int, caching bool) *blockPool {
	n := tokens / BlockSize
	return &blockPool{total: n, fresh: n, caching: caching, free: list.New(), cached: map[uint64]int32{}}
}

// blocksFor is the number of blocks that hold n tokens.
func blocksFor(n int) int { return (n + BlockSize - 1) / BlockSize }

// numFree is the number of blocks a sequence could be given now.
func (p *blockPool) numFree() int { return p.fresh + p.free.Len() }

// usage is the share of blocks in use, vllm:kv_cache_usage_perc.
func (p *blockPool) usage() float64 { return float64(p.used) / float64(p.total) }

// lookup returns the cached blocks that hold the longest prefix of hashes,
// at most maxBlocks of them, without taking them.
func (p *blockPool) lookup(hashes []uint64, maxBlocks int) []int32 {
	if !p.caching {
		return nil
	}
	var hit []int32
	for _, h := range hashes[:min(len(hashes), maxBlocks)] {
		id, ok := p.cached[h]
		if !ok {
			break
		}
		hit = append(hit, id)
	}
	return hit
}

// canTake reports whether n new blocks can be handed out after the hit
// blocks are taken (an unreferenced hit leaves the free queue, so it cannot
// also be evicted for the new ones).
func (p *blockPool) canTake(hit []int32, n int) bool {
	idle := 0
	for _, id := range hit {
		if p.refs[id] == 0 {
			idle++
		}
	}
	return n <= p.numFree()-idle
}

// take adds a user to each hit block.
func (p *blockPool) take(hit []int32) {
	for _, id := range hit {
		if p.refs[id] == 0 {
			p.free.Remove(p.elem[id])
			p.elem[id] = nil
			p.used++
		}
		p.refs[id]++
	}
}

// allocate appends n new blocks to blocks, evicting the least recently used
// unreferenced ones once the never-used blocks run out. It reports false,
// taking nothing, when fewer than n blocks are free.
func (p *blockPool) allocate(blocks []int32, n int) ([]int32, bool) {
	if n > p.numFree() {
		return blocks, false
	}
	for range n {
		var id int32
		if p.fresh > 0 {
			p.fresh--
			id = int32(len(p.refs))
			p.refs, p.hash, p.hashed, p.elem = append(p.refs, 0), append(p.hash, 0), append(p.hashed, false), append(p.elem, nil)
		} else {
			id = p.free.Remove(p.free.Front()).(int32)
			p.elem[id] = nil
			p.evict(id)
		}
		p.refs[id] = 1
		p.used++
		blocks = append(blocks, id)
	}
	return blocks, true
}

// evict forgets what block id caches.
func (p *blockPool) evict(id int32) {
	if p.hashed[id] {
		if p.cached[p.hash[id]] == id {
			delete(p.cached, p.hash[id])
		}
		p.hashed[id] = false
	}
}

// register caches block id under hash h, unless another block already
// caches the same content.
func (p *blockPool) register(id int32, h uint64) {
	if !p.caching || p.hashed[id] {
		return
	}
	if _, dup := p.cached[h]; dup {
		return
	}
	p.cached[h], p.hash[id], p.hashed[id] = id, h, true
}

// release drops one user from each block. Blocks are queued for eviction
// in reverse order, as vLLM frees them: a sequence's last blocks, the least
// likely to be shared, go first.
func (p *blockPool) release(blocks []int32) {
	for i := len(blocks) - 1; i >= 0; i-- {
		id := blocks[i]
		p.refs[id]--
		if p.refs[id] == 0 {
			p.used--
			p.elem[id] = p.free.PushBack(id)
		}
	}
}
