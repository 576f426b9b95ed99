package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/kite-sched/kite/internal/attr"
)

// DAG files written by programs run unchanged (issue 18's "DAG files
// written by programs"): testdata/generated holds a DAG as HTCondor's
// Python htcondor.dags library writes it and one as Pegasus's HTCondor
// code generator does, each with its submit files and, last, the nodes
// whose jobs must run once each. $DIR in them is the test's directory.
func TestDAGGeneratedFiles(t *testing.T) {
	files, err := filepath.Glob("testdata/generated/*.txtar")
	if err != nil || len(files) == 0 {
		t.Fatalf("no generated DAGs: %v", err)
	}
	// The DAGs' directories are made before the pool, so that they are
	// removed after it stops: its schedd may append to a DAG's logs
	// after the DAG is seen finished.
	base := t.TempDir()
	pl := newPool(t, 2, "a")
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			dir, nodes := writeGenerated(t, ar, filepath.Join(base, name))
			ad, _ := pl.waitDAG(pl.submitDAG(dir, ar.Files[0].Name, ""))
			if intAttr(t, ad, attr.ExitCode) != 0 || intAttr(t, ad, attr.DAGNodesFailed) != 0 {
				t.Errorf("the DAG: %v", ad)
			}
			got := ran(t, dir)
			slices.Sort(got)
			slices.Sort(nodes)
			if !slices.Equal(got, nodes) {
				t.Errorf("node jobs run %q, want each of %q once", got, nodes)
			}
		})
	}
}

// writeGenerated writes an archive's files in the DAG directory dir ($DIR
// replaced), and a copy of job.sub for each node whose submit file
// NODE.sub the archive lacks (Pegasus writes one per job). It returns the
// directory and the nodes of the archive's last section.
func writeGenerated(t *testing.T, ar *txtar.Archive, dir string) (string, []string) {
	t.Helper()
	dir = dagDirIn(t, dir, map[string]string{"script.sh": "#!/bin/sh\nexit 0\n"}) // the PRE and POST scripts
	nodes := strings.Fields(string(ar.Files[len(ar.Files)-1].Data))
	have := map[string]bool{}
	for _, f := range ar.Files[:len(ar.Files)-1] {
		have[f.Name] = true
		text := strings.ReplaceAll(string(f.Data), "$DIR", dir)
		if err := os.WriteFile(filepath.Join(dir, f.Name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	job, err := os.ReadFile(filepath.Join(dir, "job.sub"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		if sub := n + ".sub"; !have[sub] && strings.Contains(string(ar.Files[0].Data), " "+sub) {
			if err := os.WriteFile(filepath.Join(dir, sub), job, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir, nodes
}
