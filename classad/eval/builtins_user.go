package eval

import (
	"os/user"
	"sync/atomic"
)

// HTCondor's user functions: userHome and userMap.

func init() {
	register(
		impure("userHome", 0, -1, builtinUserHome),
		impure("userMap", 2, 4, builtinUserMap),
	)
}

// UserMapper maps a user through a named map, as HTCondor's ClassAd user
// maps (CLASSAD_USER_MAPFILE_<name>) do. It returns the comma-separated
// result and whether the map knows the user.
type UserMapper func(mapName, user string) (result string, ok bool)

var (
	userMapper      atomic.Pointer[UserMapper]
	userHomeEnabled atomic.Bool
)

// SetUserMapper installs the user maps userMap consults. Kite has no map
// files yet: with no mapper installed (nil, the default) every lookup
// fails, so userMap gives its default argument or UNDEFINED, as HTCondor
// does for a map it does not know.
func SetUserMapper(m UserMapper) {
	if m == nil {
		userMapper.Store(nil)
		return
	}
	userMapper.Store(&m)
}

// EnableUserHome turns userHome's lookups of the system's user database on
// or off. It is off by default, as HTCondor's CLASSAD_ENABLE_USER_HOME is
// (the lookup may reach a directory service); while off, userHome gives
// its default argument or UNDEFINED.
func EnableUserHome(on bool) { userHomeEnabled.Store(on) }

// builtinUserHome is userHome(user [, default]): the user's home directory.
// A non-empty string default replaces any failure. Without one, an
// UNDEFINED user, an unknown user, a user without a home directory, and
// any user while lookups are off give UNDEFINED; a user that is neither a
// string nor UNDEFINED gives ERROR. Another number of arguments makes the
// evaluation fail, as in HTCondor.
func builtinUserHome(c *Call, a []Value) Value {
	if len(a) != 1 && len(a) != 2 {
		return c.st.fail("userHome takes 1 or 2 arguments, not %d", len(a))
	}
	def := ""
	if len(a) == 2 && a[1].kind == StringKind {
		def = a[1].str()
	}
	orElse := func(v Value) Value {
		if def != "" {
			return String(def)
		}
		return v
	}
	switch {
	case a[0].kind == UndefinedKind:
		return orElse(Undefined())
	case a[0].kind != StringKind:
		return orElse(Error())
	case !userHomeEnabled.Load():
		return orElse(Undefined())
	}
	u, err := user.Lookup(a[0].str())
	if err != nil || u.HomeDir == "" {
		return orElse(Undefined())
	}
	return String(u.HomeDir)
}

// builtinUserMap is userMap(map, user [, preferred [, default]]). With two
// arguments it gives the mapped string as it is; with three or four, the
// item of the comma-separated result equal to preferred (ignoring case),
// else the first item. When the map or user is not a string (ERROR if
// either is ERROR), the map does not know the user, or the result has no
// items, it gives the default (the fourth argument's value) or UNDEFINED.
func builtinUserMap(_ *Call, a []Value) Value {
	fallback := Undefined()
	if len(a) == 4 {
		fallback = a[3]
	}
	if a[0].kind != StringKind || a[1].kind != StringKind {
		if a[0].kind == ErrorKind || a[1].kind == ErrorKind {
			return Error()
		}
		return fallback
	}
	m := userMapper.Load()
	if m == nil {
		return fallback
	}
	out, ok := (*m)(a[0].str(), a[1].str())
	switch {
	case !ok:
		return fallback
	case len(a) == 2:
		return String(out)
	}
	return preferredItem(splitList(out, ","), a[2], fallback)
}

func preferredItem(items []string, pref, fallback Value) Value {
	if len(items) == 0 {
		return fallback
	}
	if pref.kind == StringKind {
		for _, it := range items {
			if compareFold(it, pref.str()) == 0 {
				return String(it)
			}
		}
	}
	return String(items[0])
}
