// Package memcache holds dedup sets kept in in-memory cache libraries:
// an alert executor that remembers the checks it has evaluated, and a
// webhook relay that remembers the deliveries it has forwarded.
package memcache

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	gocache "github.com/patrickmn/go-cache"
)

// Job is one evaluation of a monitor's check at a point in time.
type Job struct {
	MonitorID int64
	At        time.Time
	Emails    string
	State     string
}

// Mailer sends alert emails.
type Mailer interface {
	SendAlert(ctx context.Context, to []string, monitorID int64, state string) error
}

// Executor evaluates jobs from a queue that may hand one job to two
// executors of the same process.
type Executor struct {
	done   *lru.Cache[string, bool]
	mailer Mailer
}

func jobKey(j Job) string { return fmt.Sprintf("%d-%d", j.MonitorID, j.At.Unix()) }

// Execute mails the alert of a job unless the cache says the job was
// done; it marks the job done after the mail. Two executors handed the
// same job both find it missing and both mail.
//
// corpus: bug checkthenact
// modelled on: raintank/worldping-api pkg/alerting/executor.go (a job cache of done keys), with the check and the add apart
func (e *Executor) Execute(ctx context.Context, j Job) error {
	key := jobKey(j)
	if e.done.Contains(key) {
		return nil
	}
	if err := e.mailer.SendAlert(ctx, strings.Split(j.Emails, ","), j.MonitorID, j.State); err != nil {
		return err
	}
	e.done.Add(key, true)
	return nil
}

// ExecuteOnce marks the job done and learns whether it was, in one
// step, before the mail.
//
// corpus: ok checkthenact
// modelled on: raintank/worldping-api pkg/alerting/executor.go (ContainsOrAdd of the job's key before the evaluation)
func (e *Executor) ExecuteOnce(ctx context.Context, j Job) error {
	if found, _ := e.done.ContainsOrAdd(jobKey(j), true); found {
		return nil
	}
	return e.mailer.SendAlert(ctx, strings.Split(j.Emails, ","), j.MonitorID, j.State)
}

// Relay forwards webhook deliveries to a subscriber's endpoint.
type Relay struct {
	forwarded *gocache.Cache
	pages     *gocache.Cache
	client    *http.Client
}

// Delivery is one webhook delivery.
type Delivery struct {
	ID       string `json:"id"`
	Endpoint string `json:"endpoint"`
	Payload  []byte `json:"payload"`
}

// Forward POSTs a delivery unless the cache has it; the provider retries
// deliveries it saw no answer to, and two retries in flight both POST.
//
// corpus: bug checkthenact
// modelled on: patrickmn/go-cache README.md (Get, then Set with DefaultExpiration) as a dedup set of deliveries
func (r *Relay) Forward(ctx context.Context, d Delivery) error {
	if _, found := r.forwarded.Get(d.ID); found {
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.Endpoint, strings.NewReader(string(d.Payload)))
	if err != nil {
		return err
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	r.forwarded.Set(d.ID, true, gocache.DefaultExpiration)
	return nil
}

// ForwardOnce claims the delivery with Add, which fails for a key the
// cache holds, and gives the claim back when the POST fails.
//
// corpus: ok checkthenact
// modelled on: patrickmn/go-cache README.md (Add: set only when absent) as a dedup set of deliveries
func (r *Relay) ForwardOnce(ctx context.Context, d Delivery) error {
	if err := r.forwarded.Add(d.ID, true, gocache.DefaultExpiration); err != nil {
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.Endpoint, strings.NewReader(string(d.Payload)))
	if err == nil {
		var resp *http.Response
		if resp, err = r.client.Do(req); err == nil {
			resp.Body.Close()
			return nil
		}
	}
	r.forwarded.Delete(d.ID)
	return err
}

// Subscription reads a subscriber's settings through a cache: a GET,
// which two callers may both send.
//
// corpus: ok checkthenact
// modelled on: panutat-p/go-snippet 29_go_cache.md (Get, then Set of what was fetched)
func (r *Relay) Subscription(ctx context.Context, url string) (map[string]any, error) {
	if v, ok := r.pages.Get(url); ok {
		return v.(map[string]any), nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var sub map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&sub); err != nil {
		return nil, err
	}
	r.pages.Set(url, sub, time.Minute)
	return sub, nil
}
