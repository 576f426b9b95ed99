package chaos

import (
	"strings"
	"testing"
	"time"
)

// TestCheck feeds the checker the submits, jobs and run records of small
// runs, each breaking one promise, and checks it names the violation and
// counts it in the right figure.
func TestCheck(t *testing.T) {
	// Cluster 1 (tag a, 2 jobs) and cluster 2 (tag b, 1 job) were
	// acknowledged; submit c failed. Job 1.0 ran twice: its first run was
	// killed (a start with no end), which is allowed.
	submits := []Submit{
		{Tag: "a", Procs: 2, Acked: true, Cluster: 1},
		{Tag: "b", Procs: 1, Acked: true, Cluster: 2},
		{Tag: "c", Procs: 2, Err: "kite submit: exit status 1"},
	}
	jobs := []Job{
		{Cluster: 1, Proc: 0, Status: 4, Tag: "a", Completion: 1000, History: true},
		{Cluster: 1, Proc: 1, Status: 4, Tag: "a", Completion: 1000, History: true},
		{Cluster: 2, Proc: 0, Status: 4, Tag: "b", Completion: 1001, History: true},
	}
	records := "start 1.0 10 998000000000\n" +
		"start 1.0 11 998500000000\n" +
		"start 1.1 12 998600000000\n" +
		"end 1.0 11 999500000000\n" +
		"end 1.1 12 999600000000\n" +
		"start 2.0 13 999700000000\n" +
		"end 2.0 13 1000700000000\n"
	landed := []Job{
		{Cluster: 3, Proc: 0, Status: 4, Tag: "c", Completion: 1002, History: true},
		{Cluster: 3, Proc: 1, Status: 4, Tag: "c", Completion: 1002, History: true},
	}
	landedRecords := "start 3.0 20 1000000000000\nend 3.0 20 1001000000000\nstart 3.1 21 1000000000000\nend 3.1 21 1001000000000\n"

	tests := []struct {
		name    string
		jobs    []Job
		records string
		figure  func(*Report) int
		want    string // in the one violation; "" for none
	}{
		{name: "clean run", jobs: jobs, records: records},
		{name: "a failed submit that landed whole", jobs: append(jobs[:3:3], landed...), records: records + landedRecords,
			figure: func(r *Report) int { return r.FailedLanded - 1 }},
		{name: "lost: not in the history", jobs: jobs[:2], records: records[:strings.Index(records, "start 2.0")],
			figure: func(r *Report) int { return r.Lost }, want: "acknowledged job 2.0 (submit b) is in neither the queue nor the history"},
		{name: "lost: completed in the history with no completed run", jobs: jobs, records: strings.Replace(records, "end 2.0 13 1000700000000\n", "", 1),
			figure: func(r *Report) int { return r.Lost }, want: "job 2.0 (tag b) is completed in the history but no run of it completed"},
		{name: "lost: still idle", jobs: []Job{jobs[0], jobs[1], {Cluster: 2, Proc: 0, Status: 1, Tag: "b"}}, records: records,
			figure: func(r *Report) int { return r.Lost }, want: "job 2.0 (tag b) did not complete: JobStatus 1, in the queue"},
		{name: "duplicated: ran again after completing", jobs: jobs, records: records + "start 2.0 14 1001000000000\nend 2.0 14 1001500000000\n",
			figure: func(r *Report) int { return r.Duplicated }, want: "job 2.0 started again (run records line 8) after a run of it completed (line 7), with no kill of the startd in between; 2 run(s) completed; kills around: schedd 00:16:37.000, startd 00:16:40.000"},
		{name: "rerun after a whole-pool kill lost the outcome", jobs: []Job{jobs[0], jobs[1], {Cluster: 2, Proc: 0, Status: 4, Tag: "b", Completion: 1007, History: true}},
			records: records + "start 2.0 14 1006000000000\nend 2.0 14 1006500000000\n",
			figure:  func(r *Report) int { return r.RerunAfterCrash - 1 }},
		{name: "rerun: the job ended while a whole-pool kill landed", jobs: []Job{jobs[0], jobs[1], {Cluster: 2, Proc: 0, Status: 4, Tag: "b", Completion: 1007, History: true}},
			records: strings.Replace(records, "start 2.0 13 999700000000\nend 2.0 13 1000700000000", "start 2.0 13 1004000000000\nend 2.0 13 1005100000000", 1) + "start 2.0 14 1006000000000\nend 2.0 14 1006500000000\n",
			figure:  func(r *Report) int { return r.RerunAfterCrash - 1 }},
		{name: "duplicated: a startd kill lost the outcome", jobs: []Job{jobs[0], jobs[1], {Cluster: 2, Proc: 0, Status: 4, Tag: "b", Completion: 1007, History: true}},
			records: strings.Replace(records, "end 2.0 13 1000700000000", "end 2.0 13 999750000000", 1) + "start 2.0 14 1006000000000\nend 2.0 14 1006500000000\n",
			figure:  func(r *Report) int { return r.Duplicated },
			want:    "job 2.0 started again (run records line 8) after a run of it completed (line 7): the startd kill at 00:16:40.000 lost the outcome; 2 run(s) completed; kills around: schedd 00:16:37.000, startd 00:16:40.000, pool 00:16:45.000"},
		{name: "rerun: the startd died before it could see the job's exit", jobs: []Job{jobs[0], jobs[1], {Cluster: 2, Proc: 0, Status: 4, Tag: "b", Completion: 1007, History: true}},
			records: strings.Replace(records, "end 2.0 13 1000700000000", "end 2.0 13 999950000000", 1) + "start 2.0 14 1006000000000\nend 2.0 14 1006500000000\n",
			figure:  func(r *Report) int { return r.RerunUnseenExit - 1 }},
		{name: "duplicated: twice in the history", jobs: append(jobs[:3:3], jobs[2]), records: records,
			figure: func(r *Report) int { return r.Duplicated }, want: "job 2.0 is in the history twice"},
		{name: "concurrent: a run found the job's lock taken", jobs: jobs, records: records + "overlap 1.1 15 999000000000\n",
			figure: func(r *Report) int { return r.Concurrent }, want: "job 1.1 ran twice at the same time (1 overlapping run(s))"},
		{name: "started after the schedd recorded the completion", jobs: jobs,
			records: strings.Replace(records, "start 2.0 13 999700000000\nend 2.0 13 1000700000000\n", "start 2.0 16 1002000000000\nend 2.0 16 1003000000000\n", 1),
			figure:  func(r *Report) int { return r.AfterCompletion }, want: "job 2.0 started at 00:16:42.000, after the schedd recorded its completion at 00:16:41"},
		{name: "unacknowledged: a tag no submit used", jobs: append(jobs[:3:3], Job{Cluster: 9, Proc: 0, Status: 4, Tag: "zz", Completion: 1000, History: true}),
			records: records + "start 9.0 17 999000000000\nend 9.0 17 999500000000\n",
			figure:  func(r *Report) int { return r.Unacknowledged }, want: `job 9.0 has tag "zz", which no submit used`},
		{name: "unacknowledged: an acknowledged tag in another cluster", jobs: append(jobs[:3:3], Job{Cluster: 7, Proc: 0, Status: 4, Tag: "b", Completion: 1000, History: true}),
			records: records + "start 7.0 18 999000000000\nend 7.0 18 999500000000\n",
			figure:  func(r *Report) int { return r.Unacknowledged }, want: `job 7.0 has tag "b", acknowledged as cluster 2`},
		{name: "unacknowledged: a failed submit landed in part", jobs: append(jobs[:3:3], landed[0]), records: records + landedRecords[:strings.Index(landedRecords, "start 3.1")],
			figure: func(r *Report) int { return r.Unacknowledged }, want: "failed submit c (2 job(s), kite submit: exit status 1) landed in part: 1 job(s) in 1 cluster(s)"},
		{name: "unacknowledged: a run of a job nobody has", jobs: jobs, records: records + "start 8.0 19 999000000000\n",
			figure: func(r *Report) int { return r.Unacknowledged }, want: "job 8.0 ran (1 start(s)) but is in neither the queue nor the history"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Kills at 990 s (long before), 997 s (a schedd down when 2.0
			// ended), 1000 s and 1005 s (after its rerun).
			r := &Report{KillLog: []Kill{{time.Unix(990, 0), "master"}, {time.Unix(997, 0), "schedd"}, {time.Unix(1000, 0), "startd"}, {time.Unix(1005, 0), "pool"}}}
			if err := Check(r, submits, tt.jobs, strings.NewReader(tt.records)); err != nil {
				t.Fatal(err)
			}
			if tt.want == "" {
				if !r.OK() {
					t.Fatalf("violations in a clean run:\n%s", r)
				}
			} else if len(r.Problems) != 1 || r.Problems[0] != tt.want {
				t.Fatalf("violations %q, want exactly %q", r.Problems, tt.want)
			}
			if tt.figure != nil && tt.figure(r) != 1 && tt.want != "" {
				t.Errorf("the figure for this violation is %d, want 1:\n%s", tt.figure(r), r)
			}
			if tt.figure != nil && tt.want == "" && tt.figure(r) != 0 {
				t.Errorf("figure off by %d:\n%s", tt.figure(r), r)
			}
		})
	}
}

