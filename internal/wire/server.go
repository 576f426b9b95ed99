package wire

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/kite-sched/kite/internal/auth"
)

// Public marks an endpoint that needs no token (health checks).
const Public auth.Level = 0

// DefaultMaxBody bounds request bodies unless a mux says otherwise.
const DefaultMaxBody = 64 << 20

// Verifier checks a bearer token; *auth.Verifier is one.
type Verifier interface {
	Verify(token string) (auth.Identity, error)
}

// Handler answers a request with a value sent back as JSON (nil: no body).
type Handler func(ctx context.Context, r *Request) (any, error)

// StreamHandler answers a request with a stream of values.
type StreamHandler func(ctx context.Context, r *Request, s *Stream) error

// Request is an authenticated request.
type Request struct {
	HTTP   *http.Request
	Caller auth.Identity
}

// Decode reads the JSON body into v, strictly: unknown fields and
// trailing data are errors.
func (r *Request) Decode(v any) error {
	dec := json.NewDecoder(r.HTTP.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return err
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return BadRequest("request body: offset %d: %v", se.Offset, err)
		}
		return BadRequest("request body: %v", err)
	}
	if dec.More() {
		return BadRequest("request body: unexpected data after the JSON value")
	}
	return nil
}

// Body reads the whole request body (bounded like every body).
func (r *Request) Body() ([]byte, error) {
	b, err := io.ReadAll(r.HTTP.Body)
	var mbe *http.MaxBytesError
	if err != nil && !errors.As(err, &mbe) {
		return nil, BadRequest("request body: %v", err)
	}
	return b, err
}

// PathValue returns a wildcard of the route's pattern.
func (r *Request) PathValue(name string) string { return r.HTTP.PathValue(name) }

// Route describes one endpoint, for documentation and tests.
type Route struct {
	Pattern string     // "POST /v1/ads"
	Level   auth.Level // the level a caller needs (Public: none)
}

// Mux routes requests to handlers after checking the caller's token and
// level, bounding body sizes, and turning errors into JSON answers.
type Mux struct {
	mux      *http.ServeMux
	verifier Verifier
	log      *slog.Logger
	maxBody  int64
	routes   []Route
}

// NewMux returns a mux that verifies tokens with v and logs to log.
func NewMux(v Verifier, log *slog.Logger) *Mux {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Mux{mux: http.NewServeMux(), verifier: v, log: log, maxBody: DefaultMaxBody}
}

// SetMaxBody bounds request bodies of routes added from now on.
func (m *Mux) SetMaxBody(n int64) { m.maxBody = n }

// Routes returns the endpoints added so far.
func (m *Mux) Routes() []Route { return m.routes }

