package starter

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/startd/container"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/jobenv"
	"github.com/kite-sched/kite/internal/wire"
)

// Container jobs (HTCondor manual, "Container Universe Jobs" and "Docker
// Universe Applications"): the job runs in its image through the
// machine's runtime (Config.Containers), its sandbox bind-mounted at the
// same path (or at ContainerTargetDir) as its working directory, as the
// job's user, never root. The container is made before the job is said to
// run (a pull or an image that fails holds the job with the runtime's
// words), runs attached to the job's standard files, and is removed when
// the job is over. A container that never ran is the runtime's failure,
// not the job's exit code.

// createTimeout bounds making a container, a docker image's pull included.
const createTimeout = time.Hour

// isContainerJob reports whether the job asks for a container.
func isContainerJob(ad *classad.Ad) bool {
	return classad.EvalBoolOr(ad, attr.WantContainer, false) || classad.EvalBoolOr(ad, attr.WantDocker, false)
}

// jobImage returns the job's image and its kind, as condor_submit
// classified it.
func jobImage(ad *classad.Ad) (string, container.ImageKind, error) {
	img := classad.EvalStringOr(ad, attr.ContainerImage, "")
	if img == "" {
		img = classad.EvalStringOr(ad, attr.DockerImage, "")
		if img == "" {
			return "", 0, errors.New("the container job names no image (ContainerImage or DockerImage)")
		}
		return img, container.DockerRef, nil
	}
	switch {
	case strings.HasPrefix(img, "docker:"):
		return img, container.DockerRef, nil
	case strings.HasSuffix(img, ".sif"):
		return img, container.SIF, nil
	case !path.IsAbs(img):
		return "", 0, fmt.Errorf("container image %q is neither a docker:// image nor an absolute path on this machine", img)
	}
	return img, container.Directory, nil
}

// prepareContainer makes the job's container, once its files are in the
// sandbox; an error is why the job is held.
func (s *Starter) prepareContainer(p *plan) error {
	rt := s.cfg.Containers
	if rt == nil {
		return errors.New("this machine has no working container runtime (HasContainer is not set), and a container job never runs on the bare host")
	}
	spec, err := s.containerSpec(p)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(s.ctx, createTimeout)
	defer cancel()
	if err := rt.Create(ctx, spec); err != nil {
		return err
	}
	s.mu.Lock()
	s.ctr = spec
	s.mu.Unlock()
	s.log.Info("container made", "runtime", rt.Kind, "name", spec.Name, "image", spec.Image)
	return nil
}

// containerSpec is the job's container: its image, the sandbox (and, on
// a shared file system, its directory) mounted, its command, environment,
// user, devices and limits.
func (s *Starter) containerSpec(p *plan) (*container.Spec, error) {
	ad := s.job.Ad
	img, kind, err := jobImage(ad)
	if err != nil {
		return nil, err
	}
	inside := classad.EvalStringOr(ad, attr.ContainerTargetDir, "")
	if inside == "" {
		inside = s.box.Path // HTCondor's docker jobs see their scratch at its own path
	}
	mounts := []container.Mount{{Host: s.box.Path, Target: inside}}
	workdir := inside
	if p.shared {
		mounts = append(mounts, container.Mount{Host: p.dir, Target: p.dir})
		workdir = p.dir
	}
	args, err := jobenv.Arguments(ad)
	if err != nil {
		return nil, fmt.Errorf("the job's arguments: %w", err)
	}
	env, err := s.environment(inside, workdir)
	if err != nil {
		return nil, err
	}
	exe := p.exe
	if exe != "" && !path.IsAbs(exe) {
		exe = path.Join(inside, exe)
	}
	uid, gid := os.Getuid(), os.Getgid()
	if u := s.cfg.User; u != nil {
		uid, gid = u.UID, u.GID
	}
	spec := &container.Spec{
		Name: container.Name(s.cfg.ContainerPrefix, s.cfg.Slot, s.job.ID), Image: img, Kind: kind,
		Exe: exe, Args: args, OverrideEntrypoint: classad.EvalBoolOr(ad, attr.DockerOverrideEntrypoint, false),
		Env: env, Mounts: mounts, Workdir: workdir, UID: uid, GID: gid,
		Devices: containerDevices(s.cfg.DeviceFiles, env), Network: classad.EvalStringOr(ad, attr.DockerNetworkType, ""),
		PullAlways: strings.EqualFold(classad.EvalStringOr(ad, attr.DockerPullPolicy, ""), "always"),
		MemoryMiB:  s.memoryLimit(), Cpus: s.cfg.Cpus, Stdin: p.stdin != "",
	}
	if spec.Network == "nat" {
		spec.Network = ""
	}
	return spec, nil
}

