package snapshot

import (
	"fmt"
	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"io"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/diag/sources"
	"github.com/dorisdiag/dorisdiag/internal/fileio"
	"github.com/dorisdiag/dorisdiag/report"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// SnapshotOptions are the inputs of `dorisdiag snapshot`.
type SnapshotOptions struct {
	cmdutil.Common
	Source func(cmdutil.SourceOptions) *cmdutil.Source

	File        string
	Summary     bool
	TasksPerMV  int
	WithMetrics bool
	outputGiven bool // -o was given (the default table means JSON here; an explicit -o table is refused)
}

// NewCmdSnapshot builds `dorisdiag snapshot`.
func NewCmdSnapshot(f *cmdutil.Factory, runF func(*SnapshotOptions) error) *cobra.Command {
	opts := &SnapshotOptions{Source: f.Source}
	cmd := &cobra.Command{
		Use:   "snapshot [-f FILE] [--summary] [--demo [SCENARIO]]",
		Short: "Capture a snapshot (live cluster, saved file or demo) as JSON, or summarise it",
		Long: `snapshot takes one read-only snapshot of a live cluster (--host), or loads a
saved one (--snapshot FILE) or a bundled scenario (--demo [SCENARIO]), and
writes it as JSON (docs/snapshot.md) to stdout or -f FILE. Every analysis
command accepts the file back with --snapshot FILE.

--summary prints what was captured instead: the clock, the row count of
every source, the capabilities found and what could not be read.

The password comes from DORISDIAG_PASSWORD or MYSQL_PWD, never a flag, and
never appears in the snapshot.`,
		Example: `  DORISDIAG_PASSWORD=... dorisdiag snapshot --host fe1 -f snap.json
  dorisdiag snapshot --host 127.0.0.1 --port 9030 --summary
  dorisdiag snapshot --demo incident --summary -o json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.Common = f.Common()
			opts.outputGiven = c.Flags().Changed("output")
			if err := opts.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return snapshotRun(opts)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&opts.File, "file", "f", "", "write the snapshot to FILE instead of stdout (atomically, mode 0600; - is stdout)")
	fl.BoolVar(&opts.Summary, "summary", false, "print what was captured (counts per source, capabilities, gaps) instead of the JSON")
	fl.IntVar(&opts.TasksPerMV, "tasks-per-mv", 20, "live: read the latest N tasks() of each MV")
	fl.BoolVar(&opts.WithMetrics, "with-metrics", false, "live: also fetch GET /metrics of the FE into the snapshot")
	return cmd
}

// validate checks the flags and -o, and refuses an -f target that could
// never be written (a device, a FIFO, a directory), before any work.
func (opts *SnapshotOptions) validate() error {
	if opts.TasksPerMV < 0 {
		return cmdutil.UsageErrorf("--tasks-per-mv must be positive, got %d", opts.TasksPerMV)
	}
	if opts.Summary {
		if err := opts.CheckFormat("snapshot_summary"); err != nil {
			return err
		}
	} else if asJSON, defaulted := opts.Config.Output == string(report.FormatJSON), !opts.outputGiven && opts.Config.Output == string(report.FormatTable); !asJSON && !defaulted {
		// The snapshot itself is always JSON; -o json is accepted for symmetry.
		return cmdutil.UsageErrorf("snapshot writes JSON; -o %s is only valid with --summary", opts.Config.Output)
	}
	if opts.Summary && opts.File == "-" {
		return cmdutil.UsageErrorf("--summary with -f -: the summary and the snapshot would both go to stdout; give -f FILE")
	}
	if err := cmdutil.CheckOutput(opts.File); err != nil {
		return fmt.Errorf("writing snapshot: %w", err)
	}
	return nil
}

// snapshotRun takes (or loads) one snapshot and writes it, or its summary.
func snapshotRun(opts *SnapshotOptions) error {
	snaps, err := opts.Source(cmdutil.SourceOptions{TasksPerMV: opts.TasksPerMV, WithMetrics: opts.WithMetrics}).Load()
	if err != nil {
		return err
	}
	s := snaps[len(snaps)-1]
	if !opts.Summary {
		return writeSnapshot(opts.IO.Out, opts.File, s)
	}
	if opts.File != "" {
		if err := writeSnapshot(nil, opts.File, s); err != nil {
			return err
		}
	}
	return opts.Emit(report.SnapshotSummaryDoc{Summary: sources.Summarize(s)})
}

// writeSnapshot writes to w when path is "" or "-", else replaces path
// atomically (fileio.WriteAtomic: a regular file or a new path only, mode
// 0600; a device, FIFO or directory is refused before anything is written).
func writeSnapshot(w io.Writer, path string, s *snapshot.Snapshot) error {
	if path == "" || path == "-" {
		if err := snapshot.Write(w, s); err != nil {
			return fmt.Errorf("writing snapshot: %w", err)
		}
		return nil
	}
	if err := fileio.WriteAtomic(path, func(f io.Writer) error { return snapshot.Write(f, s) }); err != nil {
		return fmt.Errorf("writing snapshot: %w", err)
	}
	return nil
}
