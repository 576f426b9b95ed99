// Package adarray reads a JSON array of ClassAds, the body of a submit:
// it counts the ads as the body streams in, so that one with too many is
// refused after reading little more than the ads allowed; cuts the array
// into its items without parsing them; and parses the items on all
// cores. It checks only the array's shape (strings, nesting, commas);
// each item's own syntax is the ClassAd parser's business.
package adarray

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/kite-sched/kite/classad"
)

// readChunk is how much of a submit's body is read at a time: the jobs
// are counted as they come, so that a submit of too many is refused
// after reading a little more than the jobs allowed, not all of it.
const readChunk = 1 << 20

// ErrTooMany is Read's error for an array of more items than allowed.
var ErrTooMany = errors.New("too many ads")

// Read reads a JSON array of ads from body, counting them: an array of
// more than limit items is refused with ErrTooMany as soon as the one too
// many starts. size is the body's length if known (else 0); it is trusted
// up to max. Split cuts what it read into the items.
func Read(body io.Reader, size, max int64, limit int) ([]byte, error) {
	n := size
	if n <= 0 || n > max {
		n = readChunk
	}
	buf := make([]byte, 0, n+1) // +1: the read that finds the end
	var count itemCounter
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		got, err := body.Read(buf[len(buf):min(cap(buf), len(buf)+readChunk)])
		count.scan(buf[len(buf) : len(buf)+got])
		buf = buf[:len(buf)+got]
		if count.items > limit {
			return nil, ErrTooMany
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return buf, nil
}

// itemCounter counts the objects that open at the top level of a JSON
// array, reading it a piece at a time. It knows only strings, escapes and
// nesting; Split and the parser check the rest.
type itemCounter struct {
	depth    int
	inString bool
	escaped  bool
	items    int
}

func (c *itemCounter) scan(b []byte) {
	for _, ch := range b {
		switch {
		case c.escaped:
			c.escaped = false
		case c.inString:
			c.escaped = ch == '\\'
			c.inString = ch != '"'
		case ch == '"':
			c.inString = true
		case ch == '[' || ch == '{':
			if c.depth++; c.depth == 2 && ch == '{' {
				c.items++
			}
		case ch == ']' || ch == '}':
			c.depth--
		}
	}
}

// Split cuts a JSON array of objects into its items without parsing
// them (the items are parsed on all cores afterwards). It checks only the
// array's shape: strings, nesting and commas; each item's own syntax is
// its parser's business.
func Split(data []byte) ([][]byte, error) {
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

// ParseAll parses JSON ads on all cores.
func ParseAll(items [][]byte) ([]*classad.Ad, error) {
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
