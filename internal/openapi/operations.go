package openapi

import (
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/wire"
)

// Daemon kinds (Operation.Daemons).
const (
	Collector  = "collector"
	Negotiator = "negotiator"
	Schedd     = "schedd"
	Startd     = "startd"
	Master     = "master"
)

// every daemon serves the common endpoints.
var every = []string{Collector, Negotiator, Schedd, Startd, Master}

// Ad stands for a ClassAd in HTCondor's JSON form in request and answer
// types: an object, literals as JSON values, null for UNDEFINED, other
// expressions as "\/Expr(...)\/".
type Ad struct{}

// Object stands for a JSON object whose fields are a daemon's own (the
// dashboard's views, a startd's drain answer): the document says only
// that it is an object.
type Object struct{}

// Param is a query parameter.
type Param struct {
	Name, Description string
	Required          bool
}

// Operation documents one endpoint.
type Operation struct {
	// Pattern is the route as the daemons register it: "POST /v1/ads".
	Pattern string
	// Daemons lists the daemons that serve it.
	Daemons []string
	// Level is what the caller's token must grant (wire.Public: none).
	Level   auth.Level
	Summary string
	// Request is a value of the body's type (nil: no body); []Ad is a
	// JSON array of ads. RawRequest, instead, is the media type of a body
	// that is not JSON (a file).
	Request    any
	RawRequest string
	// Response is a value of the answer's type (nil: no body, 204). With
	// Stream, the answer is a stream of items of that type
	// (application/x-ndjson). RawResponse, instead, is the media type of
	// an answer that is not JSON.
	Response    any
	Stream      bool
	RawResponse string
	// Upgrade marks an endpoint whose connection, once accepted, is
	// upgraded to Kite's framed shell protocol (docs/protocol/schedd.md).
	Upgrade bool
	Query   []Param
}

// PathDocument is GET on every daemon: this package's document (→ the
// OpenAPI 3 JSON; no token needed).
const PathDocument = "/v1/openapi.json"

var clusterParam = []Param{{Name: "cluster", Description: "the cluster id from POST " + wire.PathNewCluster, Required: true}}
var fileParams = []Param{{Name: "job", Description: "the job, cluster.proc", Required: true}, {Name: "file", Description: "the file's name in the job ad", Required: true}}

// jobParam names a job.
var jobParam = []Param{{Name: "job", Description: "the job, cluster.proc", Required: true}}

// checkpointParams name a file of a job's checkpoint.
var checkpointParams = append(append([]Param{}, fileParams...), Param{Name: "checkpoint", Description: "the checkpoint's number, from 1", Required: true})

