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
// a command and a macro definition; `+Attr` is written MY.Attr), reads
// queue statements with their item lists, and records the control
// statements: if/elif/else/endif (checked to nest, errors at file:line:col),
// `include : file`, `include : command |` and `error :`/`warning :`. It
// reports syntax errors with file and line, and warns about names that
// are neither commands nor used as macros. It touches no file: the same
// Description can be expanded in different environments. ParseWith adds
// condor_submit's command line (CommandLine): name=value definitions read
// before the file, -append commands read before each queue statement,
// and -queue, the queue statement of a file without one.
//
// Expand walks the statements as condor_submit reads them: an if's
// condition (defined NAME, version OP x.y[.z], a boolean, a number, or
// $(var) giving one; see evalCondition) is evaluated with the macros
// defined at that point, and a branch not taken is skipped, queue
// statements included; an include reads the file (relative to the
// submit directory) or runs the command through Env and walks what it
// gives in place, with depth bounded and cycles refused; errors in an
// included file name that file. A file with no queue statement queues one
// job at its end, as condor_submit does. Definitions are expanded lazily,
// at each queue statement, with condor_submit's rules: $(name) and
// $(name:default), recursive definitions (foo = $(foo) bar), $$(Attr)
// kept for run time, the macro functions ($ENV, which gives UNDEFINED for
// an unset variable, $INT, $REAL, $STRING, $EVAL, $SUBSTR, $CHOICE,
// $RANDOM_CHOICE, $RANDOM_INTEGER, $BASENAME, $DIRNAME and
// $F[fpdnxbqauw]; see funcs.go), the automatic variables Cluster,
// ClusterId, Process, ProcId, Step, Row, ItemIndex, Item, JobId and the
// submit host's ARCH, OPSYS, OPSYSANDVER. For each proc the commands
// become job attributes with condor_submit's names (Cmd, Args or
// Arguments, Environment, Iwd, In, Out, Err, UserLog, RequestCpus,
// RequestMemory, RequestDisk, Requirements, OnExitRemove,
// JobLeaseDuration, ...), and the default Requirements clauses are added
// after the user's expression, which stays in parentheses.
//
// Everything Expand needs from outside (the cluster number, owner, submit
// directory, environment, host facts, and hooks to read files, glob, stat,
// run commands and draw random numbers) comes in an Env, so tests need no file system and no
// shell; LocalEnv supplies the real ones.
//
// Speed: a cluster of 100 000 procs takes a fraction of a second. The
// first proc of each queue statement runs every command step and notes
// which steps read a per-proc value (such as $(Process)); the other procs
// run only those steps. Command values that do not depend on the proc are
// expanded once per statement, and each distinct expression text is
// parsed once.
package submit
