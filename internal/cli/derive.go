package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/idemkit/idemkit/internal/design"
	"github.com/idemkit/idemkit/internal/spec"
	"github.com/idemkit/idemkit/internal/templates/runtime/idem"
)

// DeriveOptions are the inputs of idemkit derive.
type DeriveOptions struct {
	IO        *IOStreams
	Payload   string
	Source    string
	RulesFile string

	factory *Factory
}

// NewCmdDerive builds idemkit derive.
func NewCmdDerive(f *Factory, runF func(*DeriveOptions) error) *cobra.Command {
	opts := &DeriveOptions{IO: f.IO, factory: f}
	cmd := &cobra.Command{
		Use:   "derive --payload FILE.json [--source KIND[:PROVIDER]]",
		Short: "Propose the key field and canonical-hash fields for a sample payload",
		Long: `Read a sample request body and propose where its idempotency key comes from,
which fields the canonical hash includes and which it excludes (with the
reason), and print the sample's canonical JSON (RFC 8785, excluded fields
removed) and its SHA-256: the same canonical form the runtime fingerprints.`,
		Example: `  idemkit derive --payload charge.json
  idemkit derive --payload event.json --source webhook:stripe`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Payload == "" {
				return usageErr("--payload FILE.json is required: a sample request body")
			}
			if runF != nil {
				return runF(opts)
			}
			return deriveRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Payload, "payload", "", "a sample JSON request body (`FILE.json`, or - for stdin)")
	cmd.Flags().StringVar(&opts.Source, "source", "", "the key source, with a provider where it has one: client, webhook:stripe, queue:sqs-fifo")
	cmd.Flags().StringVar(&opts.RulesFile, "rules", "", "catalogue overrides `FILE` (default: .idemkit.yaml at the repository root)")
	return cmd
}

func deriveRun(opts *DeriveOptions) error {
	f := opts.factory
	cat, err := loadCatalog(f, opts.RulesFile)
	if err != nil {
		return err
	}
	var data []byte
	if opts.Payload == "-" {
		data, err = io.ReadAll(opts.IO.In)
	} else {
		data, err = os.ReadFile(f.resolve(opts.Payload))
	}
	if errors.Is(err, fs.ErrNotExist) {
		return usageErr("%s does not exist; pass a sample request body with --payload FILE.json", opts.Payload)
	}
	if err != nil {
		return usageErr("read payload: %v", err)
	}
	p, err := design.ProposeFields(data, opts.Source, cat)
	if err != nil {
		return usageErr("%s: %v", opts.Payload, err)
	}
	var exclude, paths []string
	for _, e := range p.Exclude {
		path, err := design.FieldPath(e.Name)
		if err != nil {
			return usageErr("%s: %v", opts.Payload, err)
		}
		exclude, paths = append(exclude, e.Name), append(paths, path)
	}
	canon, err := idem.CanonicalJSON(data, paths)
	if err != nil {
		return usageErr("%s: %v", opts.Payload, err)
	}
	sum := sha256.Sum256(canon)

	w := opts.IO.Out
	fmt.Fprintf(w, "Key\n  %s\n", p.KeyFrom)
	if p.KeyField != "" {
		fmt.Fprintf(w, "  field: %s (sample value %q)\n", p.KeyField, p.KeyValue)
	}
	fmt.Fprintf(w, "\nCanonical hash\n  include: %s\n", orNone(strings.Join(p.Include, ", ")))
	if len(p.Exclude) == 0 {
		fmt.Fprintln(w, "  exclude: none")
	} else {
		fmt.Fprintln(w, "  exclude:")
		for _, e := range p.Exclude {
			fmt.Fprintf(w, "    %s: %s\n", e.Name, e.Reason)
		}
	}
	fmt.Fprintf(w, "\nCanonical JSON (RFC 8785, excluded fields removed)\n  %s\n", canon)
	fmt.Fprintf(w, "SHA-256\n  %s\n", hex.EncodeToString(sum[:]))
	snippet, err := hashSnippet(p.Include, p.Exclude)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nFor the answers file (idemkit design --answers takes it as printed):\n%s", snippet)
	return nil
}

// hashSnippet is the hash answer for the proposal, as YAML an answers file
// takes: every exclusion with its reason, so design needs nothing more.
func hashSnippet(include []string, exclude []spec.Field) ([]byte, error) {
	h := design.HashAnswers{Include: include}
	for _, e := range exclude {
		h.Exclude = append(h.Exclude, e.Name)
		if h.Reasons == nil {
			h.Reasons = map[string]string{}
		}
		h.Reasons[e.Name] = e.Reason
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(struct {
		Hash design.HashAnswers `yaml:"hash"`
	}{h}); err != nil {
		return nil, err
	}
	return buf.Bytes(), enc.Close()
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
