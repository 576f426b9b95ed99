package runas

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
)

// needRoot skips a test of switching identities where it cannot run.
func needRoot(t testing.TB) *Account {
	t.Helper()
	if !Privileged() {
		t.Skip("acting as another account needs root: run the tests as root (CI does)")
	}
	a, err := Lookup("nobody")
	if err != nil {
		t.Skipf("no account nobody to act as: %v", err)
	}
	return a
}

// reachable is a directory of the test that every account may enter.
func reachable(t testing.TB) string {
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// The owner reaches what the owner may, and nothing that only root may:
// a root-only file is not read, a root-only directory is not written, and
// a file the owner creates is the owner's.
func TestDoActsAsTheOwner(t *testing.T) {
	nobody := needRoot(t)
	dir := reachable(t)
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(secret, []byte("root only"), 0o600); err != nil {
		t.Fatal(err)
	}
	closed := filepath.Join(dir, "closed")
	os.Mkdir(closed, 0o700)
	open := filepath.Join(dir, "open")
	os.Mkdir(open, 0o755)
	os.Chown(open, int(nobody.UID), int(nobody.GID))

	err := nobody.Do(func() error { _, err := os.ReadFile(secret); return err })
	if !errors.Is(err, fs.ErrPermission) {
		t.Errorf("nobody read a root-only file: %v", err)
	}
	err = nobody.Do(func() error { return os.WriteFile(filepath.Join(closed, "x"), nil, 0o644) })
	if !errors.Is(err, fs.ErrPermission) {
		t.Errorf("nobody wrote in a root-only directory: %v", err)
	}
	mine := filepath.Join(open, "mine")
	if err := nobody.Do(func() error { return os.WriteFile(mine, []byte("x"), 0o644) }); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(mine)
	if err != nil {
		t.Fatal(err)
	}
	if st := fi.Sys().(*syscall.Stat_t); st.Uid != nobody.UID || st.Gid != nobody.GID {
		t.Errorf("the owner's new file belongs to %d:%d, want %d:%d", st.Uid, st.Gid, nobody.UID, nobody.GID)
	}
	// The daemon itself is root again: the switch was the thread's only.
	if _, err := os.ReadFile(secret); err != nil {
		t.Errorf("root lost its access after acting as nobody: %v", err)
	}
}

// Many switches at once leave every other goroutine root: the identity
// is the thread's, never the process's.
func TestDoIsPerThread(t *testing.T) {
	nobody := needRoot(t)
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	os.WriteFile(secret, []byte("root only"), 0o600)
	var wg sync.WaitGroup
	errs := make(chan error, 400)
	for range 200 {
		wg.Go(func() {
			errs <- nobody.Do(func() error {
				if _, err := os.ReadFile(secret); err == nil {
					return errors.New("nobody read a root-only file")
				}
				return nil
			})
		})
		wg.Go(func() {
			if _, err := os.ReadFile(secret); err != nil {
				errs <- errors.New("root could not read its file while others acted as nobody: " + err.Error())
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// BenchmarkOpenAsOwner is the cost of acting as the owner: opening and
// closing a file as nobody, against opening it as the daemon.
func BenchmarkOpenAsOwner(b *testing.B) {
	nobody := needRoot(b)
	f := filepath.Join(reachable(b), "f")
	os.WriteFile(f, nil, 0o644)
	open := func() error {
		fh, err := os.Open(f)
		if err != nil {
			return err
		}
		return fh.Close()
	}
	b.Run("daemon", func(b *testing.B) {
		for b.Loop() {
			if err := open(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("owner", func(b *testing.B) {
		for b.Loop() {
			if err := nobody.Do(open); err != nil {
				b.Fatal(err)
			}
		}
	})
}
