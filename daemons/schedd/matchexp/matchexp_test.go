package matchexp

import (
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/ast"
)

func TestExpandMatch(t *testing.T) {
	slot, _ := classad.Parse(`[Name = "slot1@host"; Machine = "host"; Memory = 4096; Arch = "X86_64"; HasGPU = undefined]`)
	tests := []struct {
		in, want, err string
	}{
		{"plain", "plain", ""},
		{"on $$(Machine)", "on host", ""},
		{"$$(Machine) with $$(Memory) MB", "host with 4096 MB", ""},
		{"arch=$$(arch)", "arch=X86_64", ""}, // names are case-insensitive
		{"gpu=$$(HasGPU:none)", "gpu=none", ""},
		{"half=$$([Memory / 2])", "half=2048", ""},
		{"who=$$([MY.Owner])", "who=alice", ""},
		{"who=$$([Owner])", "who=alice", ""}, // the job's first, as MY
		// condor_submit's manual: the slot is TARGET.
		{"mem=$$([TARGET.Memory * 0.9])", "mem=3686.4", ""},
		{"mem=$$([int(TARGET.Memory * 0.9)])", "mem=3686", ""},
		{"half=$$([TARGET.Memory / 2.0])", "half=2048.0", ""},
		{"$$(Missing)", "", "$$(Missing) has no value on slot slot1@host"},
		{"$$(Machine", "", "unterminated"},
		{"$$([1 +])", "", "$$([1 +])"},
	}
	for _, tt := range tests {
		job, _ := classad.Parse(`[Owner = "alice"; Args = "x"]`)
		job.Set("Args", ast.Str(tt.in))
		err := Expand(job, slot)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.HasPrefix(err.Error(), "Args: ") {
				t.Errorf("%q: error %v, want one naming Args and %q", tt.in, err, tt.err)
			}
			continue
		}
		v, _ := classad.EvalAttr(job, "Args", nil)
		if got, _ := v.StringValue(); err != nil || got != tt.want {
			t.Errorf("%q: got %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}
