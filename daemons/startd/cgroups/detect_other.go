//go:build !linux

package cgroups

import "errors"

// Detect reports that cgroups exist only on Linux.
func Detect(string, string) (*Manager, error) { return nil, errors.New("cgroups exist only on Linux") }
