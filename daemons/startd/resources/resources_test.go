package resources

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestDetect(t *testing.T) {
	m, err := Detect(t.TempDir())
	if runtime.GOOS == "linux" && err != nil {
		t.Fatal(err)
	}
	if m.Cpus < 1 || m.Arch == "" || m.OpSys == "" || m.OpSysAndVer == "" {
		t.Errorf("detected %+v", m)
	}
	if runtime.GOOS == "linux" && (m.MemoryMiB < 64 || m.DiskKiB < 1 || m.KernelVersion == "" || m.OpSys != "LINUX") {
		t.Errorf("detected %+v", m)
	}
	if _, err := Detect("/no/such/dir"); err == nil || !strings.Contains(err.Error(), "disk:") {
		t.Errorf("a missing execute directory: %v", err)
	}
}

func TestOSNames(t *testing.T) {
	tests := []struct {
		release, andVer, long string
		ver                   int64
	}{
		{"ID=ubuntu\nVERSION_ID=\"22.04\"\nPRETTY_NAME=\"Ubuntu 22.04.3 LTS\"\n", "Ubuntu22", "Ubuntu 22.04.3 LTS", 2204},
		{"ID=debian\nVERSION_ID=\"12\"\n", "Debian12", "Debian 12", 1200},
		{"ID=\"rhel\"\nVERSION_ID=\"9.3\"\n", "RedHat9", "RedHat 9.3", 903},
		{"ID=gentoo\n", "Gentoo", "Gentoo", 0},
		{"", "LINUX", "LINUX", 0},
	}
	for _, tt := range tests {
		m := Machine{OpSys: "LINUX"}
		m.describeOS(parseOSRelease(strings.NewReader(tt.release)))
		if m.OpSysAndVer != tt.andVer || m.OpSysLongName != tt.long || m.OpSysVer != tt.ver {
			t.Errorf("%q: %s %q %d", tt.release, m.OpSysAndVer, m.OpSysLongName, m.OpSysVer)
		}
	}
	if Arch("amd64") != "X86_64" || Arch("arm64") != "aarch64" || OpSys("darwin") != "OSX" || OpSys("linux") != "LINUX" {
		t.Error("architecture or system names")
	}
}

// The benchmark is quick, gives plausible numbers and runs once.
func TestBenchmark(t *testing.T) {
	start := time.Now()
	kflops, mips := Benchmark()
	if took := time.Since(start); took > 500*time.Millisecond {
		t.Errorf("the benchmark took %v", took)
	}
	if kflops < 1000 || mips < 10 {
		t.Errorf("kflops %d, mips %d", kflops, mips)
	}
	start = time.Now()
	k2, m2 := Benchmark()
	if k2 != kflops || m2 != mips || time.Since(start) > time.Millisecond {
		t.Error("the benchmark ran twice")
	}
}

// Idle times come from the access times of terminals and console
// devices, and from keyboard and mouse interrupts.
func TestIdle(t *testing.T) {
	dev := t.TempDir()
	os.Mkdir(filepath.Join(dev, "pts"), 0o755)
	now := time.Unix(1_700_000_000, 0)
	touch := func(name string, ago time.Duration) string {
		p := filepath.Join(dev, name)
		os.WriteFile(p, nil, 0o644)
		os.Chtimes(p, now.Add(-ago), now.Add(-ago))
		return p
	}
	touch("tty1", 300*time.Second)
	touch("pts/3", 40*time.Second)
	touch("pts/ptmx", time.Second) // the multiplexer is nobody's terminal
	touch("random", time.Second)   // not a terminal
	console := touch("console", 500*time.Second)
	interrupts := filepath.Join(dev, "interrupts")
	os.WriteFile(interrupts, []byte("           CPU0       CPU1\n  1:         10         5   IO-APIC   1-edge      i8042\n 12:        100         0   IO-APIC  12-edge      i8042\n 14:        999         0   IO-APIC  14-edge      ata_piix\n"), 0o644)

	d := &Idle{DevDir: dev, ConsoleDevices: []string{console, filepath.Join(dev, "mouse")}, Interrupts: interrupts, Since: now.Add(-1000 * time.Second)}
	if kb, con := d.Sample(now); kb != 40 || con != 500 {
		t.Errorf("first sample: keyboard %d, console %d; want 40, 500", kb, con)
	}
	// The interrupt counts change: someone typed at the console.
	os.WriteFile(interrupts, []byte("  1:         11         5   IO-APIC   1-edge      i8042\n"), 0o644)
	later := now.Add(100 * time.Second)
	if kb, con := d.Sample(later); kb != 0 || con != 0 {
		t.Errorf("after typing: keyboard %d, console %d; want 0, 0", kb, con)
	}
	if kb, con := d.Sample(later.Add(30 * time.Second)); kb != 30 || con != 30 {
		t.Errorf("30s later: keyboard %d, console %d; want 30, 30", kb, con)
	}
	// Nothing to look at: idle since boot.
	empty := &Idle{DevDir: t.TempDir(), Since: now.Add(-7 * time.Second)}
	if kb, con := empty.Sample(now); kb != 7 || con != 7 {
		t.Errorf("no devices: keyboard %d, console %d", kb, con)
	}
}

func TestLoadAvg(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the load is read from /proc/loadavg")
	}
	if l, err := LoadAvg(); err != nil || l < 0 {
		t.Errorf("load %v %v", l, err)
	}
}
