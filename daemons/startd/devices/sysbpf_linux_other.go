//go:build linux && !amd64 && !arm64

package devices

// sysBPF is -1 where Kite does not know the bpf system call's number:
// no device programs there.
var sysBPF = -1
