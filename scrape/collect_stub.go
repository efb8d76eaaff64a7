package scrape

// DELETE THIS FILE when merging the collector branch: a placeholder so the
// CLI skeleton compiles before the live collector lands.

import (
	"context"
	"errors"
	"time"

	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Config configures a live collection.
type Config struct {
	Host       string
	Port       int
	HTTPPort   int
	User       string
	Password   string // from the environment only; never printed
	TLS        bool
	TLSCA      string
	Timeout    time.Duration // per network hop
	TasksPerMV int           // tasks() window per MV; 0 = 20
}

// Collect takes one snapshot of a live cluster.
func Collect(ctx context.Context, cfg Config) (*snapshot.Snapshot, error) {
	return nil, errors.New("live collection is not built yet")
}
