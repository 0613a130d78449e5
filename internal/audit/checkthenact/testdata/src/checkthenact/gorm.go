package checkthenact

import (
	"errors"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

type ProcessedEvent struct{ EventID string }

type User struct{ Email string }

func consumeGorm(db *gorm.DB, id string) error {
	var ev ProcessedEvent
	err := db.Where("event_id = ?", id).First(&ev).Error
	if err == nil {
		return nil
	}
	if !errors.Is(err, gorm.ErrRecordNotFound) {
		return err
	}
	return db.Create(&ProcessedEvent{EventID: id}).Error // want `Create of ProcessedEvent after the First at gorm.go:16 races with a concurrent retry; use Clauses\(clause.OnConflict{DoNothing: true}\).Create and treat RowsAffected == 0 as already done \(checkthenact\)`
}

func consumeGormOnConflict(db *gorm.DB, id string) error {
	var ev ProcessedEvent
	err := db.Where("event_id = ?", id).First(&ev).Error
	if err == nil {
		return nil
	}
	if !errors.Is(err, gorm.ErrRecordNotFound) {
		return err
	}
	return db.Clauses(clause.OnConflict{DoNothing: true}).Create(&ProcessedEvent{EventID: id}).Error
}

func consumeGormCount(db *gorm.DB, id string) error {
	return db.Transaction(func(tx *gorm.DB) error {
		var n int64
		tx.Table("processed_events").Where("event_id = ?", id).Count(&n)
		if n > 0 {
			return nil
		}
		return tx.Create(&ProcessedEvent{EventID: id}).Error // want `Create of ProcessedEvent after the Count at gorm.go:41 races`
	})
}

func signUp(db *gorm.DB, email string) error {
	var n int64
	db.Model(&User{}).Where("email = ?", email).Count(&n)
	if n > 0 {
		return nil
	}
	return db.Create(&User{Email: email}).Error // want `Create of User after the Count at gorm.go:51 races`
}

func consumeFirstOrCreate(db *gorm.DB, id string) error {
	return db.FirstOrCreate(&ProcessedEvent{}, ProcessedEvent{EventID: id}).Error // want `FirstOrCreate of ProcessedEvent is a SELECT then an INSERT and races with a concurrent retry`
}

func findOrCreateUser(db *gorm.DB, email string) error {
	return db.FirstOrCreate(&User{}, User{Email: email}).Error // want `FirstOrCreate of User is a SELECT then an INSERT`
}
