package user

import (
	"context"

	"helpers"
)

func handle(ctx context.Context, keys helpers.Keys) {
	helpers.ClaimKey(ctx, "k")        // want `ClaimKey: claim`
	helpers.ReleaseKey(ctx, "k")      // want `ReleaseKey: release`
	helpers.Finish(ctx, "k", nil)     // want `Finish: release\|complete`
	helpers.Lookup(ctx, "k")          // want `Lookup: none`
	keys.Take(ctx, "k")               // want `Take: claim`
	keys.Peek(ctx, "k")               // want `Peek: none`
	helpers.Generic[string](ctx, "k") // want `Generic: claim`
	local(ctx)                        // want `local: release`
}

// local releases.
//
//idemkit:release
func local(ctx context.Context) {}
