package cli

import (
	"bytes"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/kite-sched/kite/classad"
	"github.com/kite-sched/kite/classad/batch"
	"github.com/kite-sched/kite/classad/jsonl"
)

func newClassAdCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "classad",
		Short: "Evaluate ClassAd expressions",
	}
	c.AddCommand(newClassAdEvalCmd(), newClassAdBatchCmd(), newClassAdJSONCmd())
	return c
}

type classAdEvalOptions struct {
	adFile, targetFile string
}

func newClassAdEvalCmd() *cobra.Command {
	var o classAdEvalOptions
	c := &cobra.Command{
		Use:   "eval [--ad FILE] [--target FILE] EXPR...",
		Short: "Evaluate expressions, printing each value on its own line",
		Long: `Evaluate each expression and print its value, one per line.

With --ad, unscoped names and MY refer to that ad; with --target, TARGET
refers to the second ad, as in a match. Ad files may be in the new syntax
([ a = 1; b = 2 ]), the old one (one Name = Expr per line, as -long prints),
or HTCondor's JSON form.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error { return o.run(c, args) },
	}
	c.Flags().StringVar(&o.adFile, "ad", "", "ad to evaluate in (MY)")
	c.Flags().StringVar(&o.targetFile, "target", "", "ad to match against (TARGET)")
	return c
}

func (o *classAdEvalOptions) run(c *cobra.Command, exprs []string) error {
	my, err := readAdFile(o.adFile)
	if err != nil {
		return err
	}
	var target *classad.Ad
	if o.targetFile != "" {
		if target, err = readAdFile(o.targetFile); err != nil {
			return err
		}
	}
	progs := make([]*classad.Program, len(exprs))
	for i, src := range exprs {
		if progs[i], err = classad.Compile(src); err != nil {
			return fmt.Errorf("expression %d: %w", i+1, err)
		}
	}
	var out bytes.Buffer
	for _, p := range progs {
		v, err := classad.Eval(p, my, target)
		if err != nil {
			return fmt.Errorf("%s: %w", classad.String(p.Expr()), err)
		}
		out.WriteString(v.String())
		out.WriteByte('\n')
	}
	_, err = c.OutOrStdout().Write(out.Bytes())
	return err
}

// readAdFile reads an ad in any of the syntaxes; "" is an empty ad.
func readAdFile(path string) (*classad.Ad, error) {
	if path == "" {
		return classad.NewAd(), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		ad, err := classad.ParseJSON(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return ad, nil
	}
	return classad.Parse(string(data), classad.Filename(path))
}

func newClassAdBatchCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "batch",
		Short: "Answer ClassAd line-protocol commands from standard input",
		Long: `Read commands from standard input, one per line, and print one answer per
line, in the form of HTCondor's reference answers:

  EXPR <expr>                       the value of expr in an empty ad
  EVALIN <ad> ||| <expr>            the value with MY bound to ad
  EVALMT <my> ||| <target> ||| <e>  the value with MY and TARGET bound
  MATCH <ad1> ||| <ad2>             match, both Ranks, both Requirements
  UNPARSE <expr>                    the expression printed canonically
  UNPARSEAD <ad>                    the ad printed canonically

Special answers are PARSE_ERROR, EVAL_FAIL and BAD_COMMAND.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return batch.Run(c.InOrStdin(), c.OutOrStdout())
		},
	}
}

func newClassAdJSONCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "json",
		Short: "Answer JSON ClassAd requests from standard input, one per line (the Python package's evaluator)",
		Long: `Read JSON requests from standard input, one per line, and answer each
with one line of JSON: parse ads and expressions, evaluate, match, print,
quote. The Python package (python/kite/classad2) runs this command to get
HTCondor's answers from Kite's evaluator; the requests are listed in the
documentation of the Go package classad/jsonl.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return jsonl.Run(c.InOrStdin(), c.OutOrStdout())
		},
	}
}
