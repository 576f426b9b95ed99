// Package runas acts as a job's owner: it turns a token's identity into a
// local Unix account (Map), and opens, creates and renames files with that
// account's uid, gid and groups (Account.Do), so that a daemon running as
// root reaches on a job's behalf exactly what the owner could reach
// themselves, and nothing more.
//
// How: a root daemon switches the file-system identity of one OS thread
// (setfsuid, setfsgid and setgroups, which Linux keeps per thread) for
// the length of the work, on a goroutine locked to that thread. The
// kernel then checks every path component, symbolic links included, as
// the owner at the moment of the open itself, so there is no window
// between a check and the open for anyone to swap a file in. A thread
// whose identity cannot be switched back is never reused: its goroutine
// ends still locked, and the Go runtime ends the thread with it.
// docs/security.md says why this and not a helper process.
//
// A daemon that is not root cannot switch, and needs not: it reaches
// only what its own account reaches, and Do runs the work as it is.
package runas
