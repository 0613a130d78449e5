package spec

import (
	"errors"
	"strings"
	"testing"
)

func TestSlug(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
	}{
		{"charge-card", "charge-card"},
		{"Charge card", "charge-card"},
		{"../../etc/passwd", "etc-passwd"},
		{`a/b\c`, "a-b-c"},
		{"v1.2 refund", "v1-2-refund"},
		{"  --Hello__World--  ", "hello-world"},
		{"Crème brûlée", "creme-brulee"},
		{"Über Straße", "uber-strasse"},
		{"GROSSE ẞ", "grosse-ss"},
		{"Søren's Æble-Œuvre", "soren-s-aeble-oeuvre"},
		{"Łódź déjà vu", "lodz-deja-vu"},
		{"e\u0301clair", "eclair"}, // decomposed accent
		{"ＦＵＬＬ ｗｉｄｔｈ", "full-width"},
		{"支付 charge", "charge"},
		{"refund;rm -rf /", "refund-rm-rf"},
		{"tab\tand\nnewline", "tab-and-newline"},
		{"emoji 🙂 order", "emoji-order"},
		{strings.Repeat("a", 100), strings.Repeat("a", MaxSlugLen)},
		{strings.Repeat("a", MaxSlugLen-1) + " bcd", strings.Repeat("a", MaxSlugLen-1)},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := Slug(tt.in)
			if err != nil {
				t.Fatalf("Slug(%q) error: %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("Slug(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if err := ValidSlug(got); err != nil {
				t.Errorf("ValidSlug(Slug(%q)): %v", tt.in, err)
			}
		})
	}
}

func TestSlugEmpty(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"", "   ", "!!!", "../..", "/", "支付", "платёж", "🙂🙂"} {
		t.Run(in, func(t *testing.T) {
			t.Parallel()
			got, err := Slug(in)
			if !errors.Is(err, ErrEmptySlug) {
				t.Fatalf("Slug(%q) = %q, %v; want ErrEmptySlug", in, got, err)
			}
			if msg := err.Error(); !strings.Contains(msg, "name it in ASCII") || !strings.Contains(msg, "no ASCII letters or digits") {
				t.Errorf("message %q should say why and suggest an ASCII name", msg)
			}
		})
	}
}

func TestValidSlug(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string // want is a substring of the error, "" for valid
	}{
		{"charge-card", ""},
		{"a1", ""},
		{"", "empty slug"},
		{"-a", "starts or ends with a hyphen"},
		{"a-", "starts or ends with a hyphen"},
		{"a--b", "double hyphen"},
		{"Charge", `has 'C'`},
		{"a.b", `has '.'`},
		{"..", `has '.'`},
		{"a/b", `has '/'`},
		{strings.Repeat("a", MaxSlugLen+1), "longer than 64"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			err := ValidSlug(tt.in)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("ValidSlug(%q) = %v, want nil", tt.in, err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("ValidSlug(%q) = %v, want an error containing %q", tt.in, err, tt.want)
			}
		})
	}
}

func TestFileName(t *testing.T) {
	t.Parallel()
	if got, want := FileName("charge-card"), "idempotency-charge-card.md"; got != want {
		t.Errorf("FileName = %q, want %q", got, want)
	}
}

// FuzzSlug holds Slug to its promise: whatever the name, the slug is valid
// and cannot leave the directory it is written into.
func FuzzSlug(f *testing.F) {
	for _, s := range []string{"Charge card", "../../x", "a/b\\c", "Straße", "支付", "..", "a..b", "\x00\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := Slug(in)
		if err != nil {
			if !errors.Is(err, ErrEmptySlug) {
				t.Fatalf("Slug(%q): unexpected error %v", in, err)
			}
			return
		}
		if err := ValidSlug(got); err != nil {
			t.Fatalf("Slug(%q) = %q: %v", in, got, err)
		}
		if strings.ContainsAny(got, `/\.`) {
			t.Fatalf("Slug(%q) = %q holds a path character", in, got)
		}
		if again, _ := Slug(got); again != got {
			t.Fatalf("Slug is not stable: Slug(%q) = %q, Slug of that = %q", in, got, again)
		}
	})
}
