package eval

import (
	"github.com/kite-sched/kite/classad/envargs"
)

// HTCondor's helpers for job environments and arguments: envV1ToV2,
// mergeEnvironment, listToArgs, argsToList. The syntaxes are those of
// package envargs.

func init() {
	register(
		fn("envV1ToV2", 1, 1, builtinEnvV1ToV2),
		fn("mergeEnvironment", 0, -1, builtinMergeEnvironment),
		fn("listToArgs", 1, 2, builtinListToArgs),
		fn("argsToList", 1, 2, builtinArgsToList),
	)
}

// builtinEnvV1ToV2 rewrites a V1 environment string in V2 syntax.
// UNDEFINED is UNDEFINED (so envV1ToV2(Env) works whether or not Env is
// set); a non-string or an unreadable string is ERROR.
func builtinEnvV1ToV2(_ *Call, a []Value) Value {
	switch a[0].kind {
	case UndefinedKind:
		return Undefined()
	case StringKind:
	default:
		return Error()
	}
	env, err := envargs.ParseEnvV1(a[0].str())
	if err != nil {
		return Error()
	}
	return String(env.V2())
}

// builtinMergeEnvironment merges V2 environment strings, later ones
// overriding earlier ones, and writes the result in V2 syntax. UNDEFINED
// arguments are skipped; a non-string or unreadable one is ERROR.
func builtinMergeEnvironment(_ *Call, a []Value) Value {
	var env envargs.Env
	for _, v := range a {
		switch v.kind {
		case UndefinedKind:
			continue
		case StringKind:
		default:
			return Error()
		}
		if env.MergeV2(v.str()) != nil {
			return Error()
		}
	}
	return String(env.V2())
}

// argsVersion reads the optional syntax-version argument: the integer 1
// or 2 (taken as a C int), 2 when absent; anything else is ERROR.
func argsVersion(a []Value) (int32, bool) {
	if len(a) < 2 {
		return 2, true
	}
	if a[1].kind != IntKind {
		return 0, false
	}
	v := int32(a[1].i())
	return v, v == 1 || v == 2
}

// builtinListToArgs writes a list of strings as an arguments string in V2
// syntax (or V1 with a second argument of 1). An element that is not a
// string, or one V1 cannot hold, is ERROR, as is a first argument that is
// not a list.
func builtinListToArgs(c *Call, a []Value) Value {
	vers, ok := argsVersion(a)
	l, isList := a[0].ListValue()
	if !ok || !isList {
		return Error()
	}
	args := make([]string, 0, l.Len())
	for _, v := range l.values(c.st) {
		if v.kind != StringKind {
			return Error()
		}
		args = append(args, v.str())
	}
	if vers == 2 {
		return String(envargs.JoinArgsV2(args))
	}
	s, err := envargs.JoinArgsV1(args)
	if err != nil {
		return Error()
	}
	return String(s)
}

// builtinArgsToList splits an arguments string in V2 syntax (or V1 with a
// second argument of 1) into a list of strings. A non-string, or a V2
// string with an unbalanced quote, is ERROR.
func builtinArgsToList(_ *Call, a []Value) Value {
	vers, ok := argsVersion(a)
	if !ok || a[0].kind != StringKind {
		return Error()
	}
	args := envargs.SplitArgsV1(a[0].str())
	if vers == 2 {
		var err error
		if args, err = envargs.SplitArgsV2(a[0].str()); err != nil {
			return Error()
		}
	}
	out := make([]Value, len(args))
	for i, s := range args {
		out[i] = String(s)
	}
	return ListOf(out...)
}
