// Package gorm is a minimal copy of gorm.io/gorm's signatures.
package gorm

import (
	"context"
	"errors"

	"gorm.io/gorm/clause"
)

var ErrRecordNotFound = errors.New("record not found")

type DB struct {
	Error        error
	RowsAffected int64
}

func (db *DB) WithContext(ctx context.Context) *DB                                { return db }
func (db *DB) Model(value interface{}) (tx *DB)                                   { return db }
func (db *DB) Table(name string, args ...interface{}) (tx *DB)                    { return db }
func (db *DB) Where(query interface{}, args ...interface{}) (tx *DB)              { return db }
func (db *DB) Clauses(conds ...clause.Expression) (tx *DB)                        { return db }
func (db *DB) First(dest interface{}, conds ...interface{}) (tx *DB)              { return db }
func (db *DB) Take(dest interface{}, conds ...interface{}) (tx *DB)               { return db }
func (db *DB) Last(dest interface{}, conds ...interface{}) (tx *DB)               { return db }
func (db *DB) Find(dest interface{}, conds ...interface{}) (tx *DB)               { return db }
func (db *DB) Count(count *int64) (tx *DB)                                        { return db }
func (db *DB) Create(value interface{}) (tx *DB)                                  { return db }
func (db *DB) CreateInBatches(value interface{}, batchSize int) (tx *DB)          { return db }
func (db *DB) FirstOrCreate(dest interface{}, conds ...interface{}) (tx *DB)      { return db }
func (db *DB) Save(value interface{}) (tx *DB)                                    { return db }
func (db *DB) Update(column string, value interface{}) (tx *DB)                   { return db }
func (db *DB) Delete(value interface{}, conds ...interface{}) (tx *DB)            { return db }
func (db *DB) Transaction(fc func(tx *DB) error, opts ...interface{}) (err error) { return nil }

func (db *DB) Updates(values interface{}) (tx *DB) { return db }

// More finishers, and raw SQL.

func (db *DB) FirstOrInit(dest interface{}, conds ...interface{}) (tx *DB) { return db }
func (db *DB) UpdateColumn(column string, value interface{}) (tx *DB)      { return db }
func (db *DB) UpdateColumns(values interface{}) (tx *DB)                   { return db }
func (db *DB) Raw(sql string, values ...interface{}) (tx *DB)              { return db }
func (db *DB) Exec(sql string, values ...interface{}) (tx *DB)             { return db }
func (db *DB) Scan(dest interface{}) (tx *DB)                              { return db }