// containerDevices are the device files a container job gets: its GPUs'
// as the startd assigned them, else those its environment names
// (_CONDOR_AssignedGPUs, else CUDA_VISIBLE_DEVICES, as NVIDIA's numbers),
// with NVIDIA's control devices that exist.
func containerDevices(assigned []string, env []string) []string {
	devs := append([]string(nil), assigned...)
	if len(devs) == 0 {
		devs = gpuDevicesFromEnv(env)
	}
	if len(devs) == 0 {
		return nil
	}
	for _, ctl := range []string{"/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools"} {
		if _, err := os.Stat(ctl); err == nil && !containsString(devs, ctl) {
			devs = append(devs, ctl)
		}
	}
	return devs
}

// gpuDevicesFromEnv names /dev/nvidiaN for each numeric id the job's
// environment assigns it.
func gpuDevicesFromEnv(env []string) []string {
	vars := map[string]string{}
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	list := vars["_CONDOR_AssignedGPUs"]
	if list == "" {
		list = vars["CUDA_VISIBLE_DEVICES"]
	}
	var devs []string
	for _, id := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' }) {
		n, err := strconv.Atoi(strings.TrimPrefix(strings.TrimPrefix(id, "CUDA"), "GPU-"))
		if err == nil && n >= 0 {
			devs = append(devs, "/dev/nvidia"+strconv.Itoa(n))
		}
	}
	return devs
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// containerCommand is the runtime's process that runs the made container
// attached to the job's standard files, in its own process group: podman
// and docker run as the startd (they set the job's user inside),
// apptainer as the job's user.
func (s *Starter) containerCommand(stdio [3]*os.File) *exec.Cmd {
	cmd := s.cfg.Containers.Cmd(s.ctr)
	cmd.Dir = s.box.Path
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdio[0], stdio[1], stdio[2]
	if s.cfg.Containers.Kind == container.Apptainer {
		s.asJob(cmd)
		return cmd
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(cmd.SysProcAttr)
	return cmd
}

// containerEnded says how the job's container ended: an event (held) for
// a container that never ran or ran out of memory, nil for a job that
// ran and exited by itself.
func (s *Starter) containerEnded() *wire.JobUpdate {
	s.mu.Lock()
	spec := s.ctr
	s.mu.Unlock()
	if spec == nil || s.cfg.Containers.Kind == container.Apptainer {
		return nil
	}
	st, err := s.cfg.Containers.Inspect(context.Background(), spec.Name)
	if err == nil {
		s.mu.Lock()
		s.ctrEnd = &st
		s.mu.Unlock()
	}
	switch {
	case err != nil:
		u := s.held(attr.HoldStartingJob, fmt.Errorf("the job's container: %w", err))
		return &u
	case !st.Ran:
		why := st.Error
		if why == "" {
			why = fmt.Sprintf("the container never started (%s exited %d)", s.cfg.Containers.Kind, s.cmd.ProcessState.ExitCode())
		}
		u := s.held(attr.HoldInvalidDockerImage, fmt.Errorf("%s could not start the job's container: %s", s.cfg.Containers.Kind, why))
		return &u
	case st.OOMKilled && s.cfg.HoldIfMemoryExceeded:
		u := s.held(attr.HoldJobOutOfResources, errors.New(memoryReason(s.cfg.MemoryMiB<<20+1, s.cfg.MemoryMiB)))
		return &u
	}
	return nil
}

// containerExit is the exit code of a job whose container ran and ended,
// as its runtime tells it.
func (s *Starter) containerExit() (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctrEnd == nil || !s.ctrEnd.Ran {
		return 0, false
	}
	return s.ctrEnd.ExitCode, true
}

// signalContainer sends sig to the container's processes through the
// runtime: the runtime's attached process forwards catchable signals,
// but not SIGKILL or SIGSTOP.
func (s *Starter) signalContainer(sig syscall.Signal) {
	s.mu.Lock()
	spec, over := s.ctr, s.exited
	s.mu.Unlock()
	if spec == nil || over {
		return
	}
	if err := s.cfg.Containers.Kill(context.Background(), spec.Name, int(sig)); err != nil {
		s.log.Debug("signalling the job's container", "signal", sig, "err", err)
	}
}

// removeContainer removes the job's container, if it made one.
func (s *Starter) removeContainer() {
	s.mu.Lock()
	spec := s.ctr
	s.ctr = nil
	s.mu.Unlock()
	if spec == nil {
		return
	}
	if err := s.cfg.Containers.Remove(context.Background(), spec.Name); err != nil {
		s.log.Warn("removing the job's container", "name", spec.Name, "err", err)
	}
}
