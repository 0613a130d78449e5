package driver

import (
	"context"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/idemkit/idemkit/internal/audit/checkthenact"
	"github.com/idemkit/idemkit/internal/audit/driver/drivertest"
)

// TestInterfaceResolution checks that in process a call through an
// interface takes the effects of the module's implementation, declared in
// a package that imports the caller's: method names that say nothing
// (Probe, Commit) leave the shape nothing to go on.
func TestInterfaceResolution(t *testing.T) {
	t.Parallel()
	dir := drivertest.WriteTree(t, map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.26\n",
		"svc/svc.go": `package svc

import "context"

type Ledger interface {
	Probe(ctx context.Context, id string) (bool, error)
	Commit(ctx context.Context, id string) error
}

type Service struct{ L Ledger }

func (s *Service) Handle(ctx context.Context, id string) error {
	done, err := s.L.Probe(ctx, id)
	if err != nil || done {
		return err
	}
	return s.L.Commit(ctx, id)
}
`,
		"svc/sqlledger/sqlledger.go": `package sqlledger

import (
	"context"
	"database/sql"

	"example.com/m/svc"
)

var _ svc.Ledger = (*Ledger)(nil)

type Ledger struct{ DB *sql.DB }

func (l *Ledger) Probe(ctx context.Context, id string) (bool, error) {
	var n int
	err := l.DB.QueryRowContext(ctx, "SELECT count(*) FROM settlements WHERE batch_id = $1", id).Scan(&n)
	return n > 0, err
}

func (l *Ledger) Commit(ctx context.Context, id string) error {
	_, err := l.DB.ExecContext(ctx, "INSERT INTO settlements (batch_id) VALUES ($1)", id)
	return err
}
`,
	})
	res, err := Run(context.Background(), Options{Dir: dir, Analyzers: []*analysis.Analyzer{checkthenact.Analyzer}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) > 0 {
		t.Fatalf("errors: %v", res.Errors)
	}
	var got []string
	for _, f := range res.Findings {
		got = append(got, f.Pos.String()+": "+f.Message)
	}
	if len(got) != 1 || !strings.Contains(got[0], "svc.go:17:") || !strings.Contains(got[0], "INSERT into settlements (by Commit, at sqlledger.go:21) after the SELECT in Probe at sqlledger.go:16") {
		t.Errorf("findings = %q, want one INSERT into settlements at svc.go:17", got)
	}
}

// TestInterfaceResolutionSkipsTestFakes checks that a fake declared in a
// test file does not stand in for the real implementation of a production
// call: the service's calls never reach it.
func TestInterfaceResolutionSkipsTestFakes(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.26\n",
		"svc/svc.go": `package svc

import "context"

type Ledger interface {
	Probe(ctx context.Context, id string) (bool, error)
	Commit(ctx context.Context, id string) error
}

type Service struct{ L Ledger }

func (s *Service) Handle(ctx context.Context, id string) error {
	done, err := s.L.Probe(ctx, id)
	if err != nil || done {
		return err
	}
	return s.L.Commit(ctx, id)
}
`,
		"svc/fake_test.go": `package svc

import (
	"context"
	"database/sql"
)

type fakeLedger struct{ DB *sql.DB }

func (l *fakeLedger) Probe(ctx context.Context, id string) (bool, error) {
	var n int
	err := l.DB.QueryRowContext(ctx, "SELECT count(*) FROM settlements WHERE batch_id = $1", id).Scan(&n)
	return n > 0, err
}

func (l *fakeLedger) Commit(ctx context.Context, id string) error {
	_, err := l.DB.ExecContext(ctx, "INSERT INTO settlements (batch_id) VALUES ($1)", id)
	return err
}
`,
	}
	dir := drivertest.WriteTree(t, files)
	res, err := Run(context.Background(), Options{Dir: dir, Analyzers: []*analysis.Analyzer{checkthenact.Analyzer}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) > 0 || len(res.Findings) > 0 {
		t.Errorf("errors %v, findings %v: want none (the only implementation is a test's fake)", res.Errors, res.Findings)
	}
}
