package submit

import (
	"strconv"
	"strings"

	"github.com/kite-sched/kite/classad/ast"
)

// stepRank sets Rank: the rank expression, or 0.0.
func stepRank(b *builder) error {
	v, m := b.value("rank", "preferences")
	if v == "" {
		b.set("Rank", ast.Real(0))
		return nil
	}
	return b.setExpr("Rank", v, m)
}

// notifications are the values of JobNotification.
var notifications = map[string]int64{"never": 0, "always": 1, "complete": 2, "error": 3}

// stepNotification sets JobNotification (Never by default).
func stepNotification(b *builder) error {
	v, m := b.value("notification", "jobnotification")
	if v == "" {
		b.setInt("JobNotification", 0)
		return nil
	}
	n, ok := notifications[strings.ToLower(v)]
	if !ok {
		return b.errorf(m, "notification must be Never, Always, Complete or Error, not %q", v)
	}
	b.setInt("JobNotification", n)
	return nil
}

// defaultMaxRetries is HTCondor's DEFAULT_JOB_MAX_RETRIES, used when only
// retry_until or success_exit_code is given.
const defaultMaxRetries = 2

// retrySpec is what the retry commands say.
type retrySpec struct {
	remove, hold   string // on_exit_remove, on_exit_hold
	removeM, holdM *macro
	maxRetries     int64
	maxSet         bool
	success        int64
	successSet     bool
	until          string
	untilM         *macro
}

// stepRetries sets OnExitRemove and OnExitHold. With max_retries,
// retry_until or success_exit_code it builds OnExitRemove as
// condor_submit does:
//
//	NumJobCompletions > JobMaxRetries || ExitCode =?= <success> [|| <retry_until>] [|| (<on_exit_remove>)]
func stepRetries(b *builder) error {
	r, err := b.readRetries()
	if err != nil {
		return err
	}
	if !r.maxSet && !r.successSet && r.until == "" {
		if err := b.exprOrDefault("OnExitRemove", r.remove, r.removeM, ast.Bool(true)); err != nil {
			return err
		}
		return b.exprOrDefault("OnExitHold", r.hold, r.holdM, ast.Bool(false))
	}
	if !r.maxSet && !b.has("JobMaxRetries") {
		r.maxRetries, r.maxSet = defaultMaxRetries, true
	}
	if r.maxSet {
		b.setInt("JobMaxRetries", r.maxRetries)
	}
	if err := b.exprOrDefault("OnExitHold", r.hold, r.holdM, ast.Bool(false)); err != nil {
		return err
	}
	if b.has("OnExitRemove") && !r.successSet && r.until == "" {
		return nil
	}
	return b.retryRemove(r)
}

// readRetries reads the retry commands.
func (b *builder) readRetries() (*retrySpec, error) {
	r := &retrySpec{}
	r.remove, r.removeM = b.value("on_exit_remove", "onexitremove")
	r.hold, r.holdM = b.value("on_exit_hold", "onexithold")
	n, m, err := b.intValue("max_retries", "maxretries")
	if err != nil {
		return nil, err
	}
	if m != nil {
		if n < 0 {
			return nil, b.errorf(m, "max_retries = %d is invalid: it must not be negative", n)
		}
		r.maxRetries, r.maxSet = n, true
	}
	n, m, err = b.intValue("success_exit_code", "jobsuccessexitcode")
	if err != nil {
		return nil, err
	}
	if m != nil {
		if n < -1<<31 || n >= 1<<31-1 {
			return nil, b.errorf(m, "success_exit_code = %d is out of range", n)
		}
		r.success, r.successSet = n, true
	}
	r.until, r.untilM = b.value("retry_until")
	return r, nil
}

// retryRemove builds and sets the OnExitRemove of a job with retries.
func (b *builder) retryRemove(r *retrySpec) error {
	expr := "NumJobCompletions > JobMaxRetries || ExitCode =?= "
	if r.successSet {
		b.setInt("JobSuccessExitCode", r.success)
		expr += "JobSuccessExitCode"
	} else {
		expr += strconv.FormatInt(r.success, 10)
	}
	if r.until != "" {
		until, err := b.retryUntil(r)
		if err != nil {
			return err
		}
		expr += " || " + until
	}
	if r.remove != "" {
		e, err := b.x.parseExpr(r.remove, r.removeM)
		if err != nil {
			return err
		}
		expr += " || " + ast.String(wrapForOr(e))
	}
	m := r.removeM
	if m == nil {
		m = r.untilM
	}
	return b.setExpr("OnExitRemove", expr, m)
}

// retryUntil returns the clause retry_until adds: an exit code that ends
// the retries, or a boolean expression.
func (b *builder) retryUntil(r *retrySpec) (string, error) {
	e, err := b.x.parseExpr(r.until, r.untilM)
	if err != nil {
		return "", err
	}
	if l, ok := e.(*ast.Literal); ok && l.Kind == ast.IntLit {
		if l.Int < -1<<31 || l.Int > 1<<31-1 {
			return "", b.errorf(r.untilM, "retry_until = %s is invalid: it must be an integer or a boolean expression", r.until)
		}
		return "ExitCode =?= " + strconv.FormatInt(l.Int, 10), nil
	}
	if w := wrapForOr(e); w != e {
		return ast.String(w), nil
	}
	return r.until, nil
}

// wrapForOr puts parentheses around e if it would not stay one operand of
// ||: a conditional or an elvis.
func wrapForOr(e ast.Expr) ast.Expr {
	switch x := e.(type) {
	case *ast.Cond:
		return &ast.Paren{At: ast.NoPos, X: e}
	case *ast.Binary:
		if x.Op.Precedence() < ast.OpOr.Precedence() {
			return &ast.Paren{At: ast.NoPos, X: e}
		}
	}
	return e
}

// exprOrDefault sets attr to the expression text, or to def when text is
// empty and no earlier step (such as +Attr) set attr.
func (b *builder) exprOrDefault(attr, text string, m *macro, def ast.Expr) error {
	if text != "" {
		return b.setExpr(attr, text, m)
	}
	if !b.has(attr) {
		b.set(attr, def)
	}
	return nil
}

// policyExprs are the periodic and on-exit policy commands, and whether
// condor_submit gives them a default of false.
var policyExprs = []struct {
	keys       []string
	attr       string
	defaultOff bool
}{
	{[]string{"periodic_hold", "periodichold"}, "PeriodicHold", true},
	{[]string{"periodic_hold_reason", "periodicholdreason"}, "PeriodicHoldReason", false},
	{[]string{"periodic_hold_subcode", "periodicholdsubcode"}, "PeriodicHoldSubCode", false},
	{[]string{"periodic_release", "periodicrelease"}, "PeriodicRelease", true},
	{[]string{"periodic_remove", "periodicremove"}, "PeriodicRemove", true},
	{[]string{"periodic_vacate", "periodicvacate"}, "PeriodicVacate", true},
	{[]string{"on_exit_hold_reason", "onexitholdreason"}, "OnExitHoldReason", false},
	{[]string{"on_exit_hold_subcode", "onexitholdsubcode"}, "OnExitHoldSubCode", false},
	{[]string{"leave_in_queue", "leavejobinqueue"}, "LeaveJobInQueue", true},
}

// stepPolicy sets the periodic policy expressions, their hold reasons and
// subcodes, and LeaveJobInQueue.
func stepPolicy(b *builder) error {
	for _, p := range policyExprs {
		v, m := b.value(p.keys...)
		var err error
		switch {
		case v != "":
			err = b.setExpr(p.attr, v, m)
		case p.defaultOff && !b.has(p.attr):
			b.setBool(p.attr, false)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
