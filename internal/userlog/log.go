package userlog

import (
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// Log appends events to log files. It is safe for concurrent use: writes
// to one file are serialised, and each Append is one write(2).
type Log struct {
	Options Options
	mu      sync.Mutex
	files   map[string]*sync.Mutex
}

// fileLock returns the lock of one file.
func (l *Log) fileLock(path string) *sync.Mutex {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.files == nil {
		l.files = map[string]*sync.Mutex{}
	}
	m := l.files[path]
	if m == nil {
		m = &sync.Mutex{}
		l.files[path] = m
	}
	return m
}

// Append writes events to the log at path (an absolute path), creating it
// if need be.
func (l *Log) Append(path string, events ...Event) error {
	if len(events) == 0 {
		return nil
	}
	path = filepath.Clean(path)
	m := l.fileLock(path)
	m.Lock()
	defer m.Unlock()
	var buf []byte
	f := Formatter{Options: l.Options}
	for i := range events {
		buf = f.Append(buf, &events[i])
	}
	return l.appendBytes(path, buf)
}

// Write appends events already formatted (by a Formatter of the log's
// Options) to the log at path, with one write.
func (l *Log) Write(path string, data []byte) error {
	if len(data) == 0 {
		return nil
	}
	path = filepath.Clean(path)
	m := l.fileLock(path)
	m.Lock()
	defer m.Unlock()
	return l.appendBytes(path, data)
}

// Touch opens the log at path for appending, creating it if need be, and
// closes it: whether events could be written there.
func Touch(path string) error {
	f, err := openLog(path)
	if err != nil {
		return err
	}
	return f.Close()
}

// openLog opens a log for appending. Not blocking: a FIFO named as a log
// must not hang the writer.
func openLog(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0o644)
}

func (l *Log) appendBytes(path string, buf []byte) error {
	f, err := openLog(path)
	if err != nil {
		return err
	}
	_, err = f.Write(buf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
