package submit

import (
	"errors"
	"sort"
	"strings"

	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/remap"
	"github.com/kite-sched/kite/internal/xferplugin"
)

// stdFile describes one of the standard files: its commands and
// attributes.
type stdFile struct {
	keys, transferKeys, streamKeys []string
	attr, transferAttr, streamAttr string
}

var (
	stdinFile = stdFile{
		keys: []string{"input", "stdin"}, transferKeys: []string{"transfer_input", "transferin"},
		streamKeys: []string{"stream_input", "streamin"}, attr: "In", transferAttr: "TransferIn", streamAttr: "StreamIn",
	}
	stdoutFile = stdFile{
		keys: []string{"output", "stdout"}, transferKeys: []string{"transfer_output", "transferout"},
		streamKeys: []string{"stream_output", "streamout"}, attr: "Out", transferAttr: "TransferOut", streamAttr: "StreamOut",
	}
	stderrFile = stdFile{
		keys: []string{"error", "stderr"}, transferKeys: []string{"transfer_error", "transfererr"},
		streamKeys: []string{"stream_error", "streamerr"}, attr: "Err", transferAttr: "TransferErr", streamAttr: "StreamErr",
	}
)

// nullFile is what an unset standard file is.
const nullFile = "/dev/null"

// stdStep returns the step that sets one standard file. The name is kept
// as written, relative to the initial directory, as condor_submit keeps
// it; the file is transferred (TransferX) unless it is /dev/null.
func stdStep(f stdFile) func(b *builder) error {
	return func(b *builder) error {
		transfer, _, err := b.boolValue(true, f.transferKeys...)
		if err != nil {
			return err
		}
		stream, _, err := b.boolValue(false, f.streamKeys...)
		if err != nil {
			return err
		}
		file, _ := b.value(f.keys...)
		if file == "" || file == nullFile {
			file, transfer = nullFile, false
		}
		b.setString(f.attr, file)
		if transfer {
			b.setBool(f.streamAttr, stream)
		} else {
			b.setBool(f.transferAttr, false)
		}
		return nil
	}
}

// stepLog sets UserLog, the job event log, absolute against the initial
// directory, and UserLogUseXML.
func stepLog(b *builder) error {
	if v, _ := b.value("log", "userlog"); v != "" {
		b.setString("UserLog", fullPath(v, b.attrString("Iwd")))
	}
	xml, set, err := b.boolValue(false, "log_xml", "userlogusexml")
	if set {
		b.setBool("UserLogUseXML", xml)
	}
	return err
}

// stepImageSize sets ExecutableSize (KiB, measured when the Env can stat
// files) and ImageSize (image_size, or the executable's size).
func stepImageSize(b *builder) error {
	exe := b.sizeKiB(b.attrString("Cmd"))
	b.setInt("ExecutableSize", exe)
	v, m := b.value("image_size", "imagesize")
	if v == "" {
		b.setInt("ImageSize", exe)
		return nil
	}
	n, ok := parseQuantity(v, 1024)
	if !ok || n < 1 {
		return b.errorf(m, "image_size = %s is invalid: it must be a positive size", v)
	}
	b.setInt("ImageSize", n)
	return nil
}

// sizeKiB returns a file's size in KiB, rounded up; 0 when unknown.
func (b *builder) sizeKiB(name string) int64 {
	if b.x.env.Stat == nil || name == "" || isURL(name) {
		return 0
	}
	fi, err := b.x.env.Stat(name)
	if err != nil || fi.IsDir() {
		return 0
	}
	return (fi.Size() + 1023) / 1024
}

// File transfer modes.
const (
	transferYes      = "YES"
	transferNo       = "NO"
	transferIfNeeded = "IF_NEEDED"
	onExit           = "ON_EXIT"
	onExitOrEvict    = "ON_EXIT_OR_EVICT"
	onSuccess        = "ON_SUCCESS"
	never            = "NEVER"
)

// transferSpec is what the file transfer commands say.
type transferSpec struct {
	in, out            []string
	inGiven, outGiven  bool
	should, when       string
	shouldDef, whenDef bool
	shouldM, whenM     *macro
}

// scheddNoTransfer are the commands whose effect needs a sandbox and a
// transfer back: the schedd runs local and scheduler universe jobs in
// their initial directory, with none (docs/universes.md), so a job that
// set them would leave its files elsewhere than it asked.
var scheddNoTransfer = [][]string{
	{"transfer_output_remaps", "transferoutputremaps"},
	{"output_destination", "outputdestination"},
	{"transfer_plugins", "transferplugins"},
	{"transfer_checkpoint_files", "transfercheckpointfiles"},
}

