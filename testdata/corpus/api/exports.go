package api

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/google/uuid"
)

// runExport writes the user's export and then either stores the answer
// the handler gave under key or, when the export fails, gives key back.
func (s *Server) runExport(ctx context.Context, key, exportID, uid string) {
	if _, err := s.pool.Exec(ctx,
		`INSERT INTO exports (id, user_id, status, payload)
		 SELECT $1, $2, 'done', jsonb_agg(o) FROM orders o WHERE o.user_id = $2`, exportID, uid); err != nil {
		slog.ErrorContext(ctx, "export failed", "export", exportID, "err", err)
		s.release(ctx, key)
		return
	}
	body, _ := json.Marshal(map[string]string{"export_id": exportID})
	if err := s.idem.SaveResponse(ctx, key, http.StatusAccepted, body); err != nil {
		slog.ErrorContext(ctx, "save response", "key", key, "err", err)
	}
}

// StartExport starts an export of the user's orders once per
// Idempotency-Key and answers 202 at once. The export runs in a
// goroutine, which stores that answer when it finishes or gives the key
// back when it fails.
//
// corpus: ok releaseonerror
// modelled on: fco-gt/gopotency README.md (a key store the handler claims and completes)
func (s *Server) StartExport(w http.ResponseWriter, r *http.Request) {
	key, ok := idemKey(r)
	if !ok {
		writeError(w, http.StatusBadRequest, "Idempotency-Key required")
		return
	}
	ctx := r.Context()
	claimed, err := s.idem.Claim(ctx, key, "POST /exports")
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "idempotency store unavailable")
		return
	}
	if !claimed {
		s.replay(w, r, key)
		return
	}
	exportID := uuid.NewString()
	go s.runExport(context.WithoutCancel(ctx), key, exportID, userID(r))
	writeJSON(w, http.StatusAccepted, map[string]string{"export_id": exportID})
}
