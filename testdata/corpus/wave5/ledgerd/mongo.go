package ledgerd

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Settlement is a card-scheme settlement batch credited to merchants.
type Settlement struct {
	BatchID string
	Lines   []SettlementLine
}

// SettlementLine credits one merchant.
type SettlementLine struct {
	MerchantID string
	Cents      int64
}

// MongoLedger keeps merchant balances in MongoDB.
type MongoLedger struct {
	settlements *mongo.Collection // _id: batch id
	balances    *mongo.Collection // _id: merchant id
	requests    *mongo.Collection // _id: idempotency key
	locks       *mongo.Collection // _id: lock name
	accounts    AccountOpener
}

// ApplySettlement credits every merchant in a batch, once per batch.
//
// corpus: bug checkthenact
// modelled on: kevinAlbs/go-bootstrap runner/bootstrap.go (FindOne by a filter, ErrNoDocuments branch when the record does not exist)
func (l *MongoLedger) ApplySettlement(ctx context.Context, s Settlement) error {
	err := l.settlements.FindOne(ctx, bson.D{{Key: "_id", Value: s.BatchID}}).Err()
	if err == nil {
		return nil // applied before
	}
	if !errors.Is(err, mongo.ErrNoDocuments) {
		return err
	}
	for _, line := range s.Lines {
		_, err := l.balances.UpdateOne(ctx,
			bson.D{{Key: "_id", Value: line.MerchantID}},
			bson.D{{Key: "$inc", Value: bson.D{{Key: "available_cents", Value: line.Cents}}}},
			options.UpdateOne().SetUpsert(true))
		if err != nil {
			return fmt.Errorf("credit %s: %w", line.MerchantID, err)
		}
	}
	_, err = l.settlements.InsertOne(ctx, bson.D{
		{Key: "_id", Value: s.BatchID},
		{Key: "applied_at", Value: time.Now().UTC()},
		{Key: "lines", Value: len(s.Lines)},
	})
	return err
}

// ApplySettlementGuarded credits every merchant in a batch, once per
// batch: each credit is a conditional update that only matches a balance
// the batch has not been applied to, and records the batch in the same
// write.
//
// corpus: ok checkthenact
// modelled on: kevinAlbs/go-bootstrap runner/bootstrap.go (FindOne by a filter; here the write carries its own condition)
func (l *MongoLedger) ApplySettlementGuarded(ctx context.Context, s Settlement) error {
	for _, line := range s.Lines {
		var bal struct {
			Applied []string `bson:"applied_batches"`
		}
		err := l.balances.FindOne(ctx, bson.D{{Key: "_id", Value: line.MerchantID}}).Decode(&bal)
		if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
			return err
		}
		_, err = l.balances.UpdateOne(ctx,
			bson.D{
				{Key: "_id", Value: line.MerchantID},
				{Key: "applied_batches", Value: bson.D{{Key: "$ne", Value: s.BatchID}}},
			},
			bson.D{
				{Key: "$inc", Value: bson.D{{Key: "available_cents", Value: line.Cents}}},
				{Key: "$push", Value: bson.D{{Key: "applied_batches", Value: bson.D{
					{Key: "$each", Value: bson.A{s.BatchID}},
					{Key: "$slice", Value: -500},
				}}}},
			})
		if err != nil {
			return fmt.Errorf("credit %s: %w", line.MerchantID, err)
		}
	}
	return nil
}

// AccountOpener opens accounts at the core banking provider.
type AccountOpener interface {
	Open(ctx context.Context, customerID, product string) (accountID, iban string, err error)
}

// OpenAccountRequest is the RPC request.
type OpenAccountRequest struct {
	IdempotencyKey string
	CustomerID     string
	Product        string
}

// OpenAccountReply is the RPC reply.
type OpenAccountReply struct {
	AccountID string `bson:"account_id"`
	IBAN      string `bson:"iban"`
}

type requestDoc struct {
	ID    string            `bson:"_id"`
	State string            `bson:"state"`
	Reply *OpenAccountReply `bson:"reply,omitempty"`
}

func (l *MongoLedger) claimRequest(ctx context.Context, key string) (bool, error) {
	_, err := l.requests.InsertOne(ctx, requestDoc{ID: key, State: "pending"})
	if mongo.IsDuplicateKeyError(err) {
		return false, nil
	}
	return err == nil, err
}

