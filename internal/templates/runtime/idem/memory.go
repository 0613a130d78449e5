package idem

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
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
// (in O(1) each when they share a TTL, see expiryRing), and the store is bounded in entries and
// bytes. When it is full of live records it refuses new claims with ErrStoreFull rather than
// evicting one, since an evicted in-progress record lets its key run twice and an evicted
// completed one loses its replay. Use Redis or Postgres as soon as more than one process serves the same keys.
//
// Like a Go map, the store keeps the room it grew to: about 200 bytes for each record of the
// most it has held at once, whatever their responses.
type MemoryStore struct {
	maxEntries int
	maxBytes   int64
	now        func() time.Time

	mu sync.Mutex
	// slots finds the records of a key's hash in entries: the first one's slot (see slotTable),
	// and each one's next. The records live in one slice, not one allocation each, and refer to each other by
	// position, so the collector follows only the strings inside them and nothing in slots; a
	// removed record's slot is listed in free and serves the next new key. The slice keeps room
	// for the most records the store has held at once.
	slots   slotTable
	hash    func(key string) uint64 // maphash.String under a seed of the store's own
	entries []memEntry
	free    []int
	// Every record waits for its expiry in one of two queues. Completed records that expire no
	// sooner than the one completed before them, as records of one TTL on a clock that moves
	// forward do, join the back of ring, and the soonest is always at its front. The rest — the
	// in-progress records, whose expiry moves with their leases, and completed ones that would
	// jump the queue, with a shorter TTL than those before them — go to the heap expiry.
	ring   expiryRing
	expiry expiryHeap
	bytes  int64
	// epoch is the store's first reading of its clock; records and the expiry queues keep times
	// as durations from it, which compare as the times do (on the monotonic clock when they have
	// its reading).
	epoch time.Time
}

// memEntry is one record, in its slot. In progress, it holds the claim's key and fingerprint and
// its holder's token. Completed, it holds them all in data instead, with the response flattened
// after them (see flatten): one allocation per stored response, sharing nothing with the caller
// that completed it, read back into a fresh Response for each caller that asks, and one pointer
// for the collector to follow where there were three. Its times are kept as the expiry queues
// keep them (see MemoryStore.since), which the collector need not look into either, and made
// into a Record's times only for a caller that reads the record.
type memEntry struct {
	key, fingerprint string // in progress
	token            string
	data             string // completed
	keyLen, fpLen    int    // of the key and fingerprint at the start of data
	state            State
	status           int   // of the stored response
	leaseExpires     int64 // 0 once completed
	expires          int64
	size             int64
	index            int    // in the expiry heap, or inRing
	hash             uint64 // of the key
	next             int    // slot of the next record whose key has the same hash, or -1
}

// keyOf is the key of the record in e.
func (e *memEntry) keyOf() string {
	if e.data != "" {
		return e.data[:e.keyLen]
	}
	return e.key
}

// fingerprintOf is the fingerprint of the record in e.
func (e *memEntry) fingerprintOf() string {
	if e.data != "" {
		return e.data[e.keyLen : e.keyLen+e.fpLen]
	}
	return e.fingerprint
}

// entry is the record in slot i. The pointer is good until the next new slot: take it again after
// a Claim makes one.
func (s *MemoryStore) entry(i int) *memEntry { return &s.entries[i] }

// lookup returns the slot of key's record, or -1; and the hash of key with the slot of the first
// record of that hash, or -1.
func (s *MemoryStore) lookup(key string) (i int, hash uint64, first int) {
	hash = s.hash(key)
	first = s.slots.get(hash)
	if first < 0 {
		return -1, hash, -1
	}
	for i = first; i >= 0; i = s.entries[i].next {
		if s.entries[i].keyOf() == key {
			return i, hash, first
		}
	}
	return -1, hash, first
}

// unlink takes the record in slot i out of slots.
func (s *MemoryStore) unlink(i int) {
	e := s.entry(i)
	first := s.slots.get(e.hash)
	switch {
	case first == i && e.next < 0:
		s.slots.del(e.hash)
	case first == i:
		s.slots.set(e.hash, e.next)
	default:
		p := first
		for s.entries[p].next != i {
			p = s.entries[p].next
		}
		s.entries[p].next = e.next
	}
}

