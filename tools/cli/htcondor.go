package cli

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// HTCondor's command lines: kite run as condor_q (a link made by kite
// install-aliases) is kite q, and every command takes HTCondor's
// single-dash long options as its manual pages spell them. One rewrite,
// htcondorArgs, turns such a command line into kite's own before cobra
// parses it; an HTCondor option Kite cannot honour is refused by name.

// condorTools maps HTCondor's tool names to the kite commands that do
// their work. Only tools Kite has are here: a condor_* name not listed is
// refused, never run as plain kite.
var condorTools = map[string]string{
	"condor_submit":        "submit",
	"condor_q":             "q",
	"condor_status":        "status",
	"condor_rm":            "rm",
	"condor_hold":          "hold",
	"condor_release":       "release",
	"condor_qedit":         "qedit",
	"condor_history":       "history",
	"condor_wait":          "wait",
	"condor_userprio":      "userprio",
	"condor_reschedule":    "reschedule",
	"condor_advertise":     "advertise",
	"condor_on":            "on",
	"condor_off":           "off",
	"condor_restart":       "restart",
	"condor_reconfig":      "reconfig",
	"condor_version":       "version",
	"condor_tail":          "tail",
	"condor_vacate_job":    "vacate_job",
	"condor_ssh_to_job":    "ssh_to_job",
	"condor_transfer_data": "transfer_data",
	"condor_submit_dag":    "submit_dag",
}

