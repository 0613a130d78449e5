package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"
)

// Desk is the host-stand service of one restaurant: walk-ins, table
// holds, pagers, seating. It runs as a single process per restaurant and
// keeps its state in memory.
type Desk struct {
	backend Backend

	entries sync.Map // Idempotency-Key -> *deskEntry

	mu      sync.Mutex
	replies map[string]*deskReply

	holdsMu sync.RWMutex
	holds   map[string]string // table -> party

	pagers sync.Map // party -> pager number
	menus  sync.Map // day -> []byte

	seating sync.Map // table -> struct{}

	nextPager func() int
	buzz      func(pager int) error
	loadMenu  func(ctx context.Context, day string) ([]byte, error)
}

// NewDesk returns a Desk.
func NewDesk(b Backend, nextPager func() int, buzz func(int) error, loadMenu func(context.Context, string) ([]byte, error)) *Desk {
	return &Desk{
		backend:   b,
		replies:   map[string]*deskReply{},
		holds:     map[string]string{},
		nextPager: nextPager,
		buzz:      buzz,
		loadMenu:  loadMenu,
	}
}

type deskEntry struct {
	done      chan struct{}
	completed bool
	status    int
	body      []byte
}

type walkIn struct {
	Name  string `json:"name"`
	Party int    `json:"party"`
	Phone string `json:"phone"`
}

// ServeWalkIn is POST /walkins from the host tablet, which resends on a
// flaky Wi-Fi with the same Idempotency-Key.
//
// corpus: bug cacheresponse
// modelled on: AnandSundar/go-idempotency README.md (in-memory store of responses keyed by idempotency key, concurrent duplicates wait)
func (d *Desk) ServeWalkIn(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	var in walkIn
	if key == "" || json.NewDecoder(r.Body).Decode(&in) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	e := &deskEntry{done: make(chan struct{})}
	if v, loaded := d.entries.LoadOrStore(key, e); loaded {
		prev := v.(*deskEntry)
		<-prev.done
		if prev.completed {
			w.WriteHeader(http.StatusOK)
			return
		}
		http.Error(w, "first attempt failed; retry with a new key", http.StatusConflict)
		return
	}
	defer close(e.done)

	body, _ := json.Marshal(in)
	status, resp, err := d.backend.Forward(r.Context(), http.MethodPost, "/waitlist", body)
	if err != nil || status >= 300 {
		d.entries.Delete(key)
		http.Error(w, "waitlist unavailable", http.StatusBadGateway)
		return
	}
	e.completed = true
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(resp)
}

// ServeWalkInReplaying is POST /v2/walkins from the host tablet, which
// resends on a flaky Wi-Fi with the same Idempotency-Key.
//
// corpus: ok cacheresponse
// modelled on: AnandSundar/go-idempotency README.md (in-memory store of responses keyed by idempotency key, concurrent duplicates wait)
func (d *Desk) ServeWalkInReplaying(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	var in walkIn
	if key == "" || json.NewDecoder(r.Body).Decode(&in) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	e := &deskEntry{done: make(chan struct{})}
	if v, loaded := d.entries.LoadOrStore(key, e); loaded {
		prev := v.(*deskEntry)
		<-prev.done
		if prev.completed {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(prev.status)
			_, _ = w.Write(prev.body)
			return
		}
		http.Error(w, "first attempt failed; retry with a new key", http.StatusConflict)
		return
	}
	defer close(e.done)

	body, _ := json.Marshal(in)
	status, resp, err := d.backend.Forward(r.Context(), http.MethodPost, "/waitlist", body)
	if err != nil || status >= 300 {
		d.entries.Delete(key)
		http.Error(w, "waitlist unavailable", http.StatusBadGateway)
		return
	}
	e.status, e.body, e.completed = status, resp, true
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(resp)
}

type deskReply struct {
	running bool
	status  int
	body    []byte
	at      time.Time
}

type tableMove struct {
	Party string `json:"party"`
	From  string `json:"from"`
	To    string `json:"to"`
}

// ServeMoveParty is POST /moves; the floor manager's app resends a move
// it got no answer to.
//
// corpus: bug cacheresponse
// modelled on: dhanapala-id/go-kit idempotency/README.md (Check wraps a handler; a key seen before is refused)
func (d *Desk) ServeMoveParty(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	var mv tableMove
	if key == "" || json.NewDecoder(r.Body).Decode(&mv) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	d.mu.Lock()
	if prev, ok := d.replies[key]; ok {
		d.mu.Unlock()
		if prev.running {
			http.Error(w, "in progress", http.StatusConflict)
			return
		}
		http.Error(w, "duplicate request", http.StatusConflict)
		return
	}
	d.replies[key] = &deskReply{running: true}
	d.mu.Unlock()

	body, _ := json.Marshal(mv)
	status, resp, err := d.backend.Forward(r.Context(), http.MethodPost, "/moves", body)
	d.mu.Lock()
	if err != nil || status >= 500 {
		delete(d.replies, key)
		d.mu.Unlock()
		http.Error(w, "floor plan unavailable", http.StatusBadGateway)
		return
	}
	d.replies[key] = &deskReply{at: time.Now()}
	d.mu.Unlock()
	w.WriteHeader(status)
	_, _ = w.Write(resp)
}

