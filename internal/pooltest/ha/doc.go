// Package ha tests a pool with several central managers as separate
// daemon processes on loopback: collectors that each hold the whole pool
// (pool.collectors) and negotiators that elect one of them with Raft
// ([negotiator.raft]). Its tests SIGKILL the leading negotiator and a
// collector under load; its benchmarks measure the failover time and the
// cycle time with three replicas against one (docs/install.md).
package ha
