// Package orders turns carts into orders. It declares a generic
// repository and a unit of work; gormrepo implements both on GORM and
// imports this package, so nothing here names the ORM.
package orders

import (
	"context"
	"errors"
	"time"
)

// ErrNotFound is returned by FindOne when nothing matches.
var ErrNotFound = errors.New("orders: not found")

// Order is a placed order.
type Order struct {
	ID         string `gorm:"primaryKey"`
	CartID     string `gorm:"uniqueIndex"`
	CustomerID string
	TotalMinor int64
	Status     string
	CreatedAt  time.Time
}

// OrderLine is one line of an order.
type OrderLine struct {
	ID       string `gorm:"primaryKey"`
	OrderID  string `gorm:"index"`
	SKU      string
	Quantity int
}

// Payment records a captured payment for an order.
type Payment struct {
	ID          string `gorm:"primaryKey"`
	OrderID     string `gorm:"index"`
	ProviderID  string
	AmountMinor int64
}

// CartSnapshot is the last priced state of a cart.
type CartSnapshot struct {
	CartID     string `gorm:"primaryKey"`
	TotalMinor int64
	PricedAt   time.Time
}

// Repository is the storage of one kind of record.
type Repository[T any] interface {
	// FindOne returns the first record matching where, or ErrNotFound.
	FindOne(ctx context.Context, where string, args ...any) (*T, error)
	// FindAll returns every record matching where.
	FindAll(ctx context.Context, where string, args ...any) ([]T, error)
	// Count counts the records matching where.
	Count(ctx context.Context, where string, args ...any) (int64, error)
	// Create inserts v.
	Create(ctx context.Context, v *T) error
	// CreateIfAbsent inserts v unless a record with the same values in
	// the unique columns exists, and reports whether it inserted.
	CreateIfAbsent(ctx context.Context, v *T, uniqueCols ...string) (bool, error)
	// Upsert inserts v or, on a conflict in keyCols, updates updateCols.
	Upsert(ctx context.Context, v *T, keyCols, updateCols []string) error
	// UpdateWhere sets values on the records matching where and returns
	// how many changed.
	UpdateWhere(ctx context.Context, values map[string]any, where string, args ...any) (int64, error)
}

// Tx is the repositories bound to one transaction.
type Tx interface {
	Orders() Repository[Order]
	Lines() Repository[OrderLine]
	Payments() Repository[Payment]
}

// UnitOfWork runs fn in one transaction.
type UnitOfWork interface {
	Do(ctx context.Context, fn func(ctx context.Context, tx Tx) error) error
}

// Keys stores the clients' Idempotency-Keys of the order endpoints.
type Keys interface {
	// Claim records the key as in progress; false means it was there.
	Claim(ctx context.Context, key, fingerprint string) (bool, error)
	// Release forgets an in-progress key.
	Release(ctx context.Context, key string) error
	// Complete stores the answer sent for the key.
	Complete(ctx context.Context, key string, code int, body []byte) error
	// Answer returns the stored answer, if any.
	Answer(ctx context.Context, key string) (code int, body []byte, ok bool, err error)
}

// Service places and manages orders.
type Service struct {
	orders Repository[Order]
	lines  Repository[OrderLine]
	carts  Repository[CartSnapshot]
	uow    UnitOfWork
	newID  func() string
}

// Option configures a Service.
type Option func(*Service)

// WithIDs sets the ID generator.
func WithIDs(f func() string) Option { return func(s *Service) { s.newID = f } }

// NewService wires a Service.
func NewService(o Repository[Order], l Repository[OrderLine], c Repository[CartSnapshot], uow UnitOfWork, opts ...Option) *Service {
	s := &Service{orders: o, lines: l, carts: c, uow: uow, newID: func() string { return time.Now().Format("20060102150405.000000") }}
	for _, opt := range opts {
		opt(s)
	}
	return s
}

// PlaceRequest is a checkout of a cart.
type PlaceRequest struct {
	CartID     string `json:"cart_id"`
	CustomerID string `json:"customer_id"`
	TotalMinor int64  `json:"total_minor"`
}

func (s *Service) newOrder(req PlaceRequest) *Order {
	return &Order{ID: s.newID(), CartID: req.CartID, CustomerID: req.CustomerID, TotalMinor: req.TotalMinor, Status: "pending", CreatedAt: time.Now()}
}
