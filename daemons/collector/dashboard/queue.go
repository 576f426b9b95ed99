package dashboard

import (
	"fmt"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/wire"
)

// QueueAttrs are the job attributes the queue page shows; the collector
// asks schedds for these alone.
var QueueAttrs = []string{
	attr.ClusterID, attr.ProcID, attr.Owner, attr.JobStatus, attr.QDate, attr.Cmd, attr.Args, attr.Arguments,
	attr.JobBatchName, attr.RemoteHost, attr.RequestCpus, attr.RequestMemory, attr.HoldReason,
	attr.JobCurrentStartDate, attr.EnteredCurrentStatus, attr.ImageSize,
}

// Job is one row of the queue page.
type Job struct {
	ID         string  `json:"id"` // cluster.proc
	Owner      string  `json:"owner"`
	Status     int     `json:"status"`
	St         string  `json:"st"` // condor_q's letter
	Submitted  int64   `json:"submitted"`
	Since      int64   `json:"since"` // entered its status
	Cmd        string  `json:"cmd"`
	Args       string  `json:"args,omitempty"`
	Batch      string  `json:"batch,omitempty"`
	Host       string  `json:"host,omitempty"` // where it runs
	Cpus       float64 `json:"cpus"`
	MemoryMiB  float64 `json:"memory_mib"`
	Size       float64 `json:"size,omitempty"`
	HoldReason string  `json:"hold_reason,omitempty"`
}

// JobRow reads a queue row from a job ad.
func JobRow(ad *classad.Ad) Job {
	status := int(num(ad, attr.JobStatus))
	args := str(ad, attr.Arguments)
	if args == "" {
		args = str(ad, attr.Args)
	}
	return Job{
		ID:    fmt.Sprintf("%d.%d", int64(num(ad, attr.ClusterID)), int64(num(ad, attr.ProcID))),
		Owner: str(ad, attr.Owner), Status: status, St: attr.StatusLetter(int64(status)),
		Submitted: int64(num(ad, attr.QDate)), Since: int64(num(ad, attr.EnteredCurrentStatus)),
		Cmd: str(ad, attr.Cmd), Args: args, Batch: str(ad, attr.JobBatchName), Host: str(ad, attr.RemoteHost),
		Cpus: num(ad, attr.RequestCpus), MemoryMiB: num(ad, attr.RequestMemory), Size: num(ad, attr.ImageSize),
		HoldReason: str(ad, attr.HoldReason),
	}
}

// Queue is one schedd's part of the queue page.
type Queue struct {
	Schedd string `json:"schedd"`
	Addr   string `json:"addr"`
	// Totals counts the schedd's jobs by status (nil if it did not answer).
	Totals *wire.StatusCounts `json:"totals,omitempty"`
	Jobs   []Job              `json:"jobs"`
	// Truncated says that the schedd has more jobs than the page asked for.
	Truncated bool   `json:"truncated,omitempty"`
	Error     string `json:"error,omitempty"`
}

// Queues is the queue page: every schedd's queue.
type Queues struct {
	Schedds []Queue `json:"schedds"`
	Limit   int     `json:"limit"`
}
