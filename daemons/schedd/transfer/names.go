package transfer

import (
	"fmt"
	"path"
	"strings"

	"github.com/kite-sched/kite/daemons/schedd/queue"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/remap"
)

// Where an output lands on the submit side, as HTCondor's shadow writes
// it (HTCondor's manual: condor_submit, "transfer_output_files",
// "transfer_output_remaps"). The startd sends each file under its path in
// the sandbox; the schedd lands it:
//
//	output, error (Out, Err)          where the job ad says, absolute or against Iwd
//	transfer_output_files entry d/f   Iwd/f (the base name)
//	entry dir, a directory            Iwd/dir/... (the directory itself)
//	entry dir/, a trailing slash      Iwd/... (its contents)
//	no transfer_output_files          Iwd/name, for a plain name only
//
// then, when TransferOutputRemaps maps the name it lands as (or failing
// that the name it was sent as), at the remap's target instead. Missing
// directories are made for a directory's files and a remap's target.

// dest is where an output file is written, and whether its directories
// are made first.
type dest struct {
	path  string
	mkdir bool
}

// outputPath returns where an output file goes, if the job may send it.
// Remap targets count as named by the job; nothing else may leave Iwd.
func outputPath(v *queue.View, file string) (dest, error) {
	remaps, err := remap.Parse(v.String(attr.TransferOutputRemaps))
	if err != nil {
		return dest{}, fmt.Errorf("job %s: %v", v.ID, err)
	}
	land, named, err := landing(v, file)
	if err != nil {
		return dest{}, err
	}
	target, remapped, err := remaps.FindFirst(land, file)
	if err != nil {
		return dest{}, fmt.Errorf("job %s: %v", v.ID, err)
	}
	if remap.IsURL(target) || v.String(attr.OutputDestination) != "" {
		return dest{}, fmt.Errorf("output file %q of job %s goes to a URL, which the execution point sends it to", file, v.ID)
	}
	if !named && !remapped && leavesDir(file) {
		return dest{}, fmt.Errorf("output file %q of job %s would leave the job's directory", file, v.ID)
	}
	isStd := file == v.String(attr.Out) || file == v.String(attr.Err)
	return dest{resolve(v, target), remapped || !isStd && strings.Contains(land, "/")}, nil
}

// landing returns the name a file sent as file lands as, relative to Iwd
// unless absolute, and whether the job named it.
func landing(v *queue.View, file string) (string, bool, error) {
	for _, std := range []string{v.String(attr.Out), v.String(attr.Err)} {
		if std != "" && std != "/dev/null" && std == file {
			return file, true, nil
		}
	}
	if _, listed := v.Lookup(attr.TransferOutput); !listed {
		return file, false, nil
	}
	sent := path.Clean(file)
	for _, entry := range fileList(v, attr.TransferOutput) {
		e := path.Clean(entry)
		if sent == e {
			return path.Base(e), true, nil
		}
		rest, below := strings.CutPrefix(sent, e+"/")
		if !below || e == "." || hasDotDot(rest) {
			continue
		}
		if strings.HasSuffix(entry, "/") {
			return rest, true, nil
		}
		return path.Base(e) + "/" + rest, true, nil
	}
	return "", false, fmt.Errorf("job %s does not name %q as an output file", v.ID, file)
}

// hasDotDot reports whether a slash-separated path has a ".." part.
func hasDotDot(p string) bool {
	for _, part := range strings.Split(p, "/") {
		if part == ".." {
			return true
		}
	}
	return false
}

// leavesDir reports whether a file name the job did not name could land
// outside its directory: a path, or only dots.
func leavesDir(file string) bool {
	return strings.ContainsAny(file, `/\`) || strings.Trim(file, ".") == ""
}
