package orders

import (
	"context"
	"errors"
	"fmt"
)

// ErrChanged says the order was changed by another request.
var ErrChanged = errors.New("orders: order changed concurrently")

func (s *Service) cartCheckedOut(ctx context.Context, cartID string) (bool, error) {
	n, err := s.orders.Count(ctx, "cart_id = ?", cartID)
	if err != nil {
		return false, fmt.Errorf("count orders: %w", err)
	}
	return n > 0, nil
}

// Place turns a cart into an order, once per cart.
//
// corpus: bug checkthenact
// modelled on: macreai/chess-game-app-be internal/repo/repository.go (a generic GORM repository with Create and a count)
func (s *Service) Place(ctx context.Context, req PlaceRequest) (*Order, error) {
	done, err := s.cartCheckedOut(ctx, req.CartID)
	if err != nil {
		return nil, err
	}
	if done {
		return s.orders.FindOne(ctx, "cart_id = ?", req.CartID)
	}
	o := s.newOrder(req)
	if err := s.orders.Create(ctx, o); err != nil {
		return nil, fmt.Errorf("create order: %w", err)
	}
	return o, nil
}

// PlaceOnce turns a cart into an order, once per cart: the insert skips a
// cart that already has one (unique index on cart_id).
//
// corpus: ok checkthenact
// modelled on: cheerego/gorm-generics README.md (a BaseRepository[T] embedded in a typed repository)
func (s *Service) PlaceOnce(ctx context.Context, req PlaceRequest) (*Order, error) {
	o := s.newOrder(req)
	inserted, err := s.orders.CreateIfAbsent(ctx, o, "cart_id")
	if err != nil {
		return nil, fmt.Errorf("create order: %w", err)
	}
	if !inserted {
		return s.orders.FindOne(ctx, "cart_id = ?", req.CartID)
	}
	return o, nil
}

// RecordPayment stores the captured payment of an order once per provider
// payment, in the order's unit of work.
//
// corpus: bug checkthenact
// modelled on: edgarSucre/cred-man internal/infrastructure/db/repository/transaction.go (WithTransaction handing queries bound to the tx)
func (s *Service) RecordPayment(ctx context.Context, orderID, providerID string, amount int64) error {
	return s.uow.Do(ctx, func(ctx context.Context, tx Tx) error {
		_, err := tx.Payments().FindOne(ctx, "provider_id = ?", providerID)
		if err == nil {
			return nil
		}
		if !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("find payment: %w", err)
		}
		if err := tx.Payments().Create(ctx, &Payment{ID: s.newID(), OrderID: orderID, ProviderID: providerID, AmountMinor: amount}); err != nil {
			return fmt.Errorf("create payment: %w", err)
		}
		n, err := tx.Orders().UpdateWhere(ctx, map[string]any{"status": "paid"}, "id = ?", orderID)
		if err != nil {
			return fmt.Errorf("mark paid: %w", err)
		}
		if n == 0 {
			return ErrNotFound
		}
		return nil
	})
}

// SnapshotCart stores the cart's latest price; a repeat writes the same
// row again.
//
// corpus: ok checkthenact
// modelled on: vicent-dev/generic-repository Readme.md (Repository[T] with FindFirstBy and Update)
func (s *Service) SnapshotCart(ctx context.Context, snap CartSnapshot) error {
	prev, err := s.carts.FindOne(ctx, "cart_id = ?", snap.CartID)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("find snapshot: %w", err)
	}
	if prev != nil && prev.TotalMinor == snap.TotalMinor {
		return nil
	}
	return s.carts.Upsert(ctx, &snap, []string{"cart_id"}, []string{"total_minor", "priced_at"})
}

// Cancel cancels a pending order. The order must exist; the update only
// moves it from pending, so a twin request changes nothing.
//
// corpus: ok checkthenact
// modelled on: macreai/chess-game-app-be internal/repo/repository.go (FindById then Update through the generic repository)
func (s *Service) Cancel(ctx context.Context, orderID string) error {
	o, err := s.orders.FindOne(ctx, "id = ?", orderID)
	if err != nil {
		return fmt.Errorf("find order: %w", err)
	}
	if o.Status == "cancelled" {
		return nil
	}
	n, err := s.orders.UpdateWhere(ctx, map[string]any{"status": "cancelled"}, "id = ? AND status = ?", orderID, "pending")
	if err != nil {
		return fmt.Errorf("cancel order: %w", err)
	}
	if n == 0 {
		return ErrChanged
	}
	return nil
}

// AddLines copies the cart's lines onto a new order unless the order
// already has lines.
//
// corpus: bug checkthenact
// modelled on: cheerego/gorm-generics README.md (BatchInsert and FindById through the generic repository)
func (s *Service) AddLines(ctx context.Context, orderID string, lines []OrderLine) error {
	have, err := s.lines.FindAll(ctx, "order_id = ?", orderID)
	if err != nil {
		return fmt.Errorf("find lines: %w", err)
	}
	if len(have) != 0 {
		return nil
	}
	create := s.lines.Create
	for i := range lines {
		lines[i].ID = s.newID()
		lines[i].OrderID = orderID
		if err := create(ctx, &lines[i]); err != nil {
			return fmt.Errorf("create line: %w", err)
		}
	}
	return nil
}
