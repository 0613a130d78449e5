package main

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/idemkit/idemkit/examples/payments/internal/idem"
)

// storeMetrics is the Prometheus adapter of the idempotency store's hooks (idem.Observe): what
// the claims found, the takeovers of lapsed leases, the store's failures and its latency, per
// operation. Keys are never labels: there are as many as requests.
type storeMetrics struct {
	claims    *prometheus.CounterVec
	takeovers prometheus.Counter
	errors    *prometheus.CounterVec
	latency   *prometheus.HistogramVec
}

// newStoreMetrics registers the metrics with reg.
func newStoreMetrics(reg prometheus.Registerer) *storeMetrics {
	m := &storeMetrics{
		claims: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "idem_claims_total",
			Help: "Claims the idempotency store answered, by outcome: claimed, taken_over, replay, in_progress (a 409), mismatch (a 422).",
		}, []string{"outcome"}),
		takeovers: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "idem_takeovers_total",
			Help: "Keys taken over after their holder's lease ran out: a holder crashed or stalled, and may have done part of the work.",
		}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "idem_store_errors_total",
			Help: "Store operations that failed because the store could not answer (requests refused with 503), by operation.",
		}, []string{"op"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "idem_store_duration_seconds",
			Help:    "Latency of the idempotency store's operations, by operation.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1},
		}, []string{"op"}),
	}
	reg.MustRegister(m.claims, m.takeovers, m.errors, m.latency)
	// Every label value shows from the start, at zero, so that rates and alerts need no absent().
	for _, o := range []idem.Outcome{idem.Claimed, idem.TakenOver, idem.Replay, idem.InProgress, idem.Mismatch} {
		m.claims.WithLabelValues(o.String())
	}
	for _, op := range []idem.Op{idem.OpClaim, idem.OpComplete, idem.OpRelease, idem.OpExtend, idem.OpGet} {
		m.errors.WithLabelValues(string(op))
	}
	return m
}

// hooks are what idem.Observe calls.
func (m *storeMetrics) hooks() idem.Hooks {
	return idem.Hooks{
		OnClaim: func(_ context.Context, _ string, o idem.Outcome) {
			m.claims.WithLabelValues(o.String()).Inc()
		},
		OnTakeover: func(context.Context, idem.Takeover) { m.takeovers.Inc() },
		OnCall: func(_ context.Context, op idem.Op, took time.Duration, err error) {
			m.latency.WithLabelValues(string(op)).Observe(took.Seconds())
			if errors.Is(err, idem.ErrStoreUnavailable) {
				m.errors.WithLabelValues(string(op)).Inc()
			}
		},
	}
}
