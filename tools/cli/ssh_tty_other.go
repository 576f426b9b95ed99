//go:build !linux

package cli

import "os"

// ttyInput is false where kite does not drive terminals: ssh_to_job
// then gives a terminal only with -tty, without local raw mode.
func ttyInput(*os.File) bool { return false }

func rawTerminal(*os.File) (func(), error) { return func() {}, nil }

func terminalSize(*os.File) (uint16, uint16) { return 0, 0 }

func watchSize(*os.File) (<-chan [2]uint16, func()) { return nil, func() {} }
