package cli

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/internal/auth"
	"github.com/kite-sched/kite/internal/config"
)

func init() { addCommand(newDashboardCmd) }

type dashboardOptions struct {
	g     *globals
	ttl   time.Duration
	reuse bool
	check bool
}

func newDashboardCmd(g *globals) *cobra.Command {
	o := &dashboardOptions{g: g}
	c := &cobra.Command{
		Use:   "dashboard",
		Short: "Print the link to the pool's web dashboard, with a token to open it",
		Long: `Print the URL of the pool's web dashboard, which the collector serves at
/dashboard/: the pool's slots and users, the queues, each machine with its
history, SITA-E loads and utilization plots. The page is read-only and needs
a token with the READ level.

The link carries a token in its fragment (#token=...), which the browser
keeps for the tab and never sends to the server, so it stays out of logs and
proxies. On a host with the pool's signing key (the central manager, a
personal pool) kite dashboard makes a READ-only token for you, valid for
--ttl; elsewhere, or with --reuse-token, the link carries your own token.
Anyone with the link sees the pool until the token expires.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return o.run(c.Context(), c.OutOrStdout()) },
	}
	c.Flags().DurationVar(&o.ttl, "ttl", 12*time.Hour, "validity of the READ token made for the link")
	c.Flags().BoolVar(&o.reuse, "reuse-token", false, "put your own token in the link instead of a new READ-only one")
	c.Flags().BoolVar(&o.check, "check", true, "check that the collector serves the dashboard to the token")
	return c
}

func (o *dashboardOptions) run(ctx context.Context, w io.Writer) error {
	cfg, err := o.g.loadConfig()
	if err != nil {
		return err
	}
	tok, who, err := o.token(cfg)
	if err != nil {
		return err
	}
	scheme := "http"
	if cfg.TLS.Cert != "" || cfg.TLS.CA != "" {
		scheme = "https"
	}
	base := scheme + "://" + cfg.Pool.Collector + "/dashboard/"
	if o.check {
		if err := checkDashboard(ctx, cfg, base, tok); err != nil {
			return err
		}
	}
	_, err = fmt.Fprintf(w, "The dashboard of pool %q:\n\n  %s#token=%s\n\n%s\n", cfg.Pool.Name, base, url.QueryEscape(tok), who)
	return err
}

// token returns the token the link carries and a line saying what it is.
func (o *dashboardOptions) token(cfg *config.Config) (tok, who string, err error) {
	if cfg.Pool.SigningKey != "" && !o.reuse {
		key, err := auth.LoadSigningKey(cfg.Path(cfg.Pool.SigningKey))
		if err != nil {
			return "", "", err
		}
		identity := currentUser()
		if own, err := o.g.toolToken(cfg); err == nil {
			if pub, err := auth.LoadPublicKey(cfg.Path(cfg.Pool.PublicKey)); err == nil {
				if id, err := auth.NewVerifier(pub, cfg.Pool.Name).Verify(own); err == nil {
					identity = id.Name
				}
			}
		}
		tok, err = auth.NewIssuer(key, cfg.Pool.Name).Issue(identity, auth.Read, o.ttl)
		if err != nil {
			return "", "", err
		}
		return tok, fmt.Sprintf("The link carries a READ-only token for %s, valid for %s.", identity, o.ttl), nil
	}
	tok, err = o.g.toolToken(cfg)
	if errors.Is(err, auth.ErrNoToken) {
		return "", "", fmt.Errorf("%w: the dashboard needs a token with the READ level (kite token create --identity NAME --levels READ, on the central manager)", err)
	}
	return tok, "The link carries your own token: share it with no one.", err
}

// checkDashboard asks the collector for the dashboard's history with the
// token: the collector must answer, serve the dashboard and accept it.
func checkDashboard(ctx context.Context, cfg *config.Config, base, tok string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	u := base + "../v1/dashboard/history"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+tok)
	client, err := httpClient(cfg)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("the collector at %s does not answer: %v", cfg.Pool.Collector, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return fmt.Errorf("the collector at %s does not serve the dashboard (collector.dashboard = false)", cfg.Pool.Collector)
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return fmt.Errorf("the collector refuses the token (%s)", resp.Status)
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("the collector answered %s", resp.Status)
	}
	return nil
}

// httpClient is a client for the pool's daemons, trusting the pool's CA
// when the configuration names one.
func httpClient(cfg *config.Config) (*http.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if cfg.TLS.CA != "" {
		pem, err := os.ReadFile(cfg.Path(cfg.TLS.CA))
		if err != nil {
			return nil, fmt.Errorf("tls ca: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("tls ca %s: no certificates", cfg.TLS.CA)
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	return &http.Client{Transport: tr}, nil
}
