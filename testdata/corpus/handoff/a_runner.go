// Package handoff runs, in the background, the work a handler in
// another package accepted and claimed a key for.
package handoff

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Matcher books a match for a player and keeps the booking under the
// key the handler claimed.
type Matcher struct {
	Redis  *redis.Client
	HTTP   *http.Client
	Lobby  string
	Logger *slog.Logger
}

// booking is what a finished match keeps under its key.
type booking struct {
	Server string `json:"server"`
}

func (m *Matcher) reserve(ctx context.Context, player string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.Lobby+"/reservations", strings.NewReader(`{"player":"`+player+`"}`))
	if err != nil {
		return "", err
	}
	resp, err := m.HTTP.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		return "", fmt.Errorf("lobby answered %d", resp.StatusCode)
	}
	var b booking
	if err := json.NewDecoder(resp.Body).Decode(&b); err != nil {
		return "", err
	}
	return b.Server, nil
}

// Book reserves a server and keeps the booking under key; when the
// lobby fails it logs and returns, and the key stays claimed.
func (m *Matcher) Book(ctx context.Context, key, player string) {
	server, err := m.reserve(ctx, player)
	if err != nil {
		m.Logger.ErrorContext(ctx, "reserve", "player", player, "err", err)
		return
	}
	body, _ := json.Marshal(booking{Server: server})
	m.Redis.Set(ctx, key, body, 10*time.Minute)
}

// BookOrRelease gives key back when the lobby fails, so that the
// player's retry books again.
func (m *Matcher) BookOrRelease(ctx context.Context, key, player string) {
	server, err := m.reserve(ctx, player)
	if err != nil {
		m.Logger.ErrorContext(ctx, "reserve", "player", player, "err", err)
		m.Redis.Del(context.WithoutCancel(ctx), key)
		return
	}
	body, _ := json.Marshal(booking{Server: server})
	m.Redis.Set(ctx, key, body, 10*time.Minute)
}
