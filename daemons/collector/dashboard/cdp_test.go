package dashboard_test

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// browser is headless chromium driven over the DevTools protocol on a
// pipe (--remote-debugging-pipe: it reads commands from its fd 3 and
// writes answers and events to its fd 4, each message JSON ended by a NUL
// byte). One browser serves every page of a test, which is much faster
// than starting one per page.
type browser struct {
	t       testing.TB
	cmd     *exec.Cmd
	in      io.WriteCloser
	session string

	mu      sync.Mutex
	nextID  int
	pending map[int]chan cdpAnswer
	done    chan struct{}
}

type cdpAnswer struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// startBrowser starts chromium with a blank page of width × height and
// attaches to it; it stops when the test ends. A chromium that dies while
// starting (it happens on a loaded machine) is started once more.
func startBrowser(t *testing.T, bin string, width, height int) *browser {
	t.Helper()
	var err error
	for attempt := 1; attempt <= 2; attempt++ {
		var b *browser
		if b, err = launch(t, bin, width, height); err == nil {
			return b
		}
		t.Logf("chromium did not start (attempt %d): %v", attempt, err)
	}
	t.Fatalf("chromium did not start: %v", err)
	return nil
}

// launch starts chromium and attaches to a new page.
func launch(t *testing.T, bin string, width, height int) (*browser, error) {
	cmdR, cmdW, err := os.Pipe() // we write commands, chromium reads fd 3
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe() // chromium writes fd 4, we read
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--disable-extensions", "--hide-scrollbars", "--remote-debugging-pipe",
		"--user-data-dir="+t.TempDir(), fmt.Sprintf("--window-size=%d,%d", width, height), "about:blank")
	cmd.ExtraFiles = []*os.File{cmdR, outW}
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	cmdR.Close()
	outW.Close()
	b := &browser{t: t, cmd: cmd, in: cmdW, pending: map[int]chan cdpAnswer{}, done: make(chan struct{})}
	go b.read(outR)
	stop := func() {
		cmdW.Close()
		cmd.Process.Kill()
		cmd.Wait()
		<-b.done
	}
	var target struct {
		TargetID string `json:"targetId"`
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	err = b.try("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	if err == nil {
		err = b.try("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	}
	if err == nil {
		b.session = attached.SessionID
		err = b.try(b.session, "Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height,
			"deviceScaleFactor": 1, "mobile": false}, nil)
	}
	if err != nil {
		stop()
		return nil, fmt.Errorf("%v; its output:\n%s", err, stderr.String())
	}
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			t.Logf("chromium's output:\n%s", stderr.String())
		}
	})
	return b, nil
}

// read dispatches chromium's answers to their callers; events are dropped.
func (b *browser) read(r io.Reader) {
	defer close(b.done)
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		msg, err := br.ReadBytes(0)
		if err != nil {
			b.mu.Lock()
			for id, ch := range b.pending {
				close(ch)
				delete(b.pending, id)
			}
			b.mu.Unlock()
			return
		}
		var m struct {
			ID int `json:"id"`
			cdpAnswer
		}
		if json.Unmarshal(msg[:len(msg)-1], &m) != nil || m.ID == 0 {
			continue
		}
		b.mu.Lock()
		ch := b.pending[m.ID]
		delete(b.pending, m.ID)
		b.mu.Unlock()
		if ch != nil {
			ch <- m.cdpAnswer
		}
	}
}

// call sends a command (to the page's session, or to the browser with
// session "") and decodes its result into out; a failure fails the test.
func (b *browser) call(session, method string, params any, out any) {
	b.t.Helper()
	if err := b.try(session, method, params, out); err != nil {
		b.t.Fatal(err)
	}
}

// try sends a command and decodes its result into out.
func (b *browser) try(session, method string, params any, out any) error {
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	ch := make(chan cdpAnswer, 1)
	b.pending[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	data, _ := json.Marshal(msg)
	if _, err := b.in.Write(append(data, 0)); err != nil {
		return fmt.Errorf("%s: %v", method, err)
	}
	select {
	case ans, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: chromium went away", method)
		}
		if ans.Error != nil {
			return fmt.Errorf("%s: %s", method, ans.Error.Message)
		}
		if out != nil {
			if err := json.Unmarshal(ans.Result, out); err != nil {
				return fmt.Errorf("%s: %v", method, err)
			}
		}
		return nil
	case <-time.After(30 * time.Second):
		return fmt.Errorf("%s: no answer from chromium", method)
	}
}

// eval evaluates a JavaScript expression in the page and returns its
// value (awaiting a promise).
func (b *browser) eval(expr string) any {
	b.t.Helper()
	var res struct {
		Result struct {
			Value any `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	b.call(b.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &res)
	if res.Exception != nil {
		b.t.Fatalf("evaluating %s: %s", expr, res.Exception.Text)
	}
	return res.Result.Value
}

// navigate loads a URL.
func (b *browser) navigate(url string) {
	b.t.Helper()
	b.call(b.session, "Page.navigate", map[string]any{"url": url}, nil)
}

// waitFor polls a JavaScript condition until it is true.
// waitView waits until the page shows view, drawn (the dashboard sets
// data-view and data-ready on #view once it has).
func (b *browser) waitView(t *testing.T, view string) {
	t.Helper()
	cond := `document.getElementById('view').dataset.ready === 'true' && document.getElementById('view').dataset.view === '` + view + `'`
	if err := b.waitFor(cond, 15*time.Second); err != nil {
		t.Fatalf("%v\nDOM:\n%s", err, b.dom())
	}
}

func (b *browser) waitFor(cond string, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		if v, _ := b.eval("(() => { try { return !!(" + cond + "); } catch (e) { return false; } })()").(bool); v {
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New("timed out waiting for " + cond)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// dom returns the page's DOM as HTML.
func (b *browser) dom() string {
	s, _ := b.eval("document.documentElement.outerHTML").(string)
	return s
}

// screenshot captures the page as PNG.
func (b *browser) screenshot() []byte {
	b.t.Helper()
	var res struct {
		Data string `json:"data"`
	}
	b.call(b.session, "Page.captureScreenshot", map[string]any{"format": "png"}, &res)
	png, err := base64.StdEncoding.DecodeString(res.Data)
	if err != nil {
		b.t.Fatal(err)
	}
	return png
}

// typeText types text into the focused element.
func (b *browser) typeText(text string) {
	b.t.Helper()
	b.call(b.session, "Input.insertText", map[string]any{"text": text}, nil)
}

// lockedBuffer collects a process's output safely.
type lockedBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.buf) < 1<<20 {
		l.buf = append(l.buf, p...)
	}
	return len(p), nil
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.buf)
}
