package e2e

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/kite-sched/kite/internal/attr"
)

// A completed job's ad, attribute by attribute, against the HTCondor
// manual's list ("Job ClassAd Attributes", job-classad-attributes.rst):
// testdata/job_attributes.txt names every attribute of that list that a
// completed vanilla job with file transfer carries under HTCondor and
// for which Kite has the fact; each must be in the ad Kite keeps. The
// file's comments name the attributes of the list left out and why, so a
// name dropped from the ad, or from the file without a reason, fails.
func TestCompletedJobAdHasTheManualsAttributes(t *testing.T) {
	want, omitted := manualAttributes(t, "testdata/job_attributes.txt")
	pl := newPool(t, 1, "a")
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/in.txt", []byte("in\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := pl.submit(dir, `executable = /bin/echo
arguments = hello
input = in.txt
output = out.txt
error = err.txt
log = job.log
should_transfer_files = YES
transfer_input_files = in.txt
job_machine_attrs = Machine
queue
`)
	ad := pl.waitStatus(fmt.Sprintf("%d.0", c), attr.Completed)
	var missing []string
	for _, name := range want {
		if _, ok := ad.Lookup(name); !ok {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		t.Errorf("the completed job's ad lacks %d of the manual's attributes: %s\nad:\n%v", len(missing), strings.Join(missing, " "), ad)
	}
	for _, name := range omitted {
		if slices.Contains(want, name) {
			t.Errorf("%s is both wanted and omitted", name)
		}
	}
	if len(want) < 80 {
		t.Errorf("only %d attributes wanted; the list was cut", len(want))
	}
}

// manualAttributes reads the list: one name per line; "- NAME: why" lines
// name the manual's attributes left out; # starts a comment.
func manualAttributes(t *testing.T, path string) (want, omitted []string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "- "):
			name, why, ok := strings.Cut(strings.TrimPrefix(line, "- "), ":")
			if !ok || strings.TrimSpace(why) == "" {
				t.Fatalf("%s: %q: an omitted attribute needs its reason", path, line)
			}
			omitted = append(omitted, strings.TrimSpace(name))
		default:
			want = append(want, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return want, omitted
}
