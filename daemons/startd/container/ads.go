package container

import (
	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
)

// maxOfflineReason bounds an offline reason in the machine ad.
const maxOfflineReason = 500

// Publish adds what d found to a machine ad, as HTCondor's startd
// publishes its starter's container abilities: a working docker (here
// also podman, which runs docker universe jobs) sets HasDocker,
// HasDockerURL and HasContainer with DockerVersion; a working apptainer
// sets HasSingularity, HasContainer, HasDockerURL, HasSIF and
// HasSandboxImage with SingularityVersion; podman also runs directory
// images (HasSandboxImage). A runtime found broken gives its
// DockerOfflineReason or SingularityOfflineReason.
func (d Detection) Publish(ad *classad.Ad) {
	for kind, why := range d.Offline {
		if len(why) > maxOfflineReason {
			why = why[:maxOfflineReason]
		}
		name := "DockerOfflineReason"
		if kind == Apptainer {
			name = "SingularityOfflineReason"
		}
		ad.Set(name, ast.Str(why))
	}
	r := d.Runtime
	if r == nil {
		return
	}
	set := func(name string) { ad.Set(name, ast.Bool(true)) }
	set(attr.HasContainer)
	set(attr.HasDockerURL)
	if r.Supports(Directory) {
		set(attr.HasSandboxImage)
	}
	switch r.Kind {
	case Podman, Docker:
		set(attr.HasDocker)
		ad.Set(attr.DockerVersion, ast.Str(r.Version))
	case Apptainer:
		set(attr.HasSingularity)
		set(attr.HasSIF)
		ad.Set(attr.SingularityVersion, ast.Str(r.Version))
	}
	ad.Set("KiteContainerRuntime", ast.Str(string(r.Kind)))
}