// Handle adds an endpoint answered with one JSON value.
func (m *Mux) Handle(pattern string, level auth.Level, h Handler) {
	m.add(pattern, level, func(w http.ResponseWriter, r *Request) {
		v, err := h(r.HTTP.Context(), r)
		if err != nil {
			m.fail(w, r, err)
			return
		}
		if v == nil {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if err := json.NewEncoder(w).Encode(v); err != nil {
			m.log.Debug("write response", "pattern", pattern, "err", err)
		}
	})
}

// HandleStream adds an endpoint answered with a stream of JSON values.
func (m *Mux) HandleStream(pattern string, level auth.Level, h StreamHandler) {
	m.add(pattern, level, func(w http.ResponseWriter, r *Request) {
		s := newStream(w)
		err := h(r.HTTP.Context(), r, s)
		s.finish(err)
	})
}

// RawHandler serves a request itself: file transfer, where the body is
// not JSON. Errors it returns before writing become JSON answers.
type RawHandler func(w http.ResponseWriter, r *Request) error

// HandleRaw adds an endpoint that writes its own answer.
func (m *Mux) HandleRaw(pattern string, level auth.Level, h RawHandler) {
	m.add(pattern, level, func(w http.ResponseWriter, r *Request) {
		if err := h(w, r); err != nil {
			m.fail(w, r, err)
		}
	})
}

func (m *Mux) add(pattern string, level auth.Level, serve func(http.ResponseWriter, *Request)) {
	m.routes = append(m.routes, Route{Pattern: pattern, Level: level})
	maxBody := m.maxBody
	m.mux.HandleFunc(pattern, func(w http.ResponseWriter, hr *http.Request) {
		hr.Body = http.MaxBytesReader(w, hr.Body, maxBody)
		r := &Request{HTTP: hr}
		if err := m.authorize(r, pattern, level); err != nil {
			m.fail(w, r, err)
			return
		}
		serve(w, r)
	})
}

// authorize checks the bearer token against the level the route needs.
func (m *Mux) authorize(r *Request, pattern string, level auth.Level) error {
	if level == Public {
		return nil
	}
	token := strings.TrimSpace(r.HTTP.Header.Get("Authorization"))
	if scheme, rest, _ := strings.Cut(token, " "); strings.EqualFold(scheme, "Bearer") {
		token = strings.TrimSpace(rest)
	} else if strings.EqualFold(token, "Bearer") {
		token = ""
	}
	id, err := m.verifier.Verify(token)
	if err != nil {
		return newError(http.StatusUnauthorized, CodeUnauthenticated, "%v", err)
	}
	if !id.Allows(level) {
		return Forbidden("%s holds %s; %s needs %s", id.Name, id.Levels, pattern, level)
	}
	r.Caller = id
	return nil
}

// errorBody is the JSON answer of a failed request.
type errorBody struct {
	Error *Error `json:"error"`
}

func (m *Mux) fail(w http.ResponseWriter, r *Request, err error) {
	e := asError(err)
	if e.Status >= 500 {
		m.log.Warn("request failed", "method", r.HTTP.Method, "path", r.HTTP.URL.Path, "err", err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status)
	json.NewEncoder(w).Encode(errorBody{e})
}

// ServeHTTP serves a request.
func (m *Mux) ServeHTTP(w http.ResponseWriter, r *http.Request) { m.mux.ServeHTTP(w, r) }

// Stream writes a streamed answer: one JSON object per line, each item as
// {"item": ...}, ending with {"end": true} or {"error": {...}} so that a
// client can tell a complete answer from a cut one.
type Stream struct {
	w       http.ResponseWriter
	bw      *bufio.Writer
	enc     *json.Encoder
	flusher http.Flusher
	started bool
	count   int
}

func newStream(w http.ResponseWriter) *Stream {
	bw := bufio.NewWriterSize(w, 64<<10)
	f, _ := w.(http.Flusher)
	return &Stream{w: w, bw: bw, enc: json.NewEncoder(bw), flusher: f}
}

type streamLine struct {
	Item  any    `json:"item,omitempty"`
	End   bool   `json:"end,omitempty"`
	Error *Error `json:"error,omitempty"`
}

func (s *Stream) start() {
	if !s.started {
		s.started = true
		s.w.Header().Set("Content-Type", "application/x-ndjson")
		s.w.WriteHeader(http.StatusOK)
	}
}

// Send writes one item.
func (s *Stream) Send(v any) error {
	s.start()
	s.count++
	if err := s.enc.Encode(streamLine{Item: v}); err != nil {
		return err
	}
	if s.count%256 == 0 && s.bw.Buffered() > 32<<10 {
		return s.Flush()
	}
	return nil
}

// SendJSON writes one item already encoded as JSON (trusted to be valid),
// without encoding/json's copy and check: ads are written with
// classad.AppendJSON.
func (s *Stream) SendJSON(item []byte) error {
	s.start()
	s.count++
	s.bw.WriteString(`{"item":`)
	s.bw.Write(item)
	if _, err := s.bw.WriteString("}\n"); err != nil {
		return err
	}
	if s.bw.Buffered() > 32<<10 {
		return s.Flush()
	}
	return nil
}

// Flush sends what is buffered.
func (s *Stream) Flush() error {
	if err := s.bw.Flush(); err != nil {
		return err
	}
	if s.flusher != nil {
		s.flusher.Flush()
	}
	return nil
}

func (s *Stream) finish(err error) {
	if err != nil && !s.started {
		e := asError(err)
		s.w.Header().Set("Content-Type", "application/json")
		s.w.WriteHeader(e.Status)
		json.NewEncoder(s.w).Encode(errorBody{e})
		return
	}
	s.start()
	if err != nil {
		s.enc.Encode(streamLine{Error: asError(err)})
	} else {
		s.enc.Encode(streamLine{End: true})
	}
	s.Flush()
}

// Serve serves h on l until ctx is done, then stops accepting and waits up
// to grace for requests in flight. With tlsConfig, it serves TLS. The HTTP
// server's own complaints (bad handshakes) go to log at debug level.
func Serve(ctx context.Context, l net.Listener, h http.Handler, tlsConfig *tls.Config, grace time.Duration, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	spare := &spareConns{conns: map[net.Conn]time.Time{}}
	srv := &http.Server{
		ConnState:         spare.track,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelDebug),
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		TLSConfig:         tlsConfig,
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	errc := make(chan error, 1)
	go func() {
		if tlsConfig != nil {
			errc <- srv.ServeTLS(l, "", "")
		} else {
			errc <- srv.Serve(l)
		}
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- srv.Shutdown(sctx) }()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-shut:
			if err != nil {
				srv.Close()
				return fmt.Errorf("shutdown: %w", err)
			}
			return nil
		case <-tick.C:
			spare.close(50 * time.Millisecond)
		}
	}
}

// spareConns are the connections that have not carried a request yet. A
// client's spare connection (net/http dials one for a request that an
// idle connection then served) holds http.Server.Shutdown up for 5 s, as
// long as a daemon's grace: on shutdown they are closed instead.
type spareConns struct {
	mu    sync.Mutex
	conns map[net.Conn]time.Time // since when
}

func (s *spareConns) track(c net.Conn, st http.ConnState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st == http.StateNew {
		s.conns[c] = time.Now()
	} else {
		delete(s.conns, c)
	}
}

// close closes the spare connections older than age.
func (s *spareConns) close(age time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c, since := range s.conns {
		if time.Since(since) > age {
			c.Close()
			delete(s.conns, c)
		}
	}
}
