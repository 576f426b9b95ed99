package wire

import "encoding/json"

// PathSubmitFactory is POST: a cluster submitted for late materialization
// (max_idle or max_materialize): the cluster ad and its procs' own
// attributes as runs, which the schedd keeps durably and materializes as
// the cluster's limits allow (query cluster=N; body FactorySubmit →
// SubmitResult, whose Procs is the cluster's procs in all; WRITE).
const PathSubmitFactory = "/v1/queue/factory"

// FactorySubmit is a cluster for a job factory.
type FactorySubmit struct {
	// Cluster is the cluster ad, as JSON; it sets JobMaterializeLimit or
	// JobMaterializeMaxIdle.
	Cluster json.RawMessage `json:"cluster"`
	// Runs are the procs in ProcId order: each run is N procs with the
	// same own attributes (ProcId aside).
	Runs []FactoryRun `json:"runs"`
}

// FactoryRun is consecutive procs with the same own attributes.
type FactoryRun struct {
	N  int64           `json:"n"`
	Ad json.RawMessage `json:"ad"`
}
