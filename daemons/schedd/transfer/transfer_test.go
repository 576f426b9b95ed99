package transfer

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/schedd/queue"
)

func viewOf(t *testing.T, src string) queue.View {
	t.Helper()
	ad, err := classad.ParseNew(src)
	if err != nil {
		t.Fatal(err)
	}
	return queue.View{Cluster: ad, Own: classad.NewAd()}
}

// outputPath decides where outputs may go.
func TestOutputNames(t *testing.T) {
	v := viewOf(t, `[ Iwd = "/home/a"; Out = "out.txt"; Err = "/tmp/err.txt" ]`)
	tests := []struct{ file, path, err string }{
		{"out.txt", "/home/a/out.txt", ""},
		{"/tmp/err.txt", "/tmp/err.txt", ""},
		{"new.dat", "/home/a/new.dat", ""},
		{"../x", "", "would leave"},
		{"sub/x", "", "would leave"},
		{"..", "", "would leave"},
		{"/etc/passwd", "", "would leave"},
	}
	for _, tt := range tests {
		got, err := outputPath(&v, tt.file)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: %q %v", tt.file, got, err)
			}
			continue
		}
		if err != nil || got != filepath.FromSlash(tt.path) {
			t.Errorf("%s: %q %v", tt.file, got, err)
		}
	}
	named := viewOf(t, `[ Iwd = "/home/a"; TransferOutput = "a.dat, b.dat" ]`)
	if _, err := outputPath(&named, "c.dat"); err == nil {
		t.Error("a job naming its outputs took another")
	}
}
