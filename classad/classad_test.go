package classad_test

import (
	"io"
	"strings"
	"testing"

	"github.com/kite-sched/kite/classad"
)

func TestParseBothSyntaxes(t *testing.T) {
	newSyntax := `[ Owner = "alice"; Cmd = "/bin/echo"; Args = "a\\b \"c\""; RequestMemory = 2048; Requirements = TARGET.Memory >= RequestMemory ]`
	a, err := classad.Parse(newSyntax)
	if err != nil {
		t.Fatal(err)
	}
	old := string(classad.AppendOld(nil, a))
	wantOld := `Owner = "alice"
Cmd = "/bin/echo"
Args = "a\b \"c\""
RequestMemory = 2048
Requirements = TARGET.Memory >= RequestMemory
`
	if old != wantOld {
		t.Fatalf("old syntax:\n%s\nwant:\n%s", old, wantOld)
	}
	b, err := classad.Parse(old)
	if err != nil {
		t.Fatal(err)
	}
	if classad.Unparse(b) != classad.Unparse(a) {
		t.Errorf("old round trip:\n %s\n %s", classad.Unparse(b), classad.Unparse(a))
	}
}

func TestJSONStream(t *testing.T) {
	a, _ := classad.Parse(`[ A = 1; B = A + 1; C = { "x", 2.5 } ]`)
	b, _ := classad.Parse(`[ A = 2 ]`)
	stream := "[\n" + string(classad.AppendJSON(nil, a, true)) + ",\n" + string(classad.AppendJSON(nil, b, true)) + "\n]\n"
	want := `[
{
  "A": 1,
  "B": "\/Expr(A + 1)\/",
  "C": [
    "x",
    2.5
  ]
},
{
  "A": 2
}
]
`
	if stream != want {
		t.Fatalf("got:\n%s\nwant:\n%s", stream, want)
	}
	d := classad.NewJSONDecoder(strings.NewReader(stream))
	var got []string
	for {
		ad, err := d.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		v, _ := classad.EvalAttr(ad, "A", nil)
		got = append(got, v.String())
	}
	if strings.Join(got, ",") != "1,2" {
		t.Errorf("decoded %v", got)
	}
}

func TestCompileAndEval(t *testing.T) {
	p, err := classad.Compile(`TARGET.Memory >= MY.RequestMemory && regexp("^slot1@", TARGET.Name)`)
	if err != nil {
		t.Fatal(err)
	}
	job, _ := classad.Parse("RequestMemory = 1024\n")
	slot, _ := classad.Parse(`[ Name = "slot1@host"; Memory = 2048 ]`)
	if v, err := classad.Eval(p, job, slot); err != nil || !v.IsTrue() {
		t.Errorf("got %v %v", v, err)
	}
	if _, err := classad.Compile("TARGET.Memory >="); err == nil {
		t.Error("bad expression compiled")
	}
}
