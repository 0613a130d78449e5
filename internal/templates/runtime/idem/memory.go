package idem

import (
	"context"
	"encoding/binary"
	"fmt"
	"net/http"
	"strings"
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
	// epoch is the store's first reading of its clock; the expiry heap keeps times as durations
	// from it, which compare as the times do (on the monotonic clock when they have its reading).
	epoch time.Time
}

// memEntry is one record. A completed response is kept flattened into resp (see flatten): one
// allocation per stored response, sharing nothing with the caller that completed it, and read
// back into a fresh Response for each caller that asks.
type memEntry struct {
	rec   Record // without Response.Header and Response.Body, which resp holds
	resp  string
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
	s.epoch = s.now()
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
		e.size = entrySize(key, fingerprint, Response{})
		if len(s.entries) >= s.maxEntries {
			return Claim{}, fmt.Errorf("memory claim %q: %w: %d records, the most MemoryOptions.MaxEntries allows; raise it, or keep the records in Redis or Postgres", key, ErrStoreFull, s.maxEntries)
		}
		if s.bytes+e.size > s.maxBytes {
			return Claim{}, fullBytes("claim", key, s.maxBytes)
		}
		s.entries[key] = e
		s.bytes += e.size
		s.hold(e, now, lease, ttl)
		s.expiry.push(e, s.since(e.rec.Expires))
		return Claim{Outcome: Claimed, Token: e.token, Record: e.rec}, nil
	case e.rec.Fingerprint != fingerprint:
		return Claim{Outcome: Mismatch, Record: e.record()}, nil
	case e.rec.State == StateCompleted:
		return Claim{Outcome: Replay, Record: e.record()}, nil
	case now.Before(e.rec.LeaseExpires):
		return Claim{Outcome: InProgress, Record: e.record(), RetryAfter: e.rec.LeaseExpires.Sub(now)}, nil
	}
	previous := e.token
	s.hold(e, now, lease, ttl)
	s.expiry.fix(e.index, s.since(e.rec.Expires))
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
	size := entrySize(key, e.rec.Fingerprint, resp)
	if s.bytes-e.size+size > s.maxBytes {
		return fullBytes("complete", key, s.maxBytes)
	}
	s.bytes += size - e.size
	e.rec.State = StateCompleted
	e.rec.LeaseExpires = time.Time{}
	e.rec.Expires = now.Add(ttl)
	e.rec.Response.Status = resp.Status
	e.resp, e.size, e.token = flatten(resp), size, ""
	s.expiry.fix(e.index, s.since(e.rec.Expires))
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
		s.expiry.fix(e.index, s.since(e.rec.Expires))
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
	return e.record(), nil
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
	t := s.since(now)
	for len(s.expiry) > 0 && s.expiry[0].at <= t {
		s.remove(s.expiry[0].e)
	}
}

// since is t as the expiry heap keeps it.
func (s *MemoryStore) since(t time.Time) int64 { return int64(t.Sub(s.epoch)) }

func (s *MemoryStore) remove(e *memEntry) {
	s.expiry.remove(e.index)
	delete(s.entries, e.rec.Key)
	s.bytes -= e.size
}

// fullBytes is the error of an operation that would take the store past MaxBytes.
func fullBytes(op, key string, maxBytes int64) error {
	return fmt.Errorf("memory %s %q: %w: over %d bytes, the most MemoryOptions.MaxBytes allows; raise it, or keep the records in Redis or Postgres", op, key, ErrStoreFull, maxBytes)
}

// entrySize is what a record counts against MaxBytes.
func entrySize(key, fingerprint string, resp Response) int64 {
	n := entryOverhead + len(key) + len(fingerprint) + len(resp.Body)
	for k, vs := range resp.Header {
		n += len(k)
		for _, v := range vs {
			n += len(v)
		}
	}
	return int64(n)
}

// record is a copy of e's record that shares nothing mutable with the store.
func (e *memEntry) record() Record {
	r := e.rec
	if r.State == StateCompleted {
		r.Response.Header, r.Response.Body = unflatten(e.resp)
	}
	return r
}

// Flags of a flattened response's first byte: whether its Header and Body were nil, so that
// they come back as they went in.
const (
	flatHeader = 1 << iota
	flatBody
)

