package runas

import (
	"fmt"
	"os"
	"os/user"
	"strconv"
	"sync"
)

// Account is a local Unix account that files are opened as.
type Account struct {
	Name     string
	UID, GID uint32
	Groups   []uint32 // supplementary groups, the primary one included
	Home     string
}

// Root reports whether the account is the superuser.
func (a *Account) Root() bool { return a.UID == 0 }

// String names the account with its ids, for errors and logs.
func (a *Account) String() string { return fmt.Sprintf("%s (uid %d)", a.Name, a.UID) }

// Lookup finds a local account by name, with its groups.
func Lookup(name string) (*Account, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("no local account %q: %w", name, err)
	}
	return fromUser(u)
}

// LookupID finds a local account by uid.
func LookupID(uid uint32) (*Account, error) {
	u, err := user.LookupId(strconv.FormatUint(uint64(uid), 10))
	if err != nil {
		return nil, fmt.Errorf("no local account with uid %d: %w", uid, err)
	}
	return fromUser(u)
}

func fromUser(u *user.User) (*Account, error) {
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("account %q: uid %q: %w", u.Username, u.Uid, err)
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, fmt.Errorf("account %q: gid %q: %w", u.Username, u.Gid, err)
	}
	a := &Account{Name: u.Username, UID: uint32(uid), GID: uint32(gid), Home: u.HomeDir}
	ids, err := u.GroupIds()
	if err != nil {
		return nil, fmt.Errorf("account %q: its groups: %w", u.Username, err)
	}
	for _, id := range ids {
		g, err := strconv.ParseUint(id, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("account %q: group %q: %w", u.Username, id, err)
		}
		a.Groups = append(a.Groups, uint32(g))
	}
	return a, nil
}

var self = sync.OnceValues(func() (*Account, error) { return LookupID(uint32(os.Geteuid())) })

// Self is the account the daemon runs as.
func Self() (*Account, error) { return self() }

// Privileged reports whether this process may act as other accounts.
func Privileged() bool { return os.Geteuid() == 0 }
