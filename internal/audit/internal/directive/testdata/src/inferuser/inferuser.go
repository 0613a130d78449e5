package inferuser

import (
	"context"

	"inferred"
)

func handle(ctx context.Context, d *inferred.Dedup, l inferred.Locker) {
	d.Take(ctx, "k")                // want `Take: claim`
	d.Forget(ctx, "k")              // want `Forget: release`
	d.Process(ctx, "k")             // want `Process: none`
	inferred.Acquire(l, "k")        // want `Acquire: claim`
	inferred.TakeAgain(ctx, d, "k") // want `TakeAgain: claim`
	d.Drop(ctx, "k")                // want `Drop: release`
}
