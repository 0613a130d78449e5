package design

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/idemkit/idemkit/internal/rules"
	"github.com/idemkit/idemkit/internal/spec"
)

// AnswersError is a problem in an answers file, located by line.
type AnswersError struct {
	Line int // 1-based; 0 when the problem has no single line
	Msg  string
}

func (e *AnswersError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

// ParseAnswers reads an answers file (the YAML shape of Answers). Unknown
// fields are errors, so a typo never silently falls back to a default.
func ParseAnswers(data []byte) (Answers, error) {
	return ParseAnswersOver(data, Answers{})
}

// ParseAnswersOver reads an answers file over base (a preset's answers):
// what the file gives wins, field by field, and what it leaves out keeps
// base's answer. A list the file gives (downstream, hash.include) replaces
// base's whole.
func ParseAnswersOver(data []byte, base Answers) (Answers, error) {
	a := base
	if len(bytes.TrimSpace(data)) == 0 {
		return a, &AnswersError{Msg: "the answers file is empty; start from a preset, e.g. idemkit design --preset payment --print"}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&a); err != nil {
		return Answers{}, answersError(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return Answers{}, &AnswersError{Msg: "the answers file holds more than one YAML document; keep one"}
	}
	return a, nil
}

var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// answersError turns yaml.v3's messages into AnswersErrors with the Go type
// names replaced by the answers-file words a user knows.
func answersError(err error) error {
	var te *yaml.TypeError
	msgs := []string{err.Error()}
	if errors.As(err, &te) {
		msgs = te.Errors
	}
	first := &AnswersError{}
	var rest []string
	for i, m := range msgs {
		line, msg := 0, m
		if sm := yamlLine.FindStringSubmatch(m); sm != nil {
			line, _ = strconv.Atoi(sm[1])
			msg = sm[2]
		}
		msg = strings.NewReplacer(
			"in type design.Answers", "at the top level",
			"in type design.KeyAnswers", "in key",
			"in type design.HashAnswers", "in hash",
			"in type design.StoreAnswers", "in store",
			"in type design.CollisionAnswers", "in collision",
			"in type design.StepAnswers", "in a downstream step",
			"!!seq", "a list", "!!map", "a mapping", "!!str", "a string", "!!int", "a number", "!!bool", "a boolean",
		).Replace(msg)
		if i == 0 {
			first.Line, first.Msg = line, msg
			continue
		}
		if line > 0 {
			msg = fmt.Sprintf("line %d: %s", line, msg)
		}
		rest = append(rest, msg)
	}
	if len(rest) > 0 {
		first.Msg += "; " + strings.Join(rest, "; ")
	}
	return first
}

// MarshalAnswers writes a as an answers file.
func MarshalAnswers(a Answers) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(a); err != nil {
		return nil, err
	}
	return buf.Bytes(), enc.Close()
}

// AnswersFromSpec recovers the answers a spec was decided from, so that
// "idemkit design --from SPEC.md" can reopen it for editing and deciding
// them again gives back the same spec. A key format the answers gave
// (one Decide would not derive from the rest) is kept as key.format.
func AnswersFromSpec(s *spec.Spec, cat *rules.Catalog) Answers {
	a := answersFromSpec(s, cat)
	if d, err := Decide(a, cat); err != nil || d.Spec.Key.Format != s.Key.Format {
		a.Key.Format = s.Key.Format
	}
	return a
}

func answersFromSpec(s *spec.Spec, cat *rules.Catalog) Answers {
	a := Answers{
		Operation:   s.Operation,
		Description: s.Description,
		Preset:      s.Preset,
		Kind:        s.Kind,
		Key: KeyAnswers{
			Source:    s.Key.Source,
			Provider:  s.Key.Provider,
			Scope:     s.Key.Scope,
			RetriedBy: append([]string(nil), s.Key.RetriedBy...),
		},
		Store: StoreAnswers{Kind: s.Store.Kind, AuditRow: ptr(s.Store.AuditRow), AckFirst: s.Store.AckFirst},
		TTL:   s.TTL.Duration.String(),
	}
	if s.TTL.WindowSource == "answers" {
		a.Key.Window = s.TTL.RetryWindow.String()
		a.Key.WindowFrom, _ = strings.CutPrefix(s.TTL.WindowReference, "the answers: ")
	}
	if a.Description == a.Operation {
		a.Description = ""
	}
	switch s.Key.Source {
	case "client":
		if s.Key.In == "body" {
			a.Key.In, a.Key.Name = s.Key.In, s.Key.Name
		} else {
			a.Key.Header = strings.TrimPrefix(s.Key.Field, "header ")
		}
	case "webhook", "queue":
		// Only a location the answers gave is kept: the catalogue's own
		// stays the catalogue's, and follows it when it is corrected.
		if p, ok := cat.Provider(s.Key.Provider); !ok || len(p.Key.From) == 0 || p.Key.From[0].Kind != s.Key.In || p.Key.From[0].Name != s.Key.Name {
			a.Key.In, a.Key.Name = s.Key.In, s.Key.Name
		}
	case "cron":
		a.Key.Schedule = s.Key.Schedule.String()
		a.Key.Job = s.Key.Job
		if a.Key.Job == "" { // a spec written before key.job
			a.Key.Job, _, _ = strings.Cut(s.Key.Format, ":{")
		}
		if s.Key.TimeZone != "UTC" {
			a.Key.TimeZone = s.Key.TimeZone
		}
		a.Key.BusinessDate = s.Key.BusinessDate
	case "workflow":
		a.Key.Workflow, a.Key.Step, a.Key.Param = s.Key.Workflow, s.Key.Step, s.Key.Name
		if a.Key.Workflow == "" { // a spec written before key.workflow
			a.Key.Workflow, a.Key.Step, a.Key.Param = parseWorkflowField(s.Key.Field)
		}
	}
	a.Hash.Include = append([]string(nil), s.Hash.Include...)
	for _, f := range s.Hash.Exclude {
		a.Hash.Exclude = append(a.Hash.Exclude, f.Name)
		if a.Hash.Reasons == nil {
			a.Hash.Reasons = map[string]string{}
		}
		a.Hash.Reasons[f.Name] = f.Reason
	}
	for _, c := range s.Collisions {
		switch c.Case {
		case "completed":
			a.Collision.Completed = c.Policy
		case "in_progress":
			a.Collision.InProgress = c.Policy
			if c.RetryAfter > 0 {
				a.Collision.RetryAfter = c.RetryAfter.String()
			}
		}
	}
	if s.TTL.Lease > 0 {
		a.Lease.Duration = s.TTL.Lease.String()
	}
	if s.TTL.LongestRun > 0 {
		a.Lease.LongestRun = s.TTL.LongestRun.String()
	}
	if s.TTL.Heartbeat > 0 {
		a.Lease.Heartbeat = s.TTL.Heartbeat.String()
	}
	if s.Failure.Transport == spec.TransportQueue {
		a.Collision.MaxDeliveries = s.Failure.MaxDeliveries
		a.Collision.DeadLetter = s.Failure.DeadLetter
	}
	for _, st := range s.Downstream {
		sa := StepAnswers{Name: st.Name, Target: st.Target, Mechanism: st.Mechanism, Item: st.Item, BusinessKey: slices.Clone(st.BusinessKey), Why: st.Why}
		if slug, ok := strings.CutPrefix(strings.TrimSuffix(st.Spec, ".md"), "idempotency-"); ok {
			sa.Operation = slug
		}
		a.Downstream = append(a.Downstream, sa)
	}
	return a
}

// parseWorkflowField reads back the Field Decide writes for workflow keys:
// "workflow ID of W, step S, parameter P".
func parseWorkflowField(f string) (workflow, step, param string) {
	f = strings.TrimPrefix(f, "workflow ID of ")
	workflow, rest, _ := strings.Cut(f, ", step ")
	step, param, _ = strings.Cut(rest, ", parameter ")
	return workflow, step, param
}

func ptr[T any](v T) *T { return &v }