// noScheddTransfer refuses scheddNoTransfer's commands in a job the
// schedd runs itself.
func (b *builder) noScheddTransfer() error {
	if !b.runsOnSchedd() {
		return nil
	}
	for _, keys := range scheddNoTransfer {
		if v, m := b.value(keys...); v != "" {
			return b.errorf(m, "%s is not supported in the local and scheduler universes: Kite runs these jobs in their initial directory with no file transfer", m.name)
		}
	}
	return nil
}

// stepTransfer sets ShouldTransferFiles, WhenToTransferOutput, the
// transfer lists, FileSystemDomain and the input sizes, with
// condor_submit's checks of contradictory settings.
func stepTransfer(b *builder) error {
	if err := b.noScheddTransfer(); err != nil {
		return err
	}
	t, err := b.readTransfer()
	if err != nil {
		return err
	}
	if err := t.reconcile(b); err != nil {
		return err
	}
	b.setString("ShouldTransferFiles", t.should)
	if t.should != transferNo {
		b.setString("WhenToTransferOutput", t.when)
		if t.inGiven {
			b.setString("TransferInput", strings.Join(t.in, ","))
		}
		if t.outGiven {
			b.setString("TransferOutput", strings.Join(t.out, ","))
		}
	}
	if t.should != transferYes && !b.has("FileSystemDomain") && b.x.env.Host.FileSystemDomain != "" {
		b.setString("FileSystemDomain", b.x.env.Host.FileSystemDomain)
	}
	if err := b.diskUsage(t); err != nil {
		return err
	}
	if err := b.outputDestination(); err != nil {
		return err
	}
	if v, m := b.value("transfer_checkpoint_files", "transfercheckpointfiles"); v != "" {
		for _, f := range commaList(v) {
			if strings.Contains(f, "/") {
				return b.errorf(m, "transfer_checkpoint_files: %q: Kite's checkpoints hold files of the sandbox's top directory, not paths or directories", f)
			}
		}
	}
	if v, m := b.value("transfer_plugins", "transferplugins"); v != "" {
		if _, err := xferplugin.ParseJobPlugins(v); err != nil {
			return b.errorf(m, "%v", err)
		}
	}
	return b.remaps()
}

// jobMethods are the URL schemes the job's own plugins serve
// (transfer_plugins): no machine needs to.
func (b *builder) jobMethods() map[string]bool {
	plugins, _ := xferplugin.ParseJobPlugins(b.attrString("TransferPlugins"))
	out := map[string]bool{}
	for _, p := range plugins {
		for _, m := range p.Methods {
			out[m] = true
		}
	}
	return out
}

// outputDestination checks that output_destination is a URL: every
// output goes there through a plugin of the execution point (condor_submit
// warns and goes on; Kite refuses what would send the outputs nowhere).
func (b *builder) outputDestination() error {
	v, m := b.value("output_destination", "outputdestination")
	if v != "" && !isURL(v) {
		return b.errorf(m, "output_destination must be a URL (scheme://...), not %q; output_directory names a directory", v)
	}
	return nil
}

// readTransfer reads the file transfer commands.
func (b *builder) readTransfer() (*transferSpec, error) {
	t := &transferSpec{}
	if v, _ := b.value("transfer_input_files", "transferinputfiles"); v != "" {
		if v != `""` {
			t.in = commaList(v)
		}
		t.inGiven = len(t.in) > 0
	}
	if v, _ := b.value("transfer_output_files", "transferoutputfiles"); v != "" {
		if v != `""` {
			t.out = commaList(v)
		}
		t.outGiven = true
	}
	var v string
	v, t.shouldM = b.value("shouldtransferfiles", "should_transfer_files")
	switch t.should = strings.ToUpper(v); t.should {
	case "":
		t.should, t.shouldDef = transferIfNeeded, true
	case "TRUE", "ALWAYS": // condor_submit takes ALWAYS as YES
		t.should = transferYes
	case "FALSE":
		t.should = transferNo
	case transferYes, transferNo, transferIfNeeded:
	default:
		return nil, b.errorf(t.shouldM, "invalid value %q for should_transfer_files: use YES, NO or IF_NEEDED", v)
	}
	v, t.whenM = b.value("whentotransferoutput", "when_to_transfer_output")
	switch t.when = strings.ToUpper(v); t.when {
	case "":
		t.when, t.whenDef = onExit, true
	case onExitOrEvict:
		b.warnf(t.whenM, "when_to_transfer_output = ON_EXIT_OR_EVICT: Kite sends outputs when the job exits, not when it is evicted; checkpoint_exit_code keeps a job's progress across evictions")
	case onSuccess:
		b.warnf(t.whenM, "when_to_transfer_output = ON_SUCCESS: Kite sends outputs whatever the job's exit code")
	case onExit, never:
	default:
		return nil, b.errorf(t.whenM, "invalid value %q for when_to_transfer_output: use ON_EXIT, ON_EXIT_OR_EVICT or ON_SUCCESS", v)
	}
	return t, nil
}

