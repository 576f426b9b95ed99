package runas

import (
	"errors"
	"os"
	"runtime"
	"sync"
	"syscall"
	"unsafe"
)

// switched runs fn on the calling goroutine's thread with a's file-system
// identity. The goroutine must end right after: if the thread's identity
// could not be restored, the thread stays locked and dies with it.
func switched(a *Account, fn func() error) error {
	daemonIDs() // read before any switch
	runtime.LockOSThread()
	if err := setThread(a.UID, a.GID, a.Groups); err != nil {
		if restoreThread() == nil {
			runtime.UnlockOSThread()
		}
		return &SwitchError{Account: a, Err: err}
	}
	err := fn()
	if restoreThread() == nil {
		runtime.UnlockOSThread()
	}
	return err
}

// daemonIDs is the identity the daemon's threads have: restored after
// each switch.
var daemonIDs = sync.OnceValue(func() (ids struct {
	uid, gid uint32
	groups   []uint32
}) {
	ids.uid, ids.gid = uint32(os.Geteuid()), uint32(os.Getegid())
	gs, _ := syscall.Getgroups() // a failure leaves root with no extra groups
	for _, g := range gs {
		ids.groups = append(ids.groups, uint32(g))
	}
	return ids
})

// setThread gives the current thread a's groups, fsgid and fsuid. These
// are the raw system calls: the C library and Go's syscall.Setgroups apply
// them to every thread of the process, which is what must not happen.
func setThread(uid, gid uint32, groups []uint32) error {
	if err := setgroups(groups); err != nil {
		return err
	}
	if err := setfsid(syscall.SYS_SETFSGID, gid); err != nil {
		return err
	}
	return setfsid(syscall.SYS_SETFSUID, uid)
}

// restoreThread gives the thread back the daemon's identity.
func restoreThread() error {
	ids := daemonIDs()
	err := setfsid(syscall.SYS_SETFSUID, ids.uid)
	if gerr := setfsid(syscall.SYS_SETFSGID, ids.gid); err == nil {
		err = gerr
	}
	if serr := setgroups(ids.groups); err == nil {
		err = serr
	}
	return err
}

func setgroups(groups []uint32) error {
	var p unsafe.Pointer
	if len(groups) > 0 {
		p = unsafe.Pointer(&groups[0])
	}
	if _, _, errno := syscall.RawSyscall(syscall.SYS_SETGROUPS, uintptr(len(groups)), uintptr(p), 0); errno != 0 {
		return errno
	}
	return nil
}

// setfsid sets the thread's fsuid or fsgid. The call returns the previous
// id, not an error: a second call tells whether the first took.
func setfsid(call uintptr, id uint32) error {
	syscall.RawSyscall(call, uintptr(id), 0, 0)
	if got, _, _ := syscall.RawSyscall(call, uintptr(id), 0, 0); uint32(got) != id {
		return errSwitch
	}
	return nil
}

var errSwitch = errors.New("the kernel refused to switch the thread's file-system identity")
