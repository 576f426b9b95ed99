package devices

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"syscall"
	"unsafe"
)

// A cgroup v2 group decides device access by the eBPF programs of type
// BPF_PROG_TYPE_CGROUP_DEVICE attached to it (the kernel's
// Documentation/admin-guide/cgroup-v2.rst, "Device controller"): the
// program sees each access as struct bpf_cgroup_dev_ctx { u32
// access_type; u32 major; u32 minor; } and allows it by returning 1.
const (
	bpfProgLoad           = 5
	bpfProgAttach         = 8
	bpfProgTypeCgroupDev  = 15
	bpfCgroupDevice       = 6 // attach type
	bpfFAllowMulti        = 2
	bpfDevcgDevBlock      = 1
	bpfDevcgDevChar       = 2
	bpfInsnLdxMemW        = 0x61 // dst = *(u32 *)(src + off)
	bpfInsnAndImm64       = 0x57 // dst &= imm
	bpfInsnJneImm         = 0x55 // if dst != imm goto pc + off
	bpfInsnMovImm64       = 0xb7 // dst = imm
	bpfInsnExit           = 0x95
	bpfRegR0, bpfRegR1    = 0, 1
	bpfRegR2, bpfRegR3    = 2, 3
	bpfRegR4              = 4
	maxDeniedDevices      = 256 // bounds the program: 5 instructions each
	bpfRejectedWithoutBPF = "Kite loads no eBPF device programs"
)

// bpfLicense is the programs' license, in memory that does not move (the
// kernel reads it through a pointer in the attributes).
var bpfLicense = []byte("Apache-2.0\x00")

// device is a device's type (bpfDevcgDev*) and numbers.
type device struct {
	kind         uint32
	major, minor uint32
}

// insn encodes one eBPF instruction.
func insn(op uint8, dst, src uint8, off int16, imm int32) uint64 {
	return uint64(op) | uint64(dst&0xf)<<8 | uint64(src&0xf)<<12 | uint64(uint16(off))<<16 | uint64(uint32(imm))<<32
}

// denyProgram is a device program that denies the devices and allows
// every other access:
//
//	r2 = ctx->access_type & 0xffff; r3 = ctx->major; r4 = ctx->minor
//	for each device: if r2 == kind && r3 == major && r4 == minor { return 0 }
//	return 1
func denyProgram(deny []device) []uint64 {
	p := []uint64{
		insn(bpfInsnLdxMemW, bpfRegR2, bpfRegR1, 0, 0),
		insn(bpfInsnAndImm64, bpfRegR2, 0, 0, 0xffff),
		insn(bpfInsnLdxMemW, bpfRegR3, bpfRegR1, 4, 0),
		insn(bpfInsnLdxMemW, bpfRegR4, bpfRegR1, 8, 0),
	}
	for _, d := range deny {
		p = append(p,
			insn(bpfInsnJneImm, bpfRegR2, 0, 4, int32(d.kind)),
			insn(bpfInsnJneImm, bpfRegR3, 0, 3, int32(d.major)),
			insn(bpfInsnJneImm, bpfRegR4, 0, 2, int32(d.minor)),
			insn(bpfInsnMovImm64, bpfRegR0, 0, 0, 0),
			insn(bpfInsnExit, 0, 0, 0, 0),
		)
	}
	return append(p, insn(bpfInsnMovImm64, bpfRegR0, 0, 0, 1), insn(bpfInsnExit, 0, 0, 0, 0))
}

// progLoadAttr is the head of union bpf_attr for BPF_PROG_LOAD.
type progLoadAttr struct {
	progType, insnCnt  uint32
	insns, license     uint64
	logLevel, logSize  uint32
	logBuf             uint64
	kernVersion, flags uint32
	_                  [80]byte // the fields after, zero
}

// progAttachAttr is union bpf_attr for BPF_PROG_ATTACH.
type progAttachAttr struct {
	targetFd, attachBpfFd, attachType, attachFlags, replaceBpfFd uint32
	_                                                            [100]byte
}

// loadProgram loads a device program and returns its descriptor. prog
// is on the heap (denyProgram's result), where it does not move.
func loadProgram(prog []uint64) (int, error) {
	if sysBPF < 0 {
		return -1, errors.New(bpfRejectedWithoutBPF + " on " + runtime.GOARCH)
	}
	a := progLoadAttr{progType: bpfProgTypeCgroupDev, insnCnt: uint32(len(prog)),
		insns: uint64(uintptr(unsafe.Pointer(&prog[0]))), license: uint64(uintptr(unsafe.Pointer(&bpfLicense[0])))}
	fd, _, errno := syscall.Syscall(uintptr(sysBPF), bpfProgLoad, uintptr(unsafe.Pointer(&a)), unsafe.Sizeof(a))
	runtime.KeepAlive(prog)
	if errno != 0 {
		return -1, fmt.Errorf("loading a device program: %w", errno)
	}
	return int(fd), nil
}

// attachProgram attaches a device program to the cgroup v2 group dir,
// beside those of the groups above it where they allow that.
func attachProgram(dir string, prog int) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	var errno syscall.Errno
	for _, flags := range []uint32{bpfFAllowMulti, 0} {
		a := progAttachAttr{targetFd: uint32(f.Fd()), attachBpfFd: uint32(prog), attachType: bpfCgroupDevice, attachFlags: flags}
		_, _, errno = syscall.Syscall(uintptr(sysBPF), bpfProgAttach, uintptr(unsafe.Pointer(&a)), unsafe.Sizeof(a))
		if errno == 0 {
			return nil
		}
	}
	return fmt.Errorf("attaching a device program to %s: %w", dir, errno)
}

// bpfWorks reports whether device programs can be loaded here.
func bpfWorks() error {
	fd, err := loadProgram(denyProgram(nil))
	if err != nil {
		return err
	}
	return syscall.Close(fd)
}

// denyInGroup attaches to the cgroup v2 group dir a program denying the
// devices.
func denyInGroup(dir string, deny []device) error {
	if len(deny) > maxDeniedDevices {
		return fmt.Errorf("%d devices to deny: at most %d", len(deny), maxDeniedDevices)
	}
	fd, err := loadProgram(denyProgram(deny))
	if err != nil {
		return err
	}
	defer syscall.Close(fd) // the attachment keeps the program
	return attachProgram(dir, fd)
}
