package startd

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"testing"

	"github.com/kite-sched/kite/internal/wire"
)

// fill sets v (a settable value) to something other than its zero value,
// n telling values apart; maps get two keys, out of order.
func fill(t *testing.T, v reflect.Value, n int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString("s" + string(rune('a'+n%26)))
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(int64(n + 1))
	case reflect.Float64:
		v.SetFloat(float64(n) + 0.25)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(t, v.Elem(), n)
	case reflect.Struct:
		for i := range v.NumField() {
			fill(t, v.Field(i), n+i)
		}
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for _, k := range []string{"ZED", "CEDAR"} {
			e := reflect.New(v.Type().Elem()).Elem()
			fill(t, e, n+len(k))
			m.SetMapIndex(reflect.ValueOf(k), e)
		}
		v.Set(m)
	default:
		t.Fatalf("a field of kind %s: teach fill and appendJobUpdate about it", v.Kind())
	}
}

// sameAsMarshal checks that appendResultLine writes what json.Marshal does.
func sameAsMarshal(t *testing.T, what string, rl resultLine) {
	t.Helper()
	want, werr := json.Marshal(rl)
	got, err := appendResultLine([]byte("prefix"), rl)
	if (err != nil) != (werr != nil) {
		t.Fatalf("%s: error %v, json.Marshal's %v", what, err, werr)
	}
	if err == nil && string(got) != "prefix"+string(want) {
		t.Errorf("%s:\n got %s\nwant prefix%s", what, got, want)
	}
}

// Every field of a job's event reaches the results log as encoding/json
// writes it, each one alone (omitempty) and all together: a field added
// to wire.JobUpdate but not to appendJobUpdate fails here.
func TestAppendResultLineEveryField(t *testing.T) {
	typ := reflect.TypeFor[wire.JobUpdate]()
	var all wire.JobUpdate
	for i := range typ.NumField() {
		var u wire.JobUpdate
		fill(t, reflect.ValueOf(&u).Elem().Field(i), i)
		fill(t, reflect.ValueOf(&all).Elem().Field(i), i)
		sameAsMarshal(t, typ.Field(i).Name, resultLine{Keep: &result{Schedd: "host:9618", Update: u}})
	}
	sameAsMarshal(t, "every field", resultLine{Keep: &result{Schedd: "host:9618", Pool: "other", Update: all}})
	sameAsMarshal(t, "no field", resultLine{Keep: &result{}})
	sameAsMarshal(t, "a forgotten result", resultLine{Claim: "<claim#1>", Job: "12.3"})
	sameAsMarshal(t, "a forgotten claim alone", resultLine{Claim: "c"})
	sameAsMarshal(t, "an empty line", resultLine{})
}

// Strings are quoted, and numbers written, as encoding/json does;
// a number JSON cannot hold is refused as it refuses it.
func TestAppendResultLineValues(t *testing.T) {
	strs := []string{"", "plain text 0-9", `a "quoted" \ path`, "<b>&amp;</b>", "line\nbreak\ttab\x01",
		"é ü 日本", "bad \xff utf-8", "\u2028\u2029", "\x7f"}
	for _, s := range strs {
		sameAsMarshal(t, "string "+s, resultLine{Keep: &result{Schedd: s, Update: wire.JobUpdate{Reason: s, Job: s}}})
	}
	floats := []float64{0, math.Copysign(0, -1), 1, -2.5, 0.1, 1e-6, 9.99e-7, 1.5e-7, 1e-10, 123456789.125,
		1e20, 1e21, 1.5e22, -3e-300, math.SmallestNonzeroFloat64, math.MaxFloat64, math.NaN(), math.Inf(1), math.Inf(-1)}
	for _, f := range floats {
		u := wire.JobUpdate{WallSeconds: f, UserCPU: -f, SysCPU: f / 3,
			Activation: &wire.ActivationTimes{SetupSeconds: f, ExecutionSeconds: f * 7, TeardownSeconds: -f}}
		sameAsMarshal(t, "float "+strconv.FormatFloat(f, 'g', -1, 64), resultLine{Keep: &result{Update: u}})
	}
	for _, n := range []int64{1, -1, math.MaxInt64, math.MinInt64} {
		u := wire.JobUpdate{Time: n, StartedAt: n, PeakMemoryMB: n, ExitCode: int(n), HoldCode: int(n)}
		sameAsMarshal(t, "integers", resultLine{Keep: &result{Update: u}})
	}
}

// BenchmarkResultLogKeep measures keeping and forgetting one short job's
// result, as the startd does for every job.
func BenchmarkResultLogKeep(b *testing.B) {
	l, _, err := openResults(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	r := result{Schedd: "127.0.0.1:9618", Update: wire.JobUpdate{ClaimID: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		Job: "17.4096", Event: wire.EventExited, Time: 1764140123, StartedAt: 1764140122, WallSeconds: 0.00131,
		UserCPU: 0.000412, SysCPU: 0.000901, PeakMemoryMB: 2,
		Activation: &wire.ActivationTimes{SetupSeconds: 0.000216, ExecutionSeconds: 0.00131, TeardownSeconds: 0.000057}}}
	b.ReportAllocs()
	for b.Loop() {
		if err := l.keep(r); err != nil {
			b.Fatal(err)
		}
		if err := l.forget(r.Update.ClaimID, r.Update.Job); err != nil {
			b.Fatal(err)
		}
	}
}
