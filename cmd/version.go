package cmd

import (
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

func newVersionCmd(g *globalOptions) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the dorisdiag version and VCS revision",
		Example: `  dorisdiag version
  dorisdiag version -o json`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			f, err := g.format(report.FormatTable, report.FormatJSON)
			if err != nil {
				return err
			}
			v := readVersion()
			if f == report.FormatJSON {
				return report.JSON(g.ios.Out, "version", v)
			}
			g.printf("dorisdiag %s", v.Version)
			if v.Revision != "" {
				rev := v.Revision
				if len(rev) > 12 {
					rev = rev[:12]
				}
				g.printf(" (%s", rev)
				if v.Modified {
					g.printf(", modified")
				}
				g.printf(")")
			}
			g.printf(" %s\n", v.GoVersion)
			return nil
		},
	}
}
