package releaseonerror

import (
	"go/types"
	"slices"
	"strings"

	"github.com/idemkit/idemkit/internal/audit/internal/claim"
)

// docRelease names the call that gives back a claim made in a document
// store: DeleteOne for a MongoDB document, DeleteItem for a DynamoDB item,
// an ent Delete (or a rollback of the transaction it was made in) for an
// entity's row.
func docRelease(c *claim.Claim) (string, bool) {
	switch {
	case strings.HasPrefix(c.Record, "mongo "):
		return "DeleteOne", true
	case strings.HasPrefix(c.Record, "dynamo "):
		return "DeleteItem", true
	case strings.HasPrefix(c.Record, "ent "):
		return "Delete", true
	}
	return "", false
}

// sameTables reports whether a release helper can give back what a claim
// helper took: their inferred tables (SQL tables, collections) meet, or
// either names none.
func (a *checker) sameTables(claimFn, release *types.Func) bool {
	c, _ := a.dirs.Fact(claimFn)
	r, _ := a.dirs.Fact(release)
	if len(c.Tables) == 0 || len(r.Tables) == 0 {
		return true
	}
	return slices.ContainsFunc(c.Tables, func(t string) bool {
		return slices.ContainsFunc(r.Tables, func(u string) bool { return claim.SameRecord(t, u) })
	})
}