// reconcile applies condor_submit's defaults and rejects contradictions
// between should_transfer_files, when_to_transfer_output and the lists.
func (t *transferSpec) reconcile(b *builder) error {
	if t.should == transferNo && (t.inGiven || t.outGiven) {
		return b.errorf(t.shouldM, "transfer_input_files or transfer_output_files given, but should_transfer_files is NO")
	}
	if !t.shouldDef && t.whenDef && t.should == transferNo {
		t.when = never
	}
	if (t.should == transferNo) != (t.when == never) {
		return b.errorf(t.whenM, "when_to_transfer_output is %s, yet should_transfer_files is %s", t.when, t.should)
	}
	if t.shouldDef && t.when == onExitOrEvict {
		t.should = transferYes
	}
	if t.when == onExitOrEvict && t.should == transferIfNeeded {
		return b.errorf(t.whenM, "when_to_transfer_output = ON_EXIT_OR_EVICT and should_transfer_files = IF_NEEDED are incompatible")
	}
	if t.should == transferNo {
		if exe, set, _ := b.boolValue(false, transferExeKeys...); set && exe {
			return b.errorf(t.shouldM, "transfer_executable is true, but should_transfer_files is NO")
		}
	}
	return nil
}

// diskUsage sets DiskUsage (disk_usage, or the executable and input
// files' size in KiB) and TransferInputSizeMB. condor_submit sets the
// latter only without disk_usage; Kite always does, because the default
// request_disk refers to it.
func (b *builder) diskUsage(t *transferSpec) error {
	iwd := b.attrString("Iwd")
	var in int64
	for _, f := range t.in {
		in += b.sizeKiB(fullPath(f, iwd))
	}
	if stdin := b.attrString("In"); stdin != nullFile && stdin != "" {
		in += b.sizeKiB(fullPath(stdin, iwd))
	}
	if e, ok := b.attr("ExecutableSize"); ok {
		if l, ok := e.(*ast.Literal); ok {
			in += l.Int
		}
	}
	b.setInt("TransferInputSizeMB", in/1024)
	usage := in
	if v, m := b.value("disk_usage", "diskusage"); v != "" {
		n, ok := parseQuantity(v, 1024)
		if !ok || n < 1 {
			return b.errorf(m, "disk_usage = %s is invalid: it must be at least 1", v)
		}
		usage = n
	}
	b.setInt("DiskUsage", usage)
	return nil
}

// remaps sets TransferOutputRemaps from transfer_output_remaps, which must
// be in double quotes and hold "name = newname ; ..." as package remap
// reads it; a mistake is placed at its column when the value is written
// without macros.
func (b *builder) remaps() error {
	v, m := b.value("transfer_output_remaps", "transferoutputremaps")
	if v == "" {
		return nil
	}
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return b.errorf(m, "transfer_output_remaps must be a quoted string, not: %s", v)
	}
	list := v[1 : len(v)-1]
	if _, err := remap.Parse(list); err != nil {
		var se *remap.SyntaxError
		if !errors.As(err, &se) {
			return b.errorf(m, "%v", err)
		}
		if raw, lead := trimLeft(m.value); !m.item && trimSpace(raw) == v {
			return b.x.errorPos(m.sp.at(lead+1+se.Offset), "transfer_output_remaps: %s", se.Msg)
		}
		return b.errorf(m, "transfer_output_remaps: %s (in %q)", se.Msg, list)
	}
	b.setString("TransferOutputRemaps", list)
	return nil
}

// urls lists the job's files that move by URL, each through a plugin of
// the execution point: inputs, the output destination and remap targets.
func (b *builder) urls() []string {
	out := commaList(b.attrString("TransferInput"))
	if d := b.attrString("OutputDestination"); d != "" {
		out = append(out, d)
	}
	if list, err := remap.Parse(b.attrString("TransferOutputRemaps")); err == nil {
		for _, r := range list {
			out = append(out, r.Target)
		}
	}
	return out
}

// urlSchemes returns the schemes of the URLs in a transfer list, lower
// case, sorted and without repeats.
func urlSchemes(files []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		if !isURL(f) {
			continue
		}
		s := strings.ToLower(f[:strings.Index(f, "://")])
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}
