package checkthenact

import (
	"context"
	"errors"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"gorm.io/gorm"
)

// A trip read, tested on what it holds and written back whole: two
// concurrent edits (or an edit and a booking) both read the same trip,
// both pass the test and both write it; one write is lost.
type trip struct {
	ID            string `bson:"_id"`
	Reserved      int    `bson:"reserved_seats"`
	Available     int    `bson:"available_seats"`
	Total         int    `bson:"total_seats"`
	PricePerSeat  int64  `bson:"price_per_seat"`
	OwnerID       int64  `bson:"driver_id"`
	LastPublished bool   `bson:"-"`
}

type tripEvents interface {
	PublishTripUpdated(ctx context.Context, t *trip) error
}

type trips struct {
	col    *mongo.Collection
	events tripEvents
}

var errHasReservations = errors.New("trip has reservations")

func (s *trips) find(ctx context.Context, id string) (*trip, error) {
	var t trip
	if err := s.col.FindOne(ctx, bson.M{"_id": id}).Decode(&t); err != nil {
		return nil, err
	}
	return &t, nil
}

func (s *trips) update(ctx context.Context, id string, t *trip) error {
	_, err := s.col.UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$set": t})
	return err
}

// resize changes the seats of a trip no one has booked yet.
func (s *trips) resize(ctx context.Context, id string, total int) (*trip, error) {
	t, err := s.find(ctx, id)
	if err != nil {
		return nil, err
	}
	if t.Reserved > 0 {
		return nil, errHasReservations
	}
	t.Available += total - t.Total
	t.Total = total
	if err := s.update(ctx, id, t); err != nil { // want `UpdateOne of col \(by update, at lostupdate.go:45\) after the FindOne in find at lostupdate.go:38, called at lostupdate.go:51 races with a concurrent update: both read the same record, both pass the test of t.Reserved > 0 at lostupdate.go:55 and both write it \(each running s.events.PublishTripUpdated\), so one write is lost or made from a stale read; make the write conditional on what was read`
		return nil, err
	}
	if err := s.events.PublishTripUpdated(ctx, t); err != nil {
		return nil, err
	}
	return t, nil
}

// variantPrice is a price kept per variant and currency.
type variantPrice struct {
	ID        string
	VariantID string
	Currency  string
	Amount    int64
}

// upsertPrice creates the price when the query's Error says there is none
// and saves it either way: the condition reads whether it was found,
// through the query's Error field, not what the record holds.
func upsertPrice(db *gorm.DB, variantID, currency string, amount int64) error {
	var p *variantPrice
	q := db.Model(&variantPrice{}).Where("variant_id = ?", variantID).Where("currency = ?", currency).First(&p)
	if q.Error != nil && q.Error != gorm.ErrRecordNotFound {
		return q.Error
	}
	created := false
	if q.Error == gorm.ErrRecordNotFound {
		p = &variantPrice{VariantID: variantID, Currency: currency}
		created = true
	} else {
		p.Amount = amount
	}
	if err := db.Save(&p).Error; err != nil { // want `Save of variantPrice after the First at lostupdate.go:82 races with a concurrent retry; use Clauses`
		return err
	}
	if created {
		return db.Create(&variantLink{VariantID: variantID, PriceID: p.ID}).Error
	}
	return nil
}

type variantLink struct {
	VariantID string
	PriceID   string
}