// slotTable maps the hash of a key to the slot of the first record of that hash, as a
// map[uint64]int would, for less than half what a Go map's lookup, insert and delete cost: a
// table of cells, each the hash with the slot, probed one after another from the hash's home
// cell (its low bits) up to the first empty one. It is kept at most half full, so that a probe
// for a hash that is absent, as a new key's is, ends after a cell or two. Like a Go map, it keeps
// the room it grew to.
type slotTable struct {
	cells []slotCell // a power of two of them, minSlotCells or more
	used  int
}

type slotCell struct {
	hash uint64
	slot int // one more than the slot, so that the zero cell is the empty one
}

const minSlotCells = 8

// find returns the position of hash's cell and true, or that of the empty cell where it would go
// and false.
func (t *slotTable) find(hash uint64) (p int, ok bool) {
	mask := len(t.cells) - 1
	for p = int(hash) & mask; ; p = (p + 1) & mask {
		switch c := &t.cells[p]; {
		case c.slot == 0:
			return p, false
		case c.hash == hash:
			return p, true
		}
	}
}

// get returns the slot of hash, or -1.
func (t *slotTable) get(hash uint64) int {
	p, ok := t.find(hash)
	if !ok {
		return -1
	}
	return t.cells[p].slot - 1
}

// set gives hash the slot, in its cell or a new one.
func (t *slotTable) set(hash uint64, slot int) {
	p, ok := t.find(hash)
	if !ok {
		if 2*(t.used+1) > len(t.cells) {
			t.grow()
			p, _ = t.find(hash)
		}
		t.used++
	}
	t.cells[p] = slotCell{hash, slot + 1}
}

// del takes hash out, if it is in. The cells after its own, up to the next empty one, move back
// into the gap it leaves where their home allows, so that every hash stays reachable from its
// home without a marker for removed cells.
func (t *slotTable) del(hash uint64) {
	p, ok := t.find(hash)
	if !ok {
		return
	}
	mask := len(t.cells) - 1
	for q := (p + 1) & mask; t.cells[q].slot != 0; q = (q + 1) & mask {
		// The cell at q moves into the gap at p unless its home lies after p, up to q
		// (cyclically): there it would be out of its probe sequence's reach.
		home := int(t.cells[q].hash) & mask
		if q > p && (home <= p || home > q) || q < p && home <= p && home > q {
			t.cells[p] = t.cells[q]
			p = q
		}
	}
	t.cells[p] = slotCell{}
	t.used--
}

// grow doubles the table.
func (t *slotTable) grow() {
	old := t.cells
	t.cells = make([]slotCell, 2*len(old))
	for _, c := range old {
		if c.slot != 0 {
			p, _ := t.find(c.hash)
			t.cells[p] = c
		}
	}
}

// live is the number of records.
func (s *MemoryStore) live() int { return len(s.entries) - len(s.free) }

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore(opts MemoryOptions) *MemoryStore {
	s := &MemoryStore{
		maxEntries: opts.MaxEntries,
		maxBytes:   opts.MaxBytes,
		now:        opts.Now,
		slots:      slotTable{cells: make([]slotCell, minSlotCells)},
	}
	seed := maphash.MakeSeed()
	s.hash = func(key string) uint64 { return maphash.String(seed, key) }
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
	now := s.clock()
	s.expire(now)
	i, hash, first := s.lookup(key)
	if i < 0 {
		size := entrySize(key, fingerprint, 0)
		if s.live() >= s.maxEntries {
			return Claim{}, fmt.Errorf("memory claim %q: %w: %d records, the most MemoryOptions.MaxEntries allows; raise it, or keep the records in Redis or Postgres", key, ErrStoreFull, s.maxEntries)
		}
		if s.bytes+size > s.maxBytes {
			return Claim{}, fullBytes("claim", key, s.maxBytes)
		}
		i = s.newSlot()
		e := s.entry(i)
		*e = memEntry{key: key, fingerprint: fingerprint, size: size, hash: hash, next: first}
		s.slots.set(hash, i)
		s.bytes += size
		s.hold(e, now, lease, ttl)
		s.push(i)
		return Claim{Outcome: Claimed, Token: e.token, Record: s.record(e, now)}, nil
	}
	e := s.entry(i)
	switch left := e.leaseExpires - now.at; {
	case e.fingerprintOf() != fingerprint:
		return Claim{Outcome: Mismatch, Record: s.record(e, now)}, nil
	case e.state == StateCompleted:
		return Claim{Outcome: Replay, Record: s.record(e, now)}, nil
	case left > 0:
		return Claim{Outcome: InProgress, Record: s.record(e, now), RetryAfter: time.Duration(left)}, nil
	}
	previous := e.token
	s.hold(e, now, lease, ttl)
	s.fix(e)
	return Claim{Outcome: TakenOver, Token: e.token, Previous: previous, Record: s.record(e, now)}, nil
}

