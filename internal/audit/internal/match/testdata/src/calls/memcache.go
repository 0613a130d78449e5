package calls

import (
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	gocache "github.com/patrickmn/go-cache"
)

type caches struct {
	seen   *gocache.Cache
	recent *lru.Cache[string, bool]
}

func memCaches(s *caches, id string) {
	s.seen.Get(id)                      // want `access read Get record="cache go-cache s.seen" keys=<id> dest=<> for-update=false appends=false added=false`
	s.seen.Set(id, true, time.Hour)     // want `access write Set record="cache go-cache s.seen" keys=<id>`
	s.seen.Add(id, true, time.Hour)     // want `access claim Add record="cache go-cache s.seen" keys=<id>`
	s.seen.Delete(id)                   // want `access delete Delete record="cache go-cache s.seen" keys=<id>`
	s.seen.Replace(id, true, time.Hour) // not a dedup step: no access
	s.recent.Contains(id)               // want `access read Contains record="cache golang-lru s.recent" keys=<id>`
	s.recent.Add(id, true)              // want `access write Add record="cache golang-lru s.recent" keys=<id>`
	s.recent.ContainsOrAdd(id, true)    // want `access claim ContainsOrAdd record="cache golang-lru s.recent" keys=<id>`
	s.recent.Remove(id)                 // want `access delete Remove record="cache golang-lru s.recent" keys=<id>`
	s.recent.Len()                      // no key: no access
}
