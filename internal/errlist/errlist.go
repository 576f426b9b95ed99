// Package errlist is the list of mistakes a parser of user files (submit
// descriptions, DAG files) reports at once: each error printed on its own
// line, all of them reachable through errors.As and errors.Is.
package errlist

import "strings"

// List is the errors a parse found, in the order found.
type List[E error] []E

// Error returns the errors one per line.
func (l List[E]) Error() string {
	msgs := make([]string, len(l))
	for i, e := range l {
		msgs[i] = e.Error()
	}
	return strings.Join(msgs, "\n")
}

// Unwrap returns the errors, for errors.As and errors.Is.
func (l List[E]) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}
