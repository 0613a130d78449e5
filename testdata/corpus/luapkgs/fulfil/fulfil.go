// Package fulfil ships orders. Its repository runs the Lua scripts of
// package scripts: directly, through a helper given the script, and
// through a small wrapper type that keeps a script with its client.
package fulfil

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"

	"example.com/corpus/luapkgs/scripts"
)

// Carrier dispatches a shipment with the carrier.
type Carrier interface {
	Dispatch(ctx context.Context, orderID, address string) (Label, error)
}

// Label is the carrier's answer.
type Label struct {
	Tracking string `json:"tracking"`
}

// Script keeps a go-redis script with the client it runs on.
type Script struct {
	rdb    redis.UniversalClient
	script *redis.Script
}

func newScript(rdb redis.UniversalClient, src string) *Script {
	return &Script{rdb: rdb, script: redis.NewScript(src)}
}

// Run runs the script on its client.
func (s *Script) Run(ctx context.Context, keys []string, args ...any) *redis.Cmd {
	return s.script.Run(ctx, s.rdb, keys, args...)
}

// Shipments books shipments once per order.
type Shipments struct {
	rdb     redis.UniversalClient
	carrier Carrier
	add     *Script
	record  *Script
}

// NewShipments makes the repository and its wrapped scripts.
func NewShipments(rdb redis.UniversalClient, carrier Carrier) *Shipments {
	return &Shipments{
		rdb:     rdb,
		carrier: carrier,
		add:     newScript(rdb, scripts.AddLua),
		record:  newScript(rdb, scripts.RecordLua),
	}
}

// runScript runs the script its caller names and reports its failure
// with the operation's name.
func (s *Shipments) runScript(ctx context.Context, op string, script *redis.Script, keys []string, args ...any) error {
	if err := script.Run(ctx, s.rdb, keys, args...).Err(); err != nil {
		return fmt.Errorf("%s: redis eval: %w", op, err)
	}
	return nil
}

// runScriptInt runs the script its caller names and answers its integer
// reply.
func (s *Shipments) runScriptInt(ctx context.Context, op string, script *redis.Script, keys []string, args ...any) (int64, error) {
	n, err := script.Run(ctx, s.rdb, keys, args...).Int64()
	if err != nil {
		return 0, fmt.Errorf("%s: redis eval: %w", op, err)
	}
	return n, nil
}

const labelTTL = 7 * 24 * 3600

// Ship looks for the order's label, books the shipment, and stores the
// label with the other package's SET script. Two deliveries of one order
// that both find nothing both book.
//
// corpus: bug checkthenact
// modelled on: XdpCs/redis-lock lua.go (scripts kept in package variables made by redis.NewScript, run from elsewhere)
func (s *Shipments) Ship(ctx context.Context, orderID, address string) (Label, error) {
	key := "label:" + orderID
	raw, err := s.rdb.Get(ctx, key).Bytes()
	if err == nil {
		var l Label
		return l, json.Unmarshal(raw, &l)
	}
	if !errors.Is(err, redis.Nil) {
		return Label{}, err
	}
	l, err := s.carrier.Dispatch(ctx, orderID, address)
	if err != nil {
		return Label{}, err
	}
	body, err := json.Marshal(l)
	if err != nil {
		return Label{}, err
	}
	if err := scripts.Record.Run(ctx, s.rdb, []string{key}, body, labelTTL).Err(); err != nil {
		return Label{}, fmt.Errorf("record label: %w", err)
	}
	return l, nil
}

// ShipReserved reserves the order with the other package's SETNX script
// before booking: one attempt gets the reservation.
//
// corpus: ok checkthenact
// corpus: bug releaseonerror
// modelled on: XdpCs/redis-lock lua.go (scripts kept in package variables made by redis.NewScript, run from elsewhere)
func (s *Shipments) ShipReserved(ctx context.Context, orderID, address, token string) (Label, error) {
	key := "reserve:" + orderID
	won, err := scripts.Reserve.Run(ctx, s.rdb, []string{key}, token, 60000).Int()
	if err != nil {
		return Label{}, err
	}
	if won == 0 {
		return Label{}, errors.New("fulfil: order is being shipped")
	}
	return s.carrier.Dispatch(ctx, orderID, address)
}

