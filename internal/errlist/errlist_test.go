package errlist

import (
	"errors"
	"testing"
)

type posErr struct{ line int }

func (e *posErr) Error() string { return "line " + string(rune('0'+e.line)) }

// A list prints each mistake on its line and lets errors.As find each.
func TestList(t *testing.T) {
	first, second := &posErr{1}, &posErr{2}
	var err error = List[*posErr]{first, second}
	if got := err.Error(); got != "line 1\nline 2" {
		t.Errorf("Error() = %q", got)
	}
	var pe *posErr
	if !errors.As(err, &pe) || pe != first {
		t.Errorf("errors.As found %v, want the first", pe)
	}
	if !errors.Is(err, second) {
		t.Error("errors.Is misses the second")
	}
}
