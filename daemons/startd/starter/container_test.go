package starter

import (
	"reflect"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/daemons/startd/container"
)

// The image a container job names, as condor_submit classified it
// (HTCondor manual, "Container Universe Jobs": docker: images, .sif
// files, directories).
func TestJobImage(t *testing.T) {
	for _, c := range []struct {
		ad   string
		img  string
		kind container.ImageKind
		bad  bool
	}{
		{`[ WantContainer = true; ContainerImage = "docker://debian:12" ]`, "docker://debian:12", container.DockerRef, false},
		{`[ WantDocker = true; DockerImage = "debian:12" ]`, "debian:12", container.DockerRef, false},
		{`[ WantContainer = true; ContainerImage = "/cvmfs/x.sif" ]`, "/cvmfs/x.sif", container.SIF, false},
		{`[ WantContainer = true; ContainerImage = "/images/rootfs" ]`, "/images/rootfs", container.Directory, false},
		{`[ WantContainer = true; ContainerImage = "rootfs" ]`, "", 0, true},
		{`[ WantContainer = true ]`, "", 0, true},
	} {
		ad, err := classad.Parse(c.ad)
		if err != nil {
			t.Fatal(err)
		}
		if !isContainerJob(ad) {
			t.Errorf("%s is not a container job", c.ad)
		}
		img, kind, err := jobImage(ad)
		if (err != nil) != c.bad || img != c.img || kind != c.kind {
			t.Errorf("jobImage(%s) = %q, %v, %v", c.ad, img, kind, err)
		}
	}
}

// A container job's GPUs: the devices the startd assigned, else those
// its environment names; ids that are not NVIDIA's numbers give none.
func TestGPUDevicesFromEnv(t *testing.T) {
	for _, c := range []struct {
		env  []string
		want []string
	}{
		{[]string{"_CONDOR_AssignedGPUs=CUDA1,CUDA3", "CUDA_VISIBLE_DEVICES=9"}, []string{"/dev/nvidia1", "/dev/nvidia3"}},
		{[]string{"CUDA_VISIBLE_DEVICES=0, 2"}, []string{"/dev/nvidia0", "/dev/nvidia2"}},
		{[]string{"CUDA_VISIBLE_DEVICES=GPU-c4a646d7-aa"}, nil},
		{[]string{"PATH=/bin"}, nil},
	} {
		if got := gpuDevicesFromEnv(c.env); !reflect.DeepEqual(got, c.want) {
			t.Errorf("gpuDevicesFromEnv(%q) = %q, want %q", c.env, got, c.want)
		}
	}
	if got := containerDevices([]string{"/dev/nvidia5"}, []string{"CUDA_VISIBLE_DEVICES=0"}); len(got) == 0 || got[0] != "/dev/nvidia5" {
		t.Errorf("containerDevices prefers the assigned devices: %q", got)
	}
	if got := containerDevices(nil, nil); got != nil {
		t.Errorf("containerDevices without GPUs = %q", got)
	}
}
