package collector

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/daemon"
	"github.com/kite-sched/kite/internal/pooltest"
	"github.com/kite-sched/kite/internal/wire"
)

// writeCert writes a self-signed certificate for 127.0.0.1 and its key.
func writeCert(t *testing.T, dir string) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kite test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, _ := x509.MarshalECPrivateKey(key)
	os.WriteFile(filepath.Join(dir, "cert.pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644)
	os.WriteFile(filepath.Join(dir, "key.pem"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600)
}

// With [tls] configured, the collector serves TLS; a client that trusts
// the CA gets answers, others do not.
func TestTLS(t *testing.T) {
	p := pooltest.New(t)
	writeCert(t, p.Dir)
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
