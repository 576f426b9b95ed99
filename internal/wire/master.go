package wire

import "time"

// The master's endpoints (docs/protocol/master.md).
const (
	// PathMasterDaemons is GET: the daemons the master runs (→
	// MasterDaemons; READ).
	PathMasterDaemons = "/v1/master/daemons"
	// PathMasterOn, PathMasterOff, PathMasterRestart and
	// PathMasterReconfig are POST: start, stop, restart or reconfigure
	// daemons (MasterCommand → MasterDaemons; ADMINISTRATOR).
	PathMasterOn       = "/v1/master/on"
	PathMasterOff      = "/v1/master/off"
	PathMasterRestart  = "/v1/master/restart"
	PathMasterReconfig = "/v1/master/reconfig"
)

// MasterCommand names the daemons a command applies to; none means all
// the master runs. Off with Master set stops the master itself too (and
// with it the host's daemons).
type MasterCommand struct {
	Daemons []string `json:"daemons,omitempty"`
	Master  bool     `json:"master,omitempty"`
}

// MasterDaemons is the state of a master's daemons.
type MasterDaemons struct {
	Master  string         `json:"master"`
	Daemons []DaemonStatus `json:"daemons"`
	// NeedRestart, in a reconfig's answer, are the configuration keys
	// that changed but are read only when their daemon starts (the
	// section names the daemon; pool, tls, log and membership: all).
	NeedRestart []string `json:"need_restart,omitempty"`
}

// Daemon states a master reports.
const (
	DaemonRunning  = "running"
	DaemonBackoff  = "backoff" // exited; waits to be restarted
	DaemonStopped  = "stopped" // off
	DaemonStopping = "stopping"
)

// DaemonStatus is one daemon under a master.
type DaemonStatus struct {
	Name     string    `json:"name"`
	State    string    `json:"state"`
	PID      int       `json:"pid,omitempty"`
	Since    time.Time `json:"since"`
	Restarts int       `json:"restarts"`
	// NextStart is when a daemon in backoff starts again.
	NextStart time.Time `json:"next_start,omitzero"`
	// LastExit says how the daemon last ended ("exit status 1", ...).
	LastExit string `json:"last_exit,omitempty"`
}