// Rebook checks that the order has no booking, books, and records the
// booking through runScript. The helper is given the SET script; the
// check and the record are still two steps.
//
// corpus: bug checkthenact
// modelled on: hibiken/asynq internal/rdb/rdb.go (runScript(ctx, op, script *redis.Script, keys, args...) helper)
func (s *Shipments) Rebook(ctx context.Context, orderID, address string) error {
	key := "booking:" + orderID
	n, err := s.rdb.Exists(ctx, key).Result()
	if err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	l, err := s.carrier.Dispatch(ctx, orderID, address)
	if err != nil {
		return err
	}
	return s.runScript(ctx, "rebook", scripts.Record, []string{key}, l.Tracking, labelTTL)
}

// ReserveThenBook reserves through runScript, given the SETNX script,
// before booking.
//
// corpus: ok checkthenact
// corpus: bug releaseonerror
// modelled on: hibiken/asynq internal/rdb/rdb.go (runScript(ctx, op, script *redis.Script, keys, args...) helper)
func (s *Shipments) ReserveThenBook(ctx context.Context, orderID, address, token string) (Label, error) {
	key := "reserve:" + orderID
	won, err := s.runScriptInt(ctx, "reserve", scripts.Reserve, []string{key}, token, 60000)
	if err != nil || won == 0 {
		return Label{}, err
	}
	return s.carrier.Dispatch(ctx, orderID, address)
}

// Relabel stores a new label with the wrapped SET script after looking
// the old one up and booking again: two steps.
//
// corpus: bug checkthenact
// modelled on: boxgo/box client/redis/script.go (type Script wrapping *redis.Script with its client, made by newScript(rdb, src))
func (s *Shipments) Relabel(ctx context.Context, orderID, address string) (Label, error) {
	key := "label:" + orderID
	if _, err := s.rdb.Get(ctx, key).Result(); err == nil {
		return Label{}, errors.New("fulfil: already labelled")
	} else if !errors.Is(err, redis.Nil) {
		return Label{}, err
	}
	l, err := s.carrier.Dispatch(ctx, orderID, address)
	if err != nil {
		return Label{}, err
	}
	return l, s.record.Run(ctx, []string{key}, l.Tracking, labelTTL).Err()
}

// BookOnce takes the order's key with the wrapped Add script (EXISTS
// and SETEX in one script) before booking.
//
// corpus: ok checkthenact
// corpus: bug releaseonerror
// modelled on: alejandro-carstens/gocache lua_scripts.go (an Add script: exists < 1 and setex)
func (s *Shipments) BookOnce(ctx context.Context, orderID, address string) (Label, error) {
	key := "booking:" + orderID
	added, err := s.add.Run(ctx, []string{key}, "booking", 3600).Bool()
	if err != nil && !errors.Is(err, redis.Nil) {
		return Label{}, err
	}
	if !added {
		return Label{}, errors.New("fulfil: already booked")
	}
	return s.carrier.Dispatch(ctx, orderID, address)
}

// Stamp marks the order with the GETSET script and books only when the
// old value says it was absent.
//
// corpus: ok checkthenact
// modelled on: alejandro-carstens/gocache lua_scripts.go (one script that tests and sets a key)
func (s *Shipments) Stamp(ctx context.Context, orderID, address string) (Label, error) {
	key := "stamp:" + orderID
	err := scripts.Stamp.Run(ctx, s.rdb, []string{key}, "booked").Err()
	if err == nil {
		return Label{}, errors.New("fulfil: already stamped")
	}
	if !errors.Is(err, redis.Nil) {
		return Label{}, err
	}
	return s.carrier.Dispatch(ctx, orderID, address)
}
