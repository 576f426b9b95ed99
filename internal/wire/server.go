package wire

import (
	"bufio"
	"bytes"
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
	"unicode/utf8"

	"github.com/kite-sched/kite/internal/auth"
)

// Public marks an endpoint that needs no token (health checks).
const Public auth.Level = 0

// DefaultMaxBody bounds request bodies unless a mux says otherwise.
const DefaultMaxBody = 64 << 20

// Write timeouts. A client that stops reading must not hold a daemon's
// goroutine, buffers (or, through them, a store) for ever; a healthy
// stream, however long, must not be cut.
const (
	// AnswerWriteTimeout bounds the writing of a one-value answer, from
	// when the handler has it.
	AnswerWriteTimeout = 30 * time.Second
	// StallTimeout bounds each write of a streamed or raw answer (a chunk
	// of ads, a piece of a file): the deadline moves on with every write,
	// so only a reader that stalls this long is cut off.
	StallTimeout = 30 * time.Second
)

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
	// bodyKey is the configuration key that bounds the body, for errors.
	bodyKey string
}

// Decode reads the JSON body into v, strictly: unknown fields, trailing
// data and text that is not UTF-8 are errors (encoding/json would turn
// bad bytes into U+FFFD silently).
func (r *Request) Decode(v any) error {
	b, err := r.Body()
	if err != nil {
		return err
	}
	if i := invalidUTF8(b); i >= 0 {
		return BadRequest("request body: offset %d: byte 0x%02x is not valid UTF-8", i, b[i])
	}
	if c, ok := v.(canonicalDecoder); ok && c.decodeCanonical(b) {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
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

// invalidUTF8 returns the offset of the first byte of b that is not
// valid UTF-8, or -1.
func invalidUTF8(b []byte) int {
	if utf8.Valid(b) {
		return -1
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// Body reads the whole request body (bounded like every body).
func (r *Request) Body() ([]byte, error) {
	b, err := io.ReadAll(r.HTTP.Body)
	if err != nil {
		return nil, r.BodyError(err)
	}
	return b, nil
}

// BodyError is the error of a failed read of the body: over the route's
// bound, a 413 that names the bound and the key that sets it.
func (r *Request) BodyError(err error) error {
	var mbe *http.MaxBytesError
	if !errors.As(err, &mbe) {
		return BadRequest("request body: %v", err)
	}
	e := newError(http.StatusRequestEntityTooLarge, CodeTooLarge, "request body larger than %d bytes", mbe.Limit)
	if r.bodyKey != "" {
		e.Message += " (the limit is " + r.bodyKey + ")"
	}
	return e
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
	bodyKey  string
	routes   []Route
	// answerWrite and stall are the write timeouts (AnswerWriteTimeout,
	// StallTimeout unless SetWriteTimeouts says otherwise).
	answerWrite, stall time.Duration
}

// NewMux returns a mux that verifies tokens with v and logs to log.
func NewMux(v Verifier, log *slog.Logger) *Mux {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Mux{mux: http.NewServeMux(), verifier: v, log: log, maxBody: DefaultMaxBody,
		answerWrite: AnswerWriteTimeout, stall: StallTimeout}
}

// SetWriteTimeouts sets how long writing a one-value answer may take and
// how long one write of a streamed or raw answer may stall, for routes
// added from now on.
func (m *Mux) SetWriteTimeouts(answer, stall time.Duration) { m.answerWrite, m.stall = answer, stall }

// SetMaxBody bounds request bodies of routes added from now on.
func (m *Mux) SetMaxBody(n int64) { m.maxBody, m.bodyKey = n, "" }

// LimitBody bounds request bodies of routes added from now on to n
// bytes, which the configuration key key sets (errors name it).
func (m *Mux) LimitBody(n int64, key string) { m.maxBody, m.bodyKey = n, key }

// Routes returns the endpoints added so far.
func (m *Mux) Routes() []Route { return m.routes }

// Handle adds an endpoint answered with one JSON value.
func (m *Mux) Handle(pattern string, level auth.Level, h Handler) {
	answer := m.answerWrite
	m.add(pattern, level, func(w http.ResponseWriter, r *Request) {
		v, err := h(r.HTTP.Context(), r)
		// The handler may have taken long (a big body read slowly): the
		// answer gets its own time to be written.
		setWriteDeadline(w, answer)
		if err != nil {
			m.fail(w, r, err)
			return
		}
		if v == nil {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if err := writeAnswer(w, v); err != nil {
			m.log.Debug("write response", "pattern", pattern, "err", err)
		}
	})
}

// writeAnswer writes a one-value answer as JSON, with a newline as
// json.Encoder ends it; an Appender writes itself.
func writeAnswer(w io.Writer, v any) error {
	a, ok := v.(Appender)
	if !ok {
		return json.NewEncoder(w).Encode(v)
	}
	bp := answerBufs.Get().(*[]byte)
	buf := append(a.AppendJSON((*bp)[:0]), '\n')
	_, err := w.Write(buf)
	if cap(buf) <= maxKeptAnswer {
		*bp = buf
		answerBufs.Put(bp)
	}
	return err
}

// answerBufs keeps the buffers answers are formatted in (a job's next
// activation, some kilobytes, at every short job's end); one grown past
// maxKeptAnswer is left to the collector.
var answerBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

const maxKeptAnswer = 64 << 10

// HandleStream adds an endpoint answered with a stream of JSON values.
func (m *Mux) HandleStream(pattern string, level auth.Level, h StreamHandler) {
	stall := m.stall
	m.add(pattern, level, func(w http.ResponseWriter, r *Request) {
		s := newStream(&stallWriter{ResponseWriter: w, stall: stall})
		err := h(r.HTTP.Context(), r, s)
		s.finish(err)
	})
}

// RawHandler serves a request itself: file transfer, where the body is
// not JSON. Errors it returns before writing become JSON answers.
type RawHandler func(w http.ResponseWriter, r *Request) error

// HandleRaw adds an endpoint that writes its own answer.
func (m *Mux) HandleRaw(pattern string, level auth.Level, h RawHandler) {
	stall := m.stall
	m.add(pattern, level, func(w http.ResponseWriter, r *Request) {
		sw := &stallWriter{ResponseWriter: w, stall: stall}
		if err := h(sw, r); err != nil {
			m.fail(sw, r, err)
		}
	})
}

// setWriteDeadline gives the writes to come on w d to complete.
func setWriteDeadline(w http.ResponseWriter, d time.Duration) {
	// An error means the connection cannot take deadlines (a test's
	// recorder): the answer is written without one.
	http.NewResponseController(w).SetWriteDeadline(time.Now().Add(d))
}

// stallWriter is a ResponseWriter whose every write and flush has stall
// to go through, counted from its start: a long answer to a reader that
// keeps reading is never cut, one to a reader that stops is, after stall.
type stallWriter struct {
	http.ResponseWriter
	stall time.Duration
}

func (w *stallWriter) Write(p []byte) (int, error) {
	setWriteDeadline(w.ResponseWriter, w.stall)
	return w.ResponseWriter.Write(p)
}

// Flush flushes the answer, reporting a stalled reader as an error.
func (w *stallWriter) FlushError() error {
	setWriteDeadline(w.ResponseWriter, w.stall)
	return http.NewResponseController(w.ResponseWriter).Flush()
}

// Flush is http.Flusher's: the error, if any, shows at the next write.
func (w *stallWriter) Flush() { w.FlushError() }

// Unwrap lets http.ResponseController reach the connection.
func (w *stallWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (m *Mux) add(pattern string, level auth.Level, serve func(http.ResponseWriter, *Request)) {
	m.routes = append(m.routes, Route{Pattern: pattern, Level: level})
	maxBody, bodyKey := m.maxBody, m.bodyKey
	m.mux.HandleFunc(pattern, func(w http.ResponseWriter, hr *http.Request) {
		hr.Body = http.MaxBytesReader(w, hr.Body, maxBody)
		r := &Request{HTTP: hr, bodyKey: bodyKey}
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
	if err := json.NewEncoder(w).Encode(errorBody{e}); err != nil {
		m.log.Debug("write error answer", "path", r.HTTP.URL.Path, "err", err)
	}
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
		// A backstop for answers written outside the mux's handlers (which
		// set their own deadlines as they write): no write waits for ever.
		WriteTimeout: AnswerWriteTimeout,
		IdleTimeout:  2 * time.Minute,
		TLSConfig:    tlsConfig,
		BaseContext:  func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
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
