package starter

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/attr"
	"github.com/kite-sched/kite/internal/remap"
	"github.com/kite-sched/kite/internal/xferplugin"
)

// errNoURLs refuses URLs on a machine that takes none.
var errNoURLs = errors.New("this machine moves no files by URL (startd.url_transfers = false)")

// fetchURLs brings the inputs named by URL into the sandbox through the
// machine's plugins and the job's own.
func (s *Starter) fetchURLs(p *plan) error {
	var files []xferplugin.File
	for _, in := range p.inputs {
		if in.url {
			files = append(files, xferplugin.File{URL: in.remote, Name: in.local})
		}
	}
	if len(files) == 0 {
		return nil
	}
	box, set, err := s.urlTransfer(p, files[0].URL)
	if err != nil {
		return err
	}
	if err := set.Fetch(s.ctx, files, box); err != nil {
		return err
	}
	s.countURLs(false, files)
	return nil
}

// sendToURLs uploads the outputs that go to URLs (a remap to a URL, or
// every output under OutputDestination) and returns the others, which go
// to the schedd. Each is a pair: the name it is sent as, its sandbox file.
func (s *Starter) sendToURLs(p *plan, outputs [][2]string) ([][2]string, error) {
	remaps, err := remap.Parse(classad.EvalStringOr(s.job.Ad, attr.TransferOutputRemaps, ""))
	if err != nil {
		return nil, err
	}
	dest := strings.TrimSuffix(classad.EvalStringOr(s.job.Ad, attr.OutputDestination, ""), "/")
	var rest [][2]string
	var files []xferplugin.File
	for _, o := range outputs {
		// Remapped by the name it is sent as, or its base name, as the
		// schedd lands a listed d/f as f.
		target, _, err := remaps.FindFirst(o[0], path.Base(o[0]))
		switch {
		case err != nil:
			return nil, err
		case remap.IsURL(target):
			files = append(files, xferplugin.File{URL: target, Name: o[1]})
		case dest != "":
			files = append(files, xferplugin.File{URL: dest + "/" + target, Name: o[1]})
		default:
			rest = append(rest, o)
		}
	}
	if len(files) == 0 {
		return rest, nil
	}
	box, set, err := s.urlTransfer(p, files[0].URL)
	if err != nil {
		return nil, err
	}
	if err := set.Send(s.ctx, files, box); err != nil {
		return nil, err
	}
	s.countURLs(true, files)
	return rest, nil
}

// urlTransfer returns the sandbox as plugins see it and the plugins that
// move the job's URLs: the machine's, and the job's own first (asked
// what they speak once, as the job's user). url names the first file,
// for the error on a machine that moves no files by URL.
func (s *Starter) urlTransfer(p *plan, url string) (xferplugin.Sandbox, *xferplugin.Set, error) {
	box, err := s.pluginBox(url)
	if err != nil || p.urls != nil {
		return box, p.urls, err
	}
	var own []*xferplugin.Plugin
	for _, jp := range p.jobPlugins {
		plugin, err := xferplugin.QueryIn(s.ctx, jp, filepath.Join(s.box.Path, jp.Path), box)
		if err != nil {
			return box, nil, err
		}
		own = append(own, plugin)
	}
	p.urls = s.cfg.Plugins.With(own...)
	return box, p.urls, nil
}

// pluginBox is the sandbox as the plugins see it: they run in it as the
// job's user, with the job's environment, and what they open outside it
// is opened as that user.
func (s *Starter) pluginBox(url string) (xferplugin.Sandbox, error) {
	if s.cfg.Plugins == nil {
		return xferplugin.Sandbox{}, fmt.Errorf("file %q: %w", url, errNoURLs)
	}
	env, err := s.environment(s.box.Path, s.box.Path)
	if err != nil {
		return xferplugin.Sandbox{}, err
	}
	return xferplugin.Sandbox{
		Dir: s.box.Path, Env: env, Prepare: s.asJob,
		Create: func(name string) (*os.File, error) { return s.box.CreateFile(name, 0o644) },
		Read:   s.box.Open,
		Remove: func(name string) error { return os.Remove(filepath.Join(s.box.Path, name)) },
		Open: func(path string) (*os.File, error) {
			// Not blocking: a FIFO must not hang the transfer.
			return s.openAsUser(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY)
		},
		WriteLocal: func(path string) (*os.File, error) {
			return s.openAsUser(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NONBLOCK|syscall.O_NOCTTY)
		},
	}, nil
}

// openAsUser opens a regular file outside the sandbox as the job's user
// (a file:// URL): the startd touches nothing the job could not.
func (s *Starter) openAsUser(path string, flag int) (f *os.File, err error) {
	open := func() error {
		f, err = os.OpenFile(path, flag, 0o644)
		return err
	}
	if u := s.cfg.User; u != nil {
		err = u.account().Do(open)
	} else {
		err = open()
	}
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	return f, nil
}
