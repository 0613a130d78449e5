package outbound

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// tokenAnswer is what an OAuth 2.0 token endpoint answers.
type tokenAnswer struct {
	AccessToken string `json:"access_token"`
	ExpiresIn   int    `json:"expires_in"`
}

// PartnerAuth fetches the access tokens a partner API wants, and keeps
// them: the endpoint limits how often a client may ask.
type PartnerAuth struct {
	HTTP     *http.Client
	Redis    *redis.Client
	TokenURL string
	ClientID string
	Secret   string

	mu     sync.Mutex
	scoped map[string]string
}

// SharedToken keeps the token in Redis for every replica and asks the
// token endpoint on a miss: two replicas that both miss get two good
// tokens, and the second kept replaces the first.
//
// corpus: ok checkthenact
// modelled on: usthooz/owechat token/token.go (access_token read from Redis, fetched and cached on a miss)
func (a *PartnerAuth) SharedToken(ctx context.Context) (string, error) {
	key := "partner:token:" + a.ClientID
	tok, err := a.Redis.Get(ctx, key).Result()
	if err == nil {
		return tok, nil
	}
	if !errors.Is(err, redis.Nil) {
		return "", err
	}
	resp, err := a.HTTP.PostForm(a.TokenURL, url.Values{
		"grant_type":    {"client_credentials"},
		"client_id":     {a.ClientID},
		"client_secret": {a.Secret},
	})
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("token endpoint answered %d", resp.StatusCode)
	}
	var ans tokenAnswer
	if err := json.NewDecoder(resp.Body).Decode(&ans); err != nil {
		return "", err
	}
	ttl := time.Duration(ans.ExpiresIn)*time.Second - time.Minute
	if err := a.Redis.Set(ctx, key, ans.AccessToken, ttl).Err(); err != nil {
		return "", err
	}
	return ans.AccessToken, nil
}

// ScopedToken keeps one token per scope in memory, asking with a request
// it builds itself.
//
// corpus: ok checkthenact
// modelled on: usthooz/owechat token/token.go (a token cached per app and fetched on a miss), kept in a map under a mutex
func (a *PartnerAuth) ScopedToken(ctx context.Context, scope string) (string, error) {
	a.mu.Lock()
	tok, ok := a.scoped[scope]
	a.mu.Unlock()
	if ok {
		return tok, nil
	}
	form := url.Values{}
	form.Set("grant_type", "client_credentials")
	form.Set("scope", scope)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.TokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(a.ClientID, a.Secret)
	resp, err := a.HTTP.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var ans tokenAnswer
	if err := json.NewDecoder(resp.Body).Decode(&ans); err != nil {
		return "", err
	}
	a.mu.Lock()
	a.scoped[scope] = ans.AccessToken
	a.mu.Unlock()
	return ans.AccessToken, nil
}

// SettleInvoice posts the settlement on a miss of the record kept for
// it: two deliveries of the same invoice event that both miss settle it
// twice.
//
// corpus: bug checkthenact
// modelled on: usthooz/owechat token/token.go (the same read-through shape), here in front of a form POST that moves money
func (a *PartnerAuth) SettleInvoice(ctx context.Context, invoice string, cents int64) (string, error) {
	key := "partner:settled:" + invoice
	if ref, err := a.Redis.Get(ctx, key).Result(); err == nil {
		return ref, nil
	}
	resp, err := a.HTTP.PostForm(a.TokenURL+"/../settlements", url.Values{
		"invoice": {invoice},
		"amount":  {fmt.Sprint(cents)},
	})
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var out struct {
		Reference string `json:"reference"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return "", err
	}
	if err := a.Redis.Set(ctx, key, out.Reference, 30*24*time.Hour).Err(); err != nil {
		return "", err
	}
	return out.Reference, nil
}
