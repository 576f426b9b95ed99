package wire

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"testing"
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
		t.Fatalf("a field of kind %s: teach fill and JobUpdate.AppendJSON about it", v.Kind())
	}
}

// sameAsMarshal checks that AppendJSON writes what json.Marshal does, and
// that a client sends it so.
func sameAsMarshal(t *testing.T, what string, u JobUpdate) {
	t.Helper()
	want, werr := json.Marshal(u)
	got, err := u.AppendJSON([]byte("prefix"))
	if (err != nil) != (werr != nil) {
		t.Fatalf("%s: error %v, json.Marshal's %v", what, err, werr)
	}
	if err == nil && string(got) != "prefix"+string(want) {
		t.Errorf("%s:\n got %s\nwant prefix%s", what, got, want)
	}
	if body, err := encode(u); err == nil && werr == nil && string(body) != string(want) {
		t.Errorf("%s: a client sends\n%s\nwant %s", what, body, want)
	}
}

// Every field of a job's event is written as encoding/json writes it,
// each one alone (omitempty) and all together: a field added to
// JobUpdate but not to its field list fails here.
func TestJobUpdateAppendJSONEveryField(t *testing.T) {
	typ := reflect.TypeFor[JobUpdate]()
	var all JobUpdate
	for i := range typ.NumField() {
		var u JobUpdate
		fill(t, reflect.ValueOf(&u).Elem().Field(i), i)
		fill(t, reflect.ValueOf(&all).Elem().Field(i), i)
		sameAsMarshal(t, typ.Field(i).Name, u)
	}
	sameAsMarshal(t, "every field", all)
	sameAsMarshal(t, "no field", JobUpdate{})
}

// Strings are quoted, and numbers written, as encoding/json does; a
// number JSON cannot hold is refused as it refuses it.
func TestJobUpdateAppendJSONValues(t *testing.T) {
	strs := []string{"", "plain text 0-9", `a "quoted" \ path`, "<b>&amp;</b>", "line\nbreak\ttab\x01",
		"é ü 日本", "bad \xff utf-8", "\u2028\u2029", "\x7f"}
	for _, s := range strs {
		sameAsMarshal(t, "string "+s, JobUpdate{Reason: s, Job: s})
	}
	floats := []float64{0, math.Copysign(0, -1), 1, -2.5, 0.1, 1e-6, 9.99e-7, 1.5e-7, 1e-10, 123456789.125,
		1e20, 1e21, 1.5e22, -3e-300, math.SmallestNonzeroFloat64, math.MaxFloat64, math.NaN(), math.Inf(1), math.Inf(-1)}
	for _, f := range floats {
		u := JobUpdate{WallSeconds: f, UserCPU: -f, SysCPU: f / 3,
			Activation: &ActivationTimes{SetupSeconds: f, ExecutionSeconds: f * 7, TeardownSeconds: -f}}
		sameAsMarshal(t, "float "+strconv.FormatFloat(f, 'g', -1, 64), u)
	}
	for _, n := range []int64{1, -1, math.MaxInt64, math.MinInt64} {
		sameAsMarshal(t, "integers", JobUpdate{Time: n, StartedAt: n, PeakMemoryMB: n, ExitCode: int(n), HoldCode: int(n)})
	}
}
