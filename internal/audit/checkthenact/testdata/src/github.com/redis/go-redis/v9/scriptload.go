package redis

import "context"

// SCRIPT LOAD and a Script's SHA, beside the library copy's commands:
// the scripts kept by SHA need them.

func (c cmdable) ScriptLoad(ctx context.Context, script string) *StringCmd { return nil }

func (c cmdable) EvalShaRO(ctx context.Context, sha1 string, keys []string, args ...interface{}) *Cmd {
	return nil
}

func (s *Script) Hash() string { return "" }

func (s *Script) Load(ctx context.Context, c Scripter) *StringCmd { return nil }
