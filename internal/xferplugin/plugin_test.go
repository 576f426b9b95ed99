package xferplugin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
)

// The test binary doubles as a site's plugin: with KITE_TEST_PLUGIN set
// it speaks HTCondor's plugin protocol (manual: "File Transfer Plug-Ins",
// docs/apis/file-transfer-plugins) for kitetest:// URLs, whose path is the
// file's content, or a failure for kitetest://fail/REASON.
func TestMain(m *testing.M) {
	if mode := os.Getenv("KITE_TEST_PLUGIN"); mode != "" {
		os.Exit(testPlugin(mode, os.Args[1:]))
	}
	os.Exit(m.Run())
}

func testPlugin(mode string, args []string) int {
	if len(args) == 1 && args[0] == "-classad" {
		multi := mode == "multi"
		fmt.Printf("PluginType = \"FileTransfer\"\nPluginVersion = \"0.1\"\nMultipleFileSupport = %v\n", multi)
		fmt.Printf("ProtocolVersion = 2\nSupportedMethods = \"kitetest, HTTP\"\nStartdAttrs = \"KiteTestPluginInfo\"\n")
		fmt.Printf("KiteTestPluginInfo = [ Version = \"0.1\" ]\n")
		return 0
	}
	if mode == "single" {
		if len(args) != 2 {
			return 2
		}
		if strings.HasPrefix(args[1], "kitetest://") {
			return sendTestURL(args[0], args[1])
		}
		return writeTestURL(args[0], args[1])
	}
	up := len(args) == 5 && args[4] == "-upload"
	if len(args) != 4 && !up || args[0] != "-infile" || args[2] != "-outfile" {
		return 2
	}
	move := writeTestURL
	if up {
		move = func(url, local string) int { return sendTestURL(local, url) }
	}
	data, err := os.ReadFile(args[1])
	if err != nil {
		return 3
	}
	out, err := os.OpenFile(args[3], os.O_WRONLY, 0) // pre-allocated: not truncated
	if err != nil {
		return 3
	}
	defer out.Close()
	code := 0
	for _, text := range classad.SplitRecords(string(data)) {
		ad, err := classad.ParseNew(text)
		if err != nil {
			return 4
		}
		url, local := classad.EvalStringOr(ad, "Url", ""), classad.EvalStringOr(ad, "LocalFileName", "")
		if move(url, local) == 0 {
			fmt.Fprintf(out, "[ TransferUrl = %q; TransferFileName = %q; TransferSuccess = true ]\n", url, local)
			continue
		}
		code = 1
		fmt.Fprintf(out, "[ TransferUrl = %q; TransferFileName = %q; TransferSuccess = false; TransferError = \"refused [on purpose]\" ]\n", url, local)
	}
	return code
}

func writeTestURL(url, local string) int {
	body, ok := strings.CutPrefix(url, "kitetest://")
	if !ok || strings.HasPrefix(body, "fail/") {
		return 1
	}
	if os.WriteFile(local, []byte(body), 0o644) != nil {
		return 3
	}
	return 0
}

// sendTestURL "uploads" local to kitetest://sink/NAME: it copies it to
// $KITE_TEST_SINK/NAME.
func sendTestURL(local, url string) int {
	name, ok := strings.CutPrefix(url, "kitetest://sink/")
	if !ok {
		return 1
	}
	data, err := os.ReadFile(local)
	if err != nil || os.WriteFile(filepath.Join(os.Getenv("KITE_TEST_SINK"), name), data, 0o644) != nil {
		return 3
	}
	return 0
}

func testBox(t *testing.T, mode string) (Sandbox, *[]string) {
	t.Helper()
	dir := t.TempDir()
	opened := &[]string{}
	return Sandbox{
		Dir: dir,
		Env: append(os.Environ(), "KITE_TEST_PLUGIN="+mode),
		Create: func(name string) (*os.File, error) {
			return os.Create(filepath.Join(dir, name))
		},
		Read:   func(name string) (*os.File, error) { return os.Open(filepath.Join(dir, name)) },
		Remove: func(name string) error { return os.Remove(filepath.Join(dir, name)) },
		Open: func(path string) (*os.File, error) {
			*opened = append(*opened, path)
			return os.Open(path)
		},
		WriteLocal: func(path string) (*os.File, error) {
			*opened = append(*opened, path)
			return os.Create(path)
		},
	}, opened
}

