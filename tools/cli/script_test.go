package cli

import (
	"net"
	"os"
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
