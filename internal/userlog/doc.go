// Package userlog writes and reads the job event log ("user log") in
// HTCondor's text format, so that tools and scripts written for HTCondor's
// logs (condor_wait, DAGMan-style watchers, log parsers) read Kite's too.
//
//	schedd ──Log.Append(path, events...)──▶ job.log ◀──Reader.Next── kite wait, tests
//
// Each event is a header line
//
//	005 (012.003.000) 2026-11-22 13:09:28 Job terminated.
//
// (event number, cluster.proc.subproc with at least three digits each, the
// time, the event's text), indented detail lines, and a line holding only
// "..." that ends the event. The time is local and ISO (HTCondor's default
// since 9.0) unless Options ask for the legacy MM/DD form or UTC.
//
// Event numbers and texts follow HTCondor's: 000 submit, 001 execute,
// 002 executable error, 004 evicted, 005 terminated, 006 image size,
// 007 shadow exception, 009 aborted, 010 suspended, 011 unsuspended,
// 012 held, 013 released, 021 remote error, 022 disconnected,
// 023 reconnected, 024 reconnect failed, 028 job ad information.
//
// Log serialises writers per file and writes each batch of events with one
// write(2) in append mode, so concurrent writers never interleave an
// event. The Reader reads what is complete and leaves a half-written
// event for the next call, so a watcher can follow a log while it grows.
package userlog
