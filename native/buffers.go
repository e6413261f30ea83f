package main

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// liveBuffers records every response dal_query handed out and not yet freed,
// so dal_free can refuse foreign pointers and double frees instead of
// corrupting the C heap, and dal_stats can report live buffers exactly.
// Sharded by address so threads freeing different buffers rarely contend.
var liveBuffers bufferRegistry

const bufferShards = 32

type bufferShard struct {
	mu sync.Mutex
	m  map[uintptr]int
}

// paddedShard fills whole 64-byte cache lines, so threads freeing buffers of
// different shards do not write to the same line.
type paddedShard struct {
	bufferShard
	_ [64 - unsafe.Sizeof(bufferShard{})%64]byte
}

// A compile-time check: the negation of a non-zero unsigned constant does not
// compile, so this line fails the build if the padding is ever wrong.
const _ = -(unsafe.Sizeof(paddedShard{}) % 64)

type bufferRegistry struct {
	shards [bufferShards]paddedShard
	count  atomic.Int64
	bytes  atomic.Int64
}

func (r *bufferRegistry) shard(p unsafe.Pointer) int {
	return int((uintptr(p) >> 4) % bufferShards) // malloc aligns to 16
}

func (r *bufferRegistry) add(p unsafe.Pointer, n int) {
	s := &r.shards[r.shard(p)]
	s.mu.Lock()
	if s.m == nil {
		s.m = make(map[uintptr]int)
	}
	s.m[uintptr(p)] = n
	s.mu.Unlock()
	r.count.Add(1)
	r.bytes.Add(int64(n))
}

// remove forgets p and reports whether it was live.
func (r *bufferRegistry) remove(p unsafe.Pointer) bool {
	s := &r.shards[r.shard(p)]
	s.mu.Lock()
	n, ok := s.m[uintptr(p)]
	if ok {
		delete(s.m, uintptr(p))
	}
	s.mu.Unlock()
	if ok {
		r.count.Add(-1)
		r.bytes.Add(-int64(n))
	}
	return ok
}
