package replicated

import (
	"bufio"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/raft"

	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/wire"
)

// Raft's traffic travels over TCP on its own port, as hashicorp/raft's
// network transport sends it, with one addition: each connection opens
// with a line that carries the dialer's token, and the listener hands Raft
// only connections whose token is a DAEMON token of this pool. With [tls]
// set, the connection is TLS first.

// greeting starts the line that opens a connection.
const greeting = "KITE-RAFT/1 "

// Bounds on a connection's opening: its line, the time to send it, and
// the connections being checked at once.
const (
	maxGreeting      = 16 << 10
	handshakeTimeout = 5 * time.Second
	maxHandshakes    = 64
)

// streamLayer is Raft's stream layer with the pool's authentication.
type streamLayer struct {
	ln        net.Listener
	verifier  wire.Verifier
	token     func() (string, error)
	serverTLS *tls.Config
	clientTLS *tls.Config
	log       *slog.Logger

	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

// listen opens the stream layer at bind and starts checking the
// connections that arrive.
func listen(bind string, verifier wire.Verifier, token func() (string, error), serverTLS, clientTLS *tls.Config, log *slog.Logger) (*streamLayer, error) {
	ln, err := net.Listen("tcp", bind)
	if err != nil {
		return nil, fmt.Errorf("raft listen %s: %w", bind, err)
	}
	s := &streamLayer{ln: ln, verifier: verifier, token: token, serverTLS: serverTLS, clientTLS: clientTLS, log: log,
		conns: make(chan net.Conn), done: make(chan struct{})}
	go s.acceptLoop()
	return s, nil
}

// acceptLoop accepts connections and checks each one's opening line, a
// bounded number at a time.
func (s *streamLayer) acceptLoop() {
	slots := make(chan struct{}, maxHandshakes)
	for {
		c, err := s.ln.Accept()
		if err != nil {
			select {
			case <-s.done:
				return
			default:
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			s.log.Warn("raft: accepting a connection", "err", err)
			return
		}
		select {
		case slots <- struct{}{}:
		default:
			c.Close() // too many openings at once: the dialer tries again
			continue
		}
		go func() {
			defer func() { <-slots }()
			c, err := s.handshake(c)
			if err != nil {
				s.log.Warn("raft: refused a connection", "from", c.RemoteAddr(), "err", err)
				c.Close()
				return
			}
			select {
			case s.conns <- c:
			case <-s.done:
				c.Close()
			}
		}()
	}
}

// handshake checks the opening line of a connection; the connection it
// returns reads on after that line.
func (s *streamLayer) handshake(c net.Conn) (net.Conn, error) {
	c.SetDeadline(time.Now().Add(handshakeTimeout))
	if s.serverTLS != nil {
		tc := tls.Server(c, s.serverTLS)
		if err := tc.Handshake(); err != nil {
			return c, fmt.Errorf("tls: %w", err)
		}
		c = tc
	}
	r := bufio.NewReaderSize(c, 4096)
	line, err := readLine(r, maxGreeting)
	if err != nil {
		return c, err
	}
	tok, ok := strings.CutPrefix(line, greeting)
	if !ok {
		return c, errors.New("not a Kite Raft connection")
	}
	id, err := s.verifier.Verify(tok)
	if err != nil {
		return c, fmt.Errorf("token: %w", err)
	}
	if id.Pool != "" || !id.Levels.Allows(auth.Daemon) {
		return c, fmt.Errorf("%s is not a daemon of this pool", id.Name)
	}
	c.SetDeadline(time.Time{})
	return &bufferedConn{Conn: c, r: r}, nil
}

// readLine reads a line of at most limit bytes, without its newline.
func readLine(r *bufio.Reader, limit int) (string, error) {
	var b strings.Builder
	for b.Len() <= limit {
		frag, err := r.ReadSlice('\n')
		b.Write(frag)
		switch {
		case err == nil:
			return strings.TrimSuffix(b.String(), "\n"), nil
		case !errors.Is(err, bufio.ErrBufferFull):
			return "", fmt.Errorf("reading the opening line: %w", err)
		}
	}
	return "", fmt.Errorf("opening line longer than %d bytes", limit)
}

// bufferedConn reads first what the opening's reader holds.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// Accept returns the next checked connection.
func (s *streamLayer) Accept() (net.Conn, error) {
	select {
	case c := <-s.conns:
		return c, nil
	case <-s.done:
		return nil, net.ErrClosed
	}
}

// Close stops listening.
func (s *streamLayer) Close() error {
	var err error
	s.once.Do(func() {
		close(s.done)
		err = s.ln.Close()
	})
	return err
}

// Addr is the address the layer listens on.
func (s *streamLayer) Addr() net.Addr { return s.ln.Addr() }

// Dial opens a connection to another member and presents this daemon's
// token.
func (s *streamLayer) Dial(address raft.ServerAddress, timeout time.Duration) (net.Conn, error) {
	tok, err := s.token()
	if err != nil {
		return nil, fmt.Errorf("raft: this daemon's token: %w", err)
	}
	d := net.Dialer{Timeout: timeout}
	c, err := d.Dial("tcp", string(address))
	if err != nil {
		return nil, err
	}
	c.SetDeadline(time.Now().Add(handshakeTimeout))
	if s.clientTLS != nil {
		cfg := s.clientTLS.Clone()
		if cfg.ServerName == "" {
			cfg.ServerName, _, _ = net.SplitHostPort(string(address))
		}
		tc := tls.Client(c, cfg)
		if err := tc.Handshake(); err != nil {
			c.Close()
			return nil, fmt.Errorf("raft tls to %s: %w", address, err)
		}
		c = tc
	}
	if _, err := c.Write([]byte(greeting + tok + "\n")); err != nil {
		c.Close()
		return nil, err
	}
	c.SetDeadline(time.Time{})
	return c, nil
}
