package xferplugin

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
)

// client is the built-in plugin's HTTP client: redirects are followed
// (as curl -L does for HTCondor's curl plugin), a transfer ends with its
// context.
var client = &http.Client{}

// builtin moves files with the built-in plugin, inside the startd: http
// and https with Go's client (GET in, PUT out, as HTCondor's curl plugin
// does), file by opening the path as the job's user.
func builtin(ctx context.Context, files []File, box Sandbox, dir direction) error {
	move := fetchOne
	if dir == upload {
		move = sendOne
	}
	for _, f := range files {
		if err := move(ctx, f, box); err != nil {
			return &Error{URL: f.URL, Msg: err.Error()}
		}
	}
	return nil
}

// fetchOne brings one file in.
func fetchOne(ctx context.Context, f File, box Sandbox) error {
	u, err := url.Parse(f.URL)
	if err != nil {
		return err
	}
	var src io.ReadCloser
	switch u.Scheme = Scheme(f.URL); u.Scheme {
	case "file":
		src, err = localFile(u, box.Open)
	case "http", "https":
		src, err = get(ctx, f.URL)
	default:
		err = fmt.Errorf("the built-in plugin does not serve %s://", u.Scheme)
	}
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := box.Create(f.Name)
	if err != nil {
		return err
	}
	return copyClose(dst, src, f.Name)
}

// sendOne sends one file out.
func sendOne(ctx context.Context, f File, box Sandbox) error {
	u, err := url.Parse(f.URL)
	if err != nil {
		return err
	}
	src, err := box.Read(f.Name)
	if err != nil {
		return err
	}
	defer src.Close()
	switch u.Scheme = Scheme(f.URL); u.Scheme {
	case "file":
		dst, err := localFile(u, box.WriteLocal)
		if err != nil {
			return err
		}
		return copyClose(dst, src, u.Path)
	case "http", "https":
		return put(ctx, f.URL, src)
	}
	return fmt.Errorf("the built-in plugin does not serve %s://", u.Scheme)
}

// copyClose copies src to dst and closes dst, naming name in errors.
func copyClose(dst *os.File, src io.Reader, name string) error {
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return dst.Close()
}

// localFile opens a file:// URL's path with open (as the job's user); the
// host part must be empty or localhost.
func localFile(u *url.URL, open func(string) (*os.File, error)) (*os.File, error) {
	if u.Host != "" && u.Host != "localhost" {
		return nil, fmt.Errorf("a file URL names host %q; only local files (file:///path) can be used", u.Host)
	}
	if !filepath.IsAbs(u.Path) {
		return nil, fmt.Errorf("a file URL needs an absolute path (file:///path)")
	}
	return open(u.Path)
}

// get starts an HTTP GET and checks its status.
func get(ctx context.Context, raw string) (io.ReadCloser, error) {
	resp, err := do(ctx, http.MethodGet, raw, nil, 0)
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// put sends a sandbox file with an HTTP PUT.
func put(ctx context.Context, raw string, src *os.File) error {
	fi, err := src.Stat()
	if err != nil {
		return err
	}
	resp, err := do(ctx, http.MethodPut, raw, src, fi.Size())
	if err != nil {
		return err
	}
	return resp.Body.Close()
}

// do sends one request and checks that it succeeded (2xx).
func do(ctx context.Context, method, raw string, body io.Reader, size int64) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, raw, body)
	if err != nil {
		return nil, err
	}
	req.ContentLength = size
	req.Header.Set("User-Agent", "kite-transfer-plugin")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		resp.Body.Close()
		return nil, fmt.Errorf("the server answered %s", resp.Status)
	}
	return resp, nil
}
