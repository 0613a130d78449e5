// Package cache is a copy of the signatures of github.com/patrickmn/go-cache
// that the checks read.
package cache

import "time"

const (
	NoExpiration      time.Duration = -1
	DefaultExpiration time.Duration = 0
)

type Cache struct {
	*cache
}

type cache struct{}

func New(defaultExpiration, cleanupInterval time.Duration) *Cache { return &Cache{&cache{}} }

func (c *cache) Get(k string) (interface{}, bool) { return nil, false }
func (c *cache) GetWithExpiration(k string) (interface{}, time.Time, bool) {
	return nil, time.Time{}, false
}
func (c *cache) Set(k string, x interface{}, d time.Duration)           {}
func (c *cache) SetDefault(k string, x interface{})                     {}
func (c *cache) Add(k string, x interface{}, d time.Duration) error     { return nil }
func (c *cache) Replace(k string, x interface{}, d time.Duration) error { return nil }
func (c *cache) Delete(k string)                                        {}
