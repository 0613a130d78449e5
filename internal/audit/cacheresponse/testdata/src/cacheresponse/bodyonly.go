package cacheresponse

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/redis/go-redis/v9"
)

type bodyStore struct{ rdb *redis.Client }

// replayBody answers a replay with 200 and the stored body.
func (s *bodyStore) replayBody(w http.ResponseWriter, r *http.Request, key string) bool {
	body, err := s.rdb.Get(r.Context(), key).Bytes()
	if err != nil || len(body) == 0 {
		return false
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
	return true
}

// wrapBody stores the recorder's body alone: a 201 or a 422 replays as
// whatever replayBody writes.
func (s *bodyStore) wrapBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := "idem:" + r.Header.Get("Idempotency-Key")
		ok, err := s.rdb.SetNX(r.Context(), key, "", time.Hour).Result()
		if err != nil {
			http.Error(w, "unavailable", http.StatusServiceUnavailable)
			return
		}
		if !ok {
			if !s.replayBody(w, r, key) {
				http.Error(w, "in progress", http.StatusConflict)
			}
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		if rec.Code >= 500 {
			s.rdb.Del(r.Context(), key)
		} else {
			s.rdb.Set(r.Context(), key, rec.Body.Bytes(), 24*time.Hour) // want `SET of key stores the Body of rec without its Code`
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}

// wrapBodyAndStatus stores the status under a key of its own beside the
// body.
func (s *bodyStore) wrapBodyAndStatus(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := "idem:" + r.Header.Get("Idempotency-Key")
		ok, err := s.rdb.SetNX(r.Context(), key, "", time.Hour).Result()
		if err != nil || !ok {
			http.Error(w, "in progress", http.StatusConflict)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		if rec.Code >= 500 {
			s.rdb.Del(r.Context(), key)
		} else {
			s.rdb.Set(r.Context(), key+":status", rec.Code, 24*time.Hour)
			s.rdb.Set(r.Context(), key, rec.Body.Bytes(), 24*time.Hour)
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}

type savedReply struct {
	Status int    `json:"status"`
	Body   []byte `json:"body"`
}

// wrapReply stores the status and the body together.
func (s *bodyStore) wrapReply(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := "idem:" + r.Header.Get("Idempotency-Key")
		ok, err := s.rdb.SetNX(r.Context(), key, "", time.Hour).Result()
		if err != nil || !ok {
			http.Error(w, "in progress", http.StatusConflict)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		if rec.Code >= 500 {
			s.rdb.Del(r.Context(), key)
		} else {
			saved, _ := json.Marshal(savedReply{Status: rec.Code, Body: rec.Body.Bytes()})
			s.rdb.Set(r.Context(), key, saved, 24*time.Hour)
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}

// ginBodyWriter copies what the handlers write.
type ginBodyWriter struct {
	gin.ResponseWriter
	body *bytes.Buffer
}

func (w ginBodyWriter) Write(b []byte) (int, error) {
	w.body.Write(b)
	return w.ResponseWriter.Write(b)
}

// ginBody is a gin middleware that stores the copied body alone and
// replays it as a 200.
func (s *bodyStore) ginBody(c *gin.Context) {
	key := "idem:" + c.GetHeader("Idempotency-Key")
	ok, err := s.rdb.SetNX(c.Request.Context(), key, "", time.Hour).Result()
	if err != nil {
		c.AbortWithStatus(http.StatusServiceUnavailable)
		return
	}
	if !ok {
		cached, err := s.rdb.Get(c.Request.Context(), key).Bytes()
		if err != nil || len(cached) == 0 {
			c.AbortWithStatus(http.StatusConflict)
			return
		}
		c.Data(http.StatusOK, "application/json", cached)
		c.Abort()
		return
	}
	bw := &ginBodyWriter{ResponseWriter: c.Writer, body: &bytes.Buffer{}}
	c.Writer = bw
	c.Next()
	if c.Writer.Status() >= 500 {
		s.rdb.Del(c.Request.Context(), key)
		return
	}
	s.rdb.Set(c.Request.Context(), key, bw.body.String(), 24*time.Hour) // want `SET of key stores the body of bw without its Status`
}
