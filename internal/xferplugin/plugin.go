// Package xferplugin fetches a job's input files named by URL, as an
// HTCondor execution point does: through file transfer plugins that
// speak HTCondor's plugin protocol (so a site's existing plugins work
// unchanged) and through Kite's built-in plugin for http, https and file
// URLs.
//
// A plugin is a program. Asked with -classad, it prints a long-format ad
// naming the URL schemes it serves (SupportedMethods) and the protocol it
// speaks (ProtocolVersion 2 or 4: one run per job with -infile and
// -outfile; without MultipleFileSupport, version 1: one run per file with
// the URL and the destination). The startd asks each configured plugin at
// start-up, advertises the schemes in HasFileTransferPluginMethods, and
// runs the plugin as the job's user in the job's sandbox.
package xferplugin

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/kite-sched/kite/classad"
)

// Builtin is the Path of Kite's own plugin: it runs inside the startd.
const Builtin = "builtin"

// BuiltinMethods are the schemes the built-in plugin serves.
var BuiltinMethods = []string{"file", "http", "https"}

// Plugin is one transfer plugin as its query described it.
type Plugin struct {
	Path    string
	Methods []string // lower case, as SupportedMethods lists them
	// Multi is set for protocol 2 and 4 plugins (MultipleFileSupport):
	// one run per job with -infile and -outfile.
	Multi    bool
	Protocol int // ProtocolVersion; 1 for a single-file plugin
	Version  string
	// Attrs are the attributes the plugin asks to have in slot ads
	// (StartdAttrs), in the order it named them.
	Attrs []Attr
}

// Attr is one attribute a plugin puts into slot ads.
type Attr struct {
	Name string
	Expr classad.Expr
}

// queryTimeout bounds a plugin's answer to -classad.
const queryTimeout = 20 * time.Second

// Query asks the plugin at path what it serves.
func Query(ctx context.Context, path string) (*Plugin, error) {
	return query(ctx, path, nil)
}

// QueryIn asks a job's own plugin what it serves, running it as the
// job's user in its sandbox; the methods it serves for the job are the
// ones the job gave it.
func QueryIn(ctx context.Context, jp JobPlugin, path string, box Sandbox) (*Plugin, error) {
	p, err := query(ctx, path, func(cmd *exec.Cmd) {
		cmd.Dir, cmd.Env = box.Dir, box.Env
		if box.Prepare != nil {
			box.Prepare(cmd)
		}
	})
	if err != nil {
		return nil, err
	}
	p.Methods, p.Attrs = jp.Methods, nil
	return p, nil
}

// query runs path -classad, prepared by prepare when it is not nil.
func query(ctx context.Context, path string, prepare func(*exec.Cmd)) (*Plugin, error) {
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, path, "-classad")
	cmd.Stdout, cmd.Stderr = &limited{&out, maxAnswer}, &limited{&errOut, 4096}
	if prepare != nil {
		prepare(cmd)
	}
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("plugin %s -classad: %w%s", path, err, stderrText(errOut.Bytes()))
	}
	return parseQuery(path, out.String())
}

// parseQuery reads a plugin's answer to -classad.
func parseQuery(path, text string) (*Plugin, error) {
	ad, err := classad.ParseOld(text, classad.Filename(path+" -classad"))
	if err != nil {
		return nil, err
	}
	p := &Plugin{Path: path, Version: classad.EvalStringOr(ad, "PluginVersion", "")}
	if t := classad.EvalStringOr(ad, "PluginType", ""); !strings.EqualFold(t, "FileTransfer") {
		return nil, fmt.Errorf("plugin %s: PluginType is %q, not \"FileTransfer\"", path, t)
	}
	for _, m := range strings.Split(classad.EvalStringOr(ad, "SupportedMethods", ""), ",") {
		if m = strings.ToLower(strings.TrimSpace(m)); m != "" && !slices.Contains(p.Methods, m) {
			p.Methods = append(p.Methods, m)
		}
	}
	if len(p.Methods) == 0 {
		return nil, fmt.Errorf("plugin %s: SupportedMethods names no URL scheme", path)
	}
	p.Multi = classad.EvalBoolOr(ad, "MultipleFileSupport", false)
	p.Protocol = 1
	if p.Multi {
		p.Protocol = int(classad.EvalIntOr(ad, "ProtocolVersion", 2))
	}
	for _, name := range strings.Split(classad.EvalStringOr(ad, "StartdAttrs", ""), ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		e, ok := ad.Lookup(name)
		if !ok {
			return nil, fmt.Errorf("plugin %s: StartdAttrs names %s, which its ad does not set", path, name)
		}
		p.Attrs = append(p.Attrs, Attr{name, e})
	}
	return p, nil
}

