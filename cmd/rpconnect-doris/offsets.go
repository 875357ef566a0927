package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/rpconnect-doris/rpconnect-doris/input/offsetcmd"
)

// Flags of the offsets command.
const (
	flagResources  = "resources"
	flagConfig     = "config"
	flagInputLabel = "input-label"
	flagFormat     = "format"
	flagTable      = "table"
	flagTimestamp  = "timestamp"
	flagTSO        = "tso"
	flagDryRun     = "dry-run"
	flagForce      = "force"
)

// offsetsCommand is `rpconnect-doris offsets`: show, set and reset the
// doris_binlog checkpoint of a stopped pipeline (input/offsetcmd).
func offsetsCommand() *cli.Command {
	common := []cli.Flag{
		&cli.StringFlag{Name: flagConfig, Aliases: []string{"c"}, Usage: "the config file, as given to run (or the CONFIG argument)"},
		&cli.StringSliceFlag{Name: flagResources, Aliases: []string{"r"}, Usage: "resource files, as given to run"},
		&cli.StringFlag{Name: flagInputLabel, Usage: "the label of the doris_binlog input, when the config has several"},
		&cli.StringFlag{Name: flagFormat, Value: offsetcmd.FormatText, Usage: "text or json"},
	}
	edit := append([]cli.Flag{
		&cli.BoolFlag{Name: flagDryRun, Usage: "print the change, write nothing"},
		&cli.BoolFlag{Name: flagForce, Usage: "write even though the checkpoint was saved recently (a pipeline may be running)"},
	}, common...)
	return &cli.Command{
		Name:  "offsets",
		Usage: "Show or change where a doris_binlog input resumes (stop the pipeline first)",
		Description: "Works on the checkpoint that the config's doris_binlog input keeps, in any cache. " +
			"Flags go before CONFIG. See docs/operating.md, section Offsets.",
		Subcommands: []*cli.Command{
			{
				Name:      "show",
				Usage:     "Print every table of the checkpoint: phase, position, snapshot progress, age against the binlog TTL",
				ArgsUsage: "CONFIG",
				Flags:     common,
				Action: func(c *cli.Context) error {
					return withTarget(c, func(ctx context.Context, t *offsetcmd.Target) (any, error) { return t.Show(ctx) })
				},
			},
			{
				Name:      "set",
				Usage:     "Make one table stream from a time or TSO at the next start; the others keep their positions",
				ArgsUsage: "CONFIG",
				Flags: append([]cli.Flag{
					&cli.StringFlag{Name: flagTable, Required: true, Usage: "the table, db.table"},
					&cli.StringFlag{Name: flagTimestamp, Usage: "'yyyy-MM-dd HH:mm:ss' in UTC: stream the changes committed from that second on"},
					&cli.Int64Flag{Name: flagTSO, Usage: "stream the changes with this TSO and later"},
				}, edit...),
				Action: func(c *cli.Context) error {
					pos := offsetcmd.SetPosition{Timestamp: c.String(flagTimestamp), TSO: c.Int64(flagTSO)}
					if (pos.Timestamp == "") == !c.IsSet(flagTSO) {
						return errors.New("offsets set: give exactly one of --timestamp and --tso")
					}
					return withTarget(c, func(ctx context.Context, t *offsetcmd.Target) (any, error) {
						return t.Set(ctx, c.String(flagTable), pos, editOptions(c))
					})
				},
			},
			{
				Name:      "reset",
				Usage:     "Make tables take a new snapshot at the next start; the others stream on",
				ArgsUsage: "CONFIG",
				Flags: append([]cli.Flag{
					&cli.StringSliceFlag{Name: flagTable, Required: true, Usage: "a table to snapshot again, db.table (repeatable)"},
				}, edit...),
				Action: func(c *cli.Context) error {
					return withTarget(c, func(ctx context.Context, t *offsetcmd.Target) (any, error) {
						return t.Reset(ctx, c.StringSlice(flagTable), editOptions(c))
					})
				},
			},
		},
	}
}

func editOptions(c *cli.Context) offsetcmd.EditOptions {
	return offsetcmd.EditOptions{DryRun: c.Bool(flagDryRun), Force: c.Bool(flagForce)}
}

// offsetsTimeout bounds one command: cache and Doris calls all have their
// own timeouts, this only keeps a stuck cache from hanging the shell.
const offsetsTimeout = 2 * time.Minute

// withTarget opens the checkpoint named by c's config, runs do and prints
// its result in the chosen format.
func withTarget(c *cli.Context, do func(context.Context, *offsetcmd.Target) (any, error)) error {
	conf := c.String(flagConfig)
	switch {
	case conf == "" && c.NArg() == 1:
		conf = c.Args().First()
	case conf == "" || c.NArg() > 0 && c.Args().First() != conf:
		return fmt.Errorf("offsets %s: give the config file once, as CONFIG or -c (flags go before CONFIG)", c.Command.Name)
	}
	format := c.String(flagFormat)
	if format != offsetcmd.FormatText && format != offsetcmd.FormatJSON {
		return fmt.Errorf("--format: must be %s or %s; got %q", offsetcmd.FormatText, offsetcmd.FormatJSON, format)
	}
	ctx, cancel := context.WithTimeout(c.Context, offsetsTimeout)
	defer cancel()
	t, err := offsetcmd.Open(ctx, offsetcmd.Options{ConfigPath: conf, ResourcePaths: c.StringSlice(flagResources), InputLabel: c.String(flagInputLabel)})
	if err != nil {
		return err
	}
	defer func() {
		// Bounded apart from ctx, which may be spent: a stuck cache must not hang the shell.
		cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer ccancel()
		_ = t.Close(cctx)
	}()
	out, err := do(ctx, t)
	if err != nil {
		return t.RedactError(err)
	}
	return offsetcmd.Write(c.App.Writer, format, out)
}
