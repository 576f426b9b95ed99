package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/startd"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/wire"
)

// siteV1Plugin is a site's file transfer plugin in HTCondor's protocol
// version 1 (manual: "File Transfer Plug-Ins"): asked with -classad it
// names its scheme; run with a URL and a destination it writes the URL's
// host part there.
const siteV1Plugin = `#!/bin/sh
if [ "$1" = "-classad" ]; then
	printf 'PluginType = "FileTransfer"\nPluginVersion = "1.0"\nSupportedMethods = "kitebox"\nStartdAttrs = "KiteboxVersion"\nKiteboxVersion = "1.0"\n'
	exit 0
fi
u=${1#kitebox://}
printf '%s\n' "${u%%/*}" > "$2"
`

// Files named by URL move through the built-in
// plugin (http, https, file) and through a site's plugin (manual: "File
// Transfer Using a URL"); the slots advertise the schemes they serve in
// HasFileTransferPluginMethods, and a failed transfer holds the job with
// HoldReasonCode 13.
func TestFilesByURL(t *testing.T) {
	var mu sync.Mutex
	uploads := map[string]string{}
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut {
			body, _ := io.ReadAll(r.Body)
			mu.Lock()
			uploads[r.URL.Path] = string(body)
			mu.Unlock()
			w.WriteHeader(http.StatusCreated)
			return
		}
		if r.URL.Path != "/data/web.txt" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, "from the web")
	}))
	defer web.Close()
	plugin := filepath.Join(t.TempDir(), "kitebox_plugin")
	if err := os.WriteFile(plugin, []byte(siteV1Plugin), 0o755); err != nil {
		t.Fatal(err)
	}
	pl := newPoolWith(t, 1, func(c *startd.Config) { c.URLTransfers, c.Plugins = true, []string{plugin} }, "a")
	dir := t.TempDir()
	local := filepath.Join(dir, "local.txt")
	if err := os.WriteFile(local, []byte("from a file URL\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := pl.submit(dir, fmt.Sprintf(`executable = /bin/sh
arguments = "-c 'cat web.txt box.txt local.txt'"
transfer_input_files = %s/data/web.txt, kitebox://hello/x/box.txt, file://%s
should_transfer_files = YES
output = out.txt
queue
`, web.URL, local))
	ad := pl.waitStatus(fmt.Sprintf("%d.0", c), attr.Completed)
	if got := str(ad, attr.ExitCode); got != "0" {
		t.Fatalf("ExitCode %s, want 0", got)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "out.txt")); string(b) != "from the web\nhello\nfrom a file URL\n" {
		t.Errorf("out.txt = %q", b)
	}
	if e, _ := ad.Lookup(attr.Requirements); !strings.Contains(classad.String(e), `stringListIMember("kitebox",TARGET.HasFileTransferPluginMethods)`) {
		t.Errorf("Requirements do not ask for the kitebox plugin: %s", classad.String(e))
	}
	slots := 0
	q := wire.Query{Type: "Machine", Projection: []string{attr.HasFileTransferPluginMethods, "KiteboxVersion"}}
	err := pl.p.Client("collector:9618", "alice", auth.Read).Stream(context.Background(), "POST", wire.PathQuery, q, func(item json.RawMessage) error {
		slot, err := classad.ParseJSON(item)
		if err != nil {
			return err
		}
		slots++
		if got := str(slot, attr.HasFileTransferPluginMethods); got != "file,http,https,kitebox" {
			t.Errorf("HasFileTransferPluginMethods = %q", got)
		}
		if got := str(slot, "KiteboxVersion"); got != "1.0" {
			t.Errorf("the plugin's StartdAttrs: KiteboxVersion = %q", got)
		}
		return nil
	})
	if err != nil || slots == 0 {
		t.Fatalf("slot ads: %d, %v", slots, err)
	}

	// Outputs go out by URL too: one file by its remap, every output under
	// output_destination; the rest come back to the submit side.
	c = pl.submit(dir, fmt.Sprintf(`executable = /bin/sh
arguments = "-c 'echo 42 > result.txt; echo kept > kept.txt; echo done'"
should_transfer_files = YES
transfer_output_remaps = "result.txt = %[1]s/up/result.txt"
output = out2.txt
queue
transfer_output_remaps =
output_destination = %[1]s/all
output = out3.txt
queue
`, web.URL))
	pl.waitStatus(fmt.Sprintf("%d.0", c), attr.Completed)
	pl.waitStatus(fmt.Sprintf("%d.1", c), attr.Completed)
	mu.Lock()
	got := fmt.Sprint(uploads)
	mu.Unlock()
	if want := "map[/all/kept.txt:kept\n /all/out3.txt:done\n /all/result.txt:42\n /up/result.txt:42\n]"; got != want {
		t.Errorf("uploads %s, want %s", got, want)
	}
	for file, want := range map[string]string{"out2.txt": "done\n", "kept.txt": "kept\n"} {
		if b, err := os.ReadFile(filepath.Join(dir, file)); string(b) != want {
			t.Errorf("%s = %q, %v; want %q", file, b, err, want)
		}
	}
	for _, file := range []string{"result.txt", "out3.txt"} {
		if _, err := os.Stat(filepath.Join(dir, file)); err == nil {
			t.Errorf("%s came back to the submit side; it went by URL", file)
		}
	}

	// A job brings its own plugin for a scheme no machine serves
	// (transfer_plugins); it is sent with the inputs and run for them.
	if err := os.WriteFile(filepath.Join(dir, "own_plugin.sh"), []byte(strings.ReplaceAll(siteV1Plugin, "kitebox", "ownbox")), 0o755); err != nil {
		t.Fatal(err)
	}
	c = pl.submit(dir, `executable = /bin/cat
arguments = own.txt
transfer_plugins = ownbox = own_plugin.sh
transfer_input_files = ownbox://brought/own.txt
should_transfer_files = YES
output = own.out
queue
`)
	pl.waitStatus(fmt.Sprintf("%d.0", c), attr.Completed)
	if b, _ := os.ReadFile(filepath.Join(dir, "own.out")); string(b) != "brought\n" {
		t.Errorf("own.out = %q, want what the job's own plugin fetched", b)
	}

	c = pl.submit(dir, fmt.Sprintf("executable = /bin/true\ntransfer_input_files = %s/missing.txt\nshould_transfer_files = YES\nqueue\n", web.URL))
	ad = pl.waitStatus(fmt.Sprintf("%d.0", c), attr.Held)
	if code, reason := str(ad, attr.HoldReasonCode), str(ad, attr.HoldReason); code != "13" || !strings.Contains(reason, "404 Not Found") || !strings.Contains(reason, "/missing.txt") {
		t.Errorf("held with code %s, reason %q; want 13 naming the URL and the 404", code, reason)
	}
}
