package cacheresponse

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/uptrace/bun"
)

type apiRequest struct {
	Key      string
	Status   string
	Response []byte
}

type bunServer struct{ db *bun.DB }

// claimRequest inserts the request in progress unless it exists: a claim
// helper, known by its body.
func (s *bunServer) claimRequest(ctx context.Context, key string) (bool, error) {
	res, err := s.db.NewInsert().Model(&apiRequest{Key: key, Status: "in_progress"}).On("CONFLICT (key) DO NOTHING").Exec(ctx)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// The answer goes to the client only.
func (s *bunServer) split(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	ok, err := s.claimRequest(r.Context(), key)
	if err != nil || !ok {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	json.NewEncoder(w).Encode(map[string]string{"split": "s_1"})
} // want `the end of the function answers without recording the response under the key claimed by claimRequest at bun.go:\d+`

// Negative: the answer is stored with an UPDATE of the claimed row.
func (s *bunServer) splitStoring(w http.ResponseWriter, r *http.Request) {
	key := r.Header.Get("Idempotency-Key")
	ok, err := s.claimRequest(r.Context(), key)
	if err != nil || !ok {
		http.Error(w, "in progress", http.StatusConflict)
		return
	}
	body, _ := json.Marshal(map[string]string{"split": "s_2"})
	s.db.NewUpdate().Model((*apiRequest)(nil)).Set("status = 'completed', response = ?", body).Where("key = ?", key).Exec(r.Context())
	w.Write(body)
}
