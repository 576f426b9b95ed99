//go:build !linux

package cli

import "os"

// ttyColumns is 0 where the terminal's size is not asked for: $COLUMNS
// or 80 columns are used.
func ttyColumns(*os.File) int { return 0 }
