package schedd

import (
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
)

// attrClass says who may set a job attribute, with HTCondor's classes
// (the schedd configuration's IMMUTABLE_JOB_ATTRS, PROTECTED_JOB_ATTRS and
// SECURE_JOB_ATTRS; htcondor-reference-2 §7).
type attrClass uint8

const (
	// classNormal attributes are the owner's to set and edit.
	classNormal attrClass = iota
	// classImmutable attributes never change once a job is queued, not
	// even by an administrator: its identity.
	classImmutable
	// classProtected attributes are what the schedd and the startd keep
	// about a job's life; after submit only they, or a queue superuser
	// (an ADMINISTRATOR token), may change them.
	classProtected
	// classSecure attributes only the schedd sets: a client may set them
	// neither at submit nor later, whoever it is.
	classSecure
)

func (c attrClass) String() string {
	switch c {
	case classImmutable:
		return "immutable"
	case classProtected:
		return "protected"
	case classSecure:
		return "secure"
	}
	return "normal"
}

// attrClasses is every attribute that is not normal, with its class. It is
// the one list of them: qedit (handleEdit) and submit (checkCluster,
// checkProc) read it.
var attrClasses = classTable(map[attrClass][]string{
	classImmutable: {
		attr.Owner, attr.ClusterID, attr.JobUniverse, attr.ProcID, attr.MyType, attr.TargetType, attr.User,
		attr.UIDDomain, // whose accounts Owner names: a job runs as its owner where it is the machine's
	},
	classProtected: {
		// Status, and what the schedd writes when it changes.
		attr.JobStatus, attr.LastJobStatus, attr.EnteredCurrentStatus, attr.QDate,
		attr.HoldReason, attr.HoldReasonCode, attr.HoldReasonSubCode, attr.NumHolds,
		attr.LastHoldReason, attr.LastHoldReasonCode, attr.RemoveReason, attr.ReleaseReason,
		// Matches, starts and runs.
		attr.NumJobMatches, attr.LastMatchTime, attr.LastVacateTime, attr.NumJobStarts,
		attr.JobRunCount, "NumShadowStarts", attr.JobStartDate, attr.JobCurrentStartDate,
		attr.RemoteHost, attr.LastRemoteHost, "RemoteSlot", "RemoteSlotID",
		// What the startd reports of a run and of its end.
		attr.RemoteWallClockTime, attr.RemoteUserCpu, attr.RemoteSysCpu, attr.MemoryUsage,
		attr.ExitCode, attr.ExitBySignal, attr.ExitSignal, attr.NumJobCompletions, attr.CompletionDate,
		// Lost machines and replication.
		attr.KiteAborts, attr.KiteReplicaRuns, attr.KiteWinner, attr.KiteWinnerInstance,
	},
	classSecure: {
		attr.TotalSubmitProcs, attr.GlobalJobID, attr.AutoClusterID, attr.OsUser,
		"AuthTokenSubject", "AuthTokenIssuer", "AuthTokenGroups", "AuthTokenId", "AuthTokenScopes", "AuthTokenProject",
		// Claims are secrets, and where they are held.
		attrClaimID, attrStartdAddr, attrReplicaClaims,
	},
})

// submitSets are the protected attributes a submit may set: a job
// submitted on hold says so and why (kite submit's hold = true).
var submitSets = classTable(map[attrClass][]string{classNormal: {
	attr.JobStatus, attr.HoldReason, attr.HoldReasonCode, attr.HoldReasonSubCode,
}})

// classTable indexes the lists by the names' case-folded hash, so that
// checking each attribute of a 100 000-job submit allocates nothing.
func classTable(lists map[attrClass][]string) map[uint32]classified {
	t := map[uint32]classified{}
	for c, names := range lists {
		for _, n := range names {
			h := ast.FoldHash(n)
			if old, ok := t[h]; ok {
				panic("schedd: attribute classes: " + n + " and " + old.name + " share a hash")
			}
			t[h] = classified{name: n, class: c}
		}
	}
	return t
}

// classified is an entry of a class table.
type classified struct {
	name  string
	class attrClass
}

// lookup finds name in a class table, case-insensitively as ClassAd
// names are.
func lookup(t map[uint32]classified, name string) (attrClass, bool) {
	e, ok := t[ast.FoldHash(name)]
	if !ok || !ast.EqualFold(e.name, name) {
		return classNormal, false
	}
	return e.class, true
}

// classOf returns an attribute's class.
func classOf(name string) attrClass {
	c, _ := lookup(attrClasses, name)
	return c
}

// mayEdit explains why a qedit of name is refused, or returns "" when the
// caller may set it: immutable and secure attributes never, protected ones
// only as an administrator. JobStatus is refused to all, as condor_qedit
// does: its changes are kite hold, release and rm, which write the rest.
func mayEdit(name string, admin bool) string {
	switch c := classOf(name); {
	case ast.EqualFold(name, attr.JobStatus):
		return "JobStatus is protected: use kite hold, kite release or kite rm"
	case c == classImmutable:
		return name + " is immutable: it never changes once the job is queued"
	case c == classSecure:
		return name + " is secure: only the schedd sets it"
	case c == classProtected && !admin:
		return name + " is protected: the schedd keeps it, and only a queue superuser (ADMINISTRATOR) may set it"
	}
	return ""
}

// maySubmit explains why a submitted ad may not set name, or returns "":
// secure attributes never, protected ones but those of a held submit
// never. Immutable ones are the schedd's to check (checkCluster, checkProc).
func maySubmit(name string) string {
	switch c := classOf(name); {
	case c == classSecure:
		return "is secure: only the schedd sets it"
	case c == classProtected && !isSubmitSet(name):
		return "is protected: the schedd keeps it"
	}
	return ""
}

func isSubmitSet(name string) bool {
	_, ok := lookup(submitSets, name)
	return ok
}
