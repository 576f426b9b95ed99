package fairshare

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// The accountant is HTCondor's: each submitter has a real user priority
// (RUP) that follows the slot weight its jobs hold, smoothed with a
// half-life,
//
//	RUP(t) = β·RUP(t−δ) + (1−β)·inUse,   β = 0.5^(δ/halfLife),   RUP ≥ 0.5
//
// and an effective priority EUP = RUP × factor (lower is better) that fair
// share divides the pool by. Usage accumulates in weighted slot-seconds.
// Every change is committed to a bbolt file before it is reported done.

// ErrNoUser says that the accountant has no such user.
var ErrNoUser = errors.New("no such user in the accountant")

// MinPriority is the smallest real user priority (HTCondor's).
const MinPriority = 0.5

// Usage is one submitter's account.
type Usage struct {
	Name string `json:"name"`
	// Priority is the real user priority (RUP).
	Priority float64 `json:"priority"`
	// Factor multiplies it into the effective priority.
	Factor float64 `json:"factor"`
	// InUse is the slot weight the submitter held at the last update.
	InUse float64 `json:"in_use"`
	// Accumulated is the usage in weighted slot-seconds since BeginUsage.
	Accumulated float64   `json:"accumulated"`
	BeginUsage  time.Time `json:"begin_usage,omitzero"`
	LastUsage   time.Time `json:"last_usage,omitzero"`
	LastUpdate  time.Time `json:"last_update,omitzero"`
}

// Effective is the effective user priority: RUP × factor.
func (u Usage) Effective() float64 { return u.Priority * u.Factor }

// Accountant keeps the submitters' usage and priorities, durably.
type Accountant struct {
	db            *bolt.DB
	halfLife      time.Duration
	defaultFactor float64

	mu    sync.Mutex
	users map[string]*Usage
	last  time.Time // time of the last Update
	// Usage updates are written at most every flushEvery: they change at
	// every cycle, and a crash loses only a little accounting. Changes a
	// user asks for (factors, resets) are committed before they return.
	flushEvery time.Duration
	flushed    time.Time
	dirty      map[string]bool
	// fault, in tests, fails writes as a full disk does.
	fault func() error
}

// DefaultFlush is how often the accountant writes usage updates.
const DefaultFlush = 30 * time.Second

var bucketUsers = []byte("users")

// NewAccountant returns an accountant that keeps its accounts in memory
// only, for the simulator and tests: nothing survives it.
func NewAccountant(halfLife time.Duration, defaultFactor float64) *Accountant {
	return &Accountant{halfLife: halfLife, defaultFactor: defaultFactor, users: map[string]*Usage{}, dirty: map[string]bool{}}
}

// OpenAccountant opens (or creates) the accountant's file.
func OpenAccountant(path string, halfLife time.Duration, defaultFactor float64) (*Accountant, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 5 * time.Second})
	if err != nil {
		return nil, fmt.Errorf("accountant: %w", err)
	}
	a := &Accountant{db: db, halfLife: halfLife, defaultFactor: defaultFactor, users: map[string]*Usage{},
		flushEvery: DefaultFlush, dirty: map[string]bool{}}
	err = db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketUsers)
		if err != nil {
			return err
		}
		return b.ForEach(func(k, v []byte) error {
			var u Usage
			if err := json.Unmarshal(v, &u); err != nil {
				return fmt.Errorf("accountant: record %q: %w", k, err)
			}
			a.users[u.Name] = &u
			a.last = later(a.last, u.LastUpdate)
			return nil
		})
	})
	if err != nil {
		db.Close()
		return nil, err
	}
	return a, nil
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// SetFlush sets how often usage updates are written (0: at every Update).
func (a *Accountant) SetFlush(d time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.flushEvery = d
}

// Close writes what is pending and closes the file.
func (a *Accountant) Close() error {
	if a.db == nil {
		return nil
	}
	a.mu.Lock()
	err := a.flushLocked(time.Now())
	a.mu.Unlock()
	return errors.Join(err, a.db.Close())
}

// flushLocked writes the accounts changed since the last write.
func (a *Accountant) flushLocked(now time.Time) error {
	if len(a.dirty) == 0 {
		return nil
	}
	users := make([]*Usage, 0, len(a.dirty))
	for name := range a.dirty {
		users = append(users, a.users[name])
	}
	if err := a.save(users...); err != nil {
		return err
	}
	clear(a.dirty)
	a.flushed = now
	return nil
}

// user returns the account of name, new accounts with the default factor.
func (a *Accountant) user(name string) *Usage {
	u := a.users[name]
	if u == nil {
		u = &Usage{Name: name, Priority: MinPriority, Factor: a.defaultFactor}
		a.users[name] = u
	}
	return u
}

