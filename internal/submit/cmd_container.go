package submit

import (
	"path"
	"strings"

	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
)

// Commands of container jobs (HTCondor manual: users' manual, "Container
// Universe Jobs" and "Docker Universe Applications"; condor_submit man
// page, COMMANDS FOR THE DOCKER UNIVERSE and FOR THE CONTAINER
// UNIVERSE). A job is a container job under universe = container, under
// universe = docker (which needs docker_image), or under vanilla or no
// universe when it names container_image or docker_image. Its
// JobUniverse stays 5 (vanilla), with WantContainer or WantDocker set.
var (
	containerImageKeys  = []string{"container_image", "containerimage"}
	dockerImageKeys     = []string{"docker_image", "dockerimage"}
	containerTargetKeys = []string{"container_target_dir", "containertargetdir"}
	transferContKeys    = []string{"transfer_container", "transfercontainer"}
	dockerNetworkKeys   = []string{"docker_network_type", "dockernetworktype"}
	dockerPullKeys      = []string{"docker_pull_policy", "dockerpullpolicy"}
	dockerEntryKeys     = []string{"docker_override_entrypoint", "dockeroverrideentrypoint"}
)

// unsupportedContainerCommands are HTCondor's container commands Kite
// refuses, by name, rather than run the job without what they ask.
var unsupportedContainerCommands = []struct{ key, why string }{
	{"container_service_names", "Kite does not publish container ports"},
	{"containerservicenames", "Kite does not publish container ports"},
	{"docker_send_credentials", "Kite does not send docker credentials with a job"},
	{"dockersendcredentials", "Kite does not send docker credentials with a job"},
}

// invalidImagePrefixes are image references condor_submit refuses.
var invalidImagePrefixes = []string{"instance://", "library://", "shub://"}

// universeContainer and universeDocker are the universe names that are
// vanilla jobs with a container topping.
const (
	universeContainer = "container"
	universeDocker    = "docker"
)

// isContainer reports whether an earlier step made the job a container or
// docker job.
func (b *builder) isContainer() bool {
	return b.attrTrue(attr.WantContainer) || b.attrTrue(attr.WantDocker)
}

// attrTrue reports whether an earlier step set name to true.
func (b *builder) attrTrue(name string) bool {
	e, _ := b.attr(name)
	l, ok := e.(*ast.Literal)
	return ok && l.Kind == ast.BoolLit && l.Bool
}

// isVanilla reports whether the job is in the vanilla universe (the one
// container jobs are toppings of).
func (b *builder) isVanilla() bool {
	e, _ := b.attr("JobUniverse")
	l, ok := e.(*ast.Literal)
	return ok && l.Kind == ast.IntLit && l.Int == vanillaUniverse
}

// stepContainer sets what a container job needs, as condor_submit does:
// the image (ContainerImage or DockerImage), what kind of image it is
// (WantDockerImage, WantSIF, WantSandboxImage), where it comes from
// (ContainerImageSource) and the commands that shape the container.
func stepContainer(b *builder) error {
	for _, c := range unsupportedContainerCommands {
		if v, m := b.value(c.key); v != "" {
			return b.errorf(m, "%s is not supported: %s", m.name, c.why)
		}
	}
	cimg, cm := b.value(containerImageKeys...)
	dimg, dm := b.value(dockerImageKeys...)
	cimg, dimg = trimSpace(stripQuotes(cimg)), trimSpace(stripQuotes(dimg))
	docker, universe := b.attrTrue(attr.WantDocker), b.attrTrue(attr.WantContainer)
	switch {
	case !b.isVanilla() && (cimg != "" || dimg != ""):
		m := cm
		if m == nil {
			m = dm
		}
		return b.errorf(m, "%s is for vanilla, container and docker universe jobs only", m.name)
	case docker && cimg != "":
		return b.errorf(cm, "the docker universe does not allow container_image: use docker_image")
	case docker && dimg == "":
		return b.errorf(nil, "docker universe jobs require a docker_image")
	case cimg != "" && dimg != "":
		return b.errorf(dm, "cannot declare both docker_image and container_image")
	case universe && cimg == "" && dimg == "":
		return b.errorf(nil, "container universe jobs require a container_image or docker_image")
	case !docker && !universe && cimg == "" && dimg == "":
		return b.notContainer()
	}
	if docker {
		b.setString(attr.DockerImage, dimg)
	} else {
		b.setBool(attr.WantContainer, true)
		if err := b.containerImage(cimg, cm, dimg); err != nil {
			return err
		}
	}
	return b.containerOptions()
}

// notContainer warns of the commands that only container jobs take:
// condor_submit accepts them in any job, where they change nothing.
func (b *builder) notContainer() error {
	for _, keys := range [][]string{containerTargetKeys, transferContKeys, dockerNetworkKeys, dockerPullKeys, dockerEntryKeys} {
		if v, m := b.value(keys...); v != "" {
			b.warnf(m, "%s applies only to container jobs (container_image, docker_image, or universe = container or docker); this job runs no container, so it has no effect", m.name)
		}
	}
	return nil
}