// TestCheckFigures checks the counts of a clean run.
func TestCheckFigures(t *testing.T) {
	submits := []Submit{{Tag: "a", Procs: 2, Acked: true, Cluster: 1}, {Tag: "b", Procs: 3, Err: "refused"}}
	jobs := []Job{{Cluster: 1, Proc: 0, Status: 4, Tag: "a", Completion: 5, History: true}, {Cluster: 1, Proc: 1, Status: 4, Tag: "a", Completion: 5, History: true}}
	records := "start 1.0 1 1000000000\nstart 1.1 2 1000000000\nend 1.1 2 2000000000\nstart 1.0 3 3000000000\nend 1.0 3 4000000000\n"
	r := &Report{}
	if err := Check(r, submits, jobs, strings.NewReader(records)); err != nil {
		t.Fatal(err)
	}
	got := [...]int{r.Submits, r.Acked, r.Failed, r.FailedLanded, r.JobsAcked, r.Completed, r.Runs, r.Lost}
	if want := [...]int{2, 1, 1, 0, 2, 2, 3, 0}; got != want || !r.OK() {
		t.Errorf("submits, acked, failed, landed, jobs, completed, runs, lost = %v, want %v\n%s", got, want, r)
	}
}

// TestParseErrors checks that malformed records and job lines are refused
// with the line and what was wrong.
func TestParseErrors(t *testing.T) {
	r := &Report{}
	err := Check(r, nil, nil, strings.NewReader("start 1.0 1 5\nbegin 1.0 1 5\n"))
	if err == nil || !strings.Contains(err.Error(), `run records line 2: want "start|end|overlap ID PID NANOS", got "begin 1.0 1 5"`) {
		t.Errorf("Check: %v", err)
	}
	if _, err := ParseJobs("1 0 4 a 5\n1 x 4 a 5\n", true); err == nil || !strings.Contains(err.Error(), "line 2: want numbers") {
		t.Errorf("ParseJobs: %v", err)
	}
	jobs, err := ParseJobs("1 0 2 a undefined\n", false)
	if err != nil || len(jobs) != 1 || jobs[0].Completion != 0 || jobs[0].Status != 2 {
		t.Errorf("ParseJobs = %+v, %v", jobs, err)
	}
}
