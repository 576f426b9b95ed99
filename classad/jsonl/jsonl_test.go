package jsonl

import (
	"strings"
	"testing"
)

// Each request's answer, as the Python package reads it.
func TestAnswer(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"op":"parse_ads","text":"[a = 1; b = a + 1; c = {1, \"x\", [d = false]}; e = 0.0]\n[f = undefined]","format":"auto"}`,
			`{"ads":[[["a",{"t":"int","v":1}],["b",{"t":"expr","v":"a + 1"}],["c",{"t":"list","v":[{"t":"int","v":1},{"t":"string","v":"x"},{"t":"ad","v":[["d",{"t":"bool","v":false}]]}]}],["e",{"t":"real","v":0}]],[["f",{"t":"undefined","v":null}]]]}`},
		{`{"op":"parse_ads","text":"A = 1\nB = \"x\"\n\nC = A + 1\n","format":"old"}`,
			`{"ads":[[["A",{"t":"int","v":1}],["B",{"t":"string","v":"x"}]],[["C",{"t":"expr","v":"A + 1"}]]]}`},
		{`{"op":"parse_ads","text":"[a = \"]\"] [b = 2]","format":"new"}`,
			`{"ads":[[["a",{"t":"string","v":"]"}]],[["b",{"t":"int","v":2}]]]}`},
		{`{"op":"parse_ads","text":"[a = -1; b = -2.5; c = {1 + 1, 2}]"}`,
			`{"ads":[[["a",{"t":"int","v":-1}],["b",{"t":"real","v":-2.5}],["c",{"t":"list","v":[{"t":"expr","v":"1 + 1"},{"t":"int","v":2}]}]]]}`},
		{`{"op":"eval","expr":"{1 + 1, 2}"}`, `{"value":{"t":"list","v":[{"t":"expr","v":"1 + 1"},{"t":"int","v":2}]}}`},
		{`{"op":"parse_expr","text":"x + 1"}`, `{"expr":{"t":"expr","v":"x + 1"}}`},
		{`{"op":"eval","expr":"b * 2","my":"[a = 1; b = a + 1]"}`, `{"value":{"t":"int","v":4}}`},
		{`{"op":"eval","expr":"TARGET.x + MY.x","my":"[x = 1]","target":"[x = 2]"}`, `{"value":{"t":"int","v":3}}`},
		{`{"op":"eval_attr","attr":"b","my":"[a = 1.5; b = a * 2]"}`, `{"value":{"t":"real","v":3}}`},
		{`{"op":"eval","expr":"{1, 2.5, \"s\", [q = 1]}"}`,
			`{"value":{"t":"list","v":[{"t":"int","v":1},{"t":"real","v":2.5},{"t":"string","v":"s"},{"t":"ad","v":[["q",{"t":"int","v":1}]]}]}}`},
		{`{"op":"eval","expr":"real(\"NaN\")"}`, `{"value":{"t":"real","v":"nan"}}`},
		{`{"op":"eval","expr":"absTime(\"2004-01-01T00:00:00-06:00\")"}`, `{"value":{"t":"abstime","v":1072936800,"tz":-21600}}`},
		{`{"op":"eval","expr":"x"}`, `{"value":{"t":"undefined","v":null}}`},
		{`{"op":"match","left":"[Requirements = TARGET.x > 1]","right":"[x = 2; Requirements = true]"}`, `{"left":true,"match":true,"right":true}`},
		{`{"op":"print","text":"[a = 1; b = a + 1]","style":"old"}`, `{"text":"a = 1\nb = a + 1\n"}`},
		{`{"op":"print","text":"[a=1;b=a+1]","style":"new"}`, `{"text":"[ a = 1; b = a + 1 ]"}`},
		{`{"op":"quote","string":"a\"b\\c"}`, `{"text":"\"a\\\"b\\\\c\""}`},
		{`{"op":"unquote","text":"\"a\\\"b\""}`, `{"string":"a\"b"}`},
		{`{"op":"unquote","text":"1"}`, `{"error":"1 is not a string literal"}`},
		{`{"op":"eval","expr":"1 +"}`, `{"error":"1:4: expected an expression, found end of input\n    1 +\n       ^"}`},
		{`{"op":"nope"}`, `{"error":"unknown op \"nope\""}`},
		{`{"op":`, `{"error":"bad request: unexpected end of JSON input"}`},
	} {
		if got := string(Answer([]byte(tc.in))); got != tc.want {
			t.Errorf("%s\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

// Run answers line by line.
func TestRun(t *testing.T) {
	var out strings.Builder
	in := `{"op":"quote","string":"x"}` + "\n" + `{"op":"eval","expr":"1 + 2"}` + "\n"
	if err := Run(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	if want := `{"text":"\"x\""}` + "\n" + `{"value":{"t":"int","v":3}}` + "\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
}
