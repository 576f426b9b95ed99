package submit

import (
	"strconv"
	"strings"

	"github.com/kite-sched/kite/classad/envargs"
	"github.com/kite-sched/kite/internal/attr"
)

// Command names (lower case) and the job attribute names condor_submit
// also accepts in their place.
var (
	universeKeys    = []string{"universe", "jobuniverse"}
	iwdKeys         = []string{"initialdir", "iwd", "initial_dir", "job_iwd"}
	executableKeys  = []string{"executable", "cmd"}
	transferExeKeys = []string{"transfer_executable", "transferexecutable"}
	argumentsKeys   = []string{"arguments", "args"}
	environmentKeys = []string{"environment", "env"}
	getenvKeys      = []string{"getenv", "get_env"}
	holdKeys        = []string{"hold"}
)

// vanillaUniverse is JobUniverse for the vanilla universe.
const vanillaUniverse = 5

// universeNumbers are HTCondor's universes by name, for error messages.
var universeNumbers = map[string]int{
	"standard": 1, "vanilla": 5, "scheduler": 7, "mpi": 8, "grid": 9, "globus": 9,
	"java": 10, "parallel": 11, "local": 12, "vm": 13, "docker": 5, "container": 5,
}

// stepUniverse sets JobUniverse: vanilla or java (run at startds), or
// scheduler or local (run by the schedd on its own host).
func stepUniverse(b *builder) error {
	v, m := b.value(universeKeys...)
	if v == "" {
		b.setInt("JobUniverse", vanillaUniverse)
		return nil
	}
	name := strings.ToLower(v)
	n, isNum := strconv.Atoi(v)
	_, known := universeNumbers[name]
	switch {
	case isNum == nil && n == vanillaUniverse, name == "vanilla":
		b.setInt("JobUniverse", vanillaUniverse)
		return nil
	case isNum == nil && n == attr.UniverseJava, name == "java":
		b.setInt("JobUniverse", attr.UniverseJava)
		return nil
	case name == universeContainer || name == universeDocker:
		b.setInt("JobUniverse", vanillaUniverse) // a topping of vanilla (cmd_container.go)
		b.setBool(map[string]string{universeContainer: attr.WantContainer, universeDocker: attr.WantDocker}[name], true)
		return nil
	case isNum == nil && n == attr.UniverseScheduler, name == "scheduler":
		b.setInt("JobUniverse", attr.UniverseScheduler)
		return nil
	case isNum == nil && n == attr.UniverseLocal, name == "local":
		b.setInt("JobUniverse", attr.UniverseLocal)
		return nil
	case isNum == nil && n > 0 && n <= 13, known:
		return b.errorf(m, "universe %s is not supported: Kite runs vanilla, java, container, docker, scheduler and local universe jobs", v)
	}
	return b.errorf(m, "unknown universe %q", v)
}

// stepIwd sets Iwd: initialdir made absolute against the submit
// directory, or the submit directory.
func stepIwd(b *builder) error {
	v, m := b.value(iwdKeys...)
	iwd := resolveIwd(v, b.x.env.Dir)
	if st := b.x.env.Stat; st != nil && !strings.Contains(iwd, "$$(") {
		if fi, err := st(iwd); err != nil || !fi.IsDir() {
			return b.errorf(m, "no such directory: %s", iwd)
		}
	}
	b.setString("Iwd", iwd)
	return nil
}

// stepExecutable sets Cmd, absolute against the submit directory (not the
// initial directory) unless the executable is not transferred.
func stepExecutable(b *builder) error {
	v, m := b.value(executableKeys...)
	if v == "" && b.isContainer() {
		b.setBool("TransferExecutable", false) // the image's entrypoint runs
		return nil
	}
	if v == "" {
		return b.errorf(nil, "no executable given: the executable command is required")
	}
	transfer := true
	if t, _ := b.value(transferExeKeys...); t != "" && (t[0] == 'F' || t[0] == 'f') {
		b.setBool("TransferExecutable", false)
		transfer = false
	}
	cmd := v
	if transfer && !isURL(v) {
		cmd = fullPath(v, b.x.env.Dir)
		if err := b.checkFile(cmd, m, "executable"); err != nil {
			return err
		}
	}
	b.setString("Cmd", cmd)
	return nil
}

// checkFile checks that a file exists, when the Env can tell.
func (b *builder) checkFile(name string, m *macro, what string) error {
	st := b.x.env.Stat
	if st == nil || strings.Contains(name, "$$(") {
		return nil
	}
	if _, err := st(name); err != nil {
		return b.errorf(m, "%s %s: no such file", what, name)
	}
	return nil
}

