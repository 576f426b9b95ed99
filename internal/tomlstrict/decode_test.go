package tomlstrict

import (
	"errors"
	"strings"
	"testing"
	"time"
)

type server struct {
	Listen  string            `toml:"listen"`
	Limit   int               `toml:"limit"`
	Timeout duration          `toml:"timeout"`
	Hosts   map[string]int    `toml:"hosts"`
	Extra   map[string]string `toml:"extra"`
}

type document struct {
	Server server `toml:"server"`
}

type duration struct{ time.Duration }

func (d *duration) UnmarshalText(b []byte) error {
	var err error
	d.Duration, err = time.ParseDuration(string(b))
	return err
}

// Decode names file:line:col and the key for every kind of mistake.
func TestDecodeErrors(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"unknown key", "[server]\nlisten = \"a:1\"\n  limt = 3\n", "f.toml:3:3: server.limt: unknown key"},
		{"unknown table", "[sever]\nlisten = \"x\"\n", "f.toml:2:1: sever.listen: unknown key"},
		{"unknown inline", "server = { listen = \"x\", port = 1 }\n", "f.toml:1:26: server.port: unknown key"},
		{"wrong type", "[server]\nlimit = \"big\"\n", "f.toml:2:1: server.limit: incompatible types"},
		{"wrong type, quoted key", "[server.hosts]\n\"a.b\" = \"x\"\n", `f.toml:2:1: server.hosts."a.b": incompatible types`},
		{"bad text value", "[server]\ntimeout = \"soon\"\n", `f.toml:2:12: time: invalid duration "soon" (key server.timeout)`},
		{"syntax", "[server\nlisten = 1\n", "f.toml:2:8: expected '.' or ']'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d document
			_, _, err := Decode("f.toml", tt.text, &d)
			var e *Error
			if !errors.As(err, &e) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an *Error with %q", err, tt.want)
			}
		})
	}
}

func TestDecode(t *testing.T) {
	var d document
	md, pos, err := Decode("f.toml", "[server]\nlisten = \"a:1\"\n[server.hosts]\n\"h.example.org\" = 2\n", &d)
	if err != nil {
		t.Fatal(err)
	}
	if d.Server.Listen != "a:1" || d.Server.Hosts["h.example.org"] != 2 {
		t.Errorf("decoded %+v", d)
	}
	var places []string
	for _, k := range md.Keys() {
		places = append(places, k.String()+"@"+pos.At(KeyPath(k)).String())
	}
	want := `server@f.toml:1:1 server.listen@f.toml:2:1 server.hosts@f.toml:3:1 server.hosts."h.example.org"@f.toml:4:1`
	if got := strings.Join(places, " "); got != want {
		t.Errorf("keys at\n%s\nwant\n%s", got, want)
	}
}

func TestRead(t *testing.T) {
	doc, r, err := Read("f.toml", "a = 1\n[t]\nb = [1, 2]\n")
	if err != nil || doc["a"] != int64(1) || r.Positions().At("t.b[1]").String() != "f.toml:3:9" {
		t.Errorf("Read: %v %v", doc, err)
	}
	_, _, err = Read("f.toml", "a = \n")
	var e *Error
	if !errors.As(err, &e) || e.Pos.Line != 1 {
		t.Errorf("syntax error %v", err)
	}
}
