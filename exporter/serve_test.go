package exporter_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"github.com/dorisdiag/dorisdiag/exporter"
	"github.com/dorisdiag/dorisdiag/scenario"
)

// TestServeWebConfigBasicAuth: --web.config.file is exporter-toolkit's: with
// basic_auth_users, /metrics answers 401 without the credentials and 200
// with them; cancelling the context (SIGTERM in the command) stops Serve
// cleanly.
func TestServeWebConfigBasicAuth(t *testing.T) {
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "web.yml")
	if err := os.WriteFile(cfg, []byte("basic_auth_users:\n  prometheus: "+string(hash)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := scenario.Load("healthy")
	if err != nil {
		t.Fatal(err)
	}
	e, err := exporter.New(exporter.Options{Interval: interval, Source: exporter.DemoSource(s, interval), Demo: true})
	if err != nil {
		t.Fatal(err)
	}
	ls, err := exporter.Listen([]string{"127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Serve(ctx, ls, cfg) }()
	url := "http://" + ls[0].Addr().String() + "/metrics"
	do := func(user, pass string) int {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		if user != "" {
			req.SetBasicAuth(user, pass)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := do("", ""); c != http.StatusUnauthorized {
		t.Errorf("without credentials: %d, want 401", c)
	}
	if c := do("prometheus", "wrong"); c != http.StatusUnauthorized {
		t.Errorf("wrong password: %d, want 401", c)
	}
	if c := do("prometheus", "s3cret"); c != http.StatusOK {
		t.Errorf("with credentials: %d, want 200", c)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve after cancel: %v", err)
	}
}

// TestServeRejectsBadWebConfig: a web config that does not validate is an
// error before anything is served.
func TestServeRejectsBadWebConfig(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "web.yml")
	if err := os.WriteFile(cfg, []byte("tls_server_config:\n  cert_file: /nonexistent.pem\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, _ := scenario.Load("healthy")
	e, err := exporter.New(exporter.Options{Interval: interval, Source: exporter.DemoSource(s, interval), Demo: true})
	if err != nil {
		t.Fatal(err)
	}
	ls, err := exporter.Listen([]string{"127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Serve(context.Background(), ls, cfg); err == nil {
		t.Error("Serve accepted a web config naming a missing certificate")
	}
}
