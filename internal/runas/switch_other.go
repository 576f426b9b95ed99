//go:build !linux

package runas

import "errors"

// switched refuses: only Linux keeps a file-system identity per thread.
func switched(a *Account, fn func() error) error {
	return &SwitchError{Account: a, Err: errors.New("acting as another account needs Linux")}
}
