package cmd

import (
	"fmt"
	"github.com/dorisdiag/dorisdiag/cmd/cmdutil"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/report"
)

// versionInfo is what `dorisdiag version` prints, from the build info the Go
// toolchain embeds (module version, VCS revision when built from a checkout).
type versionInfo struct {
	Version   string `json:"version"`
	Revision  string `json:"revision,omitempty"`
	Time      string `json:"vcs_time,omitempty"`
	Modified  bool   `json:"vcs_modified,omitempty"`
	GoVersion string `json:"go_version"`
}

func readVersion() versionInfo {
	v := versionInfo{Version: "(devel)"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	v.GoVersion = bi.GoVersion
	if bi.Main.Version != "" {
		v.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// VersionOptions are the inputs of `dorisdiag version`.
type VersionOptions struct {
	cmdutil.Common

	Format report.Format // table or json
}

// NewCmdVersion builds `dorisdiag version`.
func NewCmdVersion(f *cmdutil.Factory, runF func(*VersionOptions) error) *cobra.Command {
	o := &VersionOptions{}
	return &cobra.Command{
		Use:   "version",
		Short: "Print the dorisdiag version and VCS revision",
		Example: `  dorisdiag version
  dorisdiag version -o json`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			o.Common = f.Common()
			format, err := o.OutputFormat(report.FormatTable, report.FormatJSON)
			if err != nil {
				return err
			}
			o.Format = format
			if runF != nil {
				return runF(o)
			}
			return versionRun(o)
		},
	}
}

// versionRun prints the build's version.
func versionRun(o *VersionOptions) error {
	v := readVersion()
	if o.Format == report.FormatJSON {
		return report.JSON(o.IO.Out, "version", v)
	}
	w := o.IO.Out
	fmt.Fprintf(w, "dorisdiag %s", v.Version)
	if v.Revision != "" {
		rev := v.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		fmt.Fprintf(w, " (%s", rev)
		if v.Modified {
			fmt.Fprintf(w, ", modified")
		}
		fmt.Fprintf(w, ")")
	}
	fmt.Fprintf(w, " %s\n", v.GoVersion)
	return nil
}