// condorToolNames returns the names of condorTools, sorted.
func condorToolNames() []string {
	names := make([]string, 0, len(condorTools))
	for n := range condorTools {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// programArgs returns the kite command line a program name and its
// arguments stand for: condor_q -af X is q -af X, kite's own name (or any
// other not starting with condor_) runs kite with the arguments as given.
func programArgs(prog string, args []string) ([]string, error) {
	if !strings.HasPrefix(prog, "condor_") {
		return args, nil
	}
	cmd, ok := condorTools[prog]
	if !ok {
		return nil, fmt.Errorf("%s is not supported: Kite has no such tool (it has %s)", prog, strings.Join(condorToolNames(), ", "))
	}
	return append([]string{cmd}, args...), nil
}

// condorAliases are HTCondor's other spellings of kite's options.
var condorAliases = map[string]string{
	"autoformat": "af",
	"totals":     "total", // condor_status -totals
	// condor_submit_dag's options in their manual's case
	"DoRescueFrom": "dorescuefrom",
	"AutoRescue":   "autorescue",
	"MaxJobs":      "maxjobs",
	"MaxIdle":      "maxidle",
	"MaxPre":       "maxpre",
	"MaxPost":      "maxpost",
	"MaxHold":      "maxhold",
	"config":       "dagman_config", // submit_dag's: the DAG's DAGMan configuration, not kite's
}

// condorUnsupported are the options of HTCondor's tools, as their manual
// pages (HTCondor 25) list them, that the kite command of the same work
// cannot honour, with why; an option the kite command has is never here.
// Keys are kite command names.
var condorUnsupported = map[string]map[string]string{
	"q": {
		"submitter":       "use -global with the owner as an argument",
		"jobads":          "Kite reads jobs from the schedd only",
		"jobset":          "Kite has no job sets",
		"autocluster":     "Kite does not show autoclusters",
		"cputime":         "Kite's tables show wall-clock time only",
		"currentrun":      "Kite's RUN_TIME is the time of every run",
		"cumulative-time": "Kite's RUN_TIME is always cumulative; the option changes nothing",
		"expert":          "Kite has one form of error messages",
		"grid":            "Kite has no grid universe",
		"hold-codes":      "use -hold, or -af HoldReasonCode HoldReasonSubCode",
		"io":              "Kite does not count a job's bytes transferred",
		"xml":             "Kite prints ads as -long or -json",
		"aaf":             "Kite's -af replaces the table; it does not append to it",
		"print-format":    "Kite has no print format files",
		"unmatchable":     "use kite analyze",
		"machine":         "kite analyze looks at every slot",
		"mconstraint":     "kite analyze looks at every slot",
		"slotads":         "kite analyze reads slots from the collector only",
		"userprios":       "kite analyze does not weigh user priorities",
		"nouserprios":     "kite analyze does not weigh user priorities",
		"reverse-analyze": "kite analyze analyzes jobs, not machines",
		"reverse":         "kite analyze analyzes jobs, not machines",
		"verbose":         "kite analyze has one level of detail",
		"debug":           "Kite's tools print no debugging output",
	},
	"history": {
		"daemon":           "Kite's daemons keep no history of their own ads",
		"diagnostic":       "Kite's tools have no diagnostic mode",
		"extract":          "Kite reads the schedd's history, not files",
		"inherit":          "Kite's tools are not started by its daemons",
		"no-librarian":     "Kite has no librarian index",
		"stream-results":   "Kite's tools print their results",
		"transfer":         "Kite keeps no records of transfers",
		"transfer-history": "Kite keeps no records of transfers",
		"type":             "Kite's history holds job ads only",
		"file":             "Kite reads the schedd's history, not files",
		"userlog":          "Kite reads the schedd's history, not event logs",
		"search":           "Kite reads the schedd's history, not files",
		"dir":              "Kite reads the schedd's history, not files",
		"directory":        "Kite reads the schedd's history, not files",
		"local":            "Kite reads the schedd's history",
		"startd":           "Kite's startds keep no history",
		"epochs":           "Kite keeps no per-run records",
		"xml":              "Kite prints ads as -long or -json",
		"jsonl":            "Kite prints ads as -long or -json",
		"print-format":     "Kite has no print format files",
		"since":            "use -constraint",
		"completedsince":   "use -constraint 'CompletionDate > T'",
		"scanlimit":        "use -limit",
		"debug":            "Kite's tools print no debugging output",
	},
	"status": {
		"aaf":          "Kite's -af replaces the table; it does not append to it",
		"annex":        "Kite has no annexes",
		"broken":       "Kite's startds report no broken slots",
		"healthy":      "Kite's startds report no health checks",
		"lvm":          "Kite does not enforce disk use with LVM",
		"expert":       "Kite has one form of error messages",
		"print-format": "Kite has no print format files",
		"ads":          "Kite reads ads from the collector only",
		"annex-name":   "Kite has no annexes",
		"cod":          "Kite has no computing on demand",
		"defrag":       "Kite has no defrag daemon",
		"direct":       "Kite asks the collector",
		"java":         "Kite has no java universe",
		"vm":           "Kite has no vm universe",
		"license":      "Kite has no license ads",
		"grid":         "Kite has no grid ads",
		"storage":      "Kite has no storage ads",
		"generic":      "Kite has no generic ads",
		"subsystem":    "use -constraint 'MyType == \"...\"'",
		"server":       "Kite's status has one slot view",
		"state":        "Kite's status has one slot view; use -af Name State Activity",
		"compact":      "Kite's status has one slot view",
		"run":          "use -claimed",
		"diagnose":     "Kite has no diagnosis mode",
		"native":       "Kite's status has one slot view",
		"offline":      "Kite has no offline ads",
		"snapshot":     "Kite's status has one slot view",
		"sort":         "Kite sorts ads by name",
		"xml":          "Kite prints ads as -long or -json",
		"target":       "Kite has no target ads in status",
		"merge":        "Kite has no merge mode",
		"statistics":   "Kite's ads carry no statistics levels",
		"debug":        "Kite's tools print no debugging output",
	},
	"rm": {
		"long":     "Kite's rm prints one line per selection, not the result ad",
		"totals":   "Kite's rm prints one line per selection",
		"transfer": "Kite's schedd sends output back only for jobs that complete",
		"addr":     "use -name host:port",
		"debug":    "Kite's tools print no debugging output",
	},
	"hold": {
		"addr":  "use -name host:port",
		"debug": "Kite's tools print no debugging output",
	},
	"release": {
		"addr":  "use -name host:port",
		"debug": "Kite's tools print no debugging output",
	},
	"qedit": {
		"dry-run": "Kite's qedit applies an edit whole or refuses it, naming the attribute it may not set",
		"edits":   "give the edits as arguments: ATTR VALUE ...",
		"jobids":  "name the jobs as the first argument (cluster or cluster.proc)",
		"owner":   "name the owner as the first argument",
		"forward": "Kite's schedd forwards nothing",
		"debug":   "Kite's tools print no debugging output",
	},
	"userprio": {
		"activefrom":         "-usage shows when each user's usage began and last was",
		"duration":           "-usage shows when each user's usage began and last was",
		"af":                 "Kite's userprio prints its table, or -json",
		"long":               "Kite's userprio prints its table, or -json",
		"constraint":         "Kite's userprio shows every user the accountant knows",
		"cancelceilinglease": "Kite has no submitter ceilings, floors or leases",
		"cancelfactorlease":  "Kite has no submitter ceilings, floors or leases",
		"cancelfloorlease":   "Kite has no submitter ceilings, floors or leases",
		"setceiling":         "Kite has no submitter ceilings, floors or leases",
		"setfloor":           "Kite has no submitter ceilings, floors or leases",
		"collector":          "Kite's userprio asks the negotiator (-name gives its address)",
		"negotiator":         "Kite's userprio always asks the negotiator",
		"delete":             "Kite's accountant deletes no user; -resetusage clears a user's usage and priority",
		"resetall":           "reset users one at a time with -resetusage USER",
		"setaccum":           "Kite's accountant records usage only from what jobs use",
		"setbegin":           "Kite's accountant records usage only from what jobs use",
		"setlast":            "Kite's accountant records usage only from what jobs use",
		"flat":               "Kite has no accounting groups",
		"hierarchical":       "Kite has no accounting groups",
		"groupid":            "Kite has no accounting groups",
		"grouporder":         "Kite has no accounting groups",
		"quotas":             "Kite has no accounting groups",
		"surplus":            "Kite has no accounting groups",
		"getreslist":         "Kite's accountant does not record what each user holds; kite q -run shows running jobs",
		"inputfile":          "Kite's userprio asks the negotiator, not files",
		"legacy":             "Kite's userprio has one table layout",
		"modular":            "Kite's userprio has one table layout",
		"most":               "Kite's userprio has one table layout; -all and -usage add columns",
		"order":              "Kite's userprio sorts users by effective priority",
		"sortkey":            "Kite's userprio sorts users by effective priority",
		"priority":           "Kite's userprio shows priorities by default",
		"grouprollup":        "Kite has no accounting groups",
		"debug":              "Kite's tools print no debugging output",
	},
	"wait": {
		"debug": "Kite's tools print no debugging output",
	},
	"tail": {
		"debug": "Kite's tools print no debugging output",
	},
	"ssh_to_job": {
		"ssh":            "Kite streams the terminal itself, with no ssh program (sftp and scp do not apply)",
		"keygen-options": "Kite uses no ssh keys: the pool's tokens authenticate the session",
		"debug":          "Kite's tools print no debugging output",
	},
	"vacate_job": {
		"addr":  "use -name host:port",
		"debug": "Kite's tools print no debugging output",
	},
	"submit_dag": {
		"update_submit":         "Kite writes no .condor.sub file: the schedd runs the DAG itself",
		"AllowVersionMismatch":  "Kite writes no .condor.sub file: the schedd runs the DAG itself",
		"no_recurse":            "the schedd reads a SUBDAG EXTERNAL node's DAG file when the node starts; there are no submit files to make ahead",
		"do_recurse":            "the schedd reads a SUBDAG EXTERNAL node's DAG file when the node starts; there are no submit files to make ahead",
		"usedagdir":             "Kite submits each node from its DIR, relative to the DAG file's directory",
		"insert_sub_file":       "Kite writes no .condor.sub file: the schedd runs the DAG itself",
		"append":                "Kite writes no .condor.sub file: the schedd runs the DAG itself",
		"notification":          "Kite sends no email",
		"dagman":                "the schedd runs the DAG itself",
		"schedd-daemon-ad-file": "use -name",
		"schedd-address-file":   "use -name",
		"DumpRescue":            "use -no_submit",
		"debug":                 "Kite's tools print no debugging output",
		"verbose":               "Kite's submit_dag prints one summary",
		"suppress_notification": "Kite sends no email",
		"priority":              "use PRIORITY lines in the DAG file",
		"RescueFile":            "use -DoRescueFrom N",
		"DoRecovery":            "Kite's schedd always recovers a DAG where it was",
		"import_env":            "node jobs get the environment their submit files give",
		"include_env":           "node jobs get the environment their submit files give",
		"insert_env":            "node jobs get the environment their submit files give",
	},
	"submit": {
		"debug":    "Kite's tools print no debugging output",
		"addr":     "use -name host:port",
		"password": "Kite authenticates with tokens (-token), not passwords",
		"dump":     "use -dry-run FILE",
		"factory":  "Kite makes a factory of a submit file that sets max_idle or max_materialize; add one of them",
		"unused":   "Kite always warns about a name that is neither a submit command nor used as a macro",
	},
}

// condorPool is HTCondor's -pool HOST[:PORT] in kite's form, the value
// of --set pool.collector=HOST:PORT (HTCondor's port, 9618, when none is
// given).
func condorPool(value string) string {
	if _, _, err := net.SplitHostPort(value); err != nil {
		value = net.JoinHostPort(value, "9618")
	}
	return "pool.collector=" + value
}

// notSupported is the refusal of an HTCondor option Kite cannot honour.
type notSupported struct{ option, why string }

func (e notSupported) Error() string {
	return fmt.Sprintf("option -%s is not supported: %s", e.option, e.why)
}

// htcondorArgs accepts HTCondor's single-dash long options for the
// command args run: -long, -af, -autoformat:h, -constraint EXPR, -pool
// HOST. A single-dash word naming a long flag of that command (or a
// unique prefix of one, as HTCondor's tools take -const) becomes the
// double-dash form, "-af:lh" becomes "--af=lh"; one naming an HTCondor
// option the command cannot honour is refused, and any other word that
// is no run of the command's one-letter flags is an unknown option.
// Values of flags are left alone, however they start.
func htcondorArgs(root *cobra.Command, args []string) ([]string, error) {
	cmd, _, err := root.Find(args)
	if err != nil || cmd == root {
		return args, nil
	}
	cmd.InitDefaultHelpFlag()
	flags := commandFlags(cmd)
	out := make([]string, 0, len(args))
	seen := 0 // words that are no options: the command's name, then its arguments
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...), nil
		}
		if strings.HasPrefix(a, "--") {
			f := flags[strings.TrimPrefix(a, "--")]
			i = appendFlag(&out, a, f, args, i)
			continue
		}
		if len(a) < 3 || a[0] != '-' || !isLetter(a[1]) {
			out = append(out, a)
			if lastOption(cmd, &seen, a) {
				return append(out, args[i+1:]...), nil
			}
			continue
		}
		name, rest := a[1:], ""
		if j := strings.IndexAny(name, "=:"); j >= 0 {
			name, rest = name[:j], "="+name[j+1:]
		}
		switch {
		case name == "pool" && flags["pool"] == nil:
			v := strings.TrimPrefix(rest, "=")
			if v == "" && i+1 < len(args) {
				i++
				v = args[i]
			}
			out = append(out, "--set", condorPool(v))
			continue
		case name == "version" && flags["version"] == nil:
			return []string{"version"}, nil
		}
		f, err := condorFlag(cmd, flags, name)
		var ns notSupported
		if err != nil && !errors.As(err, &ns) && shorthands(cmd, name) {
			out = append(out, a)
			continue
		}
		if err != nil {
			return nil, err
		}
		if rest != "" {
			out = append(out, "--"+f.Name+rest)
			continue
		}
		if i, err = appendCondorFlag(&out, f, args, i); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// condorWords is the annotation of a flag whose single-dash HTCondor form
// takes other words than kite's: condorOneWord, the next word even though
// kite's flag has a default (condor_submit -dry-run FILE, where a bare
// --dry-run prints); condorManyWords, the words up to the next option,
// joined (condor_submit -queue ARGS..., which also takes a bare "-" and
// stops there).
const (
	condorWords     = "htcondor-words"
	condorOneWord   = "one"
	condorManyWords = "many"
)

// appendCondorFlag appends the single-dash option args[i], naming flag f,
// and the values it takes, as appendFlag does unless f's condorWords
// annotation says otherwise, and returns the index of the last word used.
func appendCondorFlag(out *[]string, f *pflag.Flag, args []string, i int) (int, error) {
	word := "--" + f.Name
	switch words := f.Annotations[condorWords]; {
	case slices.Equal(words, []string{condorOneWord}) && i+1 < len(args) && condorValue(args[i+1]):
		*out = append(*out, word+"="+args[i+1])
		return i + 1, nil
	case slices.Equal(words, []string{condorManyWords}):
		j := i + 1
		for j < len(args) && condorValue(args[j]) {
			j++
			if args[j-1] == "-" {
				break
			}
		}
		if j == i+1 {
			return i, usageError{fmt.Errorf("option -%s needs arguments", f.Name)}
		}
		*out = append(*out, word+"="+strings.Join(args[i+1:j], " "))
		return j - 1, nil
	}
	return appendFlag(out, word, f, args, i), nil
}

// condorValue reports whether a word is a value in condor_submit's
// reading: a bare "-" (standard input or output) or no option.
func condorValue(w string) bool { return w == "-" || !strings.HasPrefix(w, "-") }

// appendFlag appends the flag word args[i] (written as word) and the
// values it takes, and returns the index of the last word used: a flag
// without a default value takes the next word, whatever it looks like;
// -format takes two, made one value.
func appendFlag(out *[]string, word string, f *pflag.Flag, args []string, i int) int {
	switch {
	case f == nil || f.NoOptDefVal != "" || i+1 == len(args):
		*out = append(*out, word)
		return i
	case f.Value.Type() == (&printfFormat{}).Type() && i+2 < len(args):
		*out = append(*out, word+"="+args[i+1]+formatSep+args[i+2])
		return i + 2
	}
	*out = append(*out, word, args[i+1])
	return i + 1
}

// commandFlags are the long flags cmd takes: its own and those it
// inherits.
func commandFlags(cmd *cobra.Command) map[string]*pflag.Flag {
	flags := map[string]*pflag.Flag{}
	add := func(f *pflag.Flag) { flags[f.Name] = f }
	cmd.LocalFlags().VisitAll(add)
	cmd.InheritedFlags().VisitAll(add)
	return flags
}

// condorFlag finds the flag an HTCondor option names: the flag of that
// name or alias, else the only one it is a prefix of.
func condorFlag(cmd *cobra.Command, flags map[string]*pflag.Flag, name string) (*pflag.Flag, error) {
	if alias, ok := condorAliases[name]; ok && flags[alias] != nil {
		name = alias
	}
	if f := flags[name]; f != nil {
		return f, nil
	}
	if why, ok := condorUnsupported[cmd.Name()][name]; ok {
		return nil, usageError{notSupported{name, why}}
	}
	var matches []string
	for n := range flags {
		if strings.HasPrefix(n, name) {
			matches = append(matches, n)
		}
	}
	switch len(matches) {
	case 1:
		return flags[matches[0]], nil
	case 0:
		return nil, usageError{fmt.Errorf("unknown option -%s (%s --help lists the options)", name, cmd.CommandPath())}
	}
	slices.Sort(matches)
	return nil, usageError{fmt.Errorf("option -%s is ambiguous: -%s", name, strings.Join(matches, ", -"))}
}

// shorthands reports whether a word is a run of cmd's one-letter flags,
// which pflag reads itself.
func shorthands(cmd *cobra.Command, word string) bool {
	for _, c := range word {
		if cmd.Flags().ShorthandLookup(string(c)) == nil {
			return false
		}
	}
	return true
}

// condorArgsEnd, a command's annotation, says that its options end at
// its first argument: the words after it are another program's
// (condor_ssh_to_job 1.0 ls -la), left as they are.
const condorArgsEnd = "htcondor-args-end"

// lastOption reports whether word, no option, is cmd's first argument
// and cmd's options end there; seen counts such words (the command's
// name first).
func lastOption(cmd *cobra.Command, seen *int, word string) bool {
	if cmd.Annotations[condorArgsEnd] == "" || word == "" || word[0] == '-' {
		return false
	}
	*seen++
	return *seen > 1
}

func isLetter(b byte) bool { return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' }
