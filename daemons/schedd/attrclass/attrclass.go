// Package attrclass says who may set a job attribute, with HTCondor's
// classes (the schedd configuration's IMMUTABLE_JOB_ATTRS,
// PROTECTED_JOB_ATTRS and SECURE_JOB_ATTRS; htcondor-reference-2 §7):
// the one table of them, which qedit and submit both read, indexed so
// that checking each attribute of a 100 000-job submit allocates nothing.
package attrclass

import (
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
)

// The schedd's own attributes of a job, secrets never shown to tools.
const (
	ClaimID       = "ClaimId"           // the claim the job runs under
	StartdAddr    = "KiteStartdAddr"    // where that claim's startd serves
	ReplicaClaims = "KiteReplicaClaims" // "claim-id startd-addr" of each replica's claim
)

// Class says who may set a job attribute.
type Class uint8

const (
	// Normal attributes are the owner's to set and edit.
	Normal Class = iota
	// Immutable attributes never change once a job is queued, not
	// even by an administrator: its identity.
	Immutable
	// Protected attributes are what the schedd and the startd keep
	// about a job's life; after submit only they, or a queue superuser
	// (an ADMINISTRATOR token), may change them.
	Protected
	// Secure attributes only the schedd sets: a client may set them
	// neither at submit nor later, whoever it is.
	Secure
)

func (c Class) String() string {
	switch c {
	case Immutable:
		return "immutable"
	case Protected:
		return "protected"
	case Secure:
		return "secure"
	}
	return "normal"
}

// Classes is every attribute that is not normal, with its class. It is
// the one list of them: qedit (handleEdit) and submit (checkCluster,
// checkProc) read it.
var Classes = classTable(map[Class][]string{
	Immutable: {
		attr.Owner, attr.ClusterID, attr.JobUniverse, attr.ProcID, attr.MyType, attr.TargetType, attr.User,
		attr.UIDDomain, // whose accounts Owner names: a job runs as its owner where it is the machine's
	},
	Protected: {
		// Status, and what the schedd writes when it changes.
		attr.JobStatus, attr.LastJobStatus, attr.EnteredCurrentStatus, attr.QDate,
		attr.HoldReason, attr.HoldReasonCode, attr.HoldReasonSubCode, attr.NumHolds,
		attr.LastHoldReason, attr.LastHoldReasonCode, attr.RemoveReason, attr.ReleaseReason,
		// Matches, starts and runs.
		attr.NumJobMatches, attr.LastMatchTime, attr.LastVacateTime, attr.NumJobStarts,
		attr.JobRunCount, attr.NumShadowStarts, attr.NumRestarts, attr.JobStartDate, attr.JobCurrentStartDate,
		attr.RemoteHost, attr.LastRemoteHost, "RemoteSlot", "RemoteSlotID",
		// What the startd reports of a run and of its end.
		attr.RemoteWallClockTime, attr.RemoteUserCpu, attr.RemoteSysCpu, attr.MemoryUsage,
		attr.ExitCode, attr.ExitBySignal, attr.ExitSignal, attr.NumJobCompletions, attr.CompletionDate,
		// The record of matches and runs (schedd/jobattrs.go).
		attr.FirstJobMatchDate, attr.CpusProvisioned, attr.MemoryProvisioned, attr.DiskProvisioned,
		attr.JobCurrentStartExecutingDate, attr.LastRemoteWallClockTime, attr.CumulativeSlotTime, attr.CommittedTime,
		attr.CommittedSlotTime, attr.CumulativeRemoteUserCpu, attr.CumulativeRemoteSysCpu, attr.ResidentSetSize, attr.ExitStatus,
		// Self-checkpointing: which checkpoint the schedd keeps.
		attr.CheckpointNumber, attr.CheckpointFiles, attr.JobLastCheckpointTime,
		// Lost machines and replication.
		attr.KiteAborts, attr.KiteReplicaRuns, attr.KiteWinner, attr.KiteWinnerInstance,
	},
	Secure: {
		attr.TotalSubmitProcs, attr.GlobalJobID, attr.AutoClusterID, attr.OsUser,
		"AuthTokenSubject", "AuthTokenIssuer", "AuthTokenGroups", "AuthTokenId", "AuthTokenScopes", "AuthTokenProject",
		// Claims are secrets, and where they are held.
		ClaimID, StartdAddr, ReplicaClaims,
	},
})

// submitSets are the protected attributes a submit may set: a job
// submitted on hold says so and why (kite submit's hold = true).
var submitSets = classTable(map[Class][]string{Normal: {
	attr.JobStatus, attr.HoldReason, attr.HoldReasonCode, attr.HoldReasonSubCode,
}})

// classTable indexes the lists by the names' case-folded hash, so that
// checking each attribute of a 100 000-job submit allocates nothing.
func classTable(lists map[Class][]string) map[uint32]classified {
	t := map[uint32]classified{}
	for c, names := range lists {
		for _, n := range names {
			h := ast.FoldHash(n)
			if old, ok := t[h]; ok {
				panic("attrclass: " + n + " and " + old.name + " share a hash")
			}
			t[h] = classified{name: n, class: c}
		}
	}
	return t
}

// classified is an entry of a class table.
type classified struct {
	name  string
	class Class
}

// lookup finds name in a class table, case-insensitively as ClassAd
// names are.
func lookup(t map[uint32]classified, name string) (Class, bool) {
	e, ok := t[ast.FoldHash(name)]
	if !ok || !ast.EqualFold(e.name, name) {
		return Normal, false
	}
	return e.class, true
}

// Of returns an attribute's class.
func Of(name string) Class {
	c, _ := lookup(Classes, name)
	return c
}

// MayEdit explains why a qedit of name is refused, or returns "" when the
// caller may set it: immutable and secure attributes never, protected ones
// only as an administrator. JobStatus is refused to all, as condor_qedit
// does: its changes are kite hold, release and rm, which write the rest.
func MayEdit(name string, admin bool) string {
	switch c := Of(name); {
	case ast.EqualFold(name, attr.JobStatus):
		return "JobStatus is protected: use kite hold, kite release or kite rm"
	case c == Immutable:
		return name + " is immutable: it never changes once the job is queued"
	case c == Secure:
		return name + " is secure: only the schedd sets it"
	case c == Protected && !admin:
		return name + " is protected: the schedd keeps it, and only a queue superuser (ADMINISTRATOR) may set it"
	}
	return ""
}

// MaySubmit explains why a submitted ad may not set name, or returns "":
// secure attributes never, protected ones but those of a held submit
// never. Immutable ones are the schedd's to check (checkCluster, checkProc).
func MaySubmit(name string) string {
	switch c := Of(name); {
	case c == Secure:
		return "is secure: only the schedd sets it"
	case c == Protected && !isSubmitSet(name):
		return "is protected: the schedd keeps it"
	}
	return ""
}

func isSubmitSet(name string) bool {
	_, ok := lookup(submitSets, name)
	return ok
}
