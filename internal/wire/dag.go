package wire

import "encoding/json"

// PathSubmitDAG is POST: a DAG (HTCondor's DAGMan language) for the
// schedd to run durably (query cluster=N, a cluster id from
// PathNewCluster that becomes the DAG's id; body DAGSubmit →
// SubmitResult, whose Procs is the DAG's number of nodes; WRITE).
const PathSubmitDAG = "/v1/dags/submit"

// PathDAGs is POST: the DAGs in the queue, each with its nodes (body
// DAGQuery → []DAGInfo; READ).
const PathDAGs = "/v1/dags/query"

// DAGSubmit is a DAG and what runs it: the DAG file and the files it
// includes or splices, as the submitting tool read them; node submit
// files are read by the schedd, as the owner, when each node is
// submitted (a PRE script may write them).
type DAGSubmit struct {
	// File is the DAG file's absolute path; Files holds its text and that
	// of every INCLUDE and SPLICE file, by absolute path.
	File  string            `json:"file"`
	Files map[string]string `json:"files"`
	// Rescue names a rescue DAG (in Files) applied over the DAG
	// (-DoRescueFrom).
	Rescue string `json:"rescue,omitempty"`
	// The throttles of condor_submit_dag (0: none): node jobs submitted
	// at once, idle node jobs, PRE and POST scripts running at once.
	MaxJobs int `json:"maxjobs,omitempty"`
	MaxIdle int `json:"maxidle,omitempty"`
	MaxPre  int `json:"maxpre,omitempty"`
	MaxPost int `json:"maxpost,omitempty"`
	// MaxHold bounds the HOLD scripts running at once (-maxhold),
	// MaxSubmits the node jobs submitted in each submit interval of 5 s
	// (DAGMAN_MAX_SUBMITS_PER_INTERVAL); 0: no limit.
	MaxHold    int `json:"maxhold,omitempty"`
	MaxSubmits int `json:"maxsubmits,omitempty"`
	// HoldClaimTime is how long, in seconds, the claim of a node job with
	// children is kept idle after it (DAGMAN_HOLD_CLAIM_TIME; 0: not
	// kept); nil is the schedd's schedd.dag_hold_claim_time.
	HoldClaimTime *int `json:"hold_claim_time,omitempty"`
	// OutfileDir is where the DAG's own log (.dagman.out) is written
	// ("" is beside the DAG file).
	OutfileDir string `json:"outfile_dir,omitempty"`
	// BatchName is the node jobs' JobBatchName ("" is file+id).
	BatchName string `json:"batch_name,omitempty"`
}

// DAGQuery picks DAGs: by id, by owner, all of the caller's (none set).
type DAGQuery struct {
	IDs    []int64  `json:"ids,omitempty"`
	Owners []string `json:"owners,omitempty"`
	// Finished includes DAGs that have finished: those of IDs, or with no
	// IDs the recently finished ones the schedd keeps (its last 64, newest
	// first, after the running ones), with their final nodes.
	Finished bool `json:"finished,omitempty"`
	// AdsOnly leaves out the nodes (a list of DAGs); Graph adds each
	// node's parents and its job's JobStatus (a picture of the DAG).
	AdsOnly bool `json:"ads_only,omitempty"`
	Graph   bool `json:"graph,omitempty"`
	// MaxNodes, with Graph, bounds the nodes sent: a DAG of more comes
	// as Layers, its nodes counted by depth, instead (0: no bound).
	MaxNodes int `json:"max_nodes,omitempty"`
}

// DAGInfo is a DAG and its nodes.
type DAGInfo struct {
	// Ad is the DAG's ad: DAGManJobId, Owner, DAG_NodesTotal,
	// DAG_NodesDone, DAG_NodesFailed, DAG_Status ... as JSON.
	Ad    json.RawMessage `json:"ad"`
	Nodes []DAGNode       `json:"nodes"`
	// Layers counts the nodes by depth instead of Nodes (DAGQuery.MaxNodes).
	Layers []DAGLayer `json:"layers,omitempty"`
}

// DAGLayer counts the nodes of one depth of a DAG (the longest path to
// them from a node without parents) by their status (STATUS_DONE ...);
// Running is how many of the STATUS_SUBMITTED ones have a running job.
// A DAG is counted in at most 2000 layers: Deeper marks the last of a
// deeper DAG, which counts its deeper nodes too.
type DAGLayer struct {
	Depth    int            `json:"depth"`
	Statuses map[string]int `json:"statuses"`
	Running  int            `json:"running,omitempty"`
	Deeper   bool           `json:"deeper,omitempty"`
}

// DAGNode is one node of a DAG.
type DAGNode struct {
	Name    string `json:"name"`
	Status  string `json:"status"` // STATUS_DONE ...
	Retries int    `json:"retries,omitempty"`
	Cluster int64  `json:"cluster,omitempty"`
	Return  int    `json:"return,omitempty"`
	Detail  string `json:"detail,omitempty"`
	// Parents (node indexes) and JobStatus (of its job in the queue, 0
	// when none) are sent for DAGQuery.Graph alone.
	Parents   []int `json:"parents,omitempty"`
	JobStatus int64 `json:"job_status,omitempty"`
}

// PathDAGThrottle is POST: change a DAG's throttles while it runs
// (HTCondor's htcondor dag throttle; body DAGThrottle → DAGThrottles, the
// throttles in effect; WRITE, the DAG's owner or an administrator).
const PathDAGThrottle = "/v1/dags/throttle"

// DAGThrottle names a DAG and the throttles to change (nil: unchanged;
// 0: no limit).
type DAGThrottle struct {
	ID      int64 `json:"id"`
	MaxJobs *int  `json:"maxjobs,omitempty"`
	MaxIdle *int  `json:"maxidle,omitempty"`
	MaxPre  *int  `json:"maxpre,omitempty"`
	MaxPost *int  `json:"maxpost,omitempty"`
	// MaxHold: HOLD scripts running at once; MaxSubmits: node jobs
	// submitted in each submit interval (5 s).
	MaxHold    *int `json:"maxhold,omitempty"`
	MaxSubmits *int `json:"maxsubmits,omitempty"`
}

// DAGThrottles are a DAG's throttles (0: no limit).
type DAGThrottles struct {
	MaxJobs    int `json:"maxjobs"`
	MaxIdle    int `json:"maxidle"`
	MaxPre     int `json:"maxpre"`
	MaxPost    int `json:"maxpost"`
	MaxHold    int `json:"maxhold"`
	MaxSubmits int `json:"maxsubmits"`
}
