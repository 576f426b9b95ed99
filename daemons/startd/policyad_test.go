package startd

import (
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
)

// A policy that reads nothing but itself is evaluated against the policy
// alone, and says there what it says against the whole slot ad; one that
// reads the slot, the machine or the job (HTCondor manual, "Policy
// Configuration for Execute Hosts": START, IS_OWNER, SUSPEND, CONTINUE,
// PREEMPT, KILL, MaxJobRetirementTime) needs the whole slot ad.
func TestPolicyOnlyAd(t *testing.T) {
	defaults := map[string]string{"Start": "true", "Rank": "0", "IsOwner": "START =?= false", "Suspend": "false",
		"Continue": "true", "Preempt": "false", "Kill": "false", "MaxJobRetirementTime": "0"}
	tests := []struct {
		name   string
		change map[string]string
		alone  bool
	}{
		{"the defaults", nil, true},
		{"constants that refer to each other", map[string]string{"Start": "false", "Kill": "Preempt && !START",
			"MaxJobRetirementTime": "60 * 5"}, true},
		{"the rank reads the job, the verdict does not", map[string]string{"Rank": "TARGET.ImageSize"}, true},
		{"the slot's state", map[string]string{"Suspend": "KeyboardIdle < 60"}, false},
		{"the job", map[string]string{"Start": "TARGET.RequestMemory < 100"}, false},
		{"unscoped, the job's", map[string]string{"Preempt": "Owner == \"bob\""}, false},
		{"a computed eval", map[string]string{"Kill": "eval(strcat(\"Sus\", \"pend\"))"}, false},
	}
	job := classad.NewAd()
	job.Set("Owner", ast.Str("bob"))
	job.Set("RequestMemory", ast.Int(10))
	job.Set("ImageSize", ast.Int(5))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var policy []namedExpr
			full := classad.NewAd()
			full.Set("KeyboardIdle", ast.Int(5))
			full.Set("State", ast.Str("Claimed"))
			for _, name := range sortedNames(defaults) {
				src := defaults[name]
				if c, ok := tt.change[name]; ok {
					src = c
				}
				e, err := classad.ParseExpr(src)
				if err != nil {
					t.Fatal(err)
				}
				policy = append(policy, namedExpr{name, e})
				full.Set(name, e)
			}
			ad := policyOnlyAd(policy)
			if (ad != nil) != tt.alone {
				t.Fatalf("policy alone: %v, want %v", ad != nil, tt.alone)
			}
			if ad == nil {
				return
			}
			for _, j := range []*classad.Ad{nil, job} {
				if got, want := verdictOf(ad, j), verdictOf(full, j); got != want {
					t.Errorf("job %v: verdict %+v against the policy alone, %+v against the slot ad", j != nil, got, want)
				}
			}
		})
	}
}
