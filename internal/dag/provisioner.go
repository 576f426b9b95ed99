package dag

// ProvisionerFailed reports whether the DAG's PROVISIONER node failed
// before its job said it was ready: its job ended first, or its submit
// file queued more than one job (which the scheduler refuses to submit).
// DAGMan exits at once then (the HTCondor manual,
// dagman-advance-functionality.rst "PROVISIONER Node": "DAGMan will exit
// immediately"; of more than one job, "without writing a Rescue file or
// running the FINAL node"): nothing more starts, the FINAL node neither,
// and no rescue DAG is written. A DAG the user removed is not one: it
// ends as removed DAGs do.
func (r *Run) ProvisionerFailed() bool {
	p := r.DAG.Provisioner
	return p >= 0 && r.Aborted && !r.Removed && !r.ProvisionerReady && r.Nodes[p].Status == Failed
}
