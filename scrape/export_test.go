package scrape

import "context"

// FetchTSOForTest exposes fetchTSO to the external tests.
func FetchTSOForTest(ctx context.Context, cfg Config, target string) (string, error) {
	cfg.defaults()
	t, _, err := fetchTSO(ctx, cfg, target)
	return t.String(), err
}
