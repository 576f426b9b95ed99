package schedd

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/kite-sched/kite/classad"
)

// splitArray cuts a JSON array of objects into its items without parsing
// them (the items are parsed on all cores afterwards). It checks only the
// array's shape: strings, nesting and commas; each item's own syntax is
// its parser's business.
func splitArray(data []byte) ([][]byte, error) {
	i := skipSpace(data, 0)
	if i == len(data) || data[i] != '[' {
		return nil, errors.New("the body is not a JSON array")
	}
	var items [][]byte
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return items, trailing(data, i+1)
	}
	for {
		end, err := objectEnd(data, i)
		if err != nil {
			return nil, fmt.Errorf("ad %d: %w", len(items), err)
		}
		items = append(items, data[i:end])
		i = skipSpace(data, end)
		if i == len(data) {
			return nil, errors.New("the array does not end")
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case ']':
			return items, trailing(data, i+1)
		default:
			return nil, fmt.Errorf("offset %d: %q after ad %d, expected , or ]", i, data[i], len(items)-1)
		}
	}
}

func trailing(data []byte, i int) error {
	if skipSpace(data, i) != len(data) {
		return fmt.Errorf("offset %d: data after the array", i)
	}
	return nil
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// objectEnd returns the offset just past the object starting at i.
func objectEnd(data []byte, i int) (int, error) {
	if i >= len(data) || data[i] != '{' {
		return 0, fmt.Errorf("offset %d: expected an object", i)
	}
	depth := 0
	for ; i < len(data); i++ {
		switch data[i] {
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
			if i >= len(data) {
				return 0, errors.New("a string does not end")
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1, nil
			}
		}
	}
	return 0, errors.New("the object does not end")
}

// parseAll parses JSON ads on all cores.
func parseAll(items [][]byte) ([]*classad.Ad, error) {
	ads := make([]*classad.Ad, len(items))
	errs := make([]error, len(items))
	workers := min(runtime.GOMAXPROCS(0), max(len(items)/1024, 1))
	per := (len(items) + workers - 1) / workers
	var wg sync.WaitGroup
	for w := 0; w < len(items); w += per {
		wg.Go(func() {
			for i := w; i < min(w+per, len(items)); i++ {
				ads[i], errs[i] = classad.ParseJSON(items[i])
			}
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("ad %d: %w", i, err)
		}
	}
	return ads, nil
}
