package wire

import (
	"errors"
	"fmt"
	"net/http"
)

// Error is how a request fails, for the caller: an HTTP status, a short
// machine-readable code and a message for people. Handlers return it (or
// any error, which becomes an internal error); clients get it back.
type Error struct {
	Status  int    `json:"-"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Message }

// Error codes.
const (
	CodeBadRequest      = "bad_request"
	CodeUnauthenticated = "unauthenticated"
	CodeForbidden       = "forbidden"
	CodeNotFound        = "not_found"
	CodeConflict        = "conflict"
	CodeTooLarge        = "too_large"
	CodeUnavailable     = "unavailable"
	CodeInternal        = "internal"
)

func newError(status int, code, format string, args ...any) *Error {
	return &Error{Status: status, Code: code, Message: fmt.Sprintf(format, args...)}
}

// BadRequest is an error in what the caller sent.
func BadRequest(format string, args ...any) *Error {
	return newError(http.StatusBadRequest, CodeBadRequest, format, args...)
}

// Forbidden refuses a caller who may not do what it asked.
func Forbidden(format string, args ...any) *Error {
	return newError(http.StatusForbidden, CodeForbidden, format, args...)
}

// NotFound says the thing asked for does not exist.
func NotFound(format string, args ...any) *Error {
	return newError(http.StatusNotFound, CodeNotFound, format, args...)
}

// Conflict refuses a request that does not fit the current state.
func Conflict(format string, args ...any) *Error {
	return newError(http.StatusConflict, CodeConflict, format, args...)
}

// Unavailable says the daemon cannot serve the request now (shutting
// down, not ready).
func Unavailable(format string, args ...any) *Error {
	return newError(http.StatusServiceUnavailable, CodeUnavailable, format, args...)
}

// IsCode reports whether err is a wire error with the given code.
func IsCode(err error, code string) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// asError turns any handler error into a wire error.
func asError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return newError(http.StatusRequestEntityTooLarge, CodeTooLarge, "request body larger than %d bytes", mbe.Limit)
	}
	return newError(http.StatusInternalServerError, CodeInternal, "%v", err)
}
