package api_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kite-sched/kite/api"
	"github.com/kite-sched/kite/classad"
)

// submitText submits a description from workDir and returns its cluster.
func submitText(ctx context.Context, s *api.Schedd, text string) int64 {
	sd, _, err := api.ParseSubmit("job.sub", []byte(text), api.SubmitOptions{Dir: workDir})
	if err != nil {
		panic(err)
	}
	res, _, err := s.Submit(ctx, sd)
	if err != nil {
		panic(err)
	}
	return res.Cluster
}

// Submit a submit description, as kite submit (condor_submit) does.
func ExampleSchedd_Submit() {
	ctx := context.Background()
	schedd, err := client.Schedd(ctx, "") // the pool's only schedd
	if err != nil {
		fmt.Println(err)
		return
	}
	sd, warnings, err := api.ParseSubmit("sweep.sub", []byte(`
executable = /bin/echo
arguments  = $(Item)
hold       = true
queue Item in (red, green, blue)
`), api.SubmitOptions{Dir: workDir})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, _, err := schedd.Submit(ctx, sd)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(warnings), "warnings;", res.Procs, "jobs queued")
	// Output: 0 warnings; 3 jobs queued
}

// A syntax error names the file, line and column.
func ExampleParseSubmit_error() {
	_, _, err := api.ParseSubmit("bad.sub", []byte("executable = /bin/true\nqueue 3 in (a, b\n"), api.SubmitOptions{})
	fmt.Println(err != nil && strings.HasPrefix(err.Error(), "bad.sub:2:"))
	// Output: true
}

