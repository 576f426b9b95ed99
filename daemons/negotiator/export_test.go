package negotiator

// SetFault makes the accountant's writes fail with f's error (tests of a
// full disk).
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