// hold gives e a new holder: a fresh token and lease, kept at least ttl.
func (s *MemoryStore) hold(e *memEntry, now instant, lease, ttl time.Duration) {
	e.token = NewToken()
	e.state = StateInProgress
	e.leaseExpires = now.at + int64(lease)
	e.expires = now.at + int64(max(lease, ttl))
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
	now := s.clock()
	i, err := s.held(now, key, token)
	if err != nil {
		return err
	}
	e := s.entry(i)
	data, content := flatten(key, e.fingerprint, resp)
	size := entrySize(key, e.fingerprint, content)
	if s.bytes-e.size+size > s.maxBytes {
		return fullBytes("complete", key, s.maxBytes)
	}
	s.bytes += size - e.size
	e.state = StateCompleted
	e.leaseExpires = 0
	e.expires = now.at + int64(ttl)
	e.status = resp.Status
	e.data, e.keyLen, e.fpLen = data, len(key), len(e.fingerprint)
	e.key, e.fingerprint, e.token = "", "", ""
	e.size = size
	s.unheap(e.index)
	s.queue(i)
	return nil
}

// Release implements Store.
//
//idemkit:release
func (s *MemoryStore) Release(ctx context.Context, key, token string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	i, err := s.held(s.clock(), key, token)
	if err != nil {
		return err
	}
	s.unheap(s.entries[i].index)
	s.drop(i)
	return nil
}

// Extend implements Store.
func (s *MemoryStore) Extend(ctx context.Context, key, token string, lease time.Duration) error {
	if err := CheckDuration("lease", lease); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock()
	i, err := s.held(now, key, token)
	if err != nil {
		return err
	}
	e := s.entry(i)
	e.leaseExpires = now.at + int64(lease)
	if e.expires < e.leaseExpires {
		e.expires = e.leaseExpires
		s.fix(e)
	}
	return nil
}

// Get implements Store.
func (s *MemoryStore) Get(ctx context.Context, key string) (Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock()
	s.expire(now)
	i, _, _ := s.lookup(key)
	if i < 0 {
		return Record{}, ErrNotFound
	}
	return s.record(s.entry(i), now), nil
}

// Len reports the number of live records.
func (s *MemoryStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire(s.clock())
	return s.live()
}

// held returns the slot of the record token holds in progress, or ErrLeaseLost. Such a record
// is in the expiry heap.
func (s *MemoryStore) held(now instant, key, token string) (int, error) {
	s.expire(now)
	i, _, _ := s.lookup(key)
	if i < 0 || s.entries[i].state != StateInProgress || s.entries[i].token != token {
		return -1, fmt.Errorf("memory %q: %w", key, ErrLeaseLost)
	}
	return i, nil
}

// expire drops every record whose time has come: those at the front of the ring, in order, and
// the soonest in the heap.
func (s *MemoryStore) expire(now instant) {
	t := now.at
	for s.ring.n > 0 && s.ring.front().at <= t {
		s.drop(s.ring.pop().slot)
	}
	for len(s.expiry) > 0 && s.expiry[0].at <= t {
		i := s.expiry[0].slot
		s.unheap(0)
		s.drop(i)
	}
}

// queue puts the completed record in slot i, in neither queue, in the one its expiry fits: the
// ring when no record there expires after it, else the heap.
func (s *MemoryStore) queue(i int) {
	e := s.entry(i)
	if s.ring.n == 0 || s.ring.back().at <= e.expires {
		e.index = inRing
		s.ring.push(expiryItem{e.expires, i})
		return
	}
	s.push(i)
}

// since is t as the expiry queues keep it.
func (s *MemoryStore) since(t time.Time) int64 { return int64(t.Sub(s.epoch)) }

