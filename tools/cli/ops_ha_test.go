package cli

import "testing"

// The three-central-manager test (testdata/script/ops_three_cms.txtar)
// runs the install guide's configuration of cm1 word for word.
func TestInstallGuideIsTheThreeCentralManagerTest(t *testing.T) {
	guideScript(t, "ops_three_cms.txtar", map[string]string{"cm1.example.org": "guide/cm1.toml"})
}
