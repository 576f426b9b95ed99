package wire

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
)

// Network is how daemons listen and connect: TCP in production, an
// in-memory network in tests and the simulator, where the whole HTTP stack
// runs over pipes without sockets.
type Network interface {
	// Listen listens on addr (host:port; port 0 picks a free one).
	Listen(addr string) (net.Listener, error)
	// DialContext connects to addr.
	DialContext(ctx context.Context, network, addr string) (net.Conn, error)
}

// TCP is the real network.
var TCP Network = tcpNetwork{}

type tcpNetwork struct{}

func (tcpNetwork) Listen(addr string) (net.Listener, error) { return net.Listen("tcp", addr) }

func (tcpNetwork) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

// MemNetwork is an in-memory network: listeners are named by host:port and
// connections are synchronous pipes.
type MemNetwork struct {
	mu        sync.Mutex
	listeners map[string]*memListener
	nextPort  int
}

// NewMemNetwork returns an empty in-memory network.
func NewMemNetwork() *MemNetwork {
	return &MemNetwork{listeners: map[string]*memListener{}, nextPort: 40000}
}

// Listen listens on addr; port 0 picks an unused port on that host.
func (m *MemNetwork) Listen(addr string) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if port == "0" {
		m.nextPort++
		port = strconv.Itoa(m.nextPort)
		addr = net.JoinHostPort(host, port)
	}
	if _, taken := m.listeners[addr]; taken {
		return nil, fmt.Errorf("listen %s: address already in use", addr)
	}
	l := &memListener{net: m, addr: memAddr(addr), conns: make(chan net.Conn), done: make(chan struct{})}
	m.listeners[addr] = l
	return l, nil
}

// DialContext connects to a listener of the network.
func (m *MemNetwork) DialContext(ctx context.Context, _, addr string) (net.Conn, error) {
	m.mu.Lock()
	l := m.listeners[addr]
	m.mu.Unlock()
	if l == nil {
		return nil, &net.OpError{Op: "dial", Net: "mem", Err: errors.New("connection refused: nothing listens on " + addr)}
	}
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		return nil, &net.OpError{Op: "dial", Net: "mem", Err: errors.New("connection refused: " + addr + " closed")}
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

type memListener struct {
	net   *MemNetwork
	addr  memAddr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (l *memListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *memListener) Close() error {
	l.once.Do(func() {
		close(l.done)
		l.net.mu.Lock()
		delete(l.net.listeners, string(l.addr))
		l.net.mu.Unlock()
	})
	return nil
}

func (l *memListener) Addr() net.Addr { return l.addr }

type memAddr string

func (a memAddr) Network() string { return "mem" }
func (a memAddr) String() string  { return string(a) }

// HostPort returns a listener's address as host:port, with an unspecified
// host (0.0.0.0, ::) replaced by loopback, so that it can be advertised to
// daemons on the same host.
func HostPort(l net.Listener) string {
	addr := l.Addr().String()
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() || host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(strings.Trim(host, "[]"), port)
}
