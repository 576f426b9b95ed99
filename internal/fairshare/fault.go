package fairshare

// Hooks for tests of a full disk: the negotiator must go on matching when
// its accountant cannot write, and write once it can.

// SetFault makes the accountant's writes fail with f's error, as a full
// disk does; nil lets them through again. For tests.
func (a *Accountant) SetFault(f func() error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.fault = f
}

// Unwritten counts the accounts changed in memory and not yet written.
func (a *Accountant) Unwritten() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.dirty)
}
