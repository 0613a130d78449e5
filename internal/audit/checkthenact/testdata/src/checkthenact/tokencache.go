package checkthenact

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

type grant struct {
	AccessToken string `json:"access_token"`
	ExpiresIn   int    `json:"expires_in"`
}

// tokenClient keeps the access tokens it fetched, one per scope.
type tokenClient struct {
	mu     sync.Mutex
	tokens map[string]string
	hc     *http.Client
	rdb    *redis.Client
	id     string
	secret string
}

// token asks the token endpoint on a miss: two callers that both miss
// get two good tokens, and nothing else changes.
func (c *tokenClient) token(ctx context.Context, scope string) (string, error) {
	c.mu.Lock()
	tok, ok := c.tokens[scope]
	c.mu.Unlock()
	if ok {
		return tok, nil
	}
	form := url.Values{"grant_type": {"client_credentials"}, "scope": {scope}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "https://auth.example.com/oauth2/token", strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.SetBasicAuth(c.id, c.secret)
	resp, err := c.hc.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var g grant
	if err := json.NewDecoder(resp.Body).Decode(&g); err != nil {
		return "", err
	}
	c.mu.Lock()
	c.tokens[scope] = g.AccessToken
	c.mu.Unlock()
	return g.AccessToken, nil
}

// sharedToken keeps the token in Redis for every replica.
func (c *tokenClient) sharedToken(ctx context.Context) (string, error) {
	key := "token:" + c.id
	if tok, err := c.rdb.Get(ctx, key).Result(); err == nil {
		return tok, nil
	}
	resp, err := c.hc.PostForm("https://auth.example.com/oauth2/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {c.id}, "client_secret": {c.secret}})
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var g grant
	if err := json.NewDecoder(resp.Body).Decode(&g); err != nil {
		return "", err
	}
	c.rdb.Set(ctx, key, g.AccessToken, time.Duration(g.ExpiresIn-30)*time.Second)
	return g.AccessToken, nil
}

// payout posts a transfer on a miss: two callers that both miss pay
// twice.
func (c *tokenClient) payout(ctx context.Context, ref string, cents int) (string, error) {
	key := "payout:" + ref
	if id, err := c.rdb.Get(ctx, key).Result(); err == nil {
		return id, nil
	}
	resp, err := c.hc.PostForm("https://pay.example.com/v1/transfers", url.Values{"reference": {ref}, "amount": {strings.Repeat("9", cents%3)}})
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out struct{ ID string }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return "", err
	}
	c.rdb.Set(ctx, key, out.ID, 0) // want `SET of key after the GET at tokencache.go:\d+ races with a concurrent retry: both find nothing and both run http.PostForm first`
	return out.ID, nil
}
