package engine

import "sync"

// handleRegistry maps the integer handles given to C to handles. C never
// holds a Go pointer (cgo forbids keeping one), and a stale or forged
// integer is simply not found. Ids are never reused within a process, so a
// closed handle stays invalid instead of aliasing a newer one.
type handleRegistry struct {
	mu      sync.RWMutex
	next    int64
	handles map[int64]*Handle
}

var registry = handleRegistry{handles: make(map[int64]*Handle)}

func (r *handleRegistry) add(h *Handle) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	r.handles[r.next] = h
	return r.next
}

func (r *handleRegistry) get(id int64) *Handle {
	r.mu.RLock()
	h := r.handles[id]
	r.mu.RUnlock()
	return h
}

func (r *handleRegistry) remove(id int64) *Handle {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.handles[id]
	delete(r.handles, id)
	return h
}

func (r *handleRegistry) count() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.handles)
}
