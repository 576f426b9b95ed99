package collector

import (
	"context"
	"crypto/tls"
	"path/filepath"
	"testing"

	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/daemon"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/pooltest/testcert"
	"github.com/kite-sched/kite/internal/wire"
)

// With [tls] configured, the collector serves TLS; a client that trusts
// the CA gets answers, others do not.
func TestTLS(t *testing.T) {
	p := pooltest.New(t)
	testcert.New(t).WritePEM(t, filepath.Join(p.Dir, "cert.pem"), filepath.Join(p.Dir, "key.pem"))
	p.Config.TLS.Cert, p.Config.TLS.Key, p.Config.TLS.CA = "cert.pem", "key.pem", "cert.pem"
	env, err := daemon.NewEnv(p.Config, "collector")
	if err != nil {
		t.Fatal(err)
	}
	if env.ServerTLS == nil || env.ClientTLS == nil {
		t.Fatal("TLS configured but not set up")
	}
	cfg := testConfig(p)
	cfg.Listen = "127.0.0.1:0"
	s, err := New(env, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	defer func() { cancel(); <-done }()
	<-s.Ready()
	tok := wire.StaticToken(p.Token("alice", auth.Read))
	var m wire.Members
	secure := wire.NewConnector(wire.ConnectorOptions{TLS: env.ClientTLS, Token: tok}).Client(s.Addr())
	if err := secure.Call(ctx, "GET", wire.PathMembers, nil, &m); err != nil {
		t.Fatalf("TLS client: %v", err)
	}
	plain := wire.NewConnector(wire.ConnectorOptions{Token: tok}).Client(s.Addr())
	if err := plain.Call(ctx, "GET", wire.PathMembers, nil, &m); err == nil {
		t.Error("a plaintext request was answered")
	}
	untrusting := wire.NewConnector(wire.ConnectorOptions{TLS: &tls.Config{MinVersion: tls.VersionTLS12}, Token: tok}).Client(s.Addr())
	if err := untrusting.Call(ctx, "GET", wire.PathMembers, nil, &m); err == nil {
		t.Error("a client that does not trust the CA got an answer")
	}
}
