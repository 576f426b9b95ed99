// Package factory is the schedd's job factories: late materialization, as
// HTCondor's schedd does it for a cluster submitted with max_idle or
// max_materialize (condor_submit man page; users' manual, "Submitting
// Lots of Jobs"). The tool sends the cluster ad and each proc's own
// attributes as runs (consecutive procs with the same own attributes are
// one run, so `queue 1000000` is one); the factory keeps them, and adds
// procs to the cluster as its limits allow:
//
//	present  the cluster's jobs in the queue         < JobMaterializeLimit
//	waiting  those not running (idle and held)       < JobMaterializeMaxIdle
//
// A Set holds the factories. Its Hook runs at the end of every queue
// transaction, so the procs a factory adds commit with the change that
// made room for them (a job that started, or left the queue). Each
// factory's description is written once, in the aux bucket with the
// cluster's submit; its next ProcId and whether it is paused are written
// with each change, so a killed schedd neither loses nor repeats a proc.
// A factory is paused by a hold of its cluster, resumed by a release,
// removed by a rm; it goes away once its last proc is materialized.
//
// The factory never runs anything and reads no file: everything a submit
// file computes (includes, `queue from` a command or file) the tool
// resolved before it sent the cluster.
package factory
