package submit

import (
	"sort"
	"strconv"
	"strings"

	"github.com/kite-sched/kite/classad/ast"
)

// valueKind says how a simple command's value becomes an attribute.
type valueKind uint8

const (
	asString      valueKind = iota // a string, as written
	asStripQuotes                  // a string, without surrounding quotes
	asList                         // a string list, normalized to "a,b,c"
	asBool                         // a boolean
	asInt                          // an integer (a constant expression)
	asExpr                         // a ClassAd expression
)

// simple is a command that sets one attribute with no further processing.
type simple struct {
	keys []string
	attr string
	kind valueKind
}

// simpleCommands are condor_submit's commands that set one attribute
// each. Each accepts its attribute's name as well.
var simpleCommands = []simple{
	{[]string{"description", "jobdescription"}, "JobDescription", asString},
	{[]string{"batch_name", "jobbatchname"}, "JobBatchName", asStripQuotes},
	{[]string{"priority", "prio", "jobprio"}, "JobPrio", asInt},
	{[]string{"max_materialize", "jobmaterializelimit"}, "JobMaterializeLimit", asInt},
	{[]string{"max_idle", "materialize_max_idle", "jobmaterializemaxidle"}, "JobMaterializeMaxIdle", asInt},
	{[]string{"notify_user", "notifyuser"}, "NotifyUser", asString},
	{[]string{"email_attributes", "emailattributes"}, "EmailAttributes", asList},
	{[]string{"job_ad_information_attrs", "jobadinformationattrs"}, "JobAdInformationAttrs", asString},
	{[]string{"job_machine_attrs", "jobmachineattrs"}, "JobMachineAttrs", asString},
	{[]string{"job_machine_attrs_history_length", "jobmachineattrshistorylength"}, "JobMachineAttrsHistoryLength", asInt},
	{[]string{"job_lease_duration", "jobleaseduration"}, "JobLeaseDuration", asExpr},
	{[]string{"max_job_retirement_time", "maxjobretirementtime"}, "MaxJobRetirementTime", asExpr},
	{[]string{"job_max_vacate_time", "jobmaxvacatetime"}, "JobMaxVacateTime", asExpr},
	{[]string{"want_graceful_removal", "wantgracefulremoval"}, "WantGracefulRemoval", asExpr},
	{[]string{"allowed_job_duration", "allowedjobduration"}, "AllowedJobDuration", asExpr},
	{[]string{"allowed_execute_duration", "allowedexecuteduration"}, "AllowedExecuteDuration", asExpr},
	{[]string{"next_job_start_delay", "nextjobstartdelay"}, "NextJobStartDelay", asExpr},
	{[]string{"keep_claim_idle", "keepclaimidle"}, "KeepClaimIdle", asExpr},
	{[]string{"max_transfer_input_mb", "maxtransferinputmb"}, "MaxTransferInputMB", asExpr},
	{[]string{"max_transfer_output_mb", "maxtransferoutputmb"}, "MaxTransferOutputMB", asExpr},
	{[]string{"coresize", "coresize"}, "CoreSize", asInt},
	{[]string{"submit_event_notes", "submiteventnotes"}, "SubmitEventNotes", asString},
	{[]string{"submit_event_user_notes", "submiteventusernotes"}, "SubmitEventUserNotes", asString},
	{[]string{"output_destination", "outputdestination"}, "OutputDestination", asString},
	{[]string{"transfer_plugins", "transferplugins"}, "TransferPlugins", asString},
	{[]string{"checkpoint_exit_code", "checkpointexitcode"}, "SuccessCheckpointExitCode", asInt},
	{[]string{"transfer_checkpoint_files", "transfercheckpointfiles"}, "TransferCheckpoint", asString},
	{[]string{"encrypt_execute_directory", "encryptexecutedirectory"}, "EncryptExecuteDirectory", asBool},
}

// simpleStep returns the step of a simple command.
func simpleStep(c simple) func(b *builder) error {
	return func(b *builder) error {
		v, m := b.value(c.keys...)
		if v == "" {
			return nil
		}
		switch c.kind {
		case asString:
			b.setString(c.attr, v)
		case asStripQuotes:
			b.setString(c.attr, stripQuotes(v))
		case asList:
			b.setString(c.attr, strings.Join(splitList(v), ","))
		case asBool:
			val, ok := b.x.parseBool(v)
			if !ok {
				return b.errorf(m, "%s = %s is invalid: it must be a boolean", m.name, v)
			}
			b.setBool(c.attr, val)
		case asInt:
			n, ok := b.x.evalInt(v)
			if !ok {
				return b.errorf(m, "%s = %s is invalid: it must be an integer", m.name, v)
			}
			b.setInt(c.attr, n)
		case asExpr:
			return b.setExpr(c.attr, v, m)
		}
		return nil
	}
}

