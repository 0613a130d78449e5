package rules

import (
	"reflect"
	"testing"
)

func TestDefaultChecks(t *testing.T) {
	t.Parallel()
	if got, want := DefaultChecks(), Default().Checks; !reflect.DeepEqual(got, want) {
		t.Fatalf("DefaultChecks() differs from the validated catalogue's checks:\n got %+v\nwant %+v", got, want)
	}
	if len(DefaultChecks()) < 4 {
		t.Fatalf("DefaultChecks() = %d checks, want the four analyzers at least", len(DefaultChecks()))
	}
	c, ok := DefaultCheck("checkthenact")
	if !ok || c.Title == "" {
		t.Fatalf("DefaultCheck(checkthenact) = %+v, %v", c, ok)
	}
	if _, ok := DefaultCheck("nope"); ok {
		t.Fatal("DefaultCheck(nope) found an entry")
	}
}