// containerImage sets the image of a container universe job: a docker
// image (docker_image, or container_image with a docker: prefix), a .sif
// file, or else a directory holding an unpacked root file system.
func (b *builder) containerImage(cimg string, cm *macro, dimg string) error {
	if cimg == "" {
		b.setString(attr.DockerImage, dimg)
		b.setBool(attr.WantDockerImage, true)
		return nil
	}
	for _, p := range invalidImagePrefixes {
		if strings.HasPrefix(cimg, p) {
			return b.errorf(cm, "%q is not a valid container image", cimg)
		}
	}
	b.setString(attr.ContainerImage, cimg)
	if strings.HasPrefix(cimg, "docker:") {
		b.setBool(attr.WantDockerImage, true)
		b.setString(attr.ContainerImageSource, "docker")
		return nil
	}
	if i := strings.Index(cimg, "://"); i > 0 {
		return b.errorf(cm, "container image %q: Kite fetches images only from docker:// repositories, not by %s URLs", cimg, cimg[:i])
	}
	if strings.HasSuffix(cimg, ".sif") {
		b.setBool(attr.WantSIF, true)
	} else {
		b.setBool(attr.WantSandboxImage, true)
	}
	return b.localImage(cimg, cm)
}

// localImage checks an image file or directory: Kite does not send
// images with the job, so it must already be on the execute machines, at
// an absolute path, and the job must say so (transfer_container = false).
func (b *builder) localImage(img string, m *macro) error {
	transfer, given, err := b.boolValue(true, transferContKeys...)
	if err != nil {
		return err
	}
	if transfer {
		return b.errorf(m, "container image %s: Kite does not send container images with the job; put the image on the execute machines and set transfer_container = false", img)
	}
	if !path.IsAbs(img) {
		return b.errorf(m, "container image %s: an image on the execute machines must be an absolute path", img)
	}
	if given {
		b.setBool(attr.TransferContainer, false)
	}
	b.setString(attr.ContainerImageSource, "local")
	return nil
}

// containerOptions sets the commands that shape a container job's
// container: where its sandbox appears, its network, pulls, entrypoint.
func (b *builder) containerOptions() error {
	if v, m := b.value(containerTargetKeys...); v != "" {
		if v = stripQuotes(v); !path.IsAbs(v) {
			return b.errorf(m, "container_target_dir = %s: it must be an absolute path inside the container", v)
		}
		b.setString(attr.ContainerTargetDir, v)
	}
	if !b.has(attr.TransferContainer) {
		if t, given, err := b.boolValue(true, transferContKeys...); err != nil {
			return err
		} else if given {
			b.setBool(attr.TransferContainer, t)
		}
	}
	if v, m := b.value(dockerNetworkKeys...); v != "" {
		switch strings.ToLower(v) {
		case "host", "none", "nat":
			b.setString(attr.DockerNetworkType, strings.ToLower(v))
		default:
			return b.errorf(m, "docker_network_type = %s is not supported: Kite runs containers on the host, none or nat networks", v)
		}
	}
	if v, m := b.value(dockerPullKeys...); v != "" {
		if !strings.EqualFold(v, "always") {
			return b.errorf(m, "docker_pull_policy = %s is invalid: the only policy is always", v)
		}
		b.setString(attr.DockerPullPolicy, "always")
	}
	if v, given, err := b.boolValue(false, dockerEntryKeys...); err != nil {
		return err
	} else if given {
		b.setBool(attr.DockerOverrideEntrypoint, v)
	}
	return nil
}

// containerClauses adds a container job's Requirements in place of the
// submit host's Arch and OpSys, as condor_submit writes them: the Arch,
// then HasDocker (docker universe) or HasContainer and the kind of image.
// It reports whether the job is a container job.
func (b *builder) containerClauses(r *reqBuilder, refs map[string]bool) bool {
	if !b.isContainer() {
		return false
	}
	if !refs["arch"] {
		r.and(`(TARGET.Arch == ` + quote(b.x.env.Host.Arch) + `)`)
	}
	if b.attrTrue(attr.WantDocker) {
		r.and("TARGET." + attr.HasDocker)
		return true
	}
	r.and("TARGET." + attr.HasContainer)
	switch {
	case b.attrTrue(attr.WantDockerImage):
		r.and("TARGET." + attr.HasDockerURL)
	case b.attrTrue(attr.WantSIF):
		r.and("TARGET." + attr.HasSIF)
	default:
		r.and("TARGET." + attr.HasSandboxImage)
	}
	return true
}

func init() {
	for _, l := range [][]string{containerImageKeys, dockerImageKeys, containerTargetKeys, transferContKeys,
		dockerNetworkKeys, dockerPullKeys, dockerEntryKeys} {
		for _, k := range l {
			knownCommands[k] = true
		}
	}
	for _, c := range unsupportedContainerCommands {
		knownCommands[c.key] = true
	}
}
