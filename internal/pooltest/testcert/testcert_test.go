package testcert

import (
	"crypto/tls"
	"path/filepath"
	"testing"
)

// A client with the client configuration completes a handshake with a
// server with the server configuration, and one loaded from the PEM files.
func TestHandshake(t *testing.T) {
	c := New(t)
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	c.WritePEM(t, certFile, keyFile)
	loaded, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	server, client := c.Configs()
	fromFiles := &tls.Config{Certificates: []tls.Certificate{loaded}, MinVersion: tls.VersionTLS12}
	for name, srv := range map[string]*tls.Config{"configs": server, "pem files": fromFiles} {
		t.Run(name, func(t *testing.T) {
			ln, err := tls.Listen("tcp", "127.0.0.1:0", srv)
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			done := make(chan error, 2)
			go func() {
				for range 2 {
					conn, err := ln.Accept()
					if err == nil {
						err = conn.(*tls.Conn).Handshake()
						conn.Close()
					}
					done <- err
				}
			}()
			conn, err := tls.Dial("tcp", ln.Addr().String(), client)
			if err != nil {
				t.Fatal(err)
			}
			conn.Close()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			if _, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{MinVersion: tls.VersionTLS12}); err == nil {
				t.Error("a client that does not trust the certificate completed a handshake")
			}
			if err := <-done; err == nil {
				t.Error("the server completed a handshake with a client that does not trust it")
			}
		})
	}
}
