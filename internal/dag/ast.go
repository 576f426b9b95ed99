package dag

import (
	"fmt"

	"github.com/kite-sched/kite/internal/errlist"
)

// Pos is a place in a DAG file.
type Pos struct {
	File      string `json:"file,omitempty"`
	Line, Col int    `json:",omitempty"`
}

// String returns "file:line:col", leaving out what is unknown.
func (p Pos) String() string {
	switch {
	case p.Line == 0:
		return p.File
	case p.Col == 0:
		return fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col)
}

// Error is a mistake in a DAG file, where it was found.
type Error struct {
	Pos Pos
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// ErrorList is the mistakes Parse found (at most maxErrors): those of
// each line in file order, then those of names that no node has.
type ErrorList = errlist.List[*Error]

const maxErrors = 10

// Kind is what a node is.
type Kind int

// The kinds of node (the keyword that made it).
const (
	KindJob         Kind = iota // JOB
	KindFinal                   // FINAL: runs last, its result is the DAG's
	KindProvisioner             // PROVISIONER: runs first
	KindService                 // SERVICE: best effort, beside the DAG
	KindSubDAG                  // SUBDAG EXTERNAL: a nested DAG
)

var kindNames = [...]string{"JOB", "FINAL", "PROVISIONER", "SERVICE", "SUBDAG EXTERNAL"}

func (k Kind) String() string { return kindNames[k] }

// ScriptKind is when a script runs.
type ScriptKind int

// PRE runs before the node's job, POST after it, HOLD when a job of the
// node is held.
const (
	Pre ScriptKind = iota
	Post
	Hold
)

var scriptNames = [...]string{"PRE", "POST", "HOLD"}

func (k ScriptKind) String() string { return scriptNames[k] }

// Script is a node's PRE, POST or HOLD script.
type Script struct {
	Pos  Pos      `json:"pos"`
	Argv []string `json:"argv"` // the executable and its arguments, macros unexpanded
	// DeferStatus and DeferSecs: a script that exits with DeferStatus is
	// run again DeferSecs later (SCRIPT DEFER); DeferStatus 0 means no
	// DEFER.
	DeferStatus int `json:"defer_status,omitempty"`
	DeferSecs   int `json:"defer_secs,omitempty"`
	// Debug is the file the script's output is appended to (SCRIPT
	// DEBUG), and DebugWhich is STDOUT, STDERR or ALL.
	Debug      string `json:"debug,omitempty"`
	DebugWhich string `json:"debug_which,omitempty"`
}

// Var is one VARS macro of a node.
type Var struct {
	Name, Value string
	// Append: set after the submit file is read (it wins over the
	// file's); otherwise before it (PREPEND, the default).
	Append bool `json:",omitempty"`
}

// Node is one node of a DAG.
type Node struct {
	Name string `json:"name"`
	Pos  Pos    `json:"pos"`
	Kind Kind   `json:"kind,omitempty"`
	// Submit is the submit file (or for SUBDAG, the DAG file), relative
	// to Dir; Inline is an inline submit description instead (JOB name {
	// ... } or a SUBMIT-DESCRIPTION), and InlinePos where it starts.
	Submit    string `json:"submit,omitempty"`
	Inline    string `json:"inline,omitempty"`
	InlinePos Pos    `json:"inline_pos,omitzero"`
	// Dir is where the node is submitted and its scripts run, relative
	// to the DAG's directory ("" is the DAG's directory).
	Dir  string `json:"dir,omitempty"`
	Noop bool   `json:"noop,omitempty"`
	Done bool   `json:"done,omitempty"`
	Vars []Var  `json:"vars,omitempty"`
	// Retry is how many times a failed node is run again, unless it
	// exits with UnlessExit (when HasUnlessExit).
	Retry         int  `json:"retry,omitempty"`
	UnlessExit    int  `json:"unless_exit,omitempty"`
	HasUnlessExit bool `json:"has_unless_exit,omitempty"`
	// Scripts by ScriptKind.
	Scripts [3]*Script `json:"scripts"`
	// PreSkip: a PRE script that exits with it skips the job and POST
	// and the node succeeds (when HasPreSkip).
	PreSkip    int  `json:"pre_skip,omitempty"`
	HasPreSkip bool `json:"has_pre_skip,omitempty"`
	// Abort: ABORT-DAG-ON this node's exit value AbortOn, the DAG exiting
	// with AbortReturn (AbortOn when not HasAbortReturn).
	HasAbort       bool   `json:"has_abort,omitempty"`
	AbortOn        int    `json:"abort_on,omitempty"`
	AbortReturn    int    `json:"abort_return,omitempty"`
	HasAbortReturn bool   `json:"has_abort_return,omitempty"`
	Priority       int    `json:"priority,omitempty"`
	Category       string `json:"category,omitempty"`
	SavePoint      string `json:"save_point,omitempty"`
	// Parents and Children are node indexes; Weak the parents whose
	// child needs them only to finish (WEAK PARENT).
	Parents  []int `json:"parents,omitempty"`
	Weak     []int `json:"weak,omitempty"`
	Children []int `json:"children,omitempty"`
}

// DOT is the DOT command: a picture of the DAG.
type DOT struct {
	File      string `json:"file"`
	Update    bool   `json:"update,omitempty"`
	Overwrite bool   `json:"overwrite,omitempty"`
	Include   string `json:"include,omitempty"`
}

// NodeStatusFile is the NODE_STATUS_FILE command.
type NodeStatusFile struct {
	File    string `json:"file"`
	MinSecs int    `json:"min_secs"`
	Always  bool   `json:"always,omitempty"`
}

// Attr is one SET_JOB_ATTR.
type Attr struct{ Name, Value string }

// DAG is a parsed DAG file.
type DAG struct {
	File  string  `json:"file"`
	Nodes []*Node `json:"nodes"`
	// Final, Provisioner: the index of the FINAL and PROVISIONER nodes,
	// -1 when there is none.
	Final       int `json:"final"`
	Provisioner int `json:"provisioner"`
	// MaxJobs limits the node jobs of a category submitted at once.
	MaxJobs        map[string]int  `json:"max_jobs,omitempty"`
	Config         string          `json:"config,omitempty"`
	JobAttrs       []Attr          `json:"job_attrs,omitempty"`
	EnvGet         []string        `json:"env_get,omitempty"`
	EnvSet         []string        `json:"env_set,omitempty"`
	Dot            *DOT            `json:"dot,omitempty"`
	NodeStatusFile *NodeStatusFile `json:"node_status_file,omitempty"`
	JobstateLog    string          `json:"jobstate_log,omitempty"`
	// Reject: the file says REJECT (DAGMan refuses to run it).
	Reject bool `json:"reject,omitempty"`

	index map[string]int
}

// Node returns the index of the node with the name, or -1.
func (d *DAG) Node(name string) int {
	if d.index == nil {
		d.reindex()
	}
	if i, ok := d.index[name]; ok {
		return i
	}
	return -1
}

func (d *DAG) reindex() {
	d.index = make(map[string]int, len(d.Nodes))
	for i, n := range d.Nodes {
		d.index[n.Name] = i
	}
}
