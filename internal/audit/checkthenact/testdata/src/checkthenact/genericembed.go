package checkthenact

import (
	"context"
	"errors"

	"gorm.io/gorm"
)

// Repositories that embed an instance of the generic one, as services
// built on a generic base repository declare them.
type HoldRepo struct{ Repo[Hold] }

type HoldAuditRepo struct{ Repo[HoldAudit] }

type embeddedHolds struct {
	holds  *HoldRepo
	audits *HoldAuditRepo
}

// A lookup of holds, then a Create of holds, both through the embedded
// instance's methods: one table, checked and then written.
func (s *embeddedHolds) place(ctx context.Context, ref string, cents int64) (*Hold, error) {
	h, err := s.holds.FindOne(ctx, "reference = ?", ref)
	if err == nil {
		return h, nil
	}
	if !errors.Is(err, gorm.ErrRecordNotFound) {
		return nil, err
	}
	h = &Hold{Reference: ref, Cents: cents}
	if err := s.holds.Create(ctx, h); err != nil { // want `Create of Hold \(by Create, at generic.go:\d+\) after the First in FindOne`
		return nil, err
	}
	return h, nil
}

// A lookup of holds, then a Create in the audit repository: another
// table, whatever the two share in their generic code.
func (s *embeddedHolds) note(ctx context.Context, ref string) error {
	if _, err := s.holds.FindOne(ctx, "reference = ?", ref); err == nil {
		return nil
	}
	return s.audits.Create(ctx, &HoldAudit{Reference: ref})
}
