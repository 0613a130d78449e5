package checkthenact

import (
	"database/sql"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/redis/go-redis/v9"
)

// pageCache keeps what GET requests read: two callers that both miss
// serve the read twice, and either copy is right.
func pageCache(rdb *redis.Client, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			next.ServeHTTP(w, r)
			return
		}
		key := "page:" + r.URL.RequestURI()
		if b, err := rdb.Get(r.Context(), key).Bytes(); err == nil {
			_, _ = w.Write(b)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		rdb.Set(r.Context(), key, rec.Body.Bytes(), time.Minute)
		_, _ = w.Write(rec.Body.Bytes())
	})
}

// replayCache keeps the answers of every method: two retries of a POST
// that both miss run the handler twice.
func replayCache(rdb *redis.Client, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := "idem:" + r.Header.Get("Idempotency-Key")
		if b, err := rdb.Get(r.Context(), key).Bytes(); err == nil {
			_, _ = w.Write(b)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		rdb.Set(r.Context(), key, rec.Body.Bytes(), time.Hour) // want `SET of key after the GET at pagecache.go:\d+ races with a concurrent retry`
		_, _ = w.Write(rec.Body.Bytes())
	})
}

// getNotify is a payment callback sent as a GET: what it does between
// the check and the mark is no read.
func getNotify(rdb *redis.Client, db *sql.DB) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		order := r.URL.Query().Get("out_trade_no")
		if n, _ := rdb.Exists(r.Context(), "paid:"+order).Result(); n > 0 {
			_, _ = w.Write([]byte("success"))
			return
		}
		if _, err := db.ExecContext(r.Context(), "UPDATE wallets SET balance = balance + $1 WHERE order_no = $2", r.URL.Query().Get("amount"), order); err != nil {
			http.Error(w, "retry", http.StatusInternalServerError)
			return
		}
		rdb.Set(r.Context(), "paid:"+order, 1, 0) // want `SET of "paid:" \+ order after the EXISTS at pagecache.go:\d+ races with a concurrent retry`
		_, _ = w.Write([]byte("success"))
	}
}

// Page is what a page cache keeps.
type Page struct {
	Code    int
	Body    []byte
	Expires time.Time
}

// Pages is a cache a deployment plugs in.
type Pages interface {
	Get(key string) (*Page, error)
	Set(key string, p *Page) error
}

type pageTee struct {
	http.ResponseWriter
	code int
	body []byte
}

func (t *pageTee) Write(b []byte) (int, error) {
	t.body = append(t.body, b...)
	return t.ResponseWriter.Write(b)
}

// pagesRead caches reads only behind a store known by its methods.
func pagesRead(pages Pages, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			next.ServeHTTP(w, r)
			return
		}
		key := r.URL.RequestURI()
		if p, err := pages.Get(key); err == nil && p != nil {
			w.WriteHeader(p.Code)
			_, _ = w.Write(p.Body)
			return
		}
		t := &pageTee{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(t, r)
		_ = pages.Set(key, &Page{Code: t.code, Body: t.body, Expires: time.Now().Add(time.Minute)})
	})
}

// pagesAll caches the answers of every method, a POST's too.
func pagesAll(pages Pages, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Header.Get("Idempotency-Key")
		if p, err := pages.Get(key); err == nil && p != nil {
			w.WriteHeader(p.Code)
			_, _ = w.Write(p.Body)
			return
		}
		t := &pageTee{ResponseWriter: w, code: http.StatusOK}
		next.ServeHTTP(t, r)
		_ = pages.Set(key, &Page{Code: t.code, Body: t.body, Expires: time.Now().Add(time.Hour)}) // want `Set of pages after the Get at pagecache.go:\d+ races with a concurrent retry`
	})
}
