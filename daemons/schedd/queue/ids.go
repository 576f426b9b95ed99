package queue

import (
	"fmt"
	"strconv"
	"strings"
)

// JobID names a job: its cluster and its proc within the cluster.
type JobID struct {
	Cluster int64
	Proc    int64
}

// String returns the id as HTCondor writes it: "12.3".
func (id JobID) String() string {
	return strconv.FormatInt(id.Cluster, 10) + "." + strconv.FormatInt(id.Proc, 10)
}

// Less orders ids by cluster, then proc.
func (id JobID) Less(o JobID) bool {
	return id.Cluster < o.Cluster || id.Cluster == o.Cluster && id.Proc < o.Proc
}

// Selector is a job id argument of the tools: "12" names a whole cluster,
// "12.3" one job.
type Selector struct {
	Cluster int64
	Proc    int64 // -1: every proc of the cluster
}

// ParseSelector reads "C" or "C.P".
func ParseSelector(s string) (Selector, error) {
	c, p, hasProc := strings.Cut(s, ".")
	cluster, err := strconv.ParseInt(c, 10, 64)
	if err != nil || cluster < 1 {
		return Selector{}, fmt.Errorf("%q is not a job id (cluster or cluster.proc)", s)
	}
	if !hasProc {
		return Selector{Cluster: cluster, Proc: -1}, nil
	}
	proc, err := strconv.ParseInt(p, 10, 64)
	if err != nil || proc < 0 {
		return Selector{}, fmt.Errorf("%q is not a job id (cluster or cluster.proc)", s)
	}
	return Selector{Cluster: cluster, Proc: proc}, nil
}

// String writes the selector back as the user gave it.
func (s Selector) String() string {
	if s.Proc < 0 {
		return strconv.FormatInt(s.Cluster, 10)
	}
	return JobID{s.Cluster, s.Proc}.String()
}

// ParseJobID reads "C.P".
func ParseJobID(s string) (JobID, error) {
	sel, err := ParseSelector(s)
	if err != nil {
		return JobID{}, err
	}
	if sel.Proc < 0 {
		return JobID{}, fmt.Errorf("%q is not a job id (cluster.proc)", s)
	}
	return JobID{sel.Cluster, sel.Proc}, nil
}
