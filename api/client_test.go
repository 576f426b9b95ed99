package api_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/api"
	"github.com/kite-sched/kite/classad"
)

// A user whose jobs hold slots has an account at the negotiator
// (condor_userprio; HTCondor manual, "User Priorities and Negotiation").
func TestPrioritiesOfARunningUser(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	schedd, err := client.Schedd(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	cluster := submitText(ctx, schedd, "executable = /bin/sleep\narguments = 600\nshould_transfer_files = YES\ntransfer_executable = false\nqueue\n")
	defer schedd.Act(context.Background(), api.Act{Action: api.ActRemove, JobSelection: api.JobSelection{IDs: []string{fmt.Sprint(cluster)}}})
	for {
		users, err := client.Priorities(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range users {
			if strings.HasPrefix(u.User, "alice") {
				if u.Factor <= 0 || u.Effective <= 0 {
					t.Errorf("alice's account: %+v", u)
				}
				return
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("alice has no account yet: %+v", users)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Errors: a bad constraint is the schedd's bad_request; a user may not
// act on another's jobs; a schedd that is not there is unreachable.
func TestErrors(t *testing.T) {
	ctx := context.Background()
	schedd, err := client.Schedd(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	err = schedd.Query(ctx, api.JobQuery{JobSelection: api.JobSelection{Constraint: "1 +"}}, func(*classad.Ad) error { return nil })
	if !api.IsCode(err, api.CodeBadRequest) {
		t.Errorf("bad constraint: %v, want %s", err, api.CodeBadRequest)
	}
	if _, err := client.Schedd(ctx, "nosuch"); err == nil || !strings.Contains(err.Error(), `no schedd named "nosuch"`) {
		t.Errorf("unknown schedd: %v", err)
	}
	if _, err := client.ScheddAt("nowhere:1").Totals(ctx); !errors.Is(err, api.ErrUnreachable) {
		t.Errorf("no schedd there: %v, want ErrUnreachable", err)
	}
	stop := errors.New("enough")
	n := 0
	submitText(ctx, schedd, "executable = /bin/true\nhold = true\nqueue 3\n")
	err = schedd.Query(ctx, api.JobQuery{}, func(*classad.Ad) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("a callback's error stops the stream: %v after %d ads", err, n)
	}
}

// Totals counts the caller's jobs by status.
func TestTotals(t *testing.T) {
	ctx := context.Background()
	schedd, _ := client.Schedd(ctx, "")
	before, err := schedd.Totals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	submitText(ctx, schedd, "executable = /bin/true\nhold = true\nqueue 2\n")
	after, err := schedd.Totals(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.All.Held-before.All.Held != 2 || after.Caller != "alice" {
		t.Errorf("totals before %+v after %+v", before, after)
	}
}

// DefaultConfig finds the pool and token as the kite tools do: the
// configuration of $KITE_CONFIG and its token file, unless $KITE_TOKEN.
func TestDefaultConfig(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "kite.toml")
	if err := os.WriteFile(conf, []byte("[pool]\ncollector = \"cm.example.org:9618\"\ntoken_file = \"my.token\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "my.token"), []byte("tok-from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KITE_CONFIG", conf)
	t.Setenv("KITE_TOKEN", "")
	cfg, err := api.DefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Collector != "cm.example.org:9618" || cfg.Token != "tok-from-file" {
		t.Errorf("from the file: %+v", cfg)
	}
	t.Setenv("KITE_TOKEN", "tok-from-env")
	if cfg, err = api.DefaultConfig(); err != nil || cfg.Token != "tok-from-env" {
		t.Errorf("from the environment: %+v %v", cfg, err)
	}
}