// ServeMovePartyReplaying is POST /v2/moves; the floor manager's app
// resends a move it got no answer to.
//
// corpus: ok cacheresponse
// modelled on: dhanapala-id/go-kit idempotency/README.md (Check wraps a handler; a repeat gets the stored answer)
func (d *Desk) ServeMovePartyReplaying(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	var mv tableMove
	if key == "" || json.NewDecoder(r.Body).Decode(&mv) != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	d.mu.Lock()
	if prev, ok := d.replies[key]; ok {
		d.mu.Unlock()
		if prev.running {
			http.Error(w, "in progress", http.StatusConflict)
			return
		}
		w.WriteHeader(prev.status)
		_, _ = w.Write(prev.body)
		return
	}
	d.replies[key] = &deskReply{running: true}
	d.mu.Unlock()

	body, _ := json.Marshal(mv)
	status, resp, err := d.backend.Forward(r.Context(), http.MethodPost, "/moves", body)
	d.mu.Lock()
	if err != nil || status >= 500 {
		delete(d.replies, key)
		d.mu.Unlock()
		http.Error(w, "floor plan unavailable", http.StatusBadGateway)
		return
	}
	d.replies[key] = &deskReply{status: status, body: resp, at: time.Now()}
	d.mu.Unlock()
	w.WriteHeader(status)
	_, _ = w.Write(resp)
}

// HoldTable holds a table for a party that is on its way.
//
// corpus: bug checkthenact
// modelled on: AnandSundar/go-idempotency README.md (in-memory store behind a sync.RWMutex)
func (d *Desk) HoldTable(table, party string) bool {
	d.holdsMu.RLock()
	_, taken := d.holds[table]
	d.holdsMu.RUnlock()
	if taken {
		return false
	}
	d.holdsMu.Lock()
	d.holds[table] = party
	d.holdsMu.Unlock()
	return true
}

// HoldTableLocked holds a table for a party that is on its way.
//
// corpus: ok checkthenact
// modelled on: AnandSundar/go-idempotency README.md (in-memory store behind a sync.RWMutex) with the write lock held across lookup and store
func (d *Desk) HoldTableLocked(table, party string) bool {
	d.holdsMu.Lock()
	defer d.holdsMu.Unlock()
	if _, taken := d.holds[table]; taken {
		return false
	}
	d.holds[table] = party
	return true
}

// PagePartyReady buzzes the party's pager, handing one out first when the
// party has none.
//
// corpus: bug checkthenact
// modelled on: keenangraham/go-sqs-deduplication README.md (seen identifiers tracked in memory) with a sync.Map
func (d *Desk) PagePartyReady(party string) error {
	if v, ok := d.pagers.Load(party); ok {
		return d.buzz(v.(int))
	}
	pager := d.nextPager()
	d.pagers.Store(party, pager)
	return d.buzz(pager)
}

// TodaysMenu returns the day's menu, loading it from the kitchen system
// the first time it is asked for.
//
// corpus: ok checkthenact
// modelled on: fco-gt/gopotency README.md (in-memory storage backend) used as a read-through cache
func (d *Desk) TodaysMenu(ctx context.Context, day string) ([]byte, error) {
	if v, ok := d.menus.Load(day); ok {
		return v.([]byte), nil
	}
	menu, err := d.loadMenu(ctx, day)
	if err != nil {
		return nil, err
	}
	d.menus.Store(day, menu)
	return menu, nil
}

// ServeSeatParty is POST /tables/{table}/seat; a table is seated by one
// request at a time.
//
// corpus: bug releaseonerror
// modelled on: AnandSundar/go-idempotency README.md (concurrent request handling with a lock per key)
func (d *Desk) ServeSeatParty(w http.ResponseWriter, r *http.Request) {
	table := r.PathValue("table")
	if _, busy := d.seating.LoadOrStore(table, struct{}{}); busy {
		http.Error(w, "table is being seated", http.StatusConflict)
		return
	}
	var body struct {
		Party string `json:"party"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	raw, _ := json.Marshal(map[string]string{"table": table, "party": body.Party})
	status, resp, err := d.backend.Forward(r.Context(), http.MethodPost, "/seatings", raw)
	if err != nil {
		http.Error(w, "floor plan unavailable", http.StatusBadGateway)
		return
	}
	d.seating.Delete(table)
	w.WriteHeader(status)
	_, _ = w.Write(resp)
}

// ServeSeatPartyReleasing is POST /v2/tables/{table}/seat; a table is
// seated by one request at a time.
//
// corpus: ok releaseonerror
// modelled on: AnandSundar/go-idempotency README.md (concurrent request handling with a lock per key, released when the request ends)
func (d *Desk) ServeSeatPartyReleasing(w http.ResponseWriter, r *http.Request) {
	table := r.PathValue("table")
	if _, busy := d.seating.LoadOrStore(table, struct{}{}); busy {
		http.Error(w, "table is being seated", http.StatusConflict)
		return
	}
	defer d.seating.Delete(table)

	var body struct {
		Party string `json:"party"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	raw, _ := json.Marshal(map[string]string{"table": table, "party": body.Party})
	status, resp, err := d.backend.Forward(r.Context(), http.MethodPost, "/seatings", raw)
	if err != nil {
		http.Error(w, "floor plan unavailable", http.StatusBadGateway)
		return
	}
	w.WriteHeader(status)
	_, _ = w.Write(resp)
}
