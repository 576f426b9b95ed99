package starter

import (
	"os"
	"strings"
	"sync"
	"time"

	"github.com/kite-sched/kite/internal/wire"
	"github.com/kite-sched/kite/internal/xferplugin"
)

// A run's file transfers, counted as HTCondor's starter counts them for
// the job ad's TransferInputStats and TransferOutputStats: by method,
// "Cedar" for the files moved with the schedd (HTCondor's own protocol
// is called so) and the URL scheme upper-cased for those a plugin moved.

// cedar names the files moved with the schedd.
const cedar = "Cedar"

// transferStats counts a run's transfers.
type transferStats struct {
	mu      sync.Mutex
	in, out map[string]wire.TransferCount
}

// add counts one file moved by method, in or out.
func (t *transferStats) add(out bool, method string, bytes int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := &t.in
	if out {
		m = &t.out
	}
	if *m == nil {
		*m = map[string]wire.TransferCount{}
	}
	c := (*m)[method]
	c.Files++
	c.Bytes += bytes
	(*m)[method] = c
}

// urlMethod is the statistics' name of the plugin method of url.
func urlMethod(url string) string { return strings.ToUpper(xferplugin.Scheme(url)) }

// countURLs counts files a plugin moved, by their size in the sandbox.
func (s *Starter) countURLs(out bool, files []xferplugin.File) {
	for _, f := range files {
		if fi, err := os.Lstat(s.box.Path + "/" + f.Name); err == nil {
			s.xfer.add(out, urlMethod(f.URL), fi.Size())
		}
	}
}

// runFacts completes a run's last event with its transfers and, for a
// run whose process began at start and ended at end, its activation
// times from the activation (activated) to now.
func (s *Starter) runFacts(u *wire.JobUpdate, activated, start, end time.Time) {
	s.xfer.mu.Lock()
	if s.xfer.in != nil || s.xfer.out != nil {
		u.Transfers = &wire.RunTransfers{In: s.xfer.in, Out: s.xfer.out}
	}
	s.xfer.mu.Unlock()
	if start.IsZero() {
		return
	}
	if end.IsZero() || end.Before(start) {
		end = s.cfg.Now()
	}
	u.Activation = &wire.ActivationTimes{
		SetupSeconds:     start.Sub(activated).Seconds(),
		ExecutionSeconds: end.Sub(start).Seconds(),
		TeardownSeconds:  s.cfg.Now().Sub(end).Seconds(),
	}
}
