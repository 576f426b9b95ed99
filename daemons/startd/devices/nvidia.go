package devices

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
)

// nvidiaQuery is what nvidia-smi is asked of each GPU, in this order.
var nvidiaQuery = []string{"index", "uuid", "name", "compute_cap", "memory.total", "pci.bus_id", "ecc.mode.current", "clocks.max.sm"}

// NvidiaGPUs finds the NVIDIA GPUs with nvidia-smi (the tool path, or
// a name looked up in PATH): one query for each GPU's properties
// (--query-gpu, CSV), and `nvidia-smi -q` for the CUDA version the driver
// supports and each GPU's device number. A tool that is missing or fails
// is logged and gives no GPUs. Devices are named as condor_gpu_discovery
// names them by default in HTCondor 25, by short uuid: GPU-c4a646d7.
func NvidiaGPUs(ctx context.Context, tool string, log *slog.Logger) Resource {
	none := Resource{Name: GPUs, IDs: []string{}}
	out, err := run(ctx, []string{tool, "--query-gpu=" + strings.Join(nvidiaQuery, ","), "--format=csv,noheader,nounits"})
	if err != nil {
		log.Info("no GPUs: nvidia-smi did not list any", "tool", tool, "err", err)
		return none
	}
	gpus, err := parseNvidiaQuery(out)
	if err != nil {
		log.Warn("no GPUs: nvidia-smi's answer is not understood", "tool", tool, "err", err)
		return none
	}
	var details nvidiaDetails
	if q, err := run(ctx, []string{tool, "-q"}); err != nil {
		log.Warn("GPUs without DriverVersion: nvidia-smi -q failed", "tool", tool, "err", err)
	} else {
		details = parseNvidiaDetails(q)
	}
	return gpuResource(gpus, details)
}

// nvidiaGPU is one line of the query.
type nvidiaGPU struct {
	index    int
	uuid     string // GPU-c4a646d7-...
	name     string
	cc       float64 // compute capability, 8.0
	memMiB   int64
	busID    string // 00000000:07:00.0
	ecc      string // Enabled, Disabled, [N/A]
	clockMHz int64  // 0 when not given
}

// parseNvidiaQuery reads the CSV lines of --query-gpu.
func parseNvidiaQuery(text []byte) ([]nvidiaGPU, error) {
	r := csv.NewReader(bytes.NewReader(text))
	r.TrimLeadingSpace = true
	r.FieldsPerRecord = len(nvidiaQuery)
	var out []nvidiaGPU
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		g := nvidiaGPU{uuid: rec[1], name: rec[2], busID: rec[5], ecc: rec[6]}
		var errs [3]error
		g.index, errs[0] = strconv.Atoi(rec[0])
		g.cc, errs[1] = strconv.ParseFloat(rec[3], 64)
		g.memMiB, errs[2] = strconv.ParseInt(rec[4], 10, 64)
		g.clockMHz, _ = strconv.ParseInt(rec[7], 10, 64) // [N/A] on some boards
		for _, e := range errs {
			if e != nil {
				return nil, fmt.Errorf("GPU %q: %w", strings.Join(rec, ", "), e)
			}
		}
		if !strings.HasPrefix(g.uuid, "GPU-") && !strings.HasPrefix(g.uuid, "MIG-") {
			return nil, fmt.Errorf("GPU %d: uuid %q does not begin GPU-", g.index, g.uuid)
		}
		out = append(out, g)
	}
}

// nvidiaDetails is what `nvidia-smi -q` adds: the CUDA version of the
// driver ("12.2") and each GPU's minor number by bus id.
type nvidiaDetails struct {
	cuda  string
	minor map[string]int
}

// parseNvidiaDetails reads the "CUDA Version : 12.2" header line and,
// in each "GPU <bus id>" section, "Minor Number : 3".
func parseNvidiaDetails(text []byte) nvidiaDetails {
	d := nvidiaDetails{minor: map[string]int{}}
	bus := ""
	sc := bufio.NewScanner(bytes.NewReader(text))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if b, ok := strings.CutPrefix(line, "GPU "); ok && !strings.Contains(line, ":"+" ") {
			bus = strings.TrimSpace(b)
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "CUDA Version":
			d.cuda = v
		case "Minor Number":
			if n, err := strconv.Atoi(v); err == nil && bus != "" {
				d.minor[strings.ToLower(bus)] = n
			}
		}
	}
	return d
}

// gpuResource makes the GPUs resource, each device's properties named as
// condor_gpu_discovery -properties -extra names them.
func gpuResource(gpus []nvidiaGPU, d nvidiaDetails) Resource {
	r := Resource{Name: GPUs, IDs: []string{}, Props: map[string]*classad.Ad{}, Minor: map[string]int{}}
	cudaReal, cudaInt, cudaOK := cudaVersion(d.cuda)
	for _, g := range gpus {
		id := shortUUID(g.uuid)
		r.IDs = append(r.IDs, id)
		ad := classad.NewAd()
		ad.Set("DeviceName", ast.Str(g.name))
		ad.Set("DeviceUuid", ast.Str(strings.TrimPrefix(strings.TrimPrefix(g.uuid, "GPU-"), "MIG-")))
		ad.Set("DevicePciBusId", ast.Str(pciBusID(g.busID)))
		ad.Set("Capability", ast.Real(g.cc))
		ad.Set("GlobalMemoryMb", ast.Int(g.memMiB))
		ad.Set("ECCEnabled", ast.Bool(strings.EqualFold(g.ecc, "Enabled")))
		if g.clockMHz > 0 {
			ad.Set("ClockMhz", ast.Int(g.clockMHz))
		}
		if cudaOK {
			ad.Set("DriverVersion", ast.Real(cudaReal))
			ad.Set("MaxSupportedVersion", ast.Int(cudaInt))
		}
		r.Props[id] = ad
		if n, ok := d.minor[strings.ToLower(g.busID)]; ok {
			r.Minor[id] = n // unknown: no device file, rather than a guess
		}
	}
	r.Count = int64(len(r.IDs))
	return r
}

// shortUUID is condor_gpu_discovery's -short-uuid name: the prefix and
// the first 8 hex digits, GPU-c4a646d7.
func shortUUID(uuid string) string {
	prefix, rest, _ := strings.Cut(uuid, "-")
	if prefix == "MIG" {
		return uuid // MIG instances keep their whole name
	}
	if len(rest) > 8 {
		rest = rest[:8]
	}
	return prefix + "-" + rest
}

// pciBusID shortens nvidia-smi's 8-digit PCI domain to the 4 digits
// CUDA (and HTCondor) print: 00000000:07:00.0 is 0000:07:00.0.
func pciBusID(id string) string {
	dom, rest, ok := strings.Cut(id, ":")
	if ok && len(dom) == 8 && strings.HasPrefix(dom, "0000") {
		return dom[4:] + ":" + rest
	}
	return id
}

// cudaVersion reads "12.2" as HTCondor's DriverVersion (12.2) and
// MaxSupportedVersion (12020: major*1000 + minor*10).
func cudaVersion(v string) (float64, int64, bool) {
	maj, min, ok := strings.Cut(v, ".")
	a, err1 := strconv.ParseInt(maj, 10, 64)
	b, err2 := strconv.ParseInt(min, 10, 64)
	if !ok || err1 != nil || err2 != nil {
		return 0, 0, false
	}
	f, _ := strconv.ParseFloat(v, 64)
	return f, a*1000 + b*10, true
}