// Set is the plugins a startd has, by the schemes they serve: for a
// scheme two plugins serve, the one configured later wins, as with
// HTCondor's FILETRANSFER_PLUGINS.
type Set struct {
	byScheme map[string]*Plugin
	plugins  []*Plugin
}

// NewSet makes the set of the built-in plugin followed by plugins, which
// override it for the schemes they share.
func NewSet(plugins ...*Plugin) *Set {
	s := &Set{byScheme: map[string]*Plugin{}}
	builtin := &Plugin{Path: Builtin, Methods: BuiltinMethods, Multi: true, Protocol: 2, Version: "kite"}
	for _, p := range append([]*Plugin{builtin}, plugins...) {
		s.plugins = append(s.plugins, p)
		for _, m := range p.Methods {
			s.byScheme[m] = p
		}
	}
	return s
}

// Load queries each configured plugin and makes their set; a plugin
// that does not answer is left out, reported through skip, as HTCondor
// leaves out a plugin whose query fails.
func Load(ctx context.Context, paths []string, skip func(path string, err error)) *Set {
	var ps []*Plugin
	for _, path := range paths {
		p, err := Query(ctx, path)
		if err != nil {
			skip(path, err)
			continue
		}
		ps = append(ps, p)
	}
	return NewSet(ps...)
}

// Methods lists the schemes served, sorted, for HasFileTransferPluginMethods.
func (s *Set) Methods() []string {
	out := make([]string, 0, len(s.byScheme))
	for m := range s.byScheme {
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}

// Attrs are the attributes the plugins put into slot ads.
func (s *Set) Attrs() []Attr {
	var out []Attr
	for _, p := range s.plugins {
		out = append(out, p.Attrs...)
	}
	return out
}

// For returns the plugin that serves url's scheme.
func (s *Set) For(url string) (*Plugin, error) {
	scheme := Scheme(url)
	if p, ok := s.byScheme[scheme]; ok {
		return p, nil
	}
	return nil, fmt.Errorf("%q: no file transfer plugin on this machine serves %s:// (it serves %s)",
		url, scheme, strings.Join(s.Methods(), ", "))
}

// Scheme returns a URL's scheme, lower case.
func Scheme(url string) string {
	i := strings.Index(url, "://")
	if i < 0 {
		return ""
	}
	return strings.ToLower(url[:i])
}

// maxAnswer bounds what is read of a plugin's query answer.
const maxAnswer = 1 << 20

// limited is a writer that keeps the first n bytes and drops the rest.
type limited struct {
	buf *bytes.Buffer
	n   int
}

func (l *limited) Write(p []byte) (int, error) {
	if room := l.n - l.buf.Len(); room > 0 {
		l.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// stderrText is a plugin's error output for an error message.
func stderrText(b []byte) string {
	if s := strings.TrimSpace(string(b)); s != "" {
		return ": " + s
	}
	return ""
}

// JobPlugin is a plugin a job brings (submit's transfer_plugins): a file
// sent with its inputs that serves Methods for that job only.
type JobPlugin struct {
	Methods []string // lower case
	Path    string   // as submitted: absolute, or relative to the job's Iwd
}

// ParseJobPlugins reads a TransferPlugins list, "TAG=path; TAG2,TAG3=path2"
// (condor_submit's transfer_plugins).
func ParseJobPlugins(s string) ([]JobPlugin, error) {
	var out []JobPlugin
	for _, entry := range strings.Split(s, ";") {
		if entry = strings.TrimSpace(entry); entry == "" {
			continue
		}
		tags, path, ok := strings.Cut(entry, "=")
		path = strings.TrimSpace(path)
		if !ok || path == "" {
			return nil, fmt.Errorf("transfer_plugins: %q is not TAG=path", entry)
		}
		p := JobPlugin{Path: path}
		for _, t := range strings.Split(tags, ",") {
			if t = strings.ToLower(strings.TrimSpace(t)); t != "" {
				p.Methods = append(p.Methods, t)
			}
		}
		if len(p.Methods) == 0 {
			return nil, fmt.Errorf("transfer_plugins: %q names no URL scheme before '='", entry)
		}
		out = append(out, p)
	}
	return out, nil
}

// With returns a set in which plugins serve their methods before the
// set's own, for one job; s is unchanged.
func (s *Set) With(plugins ...*Plugin) *Set {
	out := &Set{byScheme: maps.Clone(s.byScheme), plugins: s.plugins}
	for _, p := range plugins {
		for _, m := range p.Methods {
			out.byScheme[m] = p
		}
	}
	return out
}
