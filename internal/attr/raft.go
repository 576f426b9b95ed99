package attr

// The negotiator ad's Raft attributes, when negotiators on several
// central managers form a group ([negotiator.raft]).
const (
	// RaftID is this negotiator's id in its group (its Raft host:port).
	RaftID = "RaftID"
	// RaftState is Leader, Follower or Candidate: only the leader runs
	// negotiation cycles.
	RaftState = "RaftState"
	// RaftLeader is the id of the group's leader ("" while none is known).
	RaftLeader = "RaftLeader"
)
