package wire

import "fmt"

// Reading a running job's files, condor_tail: the tool asks the schedd,
// which checks that the caller owns the job (or administers the pool) and
// that it runs, then asks the startd that runs it, with the job's claim,
// for a bounded range of the file. The claim id and the startd's address
// never leave the schedd. docs/protocol/schedd.md and startd.md describe
// the endpoints.
const (
	// PathTail is POST at the schedd: a range of a running job's file
	// (TailRequest → FileChunk; WRITE, the job's owner or an
	// administrator).
	PathTail = "/v1/jobs/tail"
	// PathClaimFile is POST at the startd: a range of a file of the job a
	// claim runs, read as the job's user and inside its sandbox
	// (ClaimFile → FileChunk; DAEMON).
	PathClaimFile = "/v1/claims/file"
)

// The streams a FileRange may name besides a file.
const (
	StreamStdout = "stdout"
	StreamStderr = "stderr"
)

// MaxFileChunk bounds the bytes one read of a job's file returns.
const MaxFileChunk = 1 << 20

// FileRange is a range of one of a job's files: its standard output or
// error output (Stream), or a file of its sandbox (Name).
type FileRange struct {
	Stream string `json:"stream,omitempty"`
	Name   string `json:"name,omitempty"`
	// Offset is where to begin; -1 reads the last Max bytes.
	Offset int64 `json:"offset"`
	// Max is the most bytes to return: 1 to MaxFileChunk.
	Max int `json:"max"`
}

// Check refuses a range that names no file or two, or is out of bounds.
func (r FileRange) Check() error {
	switch {
	case r.Stream != "" && r.Name != "":
		return fmt.Errorf("name a stream (%s, %s) or a file, not both", StreamStdout, StreamStderr)
	case r.Stream == "" && r.Name == "":
		return fmt.Errorf("name a stream (%s, %s) or a file", StreamStdout, StreamStderr)
	case r.Stream != "" && r.Stream != StreamStdout && r.Stream != StreamStderr:
		return fmt.Errorf("unknown stream %q (%s, %s)", r.Stream, StreamStdout, StreamStderr)
	case r.Offset < -1:
		return fmt.Errorf("offset %d: give -1 (the end) or a byte offset", r.Offset)
	case r.Max < 1 || r.Max > MaxFileChunk:
		return fmt.Errorf("max %d bytes: between 1 and %d", r.Max, MaxFileChunk)
	}
	return nil
}

// What names the file a range reads, for messages.
func (r FileRange) What() string {
	if r.Stream != "" {
		return "the job's " + r.Stream
	}
	return fmt.Sprintf("file %q", r.Name)
}

// TailRequest asks a schedd for a range of a running job's file.
type TailRequest struct {
	Job string `json:"job"` // cluster.proc
	FileRange
}

// ClaimFile asks a startd for a range of a file of the job a claim runs.
type ClaimFile struct {
	ClaimID string `json:"claim_id"`
	FileRange
}

// FileChunk is bytes of a job's file.
type FileChunk struct {
	// Offset is where Data begins: the offset asked for, or, for -1 or an
	// offset past the end of a file that shrank, the start of its last
	// Max bytes.
	Offset int64  `json:"offset"`
	Data   []byte `json:"data"`
	Size   int64  `json:"size"` // the file's size when it was read
}
