package attr

// DAG attributes: those DAGMan sets on node jobs, and those of a DAG's
// own ad (the HTCondor manual, dagman-interaction.rst and the reference's
// "DAGMan's own job ad").
const (
	DAGManJobID        = "DAGManJobId" // on node jobs: the DAG's id (int)
	DAGNodeName        = "DAGNodeName"
	DAGParentNodeNames = "DAGParentNodeNames"
	DAGManNodesLog     = "DAGManNodesLog" // on node jobs: FILE.dag.nodes.log, where their events go too

	DAGNodesTotal   = "DAG_NodesTotal"
	DAGNodesDone    = "DAG_NodesDone"
	DAGNodesPrerun  = "DAG_NodesPrerun"
	DAGNodesQueued  = "DAG_NodesQueued"
	DAGNodesPostrun = "DAG_NodesPostrun"
	DAGNodesReady   = "DAG_NodesReady"
	DAGNodesUnready = "DAG_NodesUnready"
	DAGNodesFailed  = "DAG_NodesFailed"
	DAGNodesFutile  = "DAG_NodesFutile"
	DAGStatus       = "DAG_Status"
	DAGInRecovery   = "DAG_InRecovery"
	DAGManMaxJobs   = "DAGMan_MaxJobs"
	DAGManMaxIdle   = "DAGMan_MaxIdle"
	DAGManMaxPre    = "DAGMan_MaxPreScripts"
	DAGManMaxPost   = "DAGMan_MaxPostScripts"
	DAGManMaxHold   = "DAGMan_MaxHoldScripts"
	// DAGManMaxSubmits: node jobs submitted per submit interval (5 s).
	DAGManMaxSubmits = "DAGMan_MaxSubmitsPerInterval"
	DAGFile          = "DAG_File" // Kite's: the DAG file's path
	DAGRescueFile    = "DAG_RescueFile"
)
