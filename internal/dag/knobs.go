package dag

import (
	"fmt"
	"strconv"
	"strings"
)

// Knobs are the DAGMAN_* settings of a DAG's CONFIG file (the HTCondor
// manual, dagman-reference.rst "CONFIG" and the configuration macros of
// admin-manual/configuration/dagman.rst) that Kite applies to the DAG.
// A nil field is not set by the file; 0 is no limit (DAGMAN_HOLD_CLAIM_TIME
// 0: node jobs do not keep their claims).
type Knobs struct {
	MaxJobs    *int // DAGMAN_MAX_JOBS_SUBMITTED (-maxjobs)
	MaxIdle    *int // DAGMAN_MAX_JOBS_IDLE (-maxidle)
	MaxPre     *int // DAGMAN_MAX_PRE_SCRIPTS (-maxpre)
	MaxPost    *int // DAGMAN_MAX_POST_SCRIPTS (-maxpost)
	MaxHold    *int // DAGMAN_MAX_HOLD_SCRIPTS (-maxhold)
	MaxSubmits *int // DAGMAN_MAX_SUBMITS_PER_INTERVAL
	// HoldClaimTime is DAGMAN_HOLD_CLAIM_TIME, in seconds.
	HoldClaimTime *int
}

// MaxHoldClaimTime bounds DAGMAN_HOLD_CLAIM_TIME, as the schedd's
// dag_hold_claim_time is bounded: a claim is held idle at most an hour.
const MaxHoldClaimTime = 3600

// knobs maps the settings Kite applies to their field and largest value.
var knobs = map[string]struct {
	field func(*Knobs) **int
	max   int
}{
	"DAGMAN_MAX_JOBS_SUBMITTED":       {func(k *Knobs) **int { return &k.MaxJobs }, 1<<31 - 1},
	"DAGMAN_MAX_JOBS_IDLE":            {func(k *Knobs) **int { return &k.MaxIdle }, 1<<31 - 1},
	"DAGMAN_MAX_PRE_SCRIPTS":          {func(k *Knobs) **int { return &k.MaxPre }, 1<<31 - 1},
	"DAGMAN_MAX_POST_SCRIPTS":         {func(k *Knobs) **int { return &k.MaxPost }, 1<<31 - 1},
	"DAGMAN_MAX_HOLD_SCRIPTS":         {func(k *Knobs) **int { return &k.MaxHold }, 1<<31 - 1},
	"DAGMAN_MAX_SUBMITS_PER_INTERVAL": {func(k *Knobs) **int { return &k.MaxSubmits }, 1<<31 - 1},
	"DAGMAN_HOLD_CLAIM_TIME":          {func(k *Knobs) **int { return &k.HoldClaimTime }, MaxHoldClaimTime},
}

// ParseKnobs reads a DAG's CONFIG file, in HTCondor's configuration
// syntax as far as such a file needs it: `NAME = value` lines, names
// case-insensitive, `#` comment lines, blank lines, a line ending in a
// backslash going on on the next; the last setting of a name wins. The
// settings Kite applies must be whole numbers in range: anything else is
// an error at file:line:col. Every other setting is ignored with a
// warning naming it.
func ParseKnobs(file string, src []byte) (Knobs, []*Error, error) {
	var k Knobs
	var warns []*Error
	var errs ErrorList
	lines := strings.Split(string(src), "\n")
	for i := 0; i < len(lines) && len(errs) < maxErrors; i++ {
		start := i + 1
		text := strings.TrimRight(lines[i], "\r")
		for strings.HasSuffix(text, "\\") && i+1 < len(lines) {
			i++
			text = text[:len(text)-1] + strings.TrimRight(lines[i], "\r")
		}
		trimmed := strings.TrimSpace(text)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		at := func(off int) Pos { return Pos{File: file, Line: start, Col: off + 1} }
		eq := strings.IndexByte(text, '=')
		name := strings.TrimSpace(text[:max(eq, 0)])
		if eq < 0 || name == "" || strings.ContainsAny(name, " \t") {
			errs = append(errs, &Error{at(len(text) - len(strings.TrimLeft(text, " \t"))),
				"expected NAME = value (Kite reads only such lines of a CONFIG file)"})
			continue
		}
		knob, ok := knobs[strings.ToUpper(name)]
		if !ok {
			warns = append(warns, &Error{at(strings.Index(text, name)), name + " is not a setting Kite applies to a DAG; ignored"})
			continue
		}
		value := strings.TrimSpace(text[eq+1:])
		voff := eq + 1 + len(text[eq+1:]) - len(strings.TrimLeft(text[eq+1:], " \t"))
		n, err := strconv.Atoi(value)
		switch {
		case err != nil:
			errs = append(errs, &Error{at(voff), fmt.Sprintf("%s = %q: not a whole number", strings.ToUpper(name), value)})
			continue
		case n < 0 || n > knob.max:
			errs = append(errs, &Error{at(voff), fmt.Sprintf("%s = %d: out of range (0 to %d)", strings.ToUpper(name), n, knob.max)})
			continue
		}
		*knob.field(&k) = &n
	}
	if len(errs) > 0 {
		return Knobs{}, nil, errs
	}
	return k, warns, nil
}
