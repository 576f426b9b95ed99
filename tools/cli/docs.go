package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/kite-sched/kite/internal/config"
)

func init() { addCommand(newDocsCmd) }

func newDocsCmd(g *globals) *cobra.Command {
	c := &cobra.Command{
		Use:   "docs",
		Short: "Write Kite's manual pages and configuration reference",
		Long: `Write documentation generated from this binary, so that it always matches
it: the manual pages of every command (kite docs man DIR) and the
configuration reference (kite docs config), which docs/config.md holds.
Shell completion comes from kite completion bash|zsh|fish|powershell.`,
	}
	c.AddCommand(newDocsManCmd(), newDocsConfigCmd())
	return c
}

func newDocsManCmd() *cobra.Command {
	var section string
	c := &cobra.Command{
		Use:   "man DIR",
		Short: "Write a manual page for every command into DIR (kite.1, kite-submit.1, ...)",
		Long: `Write a manual page in troff for every command, from its help text, into
DIR: kite.1, kite-q.1, kite-submit.1, kite-token-create.1 and so on. Install
them where man finds them, for example:

  kite docs man /usr/local/share/man/man1 && mandb

The pages' date is $SOURCE_DATE_EPOCH when it is set (reproducible
builds), else today.`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			dir := args[0]
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			root := c.Root()
			root.DisableAutoGenTag = true
			b := readBuildInfo()
			header := &doc.GenManHeader{Title: "KITE", Section: section, Source: "Kite " + b.Version, Manual: "Kite Manual"}
			if epoch := os.Getenv("SOURCE_DATE_EPOCH"); epoch == "" {
				now := time.Now()
				header.Date = &now
			}
			if err := doc.GenManTree(root, header, dir); err != nil {
				return err
			}
			pages, _ := filepath.Glob(filepath.Join(dir, "*."+section))
			_, err := fmt.Fprintf(c.OutOrStdout(), "Wrote %d manual pages in %s.\n", len(pages), dir)
			return err
		},
	}
	c.Flags().StringVar(&section, "section", "1", "manual section of the pages")
	return c
}

func newDocsConfigCmd() *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:   "config [-o FILE]",
		Short: "Print the configuration reference (Markdown): every key, its type, default and meaning",
		Long: `Print the configuration reference in Markdown, generated from the
configuration's structures and their doc comments and from the built-in
defaults: every section and key, its type, its default, the environment
variable that overrides it and what it means. docs/config.md is its output
(go generate ./internal/config writes it; a test fails when it differs).`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			var b bytes.Buffer
			if err := config.Reference(&b); err != nil {
				return err
			}
			if out == "" {
				_, err := c.OutOrStdout().Write(b.Bytes())
				return err
			}
			return os.WriteFile(out, b.Bytes(), 0o644)
		},
	}
	c.Flags().StringVarP(&out, "output", "o", "", "write to FILE instead of standard output")
	return c
}
