package subscriptions

import (
	"bytes"
	"context"
	"net/http"
)

func (s *Service) pause(ctx context.Context, subID string) error {
	_, err := s.db.NewUpdate().Model((*Subscription)(nil)).Set("status = 'paused'").Where("id = ?", subID).Exec(ctx)
	return err
}

// Pause pauses a subscription under the client's key; a deferred function
// marks the key completed once the pause went through.
//
// corpus: bug cacheresponse
// modelled on: oagudo/outbox README.md (a status column moved forward once the work is done)
func (s *Service) Pause(w http.ResponseWriter, r *http.Request) {
	key, subID := r.Header.Get("Idempotency-Key"), r.PathValue("id")
	ctx := r.Context()
	claimed, err := s.claimActivation(ctx, key, subID)
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"title": "store unavailable"})
		return
	}
	if !claimed {
		s.replayActivation(ctx, w, key)
		return
	}
	done := false
	defer func() {
		if !done {
			return
		}
		if _, err := s.db.NewUpdate().Model((*Activation)(nil)).
			Set("status = 'completed'").Where("key = ?", key).Exec(context.WithoutCancel(ctx)); err != nil {
			s.log.ErrorContext(ctx, "complete pause", "key", key, "err", err)
		}
	}()
	if err := s.pause(ctx, subID); err != nil {
		s.dropActivation(ctx, key)
		writeJSON(w, http.StatusInternalServerError, map[string]string{"title": "pause failed"})
		return
	}
	done = true
	writeJSON(w, http.StatusOK, map[string]string{"subscription": subID, "status": "paused"})
}

// recorder keeps what a handler answered.
type recorder struct {
	http.ResponseWriter
	code int
	body bytes.Buffer
}

func (rec *recorder) WriteHeader(code int) {
	rec.code = code
	rec.ResponseWriter.WriteHeader(code)
}

func (rec *recorder) Write(b []byte) (int, error) {
	if rec.code == 0 {
		rec.code = http.StatusOK
	}
	rec.body.Write(b)
	return rec.ResponseWriter.Write(b)
}

// Resume resumes a subscription under the client's key. The handler's
// answer is recorded and stored unless it is a server error, which gives
// the key back.
//
// corpus: ok cacheresponse
// modelled on: andriidelz/snake_game backend/internal/middleware/response_writer.go (a ResponseWriter that remembers the status)
func (s *Service) Resume(w http.ResponseWriter, r *http.Request) {
	key, subID := r.Header.Get("Idempotency-Key"), r.PathValue("id")
	ctx := r.Context()
	claimed, err := s.claimActivation(ctx, key, subID)
	if err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"title": "store unavailable"})
		return
	}
	if !claimed {
		s.replayActivation(ctx, w, key)
		return
	}
	rec := &recorder{ResponseWriter: w}
	if _, err := s.db.NewUpdate().Model((*Subscription)(nil)).Set("status = 'active'").Where("id = ?", subID).Exec(ctx); err != nil {
		writeJSON(rec, http.StatusInternalServerError, map[string]string{"title": "resume failed"})
	} else {
		writeJSON(rec, http.StatusOK, map[string]string{"subscription": subID, "status": "active"})
	}
	if rec.code >= 500 {
		s.dropActivation(ctx, key)
		return
	}
	if _, err := s.db.NewUpdate().Model((*Activation)(nil)).
		Set("status = 'completed'").Set("response_code = ?", rec.code).Set("response_body = ?", rec.body.Bytes()).
		Where("key = ?", key).Exec(ctx); err != nil {
		s.log.ErrorContext(ctx, "complete resume", "key", key, "err", err)
	}
}

// replayActivation answers with the stored answer for key, or 409.
func (s *Service) replayActivation(ctx context.Context, w http.ResponseWriter, key string) {
	var a Activation
	if err := s.db.NewSelect().Model(&a).Where("key = ?", key).Scan(ctx); err != nil || a.Status != "completed" {
		writeJSON(w, http.StatusConflict, map[string]string{"title": "request in progress"})
		return
	}
	w.Header().Set("Idempotent-Replayed", "true")
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.ResponseCode)
	_, _ = w.Write(a.ResponseBody)
}