func testPluginSet(t *testing.T, mode string) *Set {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("KITE_TEST_PLUGIN", mode)
	var skipped []error
	s := Load(context.Background(), []string{exe, filepath.Join(t.TempDir(), "missing-plugin")},
		func(_ string, err error) { skipped = append(skipped, err) })
	if len(skipped) != 1 {
		t.Fatalf("skipped %v, want the missing plugin only", skipped)
	}
	return s
}

func TestParseQuery(t *testing.T) {
	for _, tc := range []struct {
		name, ad, err string
		methods       []string
		multi         bool
	}{
		{"multi", "PluginType = \"FileTransfer\"\nMultipleFileSupport = true\nProtocolVersion = 4\nSupportedMethods = \"s3, GS\"\n", "", []string{"s3", "gs"}, true},
		{"single", "PluginType = \"FileTransfer\"\nSupportedMethods = \"box\"\n", "", []string{"box"}, false},
		{"wrong type", "PluginType = \"Credential\"\nSupportedMethods = \"box\"\n", `not "FileTransfer"`, nil, false},
		{"no methods", "PluginType = \"FileTransfer\"\nSupportedMethods = \"\"\n", "names no URL scheme", nil, false},
		{"startd attr missing", "PluginType = \"FileTransfer\"\nSupportedMethods = \"box\"\nStartdAttrs = \"Nope\"\n", "does not set", nil, false},
		{"syntax", "PluginType = = 1\n", "-classad", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := parseQuery("/p", tc.ad)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(p.Methods, tc.methods) || p.Multi != tc.multi {
				t.Fatalf("got methods %v multi %v", p.Methods, p.Multi)
			}
		})
	}
}

// A configured plugin overrides the built-in one for the schemes they
// share (HTCondor: for a shared scheme, the later plugin in
// FILETRANSFER_PLUGINS wins); its StartdAttrs reach the slot ads.
func TestSetOrderAndAttributes(t *testing.T) {
	s := testPluginSet(t, "multi")
	if got := s.Methods(); !slices.Equal(got, []string{"file", "http", "https", "kitetest"}) {
		t.Fatalf("methods %v", got)
	}
	for url, want := range map[string]string{"HTTP://x/y": "plugin", "https://x/y": Builtin, "file:///a": Builtin} {
		p, err := s.For(url)
		if err != nil {
			t.Fatal(err)
		}
		if (p.Path == Builtin) != (want == Builtin) {
			t.Errorf("%s served by %s", url, p.Path)
		}
	}
	if _, err := s.For("s3://bucket/x"); err == nil || !strings.Contains(err.Error(), "no file transfer plugin on this machine serves s3://") {
		t.Fatalf("s3: %v", err)
	}
	attrs := s.Attrs()
	if len(attrs) != 1 || attrs[0].Name != "KiteTestPluginInfo" || !strings.Contains(classad.String(attrs[0].Expr), `"0.1"`) {
		t.Fatalf("attrs %v", attrs)
	}
}

