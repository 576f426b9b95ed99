package dashboard_test

import (
	"bytes"
	"image"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/pooltest"
)

// chromium finds a headless browser: $KITE_CHROMIUM, else Debian's
// chromium or Google's chrome on the PATH. Without one the test is
// skipped, saying how to get one.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("KITE_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium: the dashboard's browser test needs one (Debian: apt-get install -y chromium; or set KITE_CHROMIUM)")
	return ""
}

// The dashboard in a real browser. A user without a token gets the login
// form and signs in with a READ token; each page then shows the pool's
// slots, users, queue, machine, SITA-E loads and plots. A link with the
// token in its fragment, as kite dashboard prints it, signs in and leaves
// the token out of the address bar; a token of another pool brings the
// login form back with the reason. A screenshot has the window's size
// and is not blank.
func TestDashboardInChromium(t *testing.T) {
	bin := chromium(t)
	tp := newTestPool(t)
	b := startBrowser(t, bin, 1280, 900)
	tok := tp.p.Token("viewer", auth.Read)
	home := tp.base + "/dashboard/"
	expect := func(page string, want ...string) {
		t.Helper()
		dom := b.dom()
		for _, w := range want {
			if !regexp.MustCompile("(?s)" + w).MatchString(dom) {
				t.Errorf("the %s page does not match %s", page, w)
			}
		}
		if t.Failed() {
			t.Fatalf("DOM:\n%s", dom)
		}
	}

	// No token: the login form; signing in shows the overview.
	b.navigate(home)
	if err := b.waitFor(`document.getElementById('view').dataset.ready === 'login'`, 15*time.Second); err != nil {
		t.Fatal(err)
	}
	expect("login", `<section id="login">`, `<p id="login-error" class="error" hidden="">`)
	b.eval(`document.getElementById('token-input').focus()`)
	b.typeText(tok)
	b.eval(`document.querySelector('#login-form button[type=submit]').click()`)
	b.waitView(t, "overview")
	expect("overview",
		`<span id="pool-name">· test</span>`,
		`<table id="slot-states">.*<td>Claimed</td><td>Busy</td><td class="num">3</td>`,
		`<tr data-owner="alice@[^"]*"><td>alice@[^<]*</td><td class="num">3</td><td class="num">1</td><td class="num">1</td>`,
		`<div class="card" id="card-cpus"><div class="value">3 / 4 \(75%\)</div>`,
		`<svg id="utilization-plot" class="chart"[^>]*>.*<path d="M[^"]+" fill="none" stroke="#e0703a" stroke-width="2" data-series="CPUs busy">`,
		`<table id="daemons">.*<td>Negotiator</td>`,
		`<p id="cycle" class="muted">Last negotiation cycle: #\d+`,
		`<a href="#overview" data-view="overview" class="active">`,
	)
	checkScreenshot(t, b.screenshot(), 1280, 900)
	save := func(page string) { // KITE_DASHBOARD_SCREENSHOTS=DIR keeps each page's, to look at
		if dir := os.Getenv("KITE_DASHBOARD_SCREENSHOTS"); dir != "" {
			os.WriteFile(filepath.Join(dir, strings.ReplaceAll(page, "/", "_")+".png"), b.screenshot(), 0o644)
		}
	}
	save("overview")
	// Inline styles (bars, legends) pass the page's Content-Security-Policy.
	if w, _ := b.eval(`document.querySelector('#slot-states .bar').getBoundingClientRect().width`).(float64); w < 10 {
		t.Errorf("the slot states' bars are %v px wide: their style was refused", w)
	}
	if c := b.eval(`getComputedStyle(document.querySelector('.legend i')).backgroundColor`); c == "rgba(0, 0, 0, 0)" {
		t.Errorf("the plot's legend has no colours: its style was refused")
	}

	// Every other page, reached as a user does: by its link.
	pages := []struct {
		hash, view string
		want       []string
	}{
		{"queue", "queue", []string{
			`<h3>Schedd schedd@test `,
			`<p class="muted totals">5 jobs; 0 completed, 0 removed, 1 idle, 3 running, 1 held, 0 suspended</p>`,
			`<table id="queue-0" class="queue">.*<tr data-st="R"[^>]*><td>1.0</td><td>alice</td>`,
			`<tr data-st="H"[^>]*><td>3.0</td><td>alice</td>.*<td class="st-H">H</td>`,
			`<td class="expr">/bin/sleep 60</td>`,
		}},
		{"machines", "machines", []string{
			`<table id="machines">.*<a href="#machine/exec">exec</a>`,
			`<td class="num">3 / 4</td>`,
		}},
		{"machine/exec", "machine", []string{
			`<span id="machine-name">exec</span>`,
			`<table id="reliability">.*<td>KFlops</td>`,
			`<svg id="machine-history" class="chart"[^>]*>.*data-series="load average"`,
			`<table id="machine-ad" class="ad">.*<td>Name</td><td class="expr">"slot1@exec"</td>`,
		}},
		{"sita", "sita", []string{
			`<table id="sita-loads">.*<tr data-interval="1"><td class="num">1</td><td class="num">1</td><td class="num">10</td><td class="num">2 / 2</td><td>exec</td><td class="num">2</td><td class="num">1</td><td class="num">15</td>`,
			`<tr data-interval="2"><td class="num">2</td><td class="num">10</td><td class="num">100</td><td class="num">1 / 2</td><td>exec</td><td class="num">1</td><td class="num">0</td><td class="num">50</td>`,
			`<svg id="sita-chart" class="chart"[^>]*>.*<rect `,
			`<p id="sita-imbalance">Imbalance M = 17.5 \(53.8% of the mean load 32.5\)`,
		}},
		{"utilization", "utilization", []string{
			`<svg id="utilization-cpus" class="chart"`,
			`<svg id="utilization-jobs" class="chart"[^>]*>.*data-series="running"`,
			`<svg id="utilization-slots" class="chart"`,
		}},
	}
	for _, pg := range pages {
		b.eval(`document.querySelector('a[href="#` + pg.hash + `"]').click()`)
		b.waitView(t, pg.view)
		expect(pg.hash, pg.want...)
		save(pg.hash)
	}

	// The queue's filter hides the rows it does not select.
	b.eval(`location.hash = '#queue'`)
	b.waitView(t, "queue")
	b.eval(`(() => { const s = document.getElementById('queue-status'); s.value = 'H'; s.dispatchEvent(new Event('change')); })()`)
	if shown := b.eval(`[...document.querySelectorAll('#queue-0 tbody tr')].filter(r => !r.hidden).map(r => r.cells[0].textContent).join(' ')`); shown != "3.0" {
		t.Errorf("held jobs shown: %v", shown)
	}

	// A link with the token in its fragment, in a new session.
	b.eval(`sessionStorage.clear()`)
	b.navigate("about:blank")
	b.navigate(home + "#queue&token=" + url.QueryEscape(tok))
	b.waitView(t, "queue")
	if h := b.eval(`location.hash`); h != "#queue" {
		t.Errorf("the address keeps the token: %v", h)
	}

	// Another pool's token: the login form again, saying why.
	b.eval(`sessionStorage.clear()`)
	b.navigate("about:blank")
	b.navigate(home + "#token=" + url.QueryEscape(pooltest.ForeignToken(t)))
	if err := b.waitFor(`document.getElementById('view').dataset.ready === 'login'`, 15*time.Second); err != nil {
		t.Fatal(err)
	}
	expect("refused", `<section id="login">`, `<p id="login-error" class="error">The pool refused the token: [^<]*signature`)
	if s := b.eval(`sessionStorage.length`); s != float64(0) {
		t.Errorf("a refused token stays in sessionStorage")
	}
}

// checkScreenshot checks that a PNG has the size asked for and is not
// blank: the page drew text, tables and plots in many colours.
func checkScreenshot(t *testing.T, data []byte, w, h int) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	if b := img.Bounds(); b != image.Rect(0, 0, w, h) {
		t.Errorf("screenshot of %v, want %dx%d", b, w, h)
	}
	colours := map[[3]uint32]bool{}
	for y := 0; y < h; y += 3 {
		for x := 0; x < w; x += 3 {
			r, g, b, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 8, g >> 8, b >> 8}] = true
		}
	}
	if len(colours) < 20 {
		t.Errorf("the screenshot is nearly blank: %d colours", len(colours))
	}
}
