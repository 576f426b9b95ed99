package startd

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/kite-sched/kite/internal/wire"
)

// The log of results on their way gives back, after a restart, exactly
// the results kept and not forgotten: a line a kill cut short is ignored,
// and a log grown with forgotten results is written anew, smaller.
func TestResultLog(t *testing.T) {
	dir := t.TempDir()
	l, left, err := openResults(dir)
	if err != nil || len(left) != 0 {
		t.Fatalf("a new log: %v %v", left, err)
	}
	r := func(claim, job string) result {
		return result{Schedd: "schedd:1", Update: wire.JobUpdate{ClaimID: claim, Job: job, Event: wire.EventExited, ExitCode: 3}}
	}
	for _, x := range []result{r("c1", "1.0"), r("c2", "2.0"), r("c1", "1.1")} {
		if err := l.keep(x); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.forget("c1", "1.0"); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(filepath.Join(dir, resultsFile), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"keep":{"schedd":"schedd:1","update":{"claim_id":"c3"`) // killed mid-write
	f.Close()

	_, left, err = openResults(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range left {
		got = append(got, x.Update.ClaimID+"/"+x.Update.Job)
		if x != r(x.Update.ClaimID, x.Update.Job) {
			t.Errorf("result read back as %+v", x)
		}
	}
	if strings.Join(sorted(got), " ") != "c1/1.1 c2/2.0" {
		t.Errorf("results left: %v, want c1/1.1 and c2/2.0", got)
	}

	l, _, _ = openResults(dir)
	written := int64(0)
	for i := 0; written < 3*compactAt; i++ {
		id := strings.Repeat("x", 200) + strconv.Itoa(i)
		before := l.size
		l.keep(r("c9", id))
		l.forget("c9", id)
		written += max(l.size-before, 0)
		if l.size > compactAt {
			t.Fatalf("the log grew to %d bytes without being written anew", l.size)
		}
	}
	if _, left, _ := openResults(dir); len(left) != 2 {
		t.Errorf("after compaction %d results are left, want 2", len(left))
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}
