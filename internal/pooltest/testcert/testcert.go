// Package testcert makes self-signed TLS certificates for tests: one
// certificate for 127.0.0.1 that is its own CA, as configurations for a
// server and a client that trusts it, or as PEM files for a daemon's [tls]
// section. It imports nothing of Kite, so any package's tests can use it.
package testcert

import (
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
	"testing"
	"time"
)

// Cert is a self-signed certificate for 127.0.0.1, valid for an hour
// either side of when it was made.
type Cert struct {
	DER  []byte
	Key  *ecdsa.PrivateKey
	Cert *x509.Certificate
}

// New makes a Cert, failing t if it cannot.
func New(t testing.TB) *Cert {
	t.Helper()
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
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &Cert{DER: der, Key: key, Cert: cert}
}

// Configs returns a server configuration that presents c and a client
// configuration that trusts it.
func (c *Cert) Configs() (server, client *tls.Config) {
	roots := x509.NewCertPool()
	roots.AddCert(c.Cert)
	server = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{c.DER}, PrivateKey: c.Key}}, MinVersion: tls.VersionTLS12}
	client = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	return server, client
}

// WritePEM writes c to certFile and its key to keyFile (mode 0600), PEM
// encoded, failing t if it cannot.
func (c *Cert) WritePEM(t testing.TB, certFile, keyFile string) {
	t.Helper()
	keyDER, err := x509.MarshalECPrivateKey(c.Key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.DER}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
}
