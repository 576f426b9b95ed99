package cli

import (
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// The scripts in testdata/script run the real kite commands.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"kite": func() { os.Exit(Main()) },
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: os.Getenv("UPDATE_SCRIPTS") != "",
		Setup: func(env *testscript.Env) error {
			port, err := freePort()
			env.Setenv("PORT", port)
			env.Setenv("KITE_HOME", env.WorkDir+"/pool")
			return err
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"waitport": waitPort,
			"waitads":  waitAds,
		},
	})
}

// freePort returns a TCP port on loopback that was free a moment ago.
func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	_, port, err := net.SplitHostPort(l.Addr().String())
	return port, err
}

// waitPort waits until something listens on 127.0.0.1:PORT.
func waitPort(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: waitport PORT")
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", "127.0.0.1:"+args[0]); err == nil {
			c.Close()
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	ts.Fatalf("nothing listens on port %s", args[0])
}

// waitAds waits until the collector holds at least N ads (default 1) of a
// kind kite status selects with -KIND (schedd, negotiator, ...; "startd"
// for slots): daemons advertise a moment after they listen.
func waitAds(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: waitads KIND [N]")
	}
	want := 1
	if len(args) == 2 {
		n, err := strconv.Atoi(args[1])
		if err != nil {
			ts.Fatalf("waitads: %v", err)
		}
		want = n
	}
	flag := "-" + args[0]
	if args[0] == "startd" {
		flag = "-total"
	}
	deadline := time.Now().Add(15 * time.Second)
	var out []byte
	for time.Now().Before(deadline) {
		cmd := exec.Command("kite", "status", flag, "-af", "Name")
		if args[0] == "startd" {
			cmd = exec.Command("kite", "status", "-af", "Name")
		}
		cmd.Env = append(os.Environ(), "KITE_HOME="+ts.Getenv("KITE_HOME"), "HOME="+ts.Getenv("HOME"), "PATH="+ts.Getenv("PATH"))
		cmd.Dir = ts.Getenv("WORK")
		out, _ = cmd.Output()
		if n := len(strings.Fields(string(out))); n >= want {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	ts.Fatalf("waitads %s: the collector has not got %d ad(s): %s", args[0], want, out)
}
