// Package container runs jobs in container images with the container
// runtime a machine has: podman, docker, or apptainer (singularity), as
// HTCondor's starter runs container and docker universe jobs.
//
// Detect finds the runtime that works, not merely one that is installed:
// it runs a trivial container (podman: an empty root file system with the
// host's /usr and /bin mounted read-only, under the machine's own limits),
// and for podman tries its default OCI runtime, then runc, which some
// kernels' cgroup layouts need. The runtime found is advertised
// (HasContainer, HasDocker, HasDockerURL, HasSandboxImage, HasSIF,
// DockerVersion, HasSingularity, SingularityVersion), and a runtime that
// is installed but broken says why (DockerOfflineReason,
// SingularityOfflineReason).
//
// A job's container is made in steps so that the runtime's own failures
// are told apart from the job's: Create makes the container (pulling a
// docker:// image, checking a local one) and, for podman, initializes it
// (mounts, limits, the executable); Start runs it attached to the job's
// standard files; State says whether it ever ran and how it ended. A
// container that never ran failed for the runtime's reasons: the job is
// held with them, never run on the bare host. Containers are named for
// their slot and job (Name), with a prefix the startd sweeps at start.
package container