// stepArguments sets Args (old syntax) or Arguments (new syntax, the value
// in double quotes), as condor_submit does; with no arguments command,
// Arguments is "".
func stepArguments(b *builder) error {
	v, m := b.value(argumentsKeys...)
	if v == "" {
		b.setString("Arguments", "")
		return nil
	}
	if plainV1(v) {
		b.setString("Args", v) // what parsing and joining would give
		return nil
	}
	args, err := envargs.ParseArgs(v)
	if err != nil {
		return b.errorf(m, "arguments: %v", err)
	}
	if envargs.IsV2Quoted(v) {
		b.setString("Arguments", envargs.JoinArgsV2(args))
		return nil
	}
	raw, err := envargs.JoinArgsV1(args)
	if err != nil {
		return b.errorf(m, "arguments: %v", err)
	}
	b.setString("Args", raw)
	return nil
}

// plainV1 reports whether old-syntax arguments are already in the form
// condor_submit stores them: no quotes, and single spaces between words.
func plainV1(v string) bool {
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '"' || c == '\\' || c == '\t' || c == '\n' || c == '\r':
			return false
		case c == ' ' && (i == 0 || i == len(v)-1 || v[i+1] == ' '):
			return false
		}
	}
	return v != ""
}

// stepEnvironment sets Environment (new syntax) from the environment
// command and the variables getenv imports; environment wins over getenv.
func stepEnvironment(b *builder) error {
	v, m := b.value(environmentKeys...)
	env := &envargs.Env{}
	if v != "" {
		var err error
		if env, err = envargs.ParseEnv(v); err != nil {
			return b.errorf(m, "environment: %v", err)
		}
	}
	if err := b.importEnv(env, v != ""); err != nil {
		return err
	}
	b.setString("Environment", env.V2())
	return nil
}

// importEnv adds the submitter's variables that getenv selects and the
// environment command does not set. When the environment command is used,
// values that the old syntax cannot hold are skipped, as condor_submit
// does.
func (b *builder) importEnv(env *envargs.Env, v1Safe bool) error {
	list, _ := b.value(getenvKeys...)
	if list == "" {
		return nil
	}
	filter := matchAll
	if all, ok := b.x.parseBool(list); ok {
		if !all {
			return nil
		}
	} else {
		filter = newEnvFilter(list)
	}
	for _, kv := range b.x.env.Environ {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if _, set := env.Get(name); set || !filter(name) {
			continue
		}
		if v1Safe && strings.ContainsAny(val, ";\n") {
			continue
		}
		env.Set(name, val)
	}
	return nil
}

func matchAll(string) bool { return true }

// newEnvFilter returns a filter for a getenv match list: names and
// patterns with '*', separated by commas, semicolons or spaces, matched
// without regard to case; a '!' prefix rejects. With no accepting member,
// everything not rejected is accepted.
func newEnvFilter(list string) func(string) bool {
	var accept, reject []string
	for _, f := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ';' || r == ' ' || r == '\t' }) {
		if p, ok := strings.CutPrefix(f, "!"); ok {
			reject = append(reject, strings.ToLower(p))
		} else {
			accept = append(accept, strings.ToLower(f))
		}
	}
	return func(name string) bool {
		name = strings.ToLower(name)
		for _, p := range reject {
			if wildMatch(p, name) {
				return false
			}
		}
		if len(accept) == 0 {
			return true
		}
		for _, p := range accept {
			if wildMatch(p, name) {
				return true
			}
		}
		return false
	}
}

// wildMatch matches s against a pattern in which '*' stands for any run of
// characters.
func wildMatch(pat, s string) bool {
	parts := strings.Split(pat, "*")
	if len(parts) == 1 {
		return pat == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}

// stepStatus sets JobStatus: idle, or held when the hold command is true.
func stepStatus(b *builder) error {
	hold, _, err := b.boolValue(false, holdKeys...)
	if err != nil {
		return err
	}
	if !hold {
		b.setInt("JobStatus", jobIdle)
		return nil
	}
	b.setInt("JobStatus", jobHeld)
	b.setInt("HoldReasonCode", holdSubmittedOnHold)
	b.setString("HoldReason", "submitted on hold at user's request")
	return nil
}

// Job states and hold codes (htcondor-reference.md §1.2).
const (
	jobIdle             = 1
	jobHeld             = 5
	holdSubmittedOnHold = 15
)