// instant is a reading of the store's clock, as a time for records and as the expiry queues keep
// it: an operation reads the clock once and works out since once, not in each step that needs it.
type instant struct {
	time time.Time
	at   int64 // since(time)
}

// clock reads the store's clock.
func (s *MemoryStore) clock() instant {
	now := s.now()
	return instant{now, s.since(now)}
}

// newSlot returns a free slot for a new record.
func (s *MemoryStore) newSlot() int {
	if n := len(s.free); n > 0 {
		i := s.free[n-1]
		s.free = s.free[:n-1]
		return i
	}
	s.entries = append(s.entries, memEntry{})
	return len(s.entries) - 1
}

// drop forgets the record in slot i, which is in neither expiry queue, and frees its slot.
func (s *MemoryStore) drop(i int) {
	e := s.entry(i)
	s.unlink(i)
	s.bytes -= e.size
	*e = memEntry{} // let its strings go
	s.free = append(s.free, i)
}

// fullBytes is the error of an operation that would take the store past MaxBytes.
func fullBytes(op, key string, maxBytes int64) error {
	return fmt.Errorf("memory %s %q: %w: over %d bytes, the most MemoryOptions.MaxBytes allows; raise it, or keep the records in Redis or Postgres", op, key, ErrStoreFull, maxBytes)
}

// entrySize is what a record counts against MaxBytes: its key and fingerprint, and content, the
// bytes of its response's header names, values and body.
func entrySize(key, fingerprint string, content int) int64 {
	return int64(entryOverhead + len(key) + len(fingerprint) + content)
}

// record is a copy of e's record, read at now, that shares nothing mutable with the store. Its
// times are now moved on by what remains until them.
func (s *MemoryStore) record(e *memEntry, now instant) Record {
	t := now.at
	r := Record{Key: e.keyOf(), Fingerprint: e.fingerprintOf(), State: e.state, Expires: now.time.Add(time.Duration(e.expires - t))}
	if e.state == StateCompleted {
		r.Response.Status = e.status
		r.Response.Header, r.Response.Body = unflatten(e.data[e.keyLen+e.fpLen:])
	} else {
		r.LeaseExpires = now.time.Add(time.Duration(e.leaseExpires - t))
	}
	return r
}

// Flags of a flattened response's first byte: whether its Header and Body were nil, so that
// they come back as they went in.
const (
	flatHeader = 1 << iota
	flatBody
)

