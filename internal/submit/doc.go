// Package submit reads HTCondor submit description files and expands them
// into the job ads of one cluster. The kite submit command uses it on the
// client side, and the schedd can use it to check what it is sent.
//
//	submit file ──Parse──▶ *Description ──Expand(Env)──▶ *Cluster
//	                        statements in order            Ad: attributes every proc shares
//	                        (commands, macros, queue)      Procs[i]: ProcId and what differs
//
// Parse splits the file into logical lines (comments, continued lines,
// `name @=tag ... @tag` values), records every `name = value` line (each is
// a command and a macro definition; `+Attr` is written MY.Attr), and reads
// queue statements with their item lists. It reports syntax errors with
// file and line, and warns about names that are neither commands nor used
// as macros. It touches no file: the same Description can be expanded in
// different environments.
//
// Expand walks the statements. Definitions are expanded lazily, at each
// queue statement, with condor_submit's rules: $(name) and
// $(name:default), recursive definitions (foo = $(foo) bar), $ENV(VAR),
// $$(Attr) kept for run time, the automatic variables Cluster, ClusterId,
// Process, ProcId, Step, Row, ItemIndex, Item, JobId and the submit host's
// ARCH, OPSYS, OPSYSANDVER. For each proc the commands become job
// attributes with condor_submit's names (Cmd, Args or Arguments,
// Environment, Iwd, In, Out, Err, UserLog, RequestCpus, RequestMemory,
// RequestDisk, Requirements, OnExitRemove, ...), and the default
// Requirements clauses are added after the user's expression, which stays
// in parentheses.
//
// Everything Expand needs from outside (the cluster number, owner, submit
// directory, environment, host facts, and hooks to read files, glob, stat
// and run commands) comes in an Env, so tests need no file system and no
// shell; LocalEnv supplies the real ones.
//
// Speed: a cluster of 100 000 procs takes a fraction of a second. The
// first proc of each queue statement runs every command step and notes
// which steps read a per-proc value (such as $(Process)); the other procs
// run only those steps. Command values that do not depend on the proc are
// expanded once per statement, and each distinct expression text is
// parsed once.
package submit
