package cli

import "testing"

// The two-pool test (testdata/script/ops_flock_pools.txtar) uses the
// configurations of docs/install.md's "Two flocking pools" word for word.
func TestInstallGuideIsTheFlockingTest(t *testing.T) {
	guideScript(t, "ops_flock_pools.txtar", map[string]string{"east.example.org (pool east)": "guide/east.toml", "west.example.org (pool west)": "guide/west.toml"})
}
