// Package starter runs one job on a claimed slot, as HTCondor's
// condor_starter does:
//
//	sandbox ──▶ fetch inputs ──▶ spawn ──▶ wait (sample usage) ──▶ send outputs ──▶ report ──▶ remove sandbox
//	 (dir_*)     (SHA-256         (own       suspend / continue      (SHA-256)        exited,
//	             checked)         process    vacate: SIGTERM,                         evicted,
//	                              group,     SIGKILL after grace                      held, failed
//	                              cgroup)
//
// The job runs in a fresh sandbox directory, as the slot's user when the
// startd is root, in its own process group and (where the host allows)
// its own cgroup v2 group, so that its whole process tree can be stopped,
// continued and killed. Files move through a Transfer, which the startd
// implements with the schedd's endpoints; every event goes to Report.
// Names from the job ad that would leave the sandbox are refused with the
// file named (package sandbox). The job's output and error are written to
// _condor_stdout and _condor_stderr (one file when both name the same
// path) and sent back under the names the ad gives, absolute or not: those
// are submit-side paths, which the schedd writes as the job's owner.
//
// A job on the submitter's own file system (should_transfer_files = NO, or
// IF_NEEDED on a machine whose FileSystemDomain is the job's, as on a
// personal pool) runs in place instead, as HTCondor runs it: in its
// directory (Iwd), with its standard files opened there, and nothing sent
// either way; the sandbox is only its scratch directory. That needs the
// job to run as the startd's own user and as a single instance (shared.go).
// Hosts that share a file system say so with one FileSystemDomain in
// [startd.attributes], and jobs with +FileSystemDomain.
package starter
