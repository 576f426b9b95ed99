package collector

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/wire"
)

// machineAd is a typical slot ad of about 30 attributes.
func machineAd(i int) string {
	return fmt.Sprintf(`[ MyType = "Machine"; TargetType = "Job"; Name = "slot1@node%06d.cluster.example.org";
  Machine = "node%06d.cluster.example.org"; Arch = "X86_64"; OpSys = "LINUX"; OpSysAndVer = "AlmaLinux9";
  Memory = %d; TotalMemory = 131072; Cpus = %d; Disk = 52428800; KFlops = 2634198; Mips = 34210; LoadAvg = 0.35;
  State = "%s"; Activity = "Idle"; EnteredCurrentActivity = 1718000000; SlotType = "Partitionable";
  HasFileTransfer = true; FileSystemDomain = "cluster.example.org"; UidDomain = "example.org";
  StartdIpAddr = "<10.1.2.42:9618>"; IsWorkstation = false; KeyboardIdle = 123456;
  Start = (TARGET.RequestMemory isnt undefined) && (TARGET.RequestMemory <= MY.Memory);
  Requirements = START && (WithinResourceLimits =!= false);
  WithinResourceLimits = (MY.Cpus >= TARGET.RequestCpus) && (MY.Memory >= TARGET.RequestMemory);
  Rank = 0.0; DaemonStartTime = 1718000000; UpdateSequenceNumber = %d ]`,
		i, i, 1024<<(i%4), 1<<(i%5), []string{"Unclaimed", "Claimed"}[i%2], i)
}

// tcpCollector runs a collector on loopback TCP.
func tcpCollector(b testing.TB) (*Server, *pooltest.Pool) {
	p := pooltest.New(b)
	p.Network = wire.TCP
	cfg := ConfigFrom(p.Config)
	cfg.Listen = "127.0.0.1:0"
	s, err := New(p.Env("collector"), cfg)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	b.Cleanup(func() { cancel(); <-done })
	<-s.Ready()
	return s, p
}

// BenchmarkIngest sends batches of 1000 ads over HTTP on loopback from
// four connections at once; the figure of merit is ads/s.
func BenchmarkIngest(b *testing.B) {
	s, p := tcpCollector(b)
	const batch, conns = 1000, 4
	bodies := make([][]byte, 8)
	for k := range bodies {
		var buf bytes.Buffer
		buf.WriteString(`[`)
		for i := range batch {
			if i > 0 {
				buf.WriteByte(',')
			}
			ad, _ := classad.ParseNew(machineAd(k*batch + i))
			buf.Write(classad.AppendJSON(nil, ad, false))
		}
		buf.WriteString("]")
		bodies[k] = buf.Bytes()
	}
	token := p.Token("startd@bench", auth.Daemon)
	url := "http://" + s.Addr() + wire.PathAds
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns}}
	var next atomic.Int64
	b.ResetTimer()
	var wg sync.WaitGroup
	for range conns {
		wg.Go(func() {
			for {
				n := next.Add(1)
				if n > int64(b.N) {
					return
				}
				req, _ := http.NewRequest("POST", url, bytes.NewReader(bodies[n%int64(len(bodies))]))
				req.Header.Set("Authorization", "Bearer "+token)
				resp, err := client.Do(req)
				if err != nil || resp.StatusCode != 200 {
					b.Errorf("update: %v %v", resp, err)
					return
				}
				resp.Body.Close()
			}
		})
	}
	wg.Wait()
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "ads/s")
}

// BenchmarkQuery100k runs a constraint query over 100 000 machine ads
// through HTTP: half are unclaimed, a quarter of those have 4 GiB or more.
func BenchmarkQuery100k(b *testing.B) {
	for _, tt := range []struct {
		name string
		q    wire.Query
	}{
		{"selective-projected", wire.Query{Type: "Machine", Constraint: `State == "Unclaimed" && Memory >= 4096`, Projection: []string{"Name", "Memory"}}},
		{"selective-whole-ads", wire.Query{Type: "Machine", Constraint: `State == "Unclaimed" && Memory >= 4096`}},
		{"all-names", wire.Query{Type: "Machine", Projection: []string{"Name"}}},
	} {
		b.Run(tt.name, func(b *testing.B) {
			s, p := tcpCollector(b)
			ads := make([]*classad.Ad, 100_000)
			for i := range ads {
				ads[i], _ = classad.ParseNew(machineAd(i))
			}
			s.Store().Update(ads, nil, time.Now())
			ads = nil
			runtime.GC() // the setup's garbage is not the query's
			client := p.Client(s.Addr(), "alice", auth.Read)
			var n int
			for b.Loop() {
				n = 0
				err := client.Stream(context.Background(), "POST", wire.PathQuery, tt.q, func(json.RawMessage) error { n++; return nil })
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n), "ads")
		})
	}
}
