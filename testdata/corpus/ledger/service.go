package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
)

// Transfer posts a transfer once per reference. The lookup and the insert
// run in one transaction, which the author took for a guard.
//
// corpus: bug checkthenact
// modelled on: peixoto-leonardo/accounts internal/infrastructure/account/repository/tx.go (WithTx carrying the transaction in the context)
func (s *Service) Transfer(ctx context.Context, req TransferRequest) (*Receipt, error) {
	var out *Receipt
	err := s.tx.WithTx(ctx, func(ctx context.Context) error {
		prev, err := s.entries.FindByReference(ctx, req.Reference)
		var nf *NotFoundError
		switch {
		case err == nil:
			out = receiptOf(prev)
			return nil
		case !errors.As(err, &nf):
			return fmt.Errorf("find entry: %w", err)
		}
		e := s.entryFor(req)
		if err := s.entries.Insert(ctx, e); err != nil {
			return fmt.Errorf("insert entry: %w", err)
		}
		out = receiptOf(e)
		return nil
	})
	return out, err
}

// TransferUnique posts a transfer once per reference; the unique index on
// the reference decides, and its duplicate error is mapped to the entry
// already posted.
//
// corpus: ok checkthenact
// modelled on: DzungTrinh/microservices internal/user/domain/repo/tx_manager.go (a TxManager interface the service holds)
func (s *Service) TransferUnique(ctx context.Context, req TransferRequest) (*Receipt, error) {
	e := s.entryFor(req)
	err := s.entries.Insert(ctx, e)
	if errors.Is(err, ErrDuplicateReference) {
		prev, err := s.entries.FindByReference(ctx, req.Reference)
		if err != nil {
			return nil, fmt.Errorf("find entry: %w", err)
		}
		return receiptOf(prev), nil
	}
	if err != nil {
		return nil, fmt.Errorf("insert entry: %w", err)
	}
	return receiptOf(e), nil
}

// Reverse posts the reversal of an entry unless one is already posted.
//
// corpus: bug checkthenact
// modelled on: vicent-dev/generic-repository Readme.md (FindBy returning a slice of matches)
func (s *Service) Reverse(ctx context.Context, entryRef string) error {
	orig, err := s.entries.FindByReference(ctx, entryRef)
	if err != nil {
		return fmt.Errorf("find original: %w", err)
	}
	revRef := "rev:" + entryRef
	prior, err := s.entries.ListByReference(ctx, revRef)
	if err != nil {
		return fmt.Errorf("list reversals: %w", err)
	}
	if len(prior) > 0 {
		return nil
	}
	rev := &Entry{
		Reference:   revRef,
		DebitAcct:   orig.CreditAcct,
		CreditAcct:  orig.DebitAcct,
		AmountMinor: orig.AmountMinor,
		Currency:    orig.Currency,
		Status:      "posted",
		PostedAt:    s.clock(),
	}
	return s.entries.Insert(ctx, rev)
}

// Settle posts a settlement entry according to the status already on
// record for its reference.
//
// corpus: bug checkthenact
// modelled on: Revazashvili/ecommerce-inventory-management stock/database/query.sql (a status read back before the reservation is added)
func (s *Service) Settle(ctx context.Context, req TransferRequest) (*Receipt, error) {
	status, err := s.entries.StatusOf(ctx, req.Reference)
	if err != nil {
		return nil, fmt.Errorf("status: %w", err)
	}
	switch status {
	case "posted", "settled":
		return &Receipt{Reference: req.Reference, Status: status}, nil
	case "rejected":
		return nil, fmt.Errorf("settlement %s was rejected", req.Reference)
	}
	e := s.entryFor(req)
	e.Status = "settled"
	if err := s.entries.Insert(ctx, e); err != nil {
		return nil, fmt.Errorf("insert settlement: %w", err)
	}
	return receiptOf(e), nil
}

// posting carries one adjustment between its lookup and its write.
type posting struct {
	repo  EntryRepository
	entry *Entry
	found bool
}

func (p *posting) load(ctx context.Context) error {
	_, err := p.repo.FindByReference(ctx, p.entry.Reference)
	var nf *NotFoundError
	if errors.As(err, &nf) {
		p.found = false
		return nil
	}
	if err != nil {
		return err
	}
	p.found = true
	return nil
}

func (p *posting) commit(ctx context.Context) error {
	return p.repo.Insert(ctx, p.entry)
}

// Adjust posts a manual adjustment once per reference.
//
// corpus: bug checkthenact
// modelled on: nordew/pgx-transactor README.md (repositories called one after another from the service layer)
func (s *Service) Adjust(ctx context.Context, req TransferRequest) error {
	p := &posting{repo: s.entries, entry: s.entryFor(req)}
	if err := p.load(ctx); err != nil {
		return fmt.Errorf("load adjustment: %w", err)
	}
	if p.found {
		slog.InfoContext(ctx, "adjustment already posted", "reference", req.Reference)
		return nil
	}
	return p.commit(ctx)
}

// PostKeyed posts a transfer under the client's Idempotency-Key and keeps
// the receipt for replays.
//
// corpus: bug releaseonerror
// modelled on: itzzmeakhi/banking-services transaction-service/migrations/seed.sql (idempotency_keys with a status and the cached response)
func (s *Service) PostKeyed(ctx context.Context, key, fingerprint string, req TransferRequest) (*Receipt, error) {
	ok, err := s.idem.Claim(ctx, key, fingerprint)
	if err != nil {
		return nil, fmt.Errorf("claim key: %w", err)
	}
	if !ok {
		return s.stored(ctx, key)
	}
	rec, err := s.TransferUnique(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("post transfer: %w", err)
	}
	if err := s.idem.Complete(ctx, key, 201, mustJSON(rec)); err != nil {
		return nil, fmt.Errorf("complete key: %w", err)
	}
	return rec, nil
}

// PostKeyedReleasing posts a transfer under the client's Idempotency-Key;
// a failure deletes the claim so that the client's retry runs again.
//
// corpus: ok releaseonerror
// modelled on: itzzmeakhi/banking-services transaction-service/migrations/seed.sql (idempotency_keys with a status and the cached response)
func (s *Service) PostKeyedReleasing(ctx context.Context, key, fingerprint string, req TransferRequest) (rec *Receipt, err error) {
	ok, err := s.idem.Claim(ctx, key, fingerprint)
	if err != nil {
		return nil, fmt.Errorf("claim key: %w", err)
	}
	if !ok {
		return s.stored(ctx, key)
	}
	defer func() {
		if err != nil {
			if rerr := s.idem.Release(context.WithoutCancel(ctx), key); rerr != nil {
				slog.ErrorContext(ctx, "release key", "key", key, "err", rerr)
			}
		}
	}()
	rec, err = s.TransferUnique(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("post transfer: %w", err)
	}
	if err = s.idem.Complete(ctx, key, 201, mustJSON(rec)); err != nil {
		return nil, fmt.Errorf("complete key: %w", err)
	}
	return rec, nil
}

// stored returns the receipt kept for key, or ErrInFlight while the
// key's first request runs.
func (s *Service) stored(ctx context.Context, key string) (*Receipt, error) {
	st, err := s.idem.Lookup(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("lookup key: %w", err)
	}
	if st.Status != "completed" {
		return nil, ErrInFlight
	}
	var rec Receipt
	if err := json.Unmarshal(st.Body, &rec); err != nil {
		return nil, fmt.Errorf("decode stored receipt: %w", err)
	}
	return &rec, nil
}

// ErrInFlight says another request holds the key.
var ErrInFlight = errors.New("ledger: request with this key in progress")
