package cli

import (
	"os"
	"testing"

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
	})
}
