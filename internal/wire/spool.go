package wire

import (
	"context"
	"io"
	"net/http"
)

// Spooled jobs, condor_submit -spool and condor_transfer_data: the tool
// sends each job's input files to the schedd after the submit, which
// keeps them in the job's spool directory and releases the job; the
// job's output lands there too, and stays, with the completed job in the
// queue, until the tool fetches it and tells the schedd so. Archives are
// tar streams of plain files (docs/transfer.md, "Spooling").
const (
	// PathSpoolInput is PUT: a job's input files as a tar archive of
	// plain files named as the job ad names them (query job=C.P; the
	// job's owner or an administrator; WRITE). The job must be held
	// spooling its input; once every input is in, it is released.
	PathSpoolInput = "/v1/spool/input"
	// PathSpoolOutput is GET: the output files of a completed spooled
	// job as a tar archive, names relative to its spool directory (query
	// job=C.P; the job's owner or an administrator; WRITE).
	PathSpoolOutput = "/v1/spool/output"
	// PathSpoolDone is POST: the tool has the jobs' output; they leave
	// the queue and their spool directories go (SpoolDone → ActResult;
	// WRITE).
	PathSpoolDone = "/v1/spool/done"
)

// ContentTypeTar is the media type of spool archives.
const ContentTypeTar = "application/x-tar"

// SpoolDone names the jobs whose spooled output the tool fetched.
type SpoolDone struct {
	IDs []string `json:"ids"`
}

// SendStream sends body (nil: none) of the given media type, streamed,
// and returns the answer's body, which the caller closes; a failure
// status is the *Error the daemon sent.
func (cl *Client) SendStream(ctx context.Context, method, path string, body io.Reader, contentType string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, method, cl.base+path, body)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := cl.send(req)
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}
