package idem

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Store keeps idempotency records. Each method is one atomic step on one key, so a backend can
// implement it as a single round trip (a Lua script, one SQL statement) and stay correct when many
// processes share it. Every write after Claim is fenced by the token the claim handed out.
//
// Times in records come from the store's clock (the Redis or Postgres server for those stores), so
// application servers with skewed clocks still agree on when a lease ends.
type Store interface {
	// Claim is one atomic write that either takes the key for the caller — a new in-progress record
	// with the fingerprint, a fresh token and a lease of the given length, kept at least ttl — or
	// reports why not. A live record with another fingerprint is a Mismatch in any state; a
	// completed one with the same fingerprint is a Replay; an in-progress one is InProgress while
	// its lease is live and TakenOver (with a new token) once it has run out.
	//
	//idemkit:claim
	Claim(ctx context.Context, key, fingerprint string, lease, ttl time.Duration) (Claim, error)

	// Complete stores the response and keeps it for ttl, if token still holds the key's in-progress
	// lease; otherwise it returns ErrLeaseLost and changes nothing. A holder whose lease ran out but
	// was not taken over may still complete: the token, not the clock, decides who holds the key.
	// The response's header map and body are the caller's again once Complete returns (the
	// middleware reuses them for its next response): a store keeps its own copy of them.
	//
	//idemkit:complete
	Complete(ctx context.Context, key, token string, resp Response, ttl time.Duration) error

	// Release deletes the key's in-progress record if token holds it, so a retry can run at once;
	// otherwise it returns ErrLeaseLost and changes nothing.
	//
	//idemkit:release
	Release(ctx context.Context, key, token string) error

	// Extend renews the lease of token's in-progress record to lease from now (and keeps the record
	// at least that long); otherwise it returns ErrLeaseLost.
	Extend(ctx context.Context, key, token string, lease time.Duration) error

	// Get reads the key's live record, or returns ErrNotFound.
	Get(ctx context.Context, key string) (Record, error)
}

// State is the stage of a record.
type State uint8

const (
	// StateInProgress: a holder claimed the key and has not finished.
	StateInProgress State = iota + 1
	// StateCompleted: the response is stored and replayed to retries.
	StateCompleted
)

