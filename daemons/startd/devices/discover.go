package devices

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os/exec"
	"time"
)

// runTimeout bounds each discovery command.
const runTimeout = 30 * time.Second

// Discover finds each declared resource. A command that is missing,
// fails or prints nothing usable is logged and leaves its resource with
// no units; GPUs that nvidia-smi does not find are no resource at all,
// so that a machine without GPUs publishes nothing about them.
// Discover itself fails only on declarations that are wrong (an id
// listed twice).
func Discover(ctx context.Context, specs []Spec, log *slog.Logger) ([]Resource, error) {
	var out []Resource
	for _, sp := range specs {
		r, err := discoverOne(ctx, sp, log)
		if err != nil {
			return nil, err
		}
		if sp.NvidiaSMI != "" && r.Count == 0 {
			continue
		}
		out = append(out, r)
	}
	return out, nil
}

func discoverOne(ctx context.Context, sp Spec, log *slog.Logger) (Resource, error) {
	switch {
	case sp.IDs != nil:
		return fromIDs(sp.Name, sp.IDs)
	case sp.Inventory != nil:
		text, err := run(ctx, sp.Inventory)
		if err != nil {
			log.Warn("custom resource inventory failed: none of it", "resource", sp.Name, "err", err)
			return Resource{Name: sp.Name, IDs: []string{}}, nil
		}
		r, err := ParseInventory(sp.Name, text)
		if err != nil {
			log.Warn("custom resource inventory printed nothing usable: none of it", "resource", sp.Name, "err", err)
			return Resource{Name: sp.Name, IDs: []string{}}, nil
		}
		return r, nil
	case sp.NvidiaSMI != "":
		r := NvidiaGPUs(ctx, sp.NvidiaSMI, log)
		r.Name = sp.Name
		return r, nil
	}
	return Resource{Name: sp.Name, Count: sp.Count}, nil
}

// run runs a discovery command and returns what it printed; an error
// holds its exit and the end of its standard error.
func run(ctx context.Context, argv []string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := bytes.TrimSpace(stderr.Bytes())
		if len(msg) > 200 {
			msg = msg[len(msg)-200:]
		}
		return nil, fmt.Errorf("%s: %w: %s", argv[0], err, msg)
	}
	return out, nil
}
