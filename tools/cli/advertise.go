package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/internal/wire"
)

func newAdvertiseCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "advertise FILE",
		Short: "Send ads from a file to the collector (condor_advertise)",
		Long: `Send the ads in FILE (- for standard input) to the collector. The file holds
ads in the old syntax separated by blank lines, in the new syntax
([ ... ] one after another), or in JSON. Each ad needs MyType and Name.
Advertising needs a token with the DAEMON level.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			ads, err := readAds(args[0], c.InOrStdin())
			if err != nil {
				return err
			}
			cfg, err := g.loadConfig()
			if err != nil {
				return err
			}
			conn, err := g.connector(cfg)
			if err != nil {
				return err
			}
			var res wire.UpdateAdsResult
			body := classad.AppendJSONArray(nil, ads)
			if err := conn.Collectors(cfg.Pool.CollectorAddrs()).CallRaw(c.Context(), "POST", wire.PathAds, body, &res); err != nil {
				return err
			}
			fmt.Fprintf(c.OutOrStdout(), "Sent %d ad(s): %d stored, %d older than the collector's.\n", len(ads), res.Stored, res.Stale)
			return nil
		},
	}
}

// readAds reads every ad of a file in any syntax.
func readAds(path string, stdin io.Reader) ([]*classad.Ad, error) {
	var data []byte
	var err error
	if path == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, err
	}
	text := string(data)
	switch t := bytes.TrimSpace(data); {
	case len(t) == 0:
		return nil, fmt.Errorf("%s: no ads", path)
	case t[0] == '{' || bytes.HasPrefix(t, []byte("[{")) || bytes.HasPrefix(t, []byte("[\n{")):
		return readJSONAds(path, data)
	case t[0] == '[':
		return readNewAds(path, text)
	}
	return readOldAds(path, text)
}

func readJSONAds(path string, data []byte) ([]*classad.Ad, error) {
	d := classad.NewJSONDecoder(bytes.NewReader(data))
	var ads []*classad.Ad
	for {
		ad, err := d.Next()
		if err == io.EOF {
			return ads, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		ads = append(ads, ad)
	}
}

// readNewAds reads records one after another, each parsed with positions
// relative to the whole file.
func readNewAds(path, text string) ([]*classad.Ad, error) {
	var ads []*classad.Ad
	for start := 0; start < len(text); {
		end := classad.RecordEnd(text, start)
		chunk := strings.Repeat("\n", strings.Count(text[:start], "\n")) + text[start:end]
		if strings.TrimSpace(text[start:end]) != "" {
			ad, err := classad.ParseNew(chunk, classad.Filename(path))
			if err != nil {
				return nil, err
			}
			ads = append(ads, ad)
		}
		start = end
	}
	return ads, nil
}

// readOldAds reads old-syntax ads separated by blank lines, keeping line
// numbers of the whole file in errors.
func readOldAds(path, text string) ([]*classad.Ad, error) {
	var ads []*classad.Ad
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); {
		for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
			i++
		}
		start := i
		for i < len(lines) && strings.TrimSpace(lines[i]) != "" {
			i++
		}
		if start == i {
			break
		}
		chunk := strings.Repeat("\n", start) + strings.Join(lines[start:i], "\n")
		ad, err := classad.ParseOld(chunk, classad.Filename(path))
		if err != nil {
			return nil, err
		}
		ads = append(ads, ad)
	}
	return ads, nil
}
