package score

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemkit/idemkit/internal/audit"
)

// TestCorpusFloor audits testdata/corpus with the real suite and holds
// every check to the precision and recall in testdata/floor.txt.
func TestCorpusFloor(t *testing.T) {
	if testing.Short() {
		t.Skip("loads and audits the whole corpus module")
	}
	f, err := os.Open(filepath.Join("testdata", "floor.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	floor, err := ParseFloor(f, "testdata/floor.txt")
	if err != nil {
		t.Fatal(err)
	}
	report, loadErrs, err := Run(context.Background(), filepath.Join("..", "..", "..", "testdata", "corpus"), audit.Analyzers)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range loadErrs {
		t.Errorf("corpus package not audited: %v", e)
	}
	var table strings.Builder
	if err := WriteTable(&table, report, true); err != nil {
		t.Fatal(err)
	}
	for _, b := range report.Below(floor) {
		t.Errorf("%s", b)
	}
	if t.Failed() {
		t.Logf("make audit-score ARGS=-v prints:\n%s", table.String())
		t.Logf("fix the check, or, for new and harder scenarios, lower internal/audit/score/testdata/floor.txt on purpose (its header says how)")
	}
}

func TestParseFloor(t *testing.T) {
	t.Parallel()
	good := "# comment\n\ncheckthenact 0.50 0.25 # trailing\nall 1 0\n"
	floor, err := ParseFloor(strings.NewReader(good), "floor.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(floor) != 2 || floor["checkthenact"] != (Minimum{0.5, 0.25}) || floor["all"] != (Minimum{1, 0}) {
		t.Errorf("floor = %v", floor)
	}
	bad := []struct{ src, want string }{
		{"checkthenact 0.5\n", `floor.txt:1: "checkthenact 0.5" is not a floor line; write CHECK PRECISION RECALL`},
		{"\nall 0.5 x\n", `floor.txt:2: "x" is not a ratio; write a number from 0 to 1`},
		{"all 1.5 0\n", `floor.txt:1: "1.5" is not a ratio`},
		{"all 0 0\nall 0 0\n", "floor.txt:2: all has a floor already; keep one line per check"},
	}
	for _, tc := range bad {
		_, err := ParseFloor(strings.NewReader(tc.src), "floor.txt")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("ParseFloor(%q) = %v, want %s...", tc.src, err, tc.want)
		}
	}
}

func TestBelow(t *testing.T) {
	t.Parallel()
	r := &Report{
		Checks: []*CheckScore{
			{Check: "checkthenact", Figures: Figures{Bugs: 4, TP: 2, FP: 2}}, // 0.50, 0.50
			{Check: "attemptkey"}, // nothing to measure: counts as 0
		},
		All: Figures{Bugs: 4, TP: 2, FP: 2},
	}
	floor := Floor{
		"checkthenact": {Precision: 0.5, Recall: 0.51},
		"attemptkey":   {Precision: 0, Recall: 0.1},
		"all":          {Precision: 0.6, Recall: 0.5},
		"gone":         {},
	}
	got := strings.Join(r.Below(floor), "\n")
	want := strings.Join([]string{
		"checkthenact: recall 0.50 is below the floor 0.51 (2 of 4 bugs found)",
		"attemptkey: recall 0.00 is below the floor 0.10 (0 of 0 bugs found)",
		"all: precision 0.50 is below the floor 0.60 (TP 2, FP 2)",
		"gone: in the floor but not a check of the corpus",
	}, "\n")
	if got != want {
		t.Errorf("Below:\n%s\nwant:\n%s", got, want)
	}
	if b := r.Below(Floor{"checkthenact": {0.5, 0.5}, "all": {0.5, 0.5}}); len(b) != 0 {
		t.Errorf("at the floor exactly: %v", b)
	}
}