// flatten writes a response's header and body into one string: a flags byte, the number of
// header keys, each key with its number of values (0 for a nil slice, else one more than it
// has) and the values, every string preceded by its length; then the body, to the end.
func flatten(resp Response) string {
	n := 1 + binary.MaxVarintLen64 + len(resp.Body)
	for k, vs := range resp.Header {
		n += 2*binary.MaxVarintLen64 + len(k)
		for _, v := range vs {
			n += binary.MaxVarintLen64 + len(v)
		}
	}
	var flags byte
	if resp.Header != nil {
		flags |= flatHeader
	}
	if resp.Body != nil {
		flags |= flatBody
	}
	var b strings.Builder
	b.Grow(n)
	b.WriteByte(flags)
	writeUvarint(&b, len(resp.Header))
	for k, vs := range resp.Header {
		writeString(&b, k)
		if vs == nil {
			b.WriteByte(0)
			continue
		}
		writeUvarint(&b, len(vs)+1)
		for _, v := range vs {
			writeString(&b, v)
		}
	}
	b.Write(resp.Body)
	return b.String()
}

func writeUvarint(b *strings.Builder, n int) {
	var buf [binary.MaxVarintLen64]byte
	b.Write(binary.AppendUvarint(buf[:0], uint64(n)))
}

func writeString(b *strings.Builder, s string) {
	writeUvarint(b, len(s))
	b.WriteString(s)
}

// unflatten reads back what flatten wrote: a new Header whose values share the string (which
// never changes), and a copy of the body.
func unflatten(s string) (http.Header, []byte) {
	flags := s[0]
	d := flatReader{s: s, i: 1}
	keys := d.uvarint()
	var h http.Header
	if flags&flatHeader != 0 {
		// One array for all the values, as Header.Clone makes: count them first.
		count, nv := d, 0
		for range keys {
			count.string()
			if vals := count.uvarint(); vals > 0 {
				for range vals - 1 {
					count.string()
				}
				nv += vals - 1
			}
		}
		sv := make([]string, nv)
		h = make(http.Header, keys)
		for range keys {
			k := d.string()
			vals := d.uvarint()
			if vals == 0 {
				h[k] = nil
				continue
			}
			vs := sv[: vals-1 : vals-1]
			for j := range vs {
				vs[j] = d.string()
			}
			h[k], sv = vs, sv[vals-1:]
		}
	}
	var body []byte
	if flags&flatBody != 0 {
		body = []byte(s[d.i:])
	}
	return h, body
}

// flatReader reads a flattened response from position i on.
type flatReader struct {
	s string
	i int
}

func (d *flatReader) uvarint() int {
	var v uint64
	for shift := 0; ; shift += 7 {
		c := d.s[d.i]
		d.i++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return int(v)
		}
	}
}

func (d *flatReader) string() string {
	n := d.uvarint()
	v := d.s[d.i : d.i+n]
	d.i += n
	return v
}

// expiryHeap orders entries by when they expire, soonest first. Each item carries its entry's
// expiry (see MemoryStore.since), so that ordering never reads the entries themselves: only
// moving one does, to keep its index. An item holds one pointer, the least for the collector
// to follow on every cycle.
type expiryHeap []expiryItem

type expiryItem struct {
	at int64
	e  *memEntry
}

func (h *expiryHeap) push(e *memEntry, at int64) {
	*h = append(*h, expiryItem{at, e})
	h.up(len(*h) - 1)
}

// fix restores the order after the expiry of the entry at i changed to at.
func (h expiryHeap) fix(i int, at int64) {
	h[i].at = at
	if !h.down(i) {
		h.up(i)
	}
}

func (h *expiryHeap) remove(i int) {
	last := len(*h) - 1
	if i != last {
		(*h)[i] = (*h)[last]
		(*h)[i].e.index = i
	}
	(*h)[last] = expiryItem{}
	*h = (*h)[:last]
	if i != last && !h.down(i) {
		h.up(i)
	}
}

func (h expiryHeap) up(i int) {
	it := h[i]
	for i > 0 {
		p := (i - 1) / 2
		if it.at >= h[p].at {
			break
		}
		h[i] = h[p]
		h[i].e.index = i
		i = p
	}
	h[i] = it
	it.e.index = i
}

// down moves the item at i towards the leaves, and reports whether it moved.
func (h expiryHeap) down(i int) bool {
	it, start := h[i], i
	for {
		c := 2*i + 1
		if c >= len(h) {
			break
		}
		if r := c + 1; r < len(h) && h[r].at < h[c].at {
			c = r
		}
		if h[c].at >= it.at {
			break
		}
		h[i] = h[c]
		h[i].e.index = i
		i = c
	}
	h[i] = it
	it.e.index = i
	return i > start
}
