package payhooks

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"net/http"
)

// Credit is store credit granted when an invoice is paid with a promo.
type Credit struct {
	InvoiceID  string
	CustomerID string
	Cents      int64
}

// CreditRepo keeps granted credits, one per invoice.
type CreditRepo interface {
	FindByInvoice(ctx context.Context, invoiceID string) (*Credit, error)
	Insert(ctx context.Context, c Credit) error
	InsertIfAbsent(ctx context.Context, c Credit) (bool, error)
}

type sqlCredits struct{ db *sql.DB }

// NewCreditRepo returns the Postgres CreditRepo.
func NewCreditRepo(db *sql.DB) CreditRepo { return &sqlCredits{db: db} }

func (s *sqlCredits) FindByInvoice(ctx context.Context, invoiceID string) (*Credit, error) {
	var c Credit
	err := s.db.QueryRowContext(ctx,
		`SELECT invoice_id, customer_id, cents FROM credits WHERE invoice_id = $1`, invoiceID).
		Scan(&c.InvoiceID, &c.CustomerID, &c.Cents)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &c, nil
}

func (s *sqlCredits) Insert(ctx context.Context, c Credit) error {
	_, err := s.db.ExecContext(ctx,
		`INSERT INTO credits (invoice_id, customer_id, cents) VALUES ($1, $2, $3)`,
		c.InvoiceID, c.CustomerID, c.Cents)
	return err
}

func (s *sqlCredits) InsertIfAbsent(ctx context.Context, c Credit) (bool, error) {
	res, err := s.db.ExecContext(ctx,
		`INSERT INTO credits (invoice_id, customer_id, cents) VALUES ($1, $2, $3)
		 ON CONFLICT (invoice_id) DO NOTHING`,
		c.InvoiceID, c.CustomerID, c.Cents)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

type invoicePaid struct {
	ID       string            `json:"id"`
	Customer string            `json:"customer"`
	Metadata map[string]string `json:"metadata"`
}

func creditFor(ev invoicePaid) Credit {
	cents := int64(500)
	if ev.Metadata["promo"] == "double" {
		cents = 1000
	}
	return Credit{InvoiceID: ev.ID, CustomerID: ev.Customer, Cents: cents}
}

// HandleInvoicePaid grants the promo credit for an invoice.paid event.
//
// corpus: bug checkthenact
// modelled on: vicent-dev/generic-repository Readme.md (repository interface with FindFirstBy and Create)
func (rc *Receiver) HandleInvoicePaid(w http.ResponseWriter, r *http.Request) {
	ev, err := rc.readEvent(r)
	if err != nil {
		http.Error(w, "bad signature", http.StatusBadRequest)
		return
	}
	var inv invoicePaid
	if err := json.Unmarshal(ev.Data.Raw, &inv); err != nil {
		http.Error(w, "bad event", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	existing, err := rc.credits.FindByInvoice(ctx, inv.ID)
	if err != nil {
		http.Error(w, "lookup failed", http.StatusInternalServerError)
		return
	}
	if existing == nil {
		if err := rc.credits.Insert(ctx, creditFor(inv)); err != nil {
			http.Error(w, "grant failed", http.StatusInternalServerError)
			return
		}
	}
	w.WriteHeader(http.StatusOK)
}

// HandleInvoicePaidOnce grants the promo credit for an invoice.paid event;
// the lookup is only a fast path, the insert itself refuses a second
// credit for the invoice.
//
// corpus: ok checkthenact
// modelled on: vicent-dev/generic-repository Readme.md (repository interface with FindFirstBy and Create)
func (rc *Receiver) HandleInvoicePaidOnce(w http.ResponseWriter, r *http.Request) {
	ev, err := rc.readEvent(r)
	if err != nil {
		http.Error(w, "bad signature", http.StatusBadRequest)
		return
	}
	var inv invoicePaid
	if err := json.Unmarshal(ev.Data.Raw, &inv); err != nil {
		http.Error(w, "bad event", http.StatusBadRequest)
		return
	}
	ctx := r.Context()
	existing, err := rc.credits.FindByInvoice(ctx, inv.ID)
	if err != nil {
		http.Error(w, "lookup failed", http.StatusInternalServerError)
		return
	}
	if existing != nil {
		w.WriteHeader(http.StatusOK)
		return
	}
	granted, err := rc.credits.InsertIfAbsent(ctx, creditFor(inv))
	if err != nil {
		http.Error(w, "grant failed", http.StatusInternalServerError)
		return
	}
	if !granted {
		rc.log.InfoContext(ctx, "credit granted by a concurrent delivery", "invoice", inv.ID)
	}
	w.WriteHeader(http.StatusOK)
}
