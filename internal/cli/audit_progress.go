package cli

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/idemkit/idemkit/internal/audit/driver"
)

// auditProgress draws how far an audit has come on one terminal line of
// stderr, rewritten in place, so that a run over a large module does not
// look hung; clear wipes it before the findings print. Only a terminal
// gets it: piped, the carriage returns would litter a log.
type auditProgress struct {
	w     io.Writer
	mu    sync.Mutex
	stage driver.Stage
	last  time.Time
	shown bool
}

// progressEvery bounds how often the line is redrawn within a stage.
const progressEvery = 100 * time.Millisecond

// show draws p: always at a new stage and at a stage's end, else at most
// every progressEvery.
func (a *auditProgress) show(p driver.Progress) {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := time.Now()
	if a.shown && p.Stage == a.stage && p.Done < p.Total && now.Sub(a.last) < progressEvery {
		return
	}
	a.stage, a.last, a.shown = p.Stage, now, true
	var text string
	switch p.Stage {
	case driver.Listing:
		text = "listing packages"
	case driver.Loading:
		text = fmt.Sprintf("loading packages: %d/%d", p.Done, p.Total)
		if p.Done == 0 {
			// go list compiles the dependencies' export data first, which
			// on a cold build cache is most of a first run.
			text += " (compiling dependencies)"
		}
	case driver.Analysing:
		text = fmt.Sprintf("analysing packages: %d/%d", p.Done, p.Total)
	}
	fmt.Fprintf(a.w, "\r\033[K%s", text)
}

// clear erases the line, if one was drawn, and leaves the cursor at its
// start.
func (a *auditProgress) clear() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.shown {
		fmt.Fprint(a.w, "\r\033[K")
		a.shown = false
	}
}
