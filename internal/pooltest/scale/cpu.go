package scale

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"time"
)

// CPUProfile is a CPU profile of the process while a pool runs, split by
// the daemon label each daemon's goroutines carry.
type CPUProfile struct{ buf bytes.Buffer }

// StartCPU starts profiling the process's CPU. It fails when a profile
// runs already (go test -cpuprofile).
func StartCPU() (*CPUProfile, error) {
	c := &CPUProfile{}
	if err := pprof.StartCPUProfile(&c.buf); err != nil {
		return nil, err
	}
	return c, nil
}

// Other is the share of CPU no daemon label covers: the garbage
// collector, the runtime's timers, the test's own polling.
const Other = "other"

// Stop stops the profile and returns the CPU time by daemon label (and
// Other). When file is not "", the profile is also written there, for
// `go tool pprof -tagfocus daemon=schedd FILE`.
func (c *CPUProfile) Stop(file string) (map[string]time.Duration, error) {
	pprof.StopCPUProfile()
	if file != "" {
		if err := os.WriteFile(file, c.buf.Bytes(), 0o644); err != nil {
			return nil, err
		}
	}
	return cpuByLabel(c.buf.Bytes(), "daemon")
}

// cpuByLabel sums a gzipped pprof profile's CPU time (its last sample
// value, nanoseconds) by the string value of label key.
func cpuByLabel(gz []byte, key string) (map[string]time.Duration, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	var strs []string
	var samples [][]byte
	err = fields(raw, func(num int, v []byte, _ uint64) error {
		switch num {
		case 2: // Profile.sample
			samples = append(samples, v)
		case 6: // Profile.string_table
			strs = append(strs, string(v))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := map[string]time.Duration{}
	for _, s := range samples {
		label, ns, err := sample(s, strs, key)
		if err != nil {
			return nil, err
		}
		out[label] += time.Duration(ns)
	}
	return out, nil
}

// sample reads one Sample: its last value and its label key's value
// (Other when it has none).
func sample(b []byte, strs []string, key string) (string, int64, error) {
	label, last := Other, int64(0)
	err := fields(b, func(num int, v []byte, n uint64) error {
		switch {
		case num == 2 && v != nil: // packed values
			for len(v) > 0 {
				x, k := binary.Uvarint(v)
				if k <= 0 {
					return errBadProfile
				}
				last, v = int64(x), v[k:]
			}
		case num == 2:
			last = int64(n)
		case num == 3: // Label{key, str}
			var k, s uint64
			if err := fields(v, func(num int, _ []byte, n uint64) error {
				switch num {
				case 1:
					k = n
				case 2:
					s = n
				}
				return nil
			}); err != nil {
				return err
			}
			if k < uint64(len(strs)) && s < uint64(len(strs)) && strs[k] == key {
				label = strs[s]
			}
		}
		return nil
	})
	return label, last, err
}

var errBadProfile = errors.New("cpu profile: malformed protobuf")

// fields walks a protobuf message's fields: each length-delimited one
// with its bytes, each varint with its value (v nil); fixed-width ones
// are skipped.
func fields(b []byte, each func(num int, v []byte, n uint64) error) error {
	for len(b) > 0 {
		tag, k := binary.Uvarint(b)
		if k <= 0 {
			return errBadProfile
		}
		b = b[k:]
		num := int(tag >> 3)
		switch tag & 7 {
		case 0:
			n, k := binary.Uvarint(b)
			if k <= 0 {
				return errBadProfile
			}
			b = b[k:]
			if err := each(num, nil, n); err != nil {
				return err
			}
		case 1:
			if len(b) < 8 {
				return errBadProfile
			}
			b = b[8:]
		case 2:
			n, k := binary.Uvarint(b)
			if k <= 0 || uint64(len(b)-k) < n {
				return errBadProfile
			}
			v := b[k : k+int(n)]
			b = b[k+int(n):]
			if err := each(num, v, 0); err != nil {
				return err
			}
		case 5:
			if len(b) < 4 {
				return errBadProfile
			}
			b = b[4:]
		default:
			return errBadProfile
		}
	}
	return nil
}