// flatten writes a record's key and fingerprint and its response's header and body into one
// string: the key and the fingerprint as they are; then a flags byte, the number of header keys,
// the number of header values in all (four bytes, little-endian: it is known only after the pass
// over the map, and written back into its place), each key with its number of values (0 for a
// nil slice, else one more than it has) and the values, every string preceded by its length;
// then the body, to the end. It also returns the response's content size for entrySize.
//
// The header goes first into a buffer on the stack (one pass over the map, whose iteration is
// what costs), and the string is then made at its size in one allocation.
func flatten(key, fingerprint string, resp Response) (flat string, content int) {
	var flags byte
	if resp.Header != nil {
		flags |= flatHeader
	}
	if resp.Body != nil {
		flags |= flatBody
	}
	head := make([]byte, 0, 512)
	head = append(head, flags)
	head = binary.AppendUvarint(head, uint64(len(resp.Header)))
	values := len(head)
	head = append(head, 0, 0, 0, 0)
	content = len(resp.Body)
	nv := 0
	for k, vs := range resp.Header {
		head = appendString(head, k)
		content += len(k)
		if vs == nil {
			head = append(head, 0)
			continue
		}
		head = binary.AppendUvarint(head, uint64(len(vs)+1))
		for _, v := range vs {
			head = appendString(head, v)
			content += len(v)
		}
		nv += len(vs)
	}
	binary.LittleEndian.PutUint32(head[values:], uint32(nv))
	var b strings.Builder
	b.Grow(len(key) + len(fingerprint) + len(head) + len(resp.Body))
	b.WriteString(key)
	b.WriteString(fingerprint)
	b.Write(head)
	b.Write(resp.Body)
	return b.String(), content
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// unflatten reads back the response flatten wrote after the key and fingerprint: a new Header
// whose values share the string (which never changes), and a copy of the body.
func unflatten(s string) (http.Header, []byte) {
	flags := s[0]
	d := flatReader{s: s, i: 1}
	keys := d.uvarint()
	nv := int(uint32(s[d.i]) | uint32(s[d.i+1])<<8 | uint32(s[d.i+2])<<16 | uint32(s[d.i+3])<<24)
	d.i += 4
	var h http.Header
	if flags&flatHeader != 0 {
		sv := make([]string, nv) // one array for all the values, as Header.Clone makes
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

// expiryItem is a record waiting in an expiry queue: its expiry (see MemoryStore.since) and its
// slot, and no pointer: ordering never reads the records, and the collector has nothing in the
// queues to follow.
type expiryItem struct {
	at   int64
	slot int
}

// inRing is the memEntry.index of a record in the ring rather than the heap.
const inRing = -1

// expiryRing is a queue of records in the order they expire: each joins at the back, expiring no
// sooner than the one before it, and leaves from the front when its time comes. Records of one
// TTL, completed on a clock that only moves forward, arrive in that order; once the store is in
// its steady state every new key expires the oldest, and the ring does that in O(1), without
// moving any other record, where a heap moves one at each of its levels. A record in the ring
// stays there until it expires: only in-progress records change or leave early, and they are in
// the heap.
type expiryRing struct {
	items   []expiryItem // a power of two of them, or none
	head, n int          // the front's position in items, and how many are queued
}

func (r *expiryRing) front() expiryItem { return r.items[r.head] }

func (r *expiryRing) back() expiryItem { return r.items[(r.head+r.n-1)&(len(r.items)-1)] }

func (r *expiryRing) push(it expiryItem) {
	if r.n == len(r.items) {
		items := make([]expiryItem, max(64, 2*len(r.items)))
		k := copy(items, r.items[r.head:])
		copy(items[k:], r.items[:r.head])
		r.items, r.head = items, 0
	}
	r.items[(r.head+r.n)&(len(r.items)-1)] = it
	r.n++
}

func (r *expiryRing) pop() expiryItem {
	it := r.items[r.head]
	r.head = (r.head + 1) & (len(r.items) - 1)
	r.n--
	return it
}

// expiryHeap orders the records that are not in the ring by when they expire, soonest first.
// Moving an item updates its record's index, so that a record's item can be found.
//
// Each item has four children, which lie side by side in one cache line: a heap half as deep as
// a binary one, so that taking out the soonest record moves half as many records.
type expiryHeap []expiryItem

// heapArity is the number of children of an item in the expiry heap.
const heapArity = 4

// push adds the record in slot i to the expiry heap.
func (s *MemoryStore) push(i int) {
	s.expiry = append(s.expiry, expiryItem{s.entries[i].expires, i})
	s.up(len(s.expiry) - 1)
}

// unheap takes the item at position h out of the expiry heap; its record stays.
func (s *MemoryStore) unheap(h int) {
	last := len(s.expiry) - 1
	if h != last {
		s.expiry[h] = s.expiry[last]
		s.entries[s.expiry[h].slot].index = h
	}
	s.expiry = s.expiry[:last]
	if h != last && !s.down(h) {
		s.up(h)
	}
}

// fix restores the heap's order after the expiry of e, which is in it, changed.
func (s *MemoryStore) fix(e *memEntry) {
	h := e.index
	s.expiry[h].at = e.expires
	if !s.down(h) {
		s.up(h)
	}
}

func (s *MemoryStore) up(h int) {
	x, it := s.expiry, s.expiry[h]
	for h > 0 {
		p := (h - 1) / heapArity
		if it.at >= x[p].at {
			break
		}
		x[h] = x[p]
		s.entries[x[h].slot].index = h
		h = p
	}
	x[h] = it
	s.entries[it.slot].index = h
}

// down moves the item at h towards the leaves, and reports whether it moved.
func (s *MemoryStore) down(h int) bool {
	x, it, start := s.expiry, s.expiry[h], h
	for {
		first := heapArity*h + 1
		if first >= len(x) {
			break
		}
		c := first // the soonest child
		for j := first + 1; j < min(first+heapArity, len(x)); j++ {
			if x[j].at < x[c].at {
				c = j
			}
		}
		if x[c].at >= it.at {
			break
		}
		x[h] = x[c]
		s.entries[x[h].slot].index = h
		h = c
	}
	x[h] = it
	s.entries[it.slot].index = h
	return h > start
}