func TestFetchThroughAPlugin(t *testing.T) {
	for _, mode := range []string{"multi", "single"} {
		t.Run(mode, func(t *testing.T) {
			s := testPluginSet(t, mode)
			box, _ := testBox(t, mode)
			err := s.Fetch(context.Background(), []File{{"kitetest://alpha", "a.txt"}, {"kitetest://beta", "b.txt"}}, box)
			if err != nil {
				t.Fatal(err)
			}
			for name, want := range map[string]string{"a.txt": "alpha", "b.txt": "beta"} {
				if got, _ := os.ReadFile(filepath.Join(box.Dir, name)); string(got) != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			entries, _ := os.ReadDir(box.Dir)
			if len(entries) != 2 {
				t.Errorf("the sandbox holds %d files, want the two fetched (the plugin's work files removed)", len(entries))
			}
		})
	}
}

// Output files go out through the same plugins, run with -upload
// (version 2) or with the local file first (version 1).
func TestSendThroughAPlugin(t *testing.T) {
	for _, mode := range []string{"multi", "single"} {
		t.Run(mode, func(t *testing.T) {
			s := testPluginSet(t, mode)
			box, _ := testBox(t, mode)
			sink := t.TempDir()
			box.Env = append(box.Env, "KITE_TEST_SINK="+sink)
			if err := os.WriteFile(filepath.Join(box.Dir, "result.txt"), []byte("42"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := s.Send(context.Background(), []File{{"kitetest://sink/r.txt", "result.txt"}}, box); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(filepath.Join(sink, "r.txt")); string(got) != "42" {
				t.Errorf("uploaded %q, want 42", got)
			}
			err := s.Send(context.Background(), []File{{"kitetest://elsewhere/r.txt", "result.txt"}}, box)
			if e := (*Error)(nil); !errors.As(err, &e) || e.Code != 1 {
				t.Errorf("a refused upload: %v", err)
			}
		})
	}
}

// A failed transfer names its URL, the plugin's message and its exit
// status (HTCondor's HoldReasonSubCode).
func TestFetchFailureIsReported(t *testing.T) {
	for _, tc := range []struct{ mode, msg string }{
		{"multi", "refused [on purpose]"},
		{"single", "exit status 1"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			s := testPluginSet(t, tc.mode)
			box, _ := testBox(t, tc.mode)
			err := s.Fetch(context.Background(), []File{{"kitetest://ok", "ok"}, {"kitetest://fail/x", "x"}}, box)
			var e *Error
			if !errors.As(err, &e) || e.URL != "kitetest://fail/x" || e.Code != 1 || !strings.Contains(e.Msg, tc.msg) {
				t.Fatalf("err = %#v, want kitetest://fail/x with exit status 1 and %q", err, tc.msg)
			}
		})
	}
}

func TestBuiltinHTTPAndFile(t *testing.T) {
	put := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut {
			body, _ := io.ReadAll(r.Body)
			put <- r.URL.Path + " " + string(body)
			w.WriteHeader(http.StatusCreated)
			return
		}
		if r.URL.Path != "/data.txt" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, "served over http")
	}))
	defer srv.Close()
	local := filepath.Join(t.TempDir(), "local.txt")
	if err := os.WriteFile(local, []byte("read as the job's user"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := NewSet()
	box, opened := testBox(t, "none")
	files := []File{{srv.URL + "/data.txt", "data.txt"}, {"file://" + local, "local.txt"}}
	if err := s.Fetch(context.Background(), files, box); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"data.txt": "served over http", "local.txt": "read as the job's user"} {
		if got, _ := os.ReadFile(filepath.Join(box.Dir, name)); string(got) != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if !slices.Equal(*opened, []string{local}) {
		t.Errorf("file URLs opened through the sandbox's Open (as the job's user): %v", *opened)
	}
	if err := os.WriteFile(filepath.Join(box.Dir, "out.txt"), []byte("result"), 0o644); err != nil {
		t.Fatal(err)
	}
	copied := filepath.Join(t.TempDir(), "copied.txt")
	if err := s.Send(context.Background(), []File{{srv.URL + "/put/out.txt", "out.txt"}, {"file://" + copied, "out.txt"}}, box); err != nil {
		t.Fatal(err)
	}
	if got := <-put; got != "/put/out.txt result" {
		t.Errorf("the server got %q", got)
	}
	if got, _ := os.ReadFile(copied); string(got) != "result" || !slices.Contains(*opened, copied) {
		t.Errorf("file URL upload: %q, written through WriteLocal: %v", got, *opened)
	}
	for url, want := range map[string]string{
		srv.URL + "/missing":          "404 Not Found",
		"file://elsewhere/etc/passwd": "only local files",
		"file://":                     "absolute path",
	} {
		if err := s.Fetch(context.Background(), []File{{url, "x"}}, box); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", url, err, want)
		}
	}
}