func (s State) String() string {
	switch s {
	case StateInProgress:
		return "in_progress"
	case StateCompleted:
		return "completed"
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// Response is what a completed operation answered, kept so a retry gets the same answer without
// the work running again. Status and Header follow net/http; work that is not HTTP leaves Status 0
// and puts its result in Body.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Record is a key's stored state. The lease token is deliberately absent: only the claim's caller
// learns it, so nobody can write to a key by reading it first.
type Record struct {
	Key         string
	Fingerprint string // present in every state: every path checks it
	State       State
	// LeaseExpires is when an in-progress holder's lease runs out; zero once completed.
	LeaseExpires time.Time
	// Expires is when the store forgets the record and the key is new again.
	Expires time.Time
	// Response is set once completed.
	Response Response
}

// Outcome says what a Claim found.
type Outcome uint8

const (
	// Claimed: the key was free (absent or expired); the caller holds a new lease.
	Claimed Outcome = iota + 1
	// TakenOver: the previous holder's lease ran out (it crashed or stalled); the caller holds a
	// new lease and the old token is dead. The old holder may have done part of the work, which is
	// why downstream steps need their own keys (Derive).
	TakenOver
	// Replay: the key completed for the same fingerprint; Claim.Record.Response is the answer.
	Replay
	// InProgress: another holder's lease is live; retry after Claim.RetryAfter.
	InProgress
	// Mismatch: the key is live for a different fingerprint; Claim.Record.Fingerprint is the
	// stored one. The request must not run: it reuses a key for a different operation.
	Mismatch
)

func (o Outcome) String() string {
	switch o {
	case Claimed:
		return "claimed"
	case TakenOver:
		return "taken_over"
	case Replay:
		return "replay"
	case InProgress:
		return "in_progress"
	case Mismatch:
		return "mismatch"
	}
	return fmt.Sprintf("Outcome(%d)", uint8(o))
}

// Claim is the result of Store.Claim.
type Claim struct {
	Outcome Outcome
	// Token fences the caller's later writes; set only when the caller holds the key.
	Token string
	// Previous is the token of the holder whose lapsed lease a TakenOver claim ended, so that logs
	// can tell the two holders apart. It is dead: the store refuses every write fenced by it.
	Previous string
	// Record is the key's record after the claim, whatever the outcome.
	Record Record
	// RetryAfter is what remains of the other holder's lease, measured on the store's clock; set
	// for InProgress.
	RetryAfter time.Duration
}

// NewClaim builds the Claim that a store's single claim step reported by name: "claimed",
// "taken" (taken over), "replay", "busy" (in progress, for retryAfter more) or "mismatch" — the
// words the Redis script and the Postgres statement answer with. token is the one the caller
// offered; the claim keeps it only when the outcome hands the caller the key.
func NewClaim(outcome, token string, rec Record, retryAfter time.Duration) (Claim, error) {
	c := Claim{Record: rec}
	switch outcome {
	case "claimed":
		c.Outcome, c.Token = Claimed, token
	case "taken":
		c.Outcome, c.Token = TakenOver, token
	case "replay":
		c.Outcome = Replay
	case "busy":
		c.Outcome, c.RetryAfter = InProgress, retryAfter
	case "mismatch":
		c.Outcome = Mismatch
	default:
		return Claim{}, fmt.Errorf("idem: unknown claim outcome %q", outcome)
	}
	return c, nil
}

// Held reports whether the claim gave the caller the key.
func (c Claim) Held() bool { return c.Outcome == Claimed || c.Outcome == TakenOver }

// NewToken returns a fresh lease token: 26 random characters of the RFC 4648 base32 alphabet
// (130 bits) from crypto/rand, as rand.Text makes them, so no holder can guess another's.
//
// The random bytes are read from crypto/rand ahead, for many tokens at once: a read costs a
// system call of about 300ns, as much as the rest of a memory store's claim. Each character
// takes five bits of them, not a byte as rand.Text's do, since making random bytes costs about
// 2ns each: 17 bytes make a token, not 26. The tokens of a read are made together, into one
// string that each is cut from, so that a token costs no allocation of its own.
func NewToken() string {
	tokens.mu.Lock()
	if tokens.next == len(tokens.text) {
		tokens.text, tokens.next = makeTokens(), 0
	}
	t := tokens.text[tokens.next : tokens.next+tokenLen]
	tokens.next += tokenLen
	tokens.mu.Unlock()
	return t
}

// makeTokens reads random bytes for tokensAhead tokens, and returns the tokens one after another.
// The random bytes are cleared once made into tokens, each having served once.
func makeTokens() string {
	var src [tokensAhead * tokenBytes]byte
	rand.Read(src[:]) // never returns an error (it crashes the program instead)
	var b [tokensAhead * tokenLen]byte
	for i := range tokensAhead {
		s, t := src[i*tokenBytes:][:tokenBytes], b[i*tokenLen:][:tokenLen]
		base32Block(t[0:8], s[0:5])
		base32Block(t[8:16], s[5:10])
		base32Block(t[16:24], s[10:15])
		last := uint(s[15])<<8 | uint(s[16]) // 10 of its 16 bits make the last two characters
		t[24], t[25] = base32Pairs[last>>6&1023][0], base32Pairs[last>>6&1023][1]
	}
	clear(src[:])
	text := string(b[:])
	clear(b[:])
	return text
}

// base32Block writes the 40 bits of src as eight characters of the base32 alphabet, two at a time.
func base32Block(dst, src []byte) {
	_, _ = dst[7], src[4]
	v := uint(src[0])<<32 | uint(src[1])<<24 | uint(src[2])<<16 | uint(src[3])<<8 | uint(src[4])
	*(*[2]byte)(dst[0:2]) = base32Pairs[v>>30&1023]
	*(*[2]byte)(dst[2:4]) = base32Pairs[v>>20&1023]
	*(*[2]byte)(dst[4:6]) = base32Pairs[v>>10&1023]
	*(*[2]byte)(dst[6:8]) = base32Pairs[v&1023]
}

// base32Pairs holds the two characters of the base32 alphabet that each 10 bits make.
var base32Pairs = func() (p [1024][2]byte) {
	for v := range p {
		p[v] = [2]byte{base32Alphabet[v>>5], base32Alphabet[v&31]}
	}
	return p
}()

const (
	tokenLen       = 26
	tokenBytes     = (tokenLen*5 + 7) / 8 // random bytes of a token
	tokensAhead    = 64                   // tokens made from one read of random bytes
	base32Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
)

// tokens holds the tokens made ahead for NewToken: text, from next on, is yet to be handed out.
var tokens struct {
	mu   sync.Mutex
	text string
	next int
}

// MaxKeyLen bounds a stored key (the client's key with its scope), leaving room in a Postgres
// index entry.
const MaxKeyLen = 1024

// CheckClaim rejects Claim arguments that no store accepts. Stores call it first so that every
// backend refuses the same inputs with ErrInvalid.
func CheckClaim(key, fingerprint string, lease, ttl time.Duration) error {
	// Every claim is checked and almost every one passes: the checks that pass are made first,
	// without the calls that would name what failed.
	if isText(key) && isText(fingerprint) && lease >= time.Millisecond && ttl >= time.Millisecond {
		return nil
	}
	if err := CheckKey(key); err != nil {
		return err
	}
	if err := checkText("fingerprint", fingerprint); err != nil {
		return err
	}
	if err := CheckDuration("lease", lease); err != nil {
		return err
	}
	return CheckDuration("ttl", ttl)
}

// CheckKey rejects a key no store accepts: empty, over MaxKeyLen bytes, not UTF-8, or holding a
// NUL byte (Postgres text cannot), so every backend takes exactly the same keys. A key that
// fails it can never have been claimed.
func CheckKey(key string) error { return checkText("key", key) }

func checkText(what, s string) error {
	if isText(s) {
		return nil
	}
	switch {
	case s == "":
		return fmt.Errorf("%w: empty %s", ErrInvalid, what)
	case len(s) > MaxKeyLen:
		return fmt.Errorf("%w: %s of %d bytes is over %d", ErrInvalid, what, len(s), MaxKeyLen)
	case !utf8.ValidString(s) || strings.ContainsRune(s, 0):
		return fmt.Errorf("%w: %s %q is not UTF-8 text without NUL", ErrInvalid, what, s)
	}
	return nil
}

// isText reports whether s is what checkText accepts. Keys and fingerprints are ASCII almost
// always, and for them it reads s once, eight bytes at a time, where checking UTF-8 and looking
// for NUL read it twice; anything else it leaves to those checks. The words are not tested one by
// one but folded into one, tested once at the end: a string that fails is rare, and reading on
// past its first bad word costs less than a branch on every word.
func isText(s string) bool {
	n := len(s)
	if n < 8 || n > MaxKeyLen {
		return n > 0 && n <= MaxKeyLen && utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
	}
	// A byte of a word with its top bit set is not ASCII; subtracting one from a zero byte sets it
	// (a borrow into the next byte comes only from a zero byte, which is caught anyway). The last
	// word overlaps the ones before unless the length is a multiple of eight.
	var bad uint64
	for i := 0; i < n-8; i += 8 {
		v := word(s[i : i+8])
		bad |= v | (v - 0x0101010101010101)
	}
	v := word(s[n-8:])
	bad |= v | (v - 0x0101010101010101)
	if bad&0x8080808080808080 != 0 {
		return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
	}
	return true
}

// word is the eight bytes of w, little-endian: one load.
func word(w string) uint64 {
	_ = w[7]
	return uint64(w[0]) | uint64(w[1])<<8 | uint64(w[2])<<16 | uint64(w[3])<<24 |
		uint64(w[4])<<32 | uint64(w[5])<<40 | uint64(w[6])<<48 | uint64(w[7])<<56
}

// CheckDuration rejects a lease or TTL under a millisecond, the resolution every store keeps.
func CheckDuration(what string, d time.Duration) error {
	if d < time.Millisecond {
		return fmt.Errorf("%w: %s %v is under a millisecond", ErrInvalid, what, d)
	}
	return nil
}
