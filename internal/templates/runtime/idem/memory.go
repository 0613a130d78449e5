package idem

import (
	"bytes"
	"container/heap"
	"context"
	"fmt"
	"sync"
	"time"
)

// Defaults for MemoryOptions fields left zero.
const (
	DefaultMaxEntries = 100_000
	DefaultMaxBytes   = 256 << 20
)

// entryOverhead approximates the bookkeeping of one entry, so that many tiny records still count
// against MaxBytes.
const entryOverhead = 256

// MemoryOptions configures a MemoryStore. Its bounds are its capacity: size them for the keys
// that live at once (requests per second times the TTL) and the responses they keep.
type MemoryOptions struct {
	// MaxEntries bounds the number of live records. Default DefaultMaxEntries.
	MaxEntries int
	// MaxBytes bounds the bytes held by live records (keys, fingerprints, headers, bodies, and
	// about 256 bytes of bookkeeping each). Default DefaultMaxBytes.
	MaxBytes int64
	// Now is the store's clock. Default time.Now; tests pass a clock they control.
	Now func() time.Time
}

// MemoryStore is the embedded default Store: one process, no server. Records expire on their own
// (the oldest-expiring are found in O(log n)), and the store is bounded in entries and bytes. When
// it is full of live records it refuses new claims with ErrStoreFull rather than evicting one,
// since an evicted in-progress record lets its key run twice and an evicted completed one loses
// its replay. Use Redis or Postgres as soon as more than one process serves the same keys.
type MemoryStore struct {
	maxEntries int
	maxBytes   int64
	now        func() time.Time

	mu      sync.Mutex
	entries map[string]*memEntry
	expiry  expiryHeap
	bytes   int64
}

