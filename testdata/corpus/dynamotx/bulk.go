package dynamotx

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Importer loads partner events into MongoDB and acts on the new ones.
type Importer struct {
	events *mongo.Collection
	runs   *mongo.Collection
	sink   func(ctx context.Context, id string) error
}

type partnerEvent struct {
	ID      string    `bson:"_id"`
	Kind    string    `bson:"kind"`
	Created time.Time `bson:"created"`
}

// duplicateOnly reports whether a bulk error holds duplicate keys alone,
// and the indexes of the documents that were already there.
func duplicateOnly(err error) (map[int]bool, bool) {
	var bwe mongo.BulkWriteException
	if !errors.As(err, &bwe) || bwe.WriteConcernError != nil {
		return nil, false
	}
	dups := map[int]bool{}
	for _, we := range bwe.WriteErrors {
		if we.Code != 11000 {
			return nil, false
		}
		dups[we.Index] = true
	}
	return dups, true
}

// ImportChecked looks each event up, forwards the new ones, then inserts
// them as a batch with no duplicate test: two imports of the same page
// both find nothing and both forward.
//
// corpus: bug checkthenact
// modelled on: c775743977/microservices mongodb/start/main.go (InsertMany of a slice of documents)
func (im *Importer) ImportChecked(ctx context.Context, page []partnerEvent) error {
	var fresh []any
	for _, ev := range page {
		err := im.events.FindOne(ctx, bson.M{"_id": ev.ID}).Err()
		if err == nil {
			continue
		}
		if !errors.Is(err, mongo.ErrNoDocuments) {
			return err
		}
		if err := im.sink(ctx, ev.ID); err != nil {
			return err
		}
		fresh = append(fresh, bson.M{"_id": ev.ID, "kind": ev.Kind, "created": ev.Created})
	}
	if len(fresh) == 0 {
		return nil
	}
	_, err := im.events.InsertMany(ctx, fresh)
	return err
}

// ImportOnce inserts the page first, unordered, and forwards only the
// events whose insert did not fail on a duplicate key: the unique _id
// decides which import owns each event.
//
// corpus: ok checkthenact
// modelled on: memochou1993/blog source/_posts/2020/12/2020-12-15-在-Go-專案檢查寫入-MongoDB-的錯誤類型.md (InsertMany with SetOrdered(false), BulkWriteException write errors with code 11000)
func (im *Importer) ImportOnce(ctx context.Context, page []partnerEvent) error {
	var docs []any
	for _, ev := range page {
		if err := im.events.FindOne(ctx, bson.M{"_id": ev.ID}).Err(); err == nil {
			continue // already imported: skip the round trip
		}
		docs = append(docs, bson.M{"_id": ev.ID, "kind": ev.Kind, "created": ev.Created})
	}
	if len(docs) == 0 {
		return nil
	}
	_, err := im.events.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	dups := map[int]bool{}
	if err != nil {
		var ok bool
		if dups, ok = duplicateOnly(err); !ok {
			return err
		}
	}
	for i, d := range docs {
		if dups[i] {
			continue
		}
		if err := im.sink(ctx, d.(bson.M)["_id"].(string)); err != nil {
			return err
		}
	}
	return nil
}

// Forward checks for the event's marker, forwards it, then writes the
// marker with a bulk write's insert model and no duplicate test.
//
// corpus: bug checkthenact
// modelled on: davidwartell/go-commons-drw mongostore/datastore.go (writes sent to a collection as mongo.WriteModel values)
func (im *Importer) Forward(ctx context.Context, ev partnerEvent) error {
	var seen partnerEvent
	err := im.events.FindOne(ctx, bson.M{"_id": ev.ID}).Decode(&seen)
	if err == nil {
		return nil
	}
	if !errors.Is(err, mongo.ErrNoDocuments) {
		return fmt.Errorf("find %s: %w", ev.ID, err)
	}
	if err := im.sink(ctx, ev.ID); err != nil {
		return err
	}
	models := []mongo.WriteModel{
		mongo.NewInsertOneModel().SetDocument(bson.M{"_id": ev.ID, "kind": ev.Kind, "forwarded_at": time.Now()}),
		mongo.NewUpdateOneModel().SetFilter(bson.M{"_id": "stats"}).SetUpdate(bson.M{"$inc": bson.M{"forwarded": 1}}),
	}
	_, err = im.events.BulkWrite(ctx, models)
	return err
}

// ForwardOnce claims the event with an upsert model that only sets on
// insert; the upserted count says whether this delivery forwards it.
//
// corpus: ok checkthenact
// modelled on: davidwartell/go-commons-drw mongostore/datastore.go (writes sent to a collection as mongo.WriteModel values)
func (im *Importer) ForwardOnce(ctx context.Context, ev partnerEvent) error {
	if err := im.events.FindOne(ctx, bson.M{"_id": ev.ID}).Err(); err == nil {
		return nil
	}
	claim := mongo.NewUpdateOneModel().
		SetFilter(bson.M{"_id": ev.ID}).
		SetUpdate(bson.M{"$setOnInsert": bson.M{"kind": ev.Kind, "forwarded_at": time.Now()}}).
		SetUpsert(true)
	res, err := im.events.BulkWrite(ctx, []mongo.WriteModel{claim})
	if err != nil {
		return err
	}
	if res.UpsertedCount == 0 {
		return nil
	}
	return im.sink(ctx, ev.ID)
}

// RunNightly claims the night's run with a bulk upsert of a running
// document; a failed export returns with the run still running, and no
// instance can run the night again.
//
// corpus: bug releaseonerror
// modelled on: davidwartell/go-commons-drw mongostore/datastore.go (writes sent to a collection as mongo.WriteModel values)
func (im *Importer) RunNightly(ctx context.Context, night string, export func(context.Context) error) error {
	res, err := im.runs.BulkWrite(ctx, []mongo.WriteModel{
		mongo.NewUpdateOneModel().
			SetFilter(bson.M{"_id": night}).
			SetUpdate(bson.M{"$setOnInsert": bson.M{"state": "running", "started": time.Now()}}).
			SetUpsert(true),
	})
	if err != nil {
		return err
	}
	if res.UpsertedCount == 0 {
		return nil
	}
	if err := export(ctx); err != nil {
		return fmt.Errorf("export %s: %w", night, err)
	}
	_, err = im.runs.UpdateOne(ctx, bson.M{"_id": night}, bson.M{"$set": bson.M{"state": "done"}})
	return err
}

// RunNightlyReleasing deletes the run's document when the export fails.
//
// corpus: ok releaseonerror
// modelled on: davidwartell/go-commons-drw mongostore/datastore.go (writes sent to a collection as mongo.WriteModel values)
func (im *Importer) RunNightlyReleasing(ctx context.Context, night string, export func(context.Context) error) error {
	res, err := im.runs.BulkWrite(ctx, []mongo.WriteModel{
		mongo.NewUpdateOneModel().
			SetFilter(bson.M{"_id": night}).
			SetUpdate(bson.M{"$setOnInsert": bson.M{"state": "running", "started": time.Now()}}).
			SetUpsert(true),
	})
	if err != nil {
		return err
	}
	if res.UpsertedCount == 0 {
		return nil
	}
	if err := export(ctx); err != nil {
		_, _ = im.runs.DeleteOne(context.WithoutCancel(ctx), bson.M{"_id": night})
		return fmt.Errorf("export %s: %w", night, err)
	}
	_, err = im.runs.UpdateOne(ctx, bson.M{"_id": night}, bson.M{"$set": bson.M{"state": "done"}})
	return err
}