// signals are the signal numbers kill_sig may give, by Linux number.
var signals = map[int]string{
	1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 6: "SIGABRT", 9: "SIGKILL", 10: "SIGUSR1",
	12: "SIGUSR2", 14: "SIGALRM", 15: "SIGTERM", 18: "SIGCONT", 19: "SIGSTOP", 20: "SIGTSTP",
}

// stepKillSig sets KillSig: a signal name (upper case) or number.
func stepKillSig(b *builder) error {
	v, m := b.value("kill_sig", "killsig")
	if v == "" {
		return nil
	}
	if n, err := strconv.Atoi(v); err == nil {
		name, ok := signals[n]
		if !ok {
			return b.errorf(m, "invalid signal %s", v)
		}
		b.setString("KillSig", name)
		return nil
	}
	name := strings.ToUpper(v)
	if !strings.HasPrefix(name, "SIG") {
		name = "SIG" + name
	}
	for _, s := range signals {
		if s == name {
			b.setString("KillSig", name)
			return nil
		}
	}
	return b.errorf(m, "invalid signal %s", v)
}

// stepConcurrency sets ConcurrencyLimits: the limits lower-cased, checked
// and sorted, or the concurrency_limits_expr expression.
func stepConcurrency(b *builder) error {
	list, m := b.value("concurrency_limits", "concurrencylimits")
	expr, em := b.value("concurrency_limits_expr")
	switch {
	case list != "" && expr != "":
		return b.errorf(em, "concurrency_limits and concurrency_limits_expr can't be used together")
	case expr != "":
		return b.setExpr("ConcurrencyLimits", expr, em)
	case list == "":
		return nil
	}
	limits := splitList(strings.ToLower(list))
	for _, l := range limits {
		if !validLimit(l) {
			return b.errorf(m, "invalid concurrency limit %q", l)
		}
	}
	sort.Strings(limits)
	b.setString("ConcurrencyLimits", strings.Join(limits, ","))
	return nil
}

// validLimit reports whether a limit is name or name:amount.
func validLimit(l string) bool {
	name, amount, hasAmount := strings.Cut(l, ":")
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !isNameByte(name[i]) {
			return false
		}
	}
	if !hasAmount {
		return true
	}
	f, err := strconv.ParseFloat(amount, 64)
	return err == nil && f > 0
}

// stepAccounting sets AcctGroup, AcctGroupUser and AccountingGroup
// (group.user) from accounting_group and accounting_group_user.
func stepAccounting(b *builder) error {
	group, gm := b.value("accounting_group", "accountinggroup")
	user, um := b.value("accounting_group_user", "acctgroupuser")
	if group == "" && user == "" {
		return nil
	}
	if user == "" {
		user, um = b.x.env.Owner, gm
	}
	if group != "" && !validSubmitter(group) {
		return b.errorf(gm, "invalid accounting_group: %q", group)
	}
	if !validSubmitter(user) {
		return b.errorf(um, "invalid accounting_group_user: %q", user)
	}
	b.setString("AcctGroupUser", user)
	if group == "" {
		b.setString("AccountingGroup", user)
		return nil
	}
	b.setString("AcctGroup", group)
	b.setString("AccountingGroup", group+"."+user)
	return nil
}

// validSubmitter reports whether a name may be an accounting group or
// user: letters, digits and . _ - @.
func validSubmitter(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isNameByte(c) && c != '-' && c != '@' {
			return false
		}
	}
	return true
}

// attrStep returns the step for a +Attr (MY.Attr) line: the value is
// inserted as a ClassAd expression; an empty value is undefined.
func attrStep(key string) func(b *builder) error {
	return func(b *builder) error {
		m := b.x.defs.lookup(key)
		v := b.expandCommand(key, m)
		if v == "" {
			v = "undefined"
		}
		return b.setExpr(m.name[len("MY."):], v, m)
	}
}

// defaultLeaseDuration is JOB_DEFAULT_LEASE_DURATION (param_info.in):
// the JobLeaseDuration condor_submit gives a job of a universe that can
// reconnect when the submit file sets none.
const defaultLeaseDuration = 2400

// reconnectUniverses are the universes whose jobs can reconnect to their
// execute machine (vanilla, java, parallel, vm).
var reconnectUniverses = map[int64]bool{5: true, 10: true, 11: true, 13: true}

// stepAuto sets what condor_submit sets last: JobPrio when no priority was
// given, and the default JobLeaseDuration.
func stepAuto(b *builder) error {
	if !b.has("JobPrio") {
		b.setInt("JobPrio", 0)
	}
	if !b.has("JobLeaseDuration") {
		if e, ok := b.attr("JobUniverse"); ok {
			if l, ok := e.(*ast.Literal); ok && l.Kind == ast.IntLit && reconnectUniverses[l.Int] {
				b.setInt("JobLeaseDuration", defaultLeaseDuration)
			}
		}
	}
	return nil
}