// Update brings every account to now, given the slot weight each
// submitter holds (absent names hold none). It writes the changes when
// the last write is older than the flush interval.
func (a *Accountant) Update(now time.Time, inUse map[string]float64) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	for name := range inUse {
		a.user(name)
	}
	for _, u := range a.users {
		before := *u
		a.advance(u, now, inUse[u.Name])
		if *u != before {
			a.dirty[u.Name] = true
		}
	}
	if now.After(a.last) {
		a.last = now
	}
	if now.Sub(a.flushed) < a.flushEvery {
		return nil
	}
	return a.flushLocked(now)
}

// advance decays u's priority over the time since its last update, during
// which it held u.InUse, and records that it holds inUse from now on.
func (a *Accountant) advance(u *Usage, now time.Time, inUse float64) {
	if !u.LastUpdate.IsZero() && now.After(u.LastUpdate) {
		dt := now.Sub(u.LastUpdate)
		beta := math.Pow(0.5, dt.Seconds()/a.halfLife.Seconds())
		u.Priority = max(MinPriority, beta*u.Priority+(1-beta)*u.InUse)
		if u.InUse > 0 {
			u.Accumulated += u.InUse * dt.Seconds()
			u.LastUsage = now
		}
	}
	if inUse > 0 && u.BeginUsage.IsZero() {
		u.BeginUsage = now
	}
	if inUse > 0 {
		u.LastUsage = now
	}
	u.InUse = inUse
	u.LastUpdate = now
}

// save commits accounts in one transaction (in memory: nothing to do).
func (a *Accountant) save(users ...*Usage) error {
	if len(users) == 0 || a.db == nil {
		return nil
	}
	return a.db.Update(func(tx *bolt.Tx) error {
		if a.fault != nil {
			if err := a.fault(); err != nil {
				return err
			}
		}
		b := tx.Bucket(bucketUsers)
		for _, u := range users {
			v, err := json.Marshal(u)
			if err != nil {
				return err
			}
			if err := b.Put([]byte(u.Name), v); err != nil {
				return err
			}
		}
		return nil
	})
}

// Effective returns the effective priority of name (a new user's if
// unknown).
func (a *Accountant) Effective(name string) float64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	if u := a.users[name]; u != nil {
		return u.Effective()
	}
	return MinPriority * a.defaultFactor
}

// Priorities returns every known user's effective priority.
func (a *Accountant) Priorities() map[string]float64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make(map[string]float64, len(a.users))
	for name, u := range a.users {
		out[name] = u.Effective()
	}
	return out
}

// Users returns a copy of every account, by name.
func (a *Accountant) Users() []Usage {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]Usage, 0, len(a.users))
	for _, u := range a.users {
		out = append(out, *u)
	}
	slices.SortFunc(out, func(x, y Usage) int {
		if c := compareFloat(x.Effective(), y.Effective()); c != 0 {
			return c
		}
		if x.Name < y.Name {
			return -1
		}
		return 1
	})
	return out
}

func compareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// SetFactor sets name's priority factor and commits it.
func (a *Accountant) SetFactor(name string, factor float64) (Usage, error) {
	if err := CheckFactor(factor); err != nil {
		return Usage{}, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.commitLocked(name, true, func(u *Usage) { u.Factor = factor })
}

// SetPriority sets name's real user priority as of now (condor_userprio
// -setprio) and commits it; it decays from there as any priority does.
func (a *Accountant) SetPriority(name string, priority float64, now time.Time) (Usage, error) {
	if err := CheckPriority(priority); err != nil {
		return Usage{}, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.commitLocked(name, true, func(u *Usage) {
		a.advance(u, now, u.InUse)
		u.Priority = priority
	})
}

// CheckFactor refuses a priority factor that is not a positive number.
func CheckFactor(factor float64) error {
	if !(factor > 0) || math.IsInf(factor, 0) {
		return fmt.Errorf("priority factor %v: must be a positive number", factor)
	}
	return nil
}

// CheckPriority refuses a real priority that is not a number of at least
// MinPriority.
func CheckPriority(priority float64) error {
	if !(priority >= MinPriority) || math.IsInf(priority, 0) {
		return fmt.Errorf("real priority %v: must be a number of at least %v", priority, MinPriority)
	}
	return nil
}

// commitLocked changes name's account (a new one if create is set) and
// commits it; a failed commit undoes the change in memory too.
func (a *Accountant) commitLocked(name string, create bool, change func(*Usage)) (Usage, error) {
	u, known := a.users[name]
	if !known && !create {
		return Usage{}, fmt.Errorf("%w: %q", ErrNoUser, name)
	}
	if !known {
		u = a.user(name)
	}
	before := *u
	change(u)
	if err := a.save(u); err != nil {
		if known {
			*u = before
		} else {
			delete(a.users, name)
		}
		return Usage{}, err
	}
	delete(a.dirty, name)
	return *u, nil
}

// ResetUsage sets name's priority back to the minimum and forgets its
// accumulated usage, and commits it.
func (a *Accountant) ResetUsage(name string, now time.Time) (Usage, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.commitLocked(name, false, func(u *Usage) {
		u.Priority, u.Accumulated, u.BeginUsage = MinPriority, 0, time.Time{}
		if u.InUse > 0 {
			u.BeginUsage = now
		}
	})
}