// OpenAccount opens an account once per idempotency key.
//
// corpus: bug cacheresponse
// modelled on: LonelyPale/goutils database/mongodb/errors.go (E11000 duplicate-key error of a unique insert read as: the document exists)
func (l *MongoLedger) OpenAccount(ctx context.Context, req *OpenAccountRequest) (*OpenAccountReply, error) {
	fresh, err := l.claimRequest(ctx, req.IdempotencyKey)
	if err != nil {
		return nil, err
	}
	if !fresh {
		var doc requestDoc
		if err := l.requests.FindOne(ctx, bson.D{{Key: "_id", Value: req.IdempotencyKey}}).Decode(&doc); err != nil {
			return nil, err
		}
		if doc.State == "completed" {
			return &OpenAccountReply{}, nil
		}
		return nil, ErrInProgress
	}
	accountID, iban, err := l.accounts.Open(ctx, req.CustomerID, req.Product)
	if err != nil {
		_, _ = l.requests.DeleteOne(context.WithoutCancel(ctx), bson.D{{Key: "_id", Value: req.IdempotencyKey}})
		return nil, err
	}
	_, _ = l.requests.UpdateOne(ctx, bson.D{{Key: "_id", Value: req.IdempotencyKey}},
		bson.D{{Key: "$set", Value: bson.D{
			{Key: "state", Value: "completed"},
			{Key: "completed_at", Value: time.Now().UTC()},
		}}})
	return &OpenAccountReply{AccountID: accountID, IBAN: iban}, nil
}

// OpenAccountReplaying opens an account once per idempotency key; the
// reply is stored on the request document and a repeat gets it back.
//
// corpus: ok cacheresponse
// modelled on: LonelyPale/goutils database/mongodb/errors.go (E11000 duplicate-key error of a unique insert read as: the document exists)
func (l *MongoLedger) OpenAccountReplaying(ctx context.Context, req *OpenAccountRequest) (*OpenAccountReply, error) {
	fresh, err := l.claimRequest(ctx, req.IdempotencyKey)
	if err != nil {
		return nil, err
	}
	if !fresh {
		var doc requestDoc
		if err := l.requests.FindOne(ctx, bson.D{{Key: "_id", Value: req.IdempotencyKey}}).Decode(&doc); err != nil {
			return nil, err
		}
		if doc.State == "completed" && doc.Reply != nil {
			return doc.Reply, nil
		}
		return nil, ErrInProgress
	}
	accountID, iban, err := l.accounts.Open(ctx, req.CustomerID, req.Product)
	if err != nil {
		_, _ = l.requests.DeleteOne(context.WithoutCancel(ctx), bson.D{{Key: "_id", Value: req.IdempotencyKey}})
		return nil, err
	}
	reply := &OpenAccountReply{AccountID: accountID, IBAN: iban}
	_, _ = l.requests.UpdateOne(ctx, bson.D{{Key: "_id", Value: req.IdempotencyKey}},
		bson.D{{Key: "$set", Value: bson.D{
			{Key: "state", Value: "completed"},
			{Key: "reply", Value: reply},
			{Key: "completed_at", Value: time.Now().UTC()},
		}}})
	return reply, nil
}

// ClosePeriod closes a month's books: it freezes the balances, writes the
// trial balance and opens the next period. Only one instance may close a
// period; the lock document is claimed by inserting it.
//
// corpus: bug releaseonerror
// modelled on: specvital/specvital.github.io docs/en/adr/collector/04-distributed-lock-scheduler-concurrency.md (one scheduler instance per job through an atomic lock)
func (l *MongoLedger) ClosePeriod(ctx context.Context, period string, steps []func(context.Context) error) error {
	lockID := "close-period:" + period
	_, err := l.locks.InsertOne(ctx, bson.D{
		{Key: "_id", Value: lockID},
		{Key: "taken_at", Value: time.Now().UTC()},
	})
	if mongo.IsDuplicateKeyError(err) {
		return fmt.Errorf("period %s is being closed elsewhere", period)
	}
	if err != nil {
		return err
	}
	for i, step := range steps {
		if err := step(ctx); err != nil {
			return fmt.Errorf("close %s step %d: %w", period, i, err)
		}
	}
	_, err = l.locks.DeleteOne(ctx, bson.D{{Key: "_id", Value: lockID}})
	return err
}

// ClosePeriodUnlocking closes a month's books: it freezes the balances,
// writes the trial balance and opens the next period. Only one instance
// may close a period; the lock document is removed however the close
// ends.
//
// corpus: ok releaseonerror
// modelled on: specvital/specvital.github.io docs/en/adr/collector/04-distributed-lock-scheduler-concurrency.md (one scheduler instance per job through an atomic lock)
func (l *MongoLedger) ClosePeriodUnlocking(ctx context.Context, period string, steps []func(context.Context) error) error {
	lockID := "close-period:" + period
	_, err := l.locks.InsertOne(ctx, bson.D{
		{Key: "_id", Value: lockID},
		{Key: "taken_at", Value: time.Now().UTC()},
	})
	if mongo.IsDuplicateKeyError(err) {
		return fmt.Errorf("period %s is being closed elsewhere", period)
	}
	if err != nil {
		return err
	}
	defer func() {
		_, _ = l.locks.DeleteOne(context.WithoutCancel(ctx), bson.D{{Key: "_id", Value: lockID}})
	}()
	for i, step := range steps {
		if err := step(ctx); err != nil {
			return fmt.Errorf("close %s step %d: %w", period, i, err)
		}
	}
	return nil
}
