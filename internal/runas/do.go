package runas

import "fmt"

// Do runs fn with the file-system identity of a: every file fn opens,
// creates, renames or removes is checked and owned as a's. fn runs on a
// goroutine of its own, locked to one thread, and must do its file work
// itself (not hand it to other goroutines); what it opens stays open
// after Do returns. A process that is not root runs fn as it is: it can
// reach no more than its own account may.
func (a *Account) Do(fn func() error) error {
	if !Privileged() || a.Root() {
		return fn()
	}
	done := make(chan error, 1)
	go func() { done <- switched(a, fn) }()
	return <-done
}

// SwitchError says that the thread's identity could not be switched.
type SwitchError struct {
	Account *Account
	Err     error
}

func (e *SwitchError) Error() string {
	return fmt.Sprintf("acting as %s: %v", e.Account, e.Err)
}

func (e *SwitchError) Unwrap() error { return e.Err }