type memEntry struct {
	rec   Record
	token string
	size  int64
	index int // in the expiry heap
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore(opts MemoryOptions) *MemoryStore {
	s := &MemoryStore{
		maxEntries: opts.MaxEntries,
		maxBytes:   opts.MaxBytes,
		now:        opts.Now,
		entries:    make(map[string]*memEntry),
	}
	if s.maxEntries <= 0 {
		s.maxEntries = DefaultMaxEntries
	}
	if s.maxBytes <= 0 {
		s.maxBytes = DefaultMaxBytes
	}
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

// Claim implements Store.
//
//idemkit:claim
func (s *MemoryStore) Claim(ctx context.Context, key, fingerprint string, lease, ttl time.Duration) (Claim, error) {
	if err := CheckClaim(key, fingerprint, lease, ttl); err != nil {
		return Claim{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.expire(now)
	e := s.entries[key]
	switch {
	case e == nil:
		e = &memEntry{rec: Record{Key: key, Fingerprint: fingerprint}}
		e.size = entrySize(e.rec)
		if len(s.entries) >= s.maxEntries {
			return Claim{}, fmt.Errorf("memory claim %q: %w: %d records, the most MemoryOptions.MaxEntries allows; raise it, or keep the records in Redis or Postgres", key, ErrStoreFull, s.maxEntries)
		}
		if s.bytes+e.size > s.maxBytes {
			return Claim{}, fullBytes("claim", key, s.maxBytes)
		}
		s.entries[key] = e
		s.bytes += e.size
		s.hold(e, now, lease, ttl)
		heap.Push(&s.expiry, e)
		return Claim{Outcome: Claimed, Token: e.token, Record: e.rec}, nil
	case e.rec.Fingerprint != fingerprint:
		return Claim{Outcome: Mismatch, Record: cloneRecord(e.rec)}, nil
	case e.rec.State == StateCompleted:
		return Claim{Outcome: Replay, Record: cloneRecord(e.rec)}, nil
	case now.Before(e.rec.LeaseExpires):
		return Claim{Outcome: InProgress, Record: cloneRecord(e.rec), RetryAfter: e.rec.LeaseExpires.Sub(now)}, nil
	}
	previous := e.token
	s.hold(e, now, lease, ttl)
	heap.Fix(&s.expiry, e.index)
	return Claim{Outcome: TakenOver, Token: e.token, Previous: previous, Record: e.rec}, nil
}

// hold gives e a new holder: a fresh token and lease, kept at least ttl.
func (s *MemoryStore) hold(e *memEntry, now time.Time, lease, ttl time.Duration) {
	e.token = NewToken()
	e.rec.State = StateInProgress
	e.rec.LeaseExpires = now.Add(lease)
	e.rec.Expires = now.Add(max(lease, ttl))
}

// Complete implements Store.
//
//idemkit:complete
func (s *MemoryStore) Complete(ctx context.Context, key, token string, resp Response, ttl time.Duration) error {
	if err := CheckDuration("ttl", ttl); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	e, err := s.held(now, key, token)
	if err != nil {
		return err
	}
	rec := e.rec
	rec.State = StateCompleted
	rec.LeaseExpires = time.Time{}
	rec.Expires = now.Add(ttl)
	rec.Response = cloneResponse(resp)
	size := entrySize(rec)
	if s.bytes-e.size+size > s.maxBytes {
		return fullBytes("complete", key, s.maxBytes)
	}
	s.bytes += size - e.size
	e.rec, e.size, e.token = rec, size, ""
	heap.Fix(&s.expiry, e.index)
	return nil
}

// Release implements Store.
//
//idemkit:release
func (s *MemoryStore) Release(ctx context.Context, key, token string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.held(s.now(), key, token)
	if err != nil {
		return err
	}
	s.remove(e)
	return nil
}

// Extend implements Store.
func (s *MemoryStore) Extend(ctx context.Context, key, token string, lease time.Duration) error {
	if err := CheckDuration("lease", lease); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	e, err := s.held(now, key, token)
	if err != nil {
		return err
	}
	e.rec.LeaseExpires = now.Add(lease)
	if e.rec.Expires.Before(e.rec.LeaseExpires) {
		e.rec.Expires = e.rec.LeaseExpires
		heap.Fix(&s.expiry, e.index)
	}
	return nil
}

// Get implements Store.
func (s *MemoryStore) Get(ctx context.Context, key string) (Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(s.now())
	e := s.entries[key]
	if e == nil {
		return Record{}, ErrNotFound
	}
	return cloneRecord(e.rec), nil
}

// Len reports the number of live records.
func (s *MemoryStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(s.now())
	return len(s.entries)
}

// held returns the entry token holds in progress, or ErrLeaseLost.
func (s *MemoryStore) held(now time.Time, key, token string) (*memEntry, error) {
	s.expire(now)
	e := s.entries[key]
	if e == nil || e.rec.State != StateInProgress || e.token != token {
		return nil, fmt.Errorf("memory %q: %w", key, ErrLeaseLost)
	}
	return e, nil
}

// expire drops every record whose time has come.
func (s *MemoryStore) expire(now time.Time) {
	for len(s.expiry) > 0 && !now.Before(s.expiry[0].rec.Expires) {
		s.remove(s.expiry[0])
	}
}

func (s *MemoryStore) remove(e *memEntry) {
	heap.Remove(&s.expiry, e.index)
	delete(s.entries, e.rec.Key)
	s.bytes -= e.size
}

// fullBytes is the error of an operation that would take the store past MaxBytes.
func fullBytes(op, key string, maxBytes int64) error {
	return fmt.Errorf("memory %s %q: %w: over %d bytes, the most MemoryOptions.MaxBytes allows; raise it, or keep the records in Redis or Postgres", op, key, ErrStoreFull, maxBytes)
}

func entrySize(r Record) int64 {
	n := entryOverhead + len(r.Key) + len(r.Fingerprint) + len(r.Response.Body)
	for k, vs := range r.Response.Header {
		n += len(k)
		for _, v := range vs {
			n += len(v)
		}
	}
	return int64(n)
}

// cloneRecord copies the response so callers and the store never share a mutable byte slice.
func cloneRecord(r Record) Record {
	r.Response = cloneResponse(r.Response)
	return r
}

func cloneResponse(r Response) Response {
	r.Header = r.Header.Clone()
	r.Body = bytes.Clone(r.Body)
	return r
}

// expiryHeap orders entries by when they expire, soonest first.
type expiryHeap []*memEntry

func (h expiryHeap) Len() int           { return len(h) }
func (h expiryHeap) Less(i, j int) bool { return h[i].rec.Expires.Before(h[j].rec.Expires) }
func (h expiryHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *expiryHeap) Push(x any) {
	e := x.(*memEntry)
	e.index = len(*h)
	*h = append(*h, e)
}
func (h *expiryHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return e
}
