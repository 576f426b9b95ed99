package attr

// Attributes of container jobs and of the machines that run them, as
// HTCondor 25 names them (HTCondor manual: "Container Universe Jobs",
// "Docker Universe Applications", and the machine ClassAd attributes).
const (
	// Job attributes condor_submit writes.
	WantContainer            = "WantContainer"    // universe = container, or an image under vanilla
	WantDocker               = "WantDocker"       // universe = docker
	WantDockerImage          = "WantDockerImage"  // the image is a docker:// reference (or docker_image)
	WantSIF                  = "WantSIF"          // the image is a .sif file
	WantSandboxImage         = "WantSandboxImage" // the image is a directory (an unpacked root file system)
	ContainerImage           = "ContainerImage"
	DockerImage              = "DockerImage"
	ContainerImageSource     = "ContainerImageSource" // "docker" or "local"
	ContainerTargetDir       = "ContainerTargetDir"   // where the sandbox appears inside the container
	TransferContainer        = "TransferContainer"
	DockerNetworkType        = "DockerNetworkType"
	DockerPullPolicy         = "DockerPullPolicy"
	DockerOverrideEntrypoint = "DockerOverrideEntrypoint"

	// Machine attributes a startd with a working runtime advertises.
	HasContainer       = "HasContainer"
	HasDocker          = "HasDocker"
	HasDockerURL       = "HasDockerURL"
	HasSIF             = "HasSIF"
	HasSandboxImage    = "HasSandboxImage"
	DockerVersion      = "DockerVersion"
	HasSingularity     = "HasSingularity"
	SingularityVersion = "SingularityVersion"
)

// HoldInvalidDockerImage is HTCondor's hold code for a container image
// that cannot be run (InvalidDockerImage).
const HoldInvalidDockerImage = 35