// Operations is every endpoint of every daemon.
var Operations = []Operation{
	// Every daemon.
	{Pattern: "GET " + PathDocument, Daemons: every, Level: wire.Public, Summary: "This document", Response: Object{}},
	{Pattern: "GET /metrics", Daemons: every, Level: auth.Read, Summary: "Prometheus metrics (docs/metrics.md)", RawResponse: "text/plain"},

	// Collector.
	{Pattern: "POST " + wire.PathAds, Daemons: []string{Collector}, Level: auth.Flock, Summary: "Store ads", Request: []Ad{}, Response: wire.UpdateAdsResult{}},
	{Pattern: "POST " + wire.PathInvalidate, Daemons: []string{Collector}, Level: auth.Flock, Summary: "Remove ads", Request: wire.Invalidate{}, Response: wire.InvalidateResult{}},
	{Pattern: "POST " + wire.PathQuery, Daemons: []string{Collector}, Level: auth.Read, Summary: "Query ads (constraint, projection)", Request: wire.Query{}, Response: Ad{}, Stream: true},
	{Pattern: "GET " + wire.PathMembers, Daemons: []string{Collector}, Level: auth.Read, Summary: "The pool's members and their health", Response: wire.Members{}},
	{Pattern: "GET " + wire.PathGossip, Daemons: []string{Collector}, Level: auth.Read, Summary: "The collector's gossip address", Response: wire.GossipInfo{}},
	{Pattern: "GET /v1/prometheus/targets", Daemons: []string{Collector}, Level: auth.Read, Summary: "Prometheus HTTP service discovery of the pool's daemons", Response: []Object{}},
	{Pattern: "GET /dashboard/", Daemons: []string{Collector}, Level: wire.Public, Summary: "The web dashboard's page", RawResponse: "text/html"},
	{Pattern: "GET /v1/dashboard/overview", Daemons: []string{Collector}, Level: auth.Read, Summary: "Dashboard: the pool at a glance", Response: Object{}},
	{Pattern: "GET /v1/dashboard/queue", Daemons: []string{Collector}, Level: auth.Read, Summary: "Dashboard: jobs of every schedd", Response: Object{}, Query: []Param{{Name: "limit", Description: "the most jobs"}}},
	{Pattern: "GET /v1/dashboard/machines", Daemons: []string{Collector}, Level: auth.Read, Summary: "Dashboard: machines and their slots", Response: Object{}},
	{Pattern: "GET /v1/dashboard/machines/{name}", Daemons: []string{Collector}, Level: auth.Read, Summary: "Dashboard: one machine", Response: Object{}},
	{Pattern: "GET /v1/dashboard/sita", Daemons: []string{Collector}, Level: auth.Read, Summary: "Dashboard: SITA-E intervals and loads", Response: Object{}},
	{Pattern: "GET /v1/dashboard/history", Daemons: []string{Collector}, Level: auth.Read, Summary: "Dashboard: samples of the pool over time", Response: Object{}},
	{Pattern: "GET /v1/dashboard/dags", Daemons: []string{Collector}, Level: auth.Read, Summary: "Dashboard: the DAGs of every schedd", Response: Object{}},
	{Pattern: "GET /v1/dashboard/dag", Daemons: []string{Collector}, Level: auth.Read, Summary: "Dashboard: one DAG laid out as a graph", Response: Object{}, Query: []Param{{Name: "schedd", Description: "the schedd's name"}, {Name: "id", Description: "the DAG's id"}}},

	// Negotiator.
	{Pattern: "POST " + wire.PathReschedule, Daemons: []string{Negotiator}, Level: auth.Write, Summary: "Start a negotiation cycle soon"},
	{Pattern: "GET " + wire.PathPriorities, Daemons: []string{Negotiator}, Level: auth.Read, Summary: "Users' fair-share priorities (condor_userprio)", Response: wire.Priorities{}},
	{Pattern: "POST " + wire.PathSetFactor, Daemons: []string{Negotiator}, Level: auth.Administrator, Summary: "Set a user's priority factor", Request: wire.SetFactor{}, Response: wire.Priority{}},
	{Pattern: "POST " + wire.PathSetPriority, Daemons: []string{Negotiator}, Level: auth.Administrator, Summary: "Set a user's real priority", Request: wire.SetPriority{}, Response: wire.Priority{}},
	{Pattern: "POST " + wire.PathResetUsage, Daemons: []string{Negotiator}, Level: auth.Administrator, Summary: "Forget a user's usage", Request: wire.ResetUsage{}, Response: wire.Priority{}},
	{Pattern: "GET " + wire.PathCycle, Daemons: []string{Negotiator}, Level: auth.Read, Summary: "What the last negotiation cycle did", Response: wire.CycleReport{}},

	// Schedd, for users.
	{Pattern: "POST " + wire.PathNewCluster, Daemons: []string{Schedd}, Level: auth.Write, Summary: "A cluster id for the next submit", Response: wire.NewCluster{}},
	{Pattern: "POST " + wire.PathSubmit, Daemons: []string{Schedd}, Level: auth.Write, Summary: "Queue a cluster's jobs: the cluster ad, then each job's own ad", Request: []Ad{}, Response: wire.SubmitResult{}, Query: clusterParam},
	{Pattern: "POST " + wire.PathSubmitFactory, Daemons: []string{Schedd}, Level: auth.Write, Summary: "Queue a job factory (late materialization)", Request: wire.FactorySubmit{}, Response: wire.SubmitResult{}, Query: clusterParam},
	{Pattern: "POST " + wire.PathSubmitDAG, Daemons: []string{Schedd}, Level: auth.Write, Summary: "Queue a DAG (HTCondor's DAGMan language), run by the schedd", Request: wire.DAGSubmit{}, Response: wire.SubmitResult{}, Query: clusterParam},
	{Pattern: "POST " + wire.PathDAGs, Daemons: []string{Schedd}, Level: auth.Read, Summary: "The DAGs and their nodes", Request: wire.DAGQuery{}, Response: []wire.DAGInfo{}},
	{Pattern: "POST " + wire.PathDAGThrottle, Daemons: []string{Schedd}, Level: auth.Write, Summary: "Change a running DAG's throttles", Request: wire.DAGThrottle{}, Response: wire.DAGThrottles{}},
	{Pattern: "POST " + wire.PathQueue, Daemons: []string{Schedd}, Level: auth.Read, Summary: "Query job ads (constraint, projection), or batches or factories", Request: wire.JobQuery{}, Response: Ad{}, Stream: true},
	{Pattern: "GET " + wire.PathTotals, Daemons: []string{Schedd}, Level: auth.Read, Summary: "The queue's job counts", Response: wire.QueueTotals{}},
	{Pattern: "POST " + wire.PathAct, Daemons: []string{Schedd}, Level: auth.Write, Summary: "Remove, hold, release or vacate jobs", Request: wire.Act{}, Response: wire.ActResult{}},
	{Pattern: "POST " + wire.PathEdit, Daemons: []string{Schedd}, Level: auth.Write, Summary: "Set attributes of jobs (condor_qedit)", Request: wire.Edit{}, Response: wire.ActResult{}},
	{Pattern: "POST " + wire.PathHistory, Daemons: []string{Schedd}, Level: auth.Read, Summary: "Query jobs that left the queue, newest first", Request: wire.HistoryQuery{}, Response: Ad{}, Stream: true},
	{Pattern: "POST " + wire.PathTail, Daemons: []string{Schedd}, Level: auth.Write, Summary: "A range of a running job's file (condor_tail)", Request: wire.TailRequest{}, Response: wire.FileChunk{}},
	{Pattern: "POST " + wire.PathShell, Daemons: []string{Schedd}, Level: auth.Write, Summary: "A shell or command in a running job's sandbox (condor_ssh_to_job), upgraded", Request: wire.ShellRequest{}, Upgrade: true},
	{Pattern: "PUT " + wire.PathSpoolInput, Daemons: []string{Schedd}, Level: auth.Write, Summary: "A spooled job's input files, as a tar archive; the job is released (condor_submit -spool)", RawRequest: wire.ContentTypeTar, Query: jobParam},
	{Pattern: "GET " + wire.PathSpoolOutput, Daemons: []string{Schedd}, Level: auth.Write, Summary: "A completed spooled job's output files, as a tar archive (condor_transfer_data)", RawResponse: wire.ContentTypeTar, Query: jobParam},
	{Pattern: "POST " + wire.PathSpoolDone, Daemons: []string{Schedd}, Level: auth.Write, Summary: "Spooled jobs whose output was fetched leave the queue", Request: wire.SpoolDone{}, Response: wire.ActResult{}},

	// Schedd, for the negotiator and startds.
	{Pattern: "POST " + wire.PathResourceRequests, Daemons: []string{Schedd}, Level: auth.Flock, Summary: "A submitter's idle jobs as autoclusters", Request: wire.RequestsQuery{}, Response: wire.ResourceRequests{}},
	{Pattern: "POST " + wire.PathMatches, Daemons: []string{Schedd}, Level: auth.Flock, Summary: "Slots matched to the schedd's requests", Request: wire.Matches{}, Response: wire.MatchesResult{}},
	{Pattern: "POST " + wire.PathJobUpdate, Daemons: []string{Schedd}, Level: auth.Flock, Summary: "An event of a running job", Request: wire.JobUpdate{}},
	{Pattern: "POST " + wire.PathJobUpdates, Daemons: []string{Schedd}, Level: auth.Flock, Summary: "Several running jobs' last events at once, from one startd", Request: wire.JobUpdates{}, Response: wire.JobUpdatesResult{}},
	{Pattern: "GET " + wire.PathJobInput, Daemons: []string{Schedd}, Level: auth.Flock, Summary: "One input file of a job", RawResponse: "application/octet-stream", Query: fileParams},
	{Pattern: "PUT " + wire.PathJobOutput, Daemons: []string{Schedd}, Level: auth.Flock, Summary: "One output file of a job", RawRequest: "application/octet-stream", Query: fileParams},
	{Pattern: "PUT " + wire.PathJobCheckpoint, Daemons: []string{Schedd}, Level: auth.Flock, Summary: "One file of a job's next checkpoint", RawRequest: "application/octet-stream", Query: checkpointParams},
	{Pattern: "GET " + wire.PathJobCheckpoint, Daemons: []string{Schedd}, Level: auth.Flock, Summary: "One file of a job's committed checkpoint", RawResponse: "application/octet-stream", Query: checkpointParams},

	// Startd.
	{Pattern: "POST " + wire.PathClaim, Daemons: []string{Startd}, Level: auth.Flock, Summary: "Claim a matched slot", Request: wire.ClaimRequest{}, Response: wire.ClaimResult{}},
	{Pattern: "POST " + wire.PathActivate, Daemons: []string{Startd}, Level: auth.Flock, Summary: "Run a job on a claimed slot", Request: wire.Activate{}},
	{Pattern: "POST " + wire.PathAlive, Daemons: []string{Startd}, Level: auth.Flock, Summary: "Renew a claim's lease", Request: wire.ClaimRef{}, Response: wire.AliveResult{}},
	{Pattern: "POST " + wire.PathRelease, Daemons: []string{Startd}, Level: auth.Flock, Summary: "Give a claimed slot back", Request: wire.ClaimRef{}},
	{Pattern: "POST " + wire.PathVacate, Daemons: []string{Startd}, Level: auth.Flock, Summary: "Stop a claim's job", Request: wire.Vacate{}},
	{Pattern: "POST " + wire.PathClaimFile, Daemons: []string{Startd}, Level: auth.Flock, Summary: "A range of a file of a claim's job", Request: wire.ClaimFile{}, Response: wire.FileChunk{}},
	{Pattern: "POST " + wire.PathClaimShell, Daemons: []string{Startd}, Level: auth.Flock, Summary: "A shell or command in a claim's job sandbox, upgraded", Request: wire.ClaimShell{}, Upgrade: true},
	{Pattern: "GET /v1/startd/slots", Daemons: []string{Startd}, Level: auth.Read, Summary: "The startd's slot ads", Response: slots{}},
	{Pattern: "POST /v1/startd/drain", Daemons: []string{Startd}, Level: auth.Administrator, Summary: "Stop taking claims (condor_drain)", Request: drain{}, Response: drainResult{}},
	{Pattern: "POST /v1/startd/drain/cancel", Daemons: []string{Startd}, Level: auth.Administrator, Summary: "Take claims again", Response: drainResult{}},

	// Master.
	{Pattern: "GET " + wire.PathMasterDaemons, Daemons: []string{Master}, Level: auth.Read, Summary: "The daemons the master runs", Response: wire.MasterDaemons{}},
	{Pattern: "POST " + wire.PathMasterOn, Daemons: []string{Master}, Level: auth.Administrator, Summary: "Start daemons", Request: wire.MasterCommand{}, Response: wire.MasterDaemons{}},
	{Pattern: "POST " + wire.PathMasterOff, Daemons: []string{Master}, Level: auth.Administrator, Summary: "Stop daemons", Request: wire.MasterCommand{}, Response: wire.MasterDaemons{}},
	{Pattern: "POST " + wire.PathMasterRestart, Daemons: []string{Master}, Level: auth.Administrator, Summary: "Restart daemons", Request: wire.MasterCommand{}, Response: wire.MasterDaemons{}},
	{Pattern: "POST " + wire.PathMasterReconfig, Daemons: []string{Master}, Level: auth.Administrator, Summary: "Reload the configuration and apply what can change live", Response: Object{}},
}

// The startd's tool types live in the startd's package, which this one
// may not import; these repeat their JSON shape (startd.Slots, Drain and
// DrainResult): a change there is to be made here too.
type (
	slots struct {
		Slots []Ad `json:"slots"`
	}
	drain struct {
		Graceful bool `json:"graceful,omitempty"`
	}
	drainResult struct {
		Slots int `json:"slots"`
	}
)
