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
	// Finished includes DAGs that have finished.
	Finished bool `json:"finished,omitempty"`
}

// DAGInfo is a DAG and its nodes.
type DAGInfo struct {
	// Ad is the DAG's ad: DAGManJobId, Owner, DAG_NodesTotal,
	// DAG_NodesDone, DAG_NodesFailed, DAG_Status ... as JSON.
	Ad    json.RawMessage `json:"ad"`
	Nodes []DAGNode       `json:"nodes"`
}

// DAGNode is one node of a DAG.
type DAGNode struct {
	Name    string `json:"name"`
	Status  string `json:"status"` // STATUS_DONE ...
	Retries int    `json:"retries,omitempty"`
	Cluster int64  `json:"cluster,omitempty"`
	Return  int    `json:"return,omitempty"`
	Detail  string `json:"detail,omitempty"`
}