// Query the queue with a constraint and a projection: only the
// attributes asked for come back, one ad at a time.
func ExampleSchedd_Query() {
	ctx := context.Background()
	schedd, _ := client.Schedd(ctx, "")
	cluster := submitText(ctx, schedd, "executable = /bin/true\nhold = true\n+Color = \"$(Item)\"\nqueue Item in (red, green)\n")
	q := api.JobQuery{
		JobSelection: api.JobSelection{Constraint: fmt.Sprintf("ClusterId == %d && Color != \"red\"", cluster)},
		Projection:   []string{"ProcId", "Color", "JobStatus"},
	}
	err := schedd.Query(ctx, q, func(ad *classad.Ad) error {
		fmt.Println(classad.Unparse(ad))
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output: [ ProcId = 1; Color = "green"; JobStatus = 5 ]
}

// Hold, release and remove jobs: condor_hold, condor_release, condor_rm.
func ExampleSchedd_Act() {
	ctx := context.Background()
	schedd, _ := client.Schedd(ctx, "")
	cluster := submitText(ctx, schedd, "executable = /bin/true\nhold = true\nqueue 2\n")
	jobs := api.JobSelection{IDs: []string{fmt.Sprint(cluster)}}
	for _, action := range []string{api.ActRelease, api.ActHold, api.ActRemove} {
		res, err := schedd.Act(ctx, api.Act{Action: action, JobSelection: jobs, Reason: "example"})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %d matched, %d changed\n", action, res.Matched, res.Changed)
	}
	// Output:
	// release: 2 matched, 2 changed
	// hold: 2 matched, 2 changed
	// remove: 2 matched, 2 changed
}

// Set an attribute of jobs, as condor_qedit does: the value is a ClassAd
// expression.
func ExampleSchedd_Edit() {
	ctx := context.Background()
	schedd, _ := client.Schedd(ctx, "")
	cluster := submitText(ctx, schedd, "executable = /bin/true\nhold = true\nqueue 1\n")
	id := fmt.Sprintf("%d.0", cluster)
	res, err := schedd.Edit(ctx, api.Edit{JobSelection: api.JobSelection{IDs: []string{id}}, Attrs: map[string]string{"Color": `"blue"`}})
	if err != nil {
		fmt.Println(err)
		return
	}
	ads, _ := schedd.QueryAll(ctx, api.JobQuery{JobSelection: api.JobSelection{IDs: []string{id}}, Projection: []string{"Color"}})
	fmt.Println(res.Changed, classad.Unparse(ads[0]))
	// Output: 1 [ Color = "blue" ]
}

// Jobs that left the queue are in the schedd's history.
func ExampleSchedd_History() {
	ctx := context.Background()
	schedd, _ := client.Schedd(ctx, "")
	cluster := submitText(ctx, schedd, "executable = /bin/true\nhold = true\nqueue 1\n")
	jobs := api.JobSelection{IDs: []string{fmt.Sprint(cluster)}}
	if _, err := schedd.Act(ctx, api.Act{Action: api.ActRemove, JobSelection: jobs}); err != nil {
		fmt.Println(err)
		return
	}
	q := api.HistoryQuery{IDs: jobs.IDs, Projection: []string{"JobStatus", "ProcId"}}
	err := schedd.History(ctx, q, func(ad *classad.Ad) error {
		fmt.Println(classad.Unparse(ad))
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	// Output: [ JobStatus = 3; ProcId = 0 ]
}

// Query the collector for the pool's slots.
func ExampleCollector_Query() {
	ctx := context.Background()
	q := api.AdQuery{Type: api.AdSlot, Constraint: `Machine == "exec1"`, Projection: []string{"Name", "Cpus"}}
	ads, err := client.Collector().QueryAll(ctx, q)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, ad := range ads {
		fmt.Println(classad.Unparse(ad))
	}
	// Unordered output:
	// [ Name = "slot1@exec1"; Cpus = 1 ]
	// [ Name = "slot2@exec1"; Cpus = 1 ]
}

// Locate a daemon: its ad says where it listens.
func ExampleCollector_Locate() {
	ad, err := client.Collector().Locate(context.Background(), api.AdScheduler, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	addr, _ := classad.EvalString(ad, "MyAddress")
	fmt.Println(addr)
	// Output: schedd:1
}

// Watch a job's events in its job event log until it terminates.
func ExampleWatchJob() {
	ctx := context.Background()
	schedd, _ := client.Schedd(ctx, "")
	log := filepath.Join(workDir, "watch.log")
	cluster := submitText(ctx, schedd, fmt.Sprintf(`
executable            = /bin/sh
arguments             = "-c 'exit 3'"
log                   = %s
should_transfer_files = YES
transfer_executable   = false
queue
`, log))
	err := api.WatchJob(ctx, log, fmt.Sprintf("%d.0", cluster), func(ev api.Event) error {
		if ev.Code == api.EventTerminated {
			fmt.Println(ev.Code, "exit code", ev.ReturnCode)
			return nil
		}
		fmt.Println(ev.Code)
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	os.Remove(log)
	// Output:
	// Submit
	// Execute
	// JobTerminated exit code 3
}

// Submit jobs as ads, without a submit description: the cluster's ad and
// each job's own attributes.
func ExampleSchedd_SubmitAds() {
	ctx := context.Background()
	schedd, _ := client.Schedd(ctx, "")
	cluster, err := classad.Parse(`[Cmd = "/bin/echo"; JobStatus = 5; Iwd = "/tmp"; Color = "red"]`)
	if err != nil {
		fmt.Println(err)
		return
	}
	var procs []*classad.Ad
	for _, args := range []string{"one", "two"} {
		p, _ := classad.Parse(fmt.Sprintf("[Args = %q]", args))
		procs = append(procs, p)
	}
	res, err := schedd.SubmitAds(ctx, cluster, procs)
	if err != nil {
		fmt.Println(err)
		return
	}
	q := api.JobQuery{JobSelection: api.JobSelection{IDs: []string{fmt.Sprint(res.Cluster)}}, Projection: []string{"ProcId", "Args", "Color", "Owner"}}
	ads, _ := schedd.QueryAll(ctx, q)
	for _, ad := range ads {
		fmt.Println(classad.Unparse(ad))
	}
	// Output:
	// [ ProcId = 0; Args = "one"; Color = "red"; Owner = "alice" ]
	// [ ProcId = 1; Args = "two"; Color = "red"; Owner = "alice" ]
}
