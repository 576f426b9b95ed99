// Package autocluster tells idle jobs apart as a matchmaker can: two jobs
// belong to one autocluster when they agree on every significant
// attribute, those the pool's slot expressions and the negotiator's
// policy read of jobs (the list the negotiator sends with its request),
// the jobs' own Requirements and Rank, and whatever those read of the job
// itself. The negotiator matches one job of each autocluster and takes as
// many slots as it has jobs, so that a queue of 100 000 alike jobs costs
// one evaluation against each slot class.
//
// A Signer computes signatures, the printed values of a job's significant
// attributes. The schedd groups its queue with it; the simulator
// (internal/sim) groups its simulated queues with the same Signer.
//
// The procs of a cluster share their cluster's ad: a proc's signature is
// its cluster's, computed once, unless the proc's own attributes set a
// significant one, so grouping 100 000 procs of one submit costs one
// signature and a look at each proc's few own attributes.
package autocluster
