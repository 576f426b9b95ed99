package devices

// sysBPF is the bpf system call's number.
const sysBPF = 321
