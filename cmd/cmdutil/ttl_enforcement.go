package cmdutil

import (
	"strconv"

	"github.com/spf13/cobra"

	"github.com/dorisdiag/dorisdiag/snapshot"
)

// --assume-ttl-enforced and the config key assume_ttl_enforced: the user's
// word on whether the build expires changes past binlog.ttl_seconds
// (docs/streams.md "Does this build enforce the TTL?"). Without it, and
// without the cluster's own evidence, every conclusion that rests on expiry
// is a warning worded "if this build enforces binlog.ttl_seconds"
// (diag/ttl); true restores the critical gate, false
// drops those findings. The cluster's evidence of enforcement wins over a
// "false" (snapshot.AssumeTTLEnforced).

const (
	ttlFlag      = "assume-ttl-enforced"
	TTLConfigKey = "assume_ttl_enforced"
)

// AddTTLFlag adds the global --assume-ttl-enforced (one line in NewRootCmd):
// bare means true; =false says the build does not enforce the TTL.
func AddTTLFlag(root *cobra.Command, cfg *Config) {
	pf := root.PersistentFlags()
	pf.Var(&optionalBool{p: &cfg.AssumeTTLEnforced}, ttlFlag,
		"the cluster expires changes past binlog.ttl_seconds: expiry findings (cannot resume, rows skipped, headroom) are as critical as computed; =false: it does not (default: the cluster's evidence, else a warning)")
	pf.Lookup(ttlFlag).NoOptDefVal = "true"
}

// ApplyTTLAssumption records the user's word in every snapshot of a series:
// the flag's when given, else the config file's.
func ApplyTTLAssumption(snaps []*snapshot.Snapshot, flag, file *bool) {
	v, source := flag, "--"+ttlFlag
	if v == nil {
		v, source = file, "config "+TTLConfigKey
	}
	if v == nil {
		return
	}
	for _, s := range snaps {
		if s != nil {
			s.AssumeTTLEnforced(*v, source)
		}
	}
}

// optionalBool is a bool flag that remembers whether it was given (nil: not).
type optionalBool struct{ p **bool }

func (b *optionalBool) String() string {
	if b.p == nil || *b.p == nil {
		return ""
	}
	return strconv.FormatBool(**b.p)
}

func (b *optionalBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	*b.p = &v
	return nil
}

func (b *optionalBool) Type() string     { return "bool" }
func (b *optionalBool) IsBoolFlag() bool { return true }
