package scrape

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"

	"github.com/dorisdiag/dorisdiag/tso"
)

// fetchTSO is the last clock fallback: GET /api/tso on the FE (admin;
// {"code":0,"data":{"current_tso":...}}, doris.md §1). The TSO exceeds 2^53,
// so the body is decoded with UseNumber, never through float64.
func fetchTSO(ctx context.Context, cfg Config) (tso.TSO, string, error) {
	url := "http://" + net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.HTTPPort)) + "/api/tso"
	body, err := httpGet(ctx, cfg, url, 1<<20)
	if err != nil {
		return 0, url, err
	}
	var resp struct {
		Code *int            `json:"code"`
		Msg  string          `json:"msg"`
		Data json.RawMessage `json:"data"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&resp); err != nil {
		return 0, url, fmt.Errorf("%s: not JSON: %w", url, err)
	}
	if resp.Code == nil || *resp.Code != 0 {
		return 0, url, fmt.Errorf("%s: FE answered code %v: %s", url, deref(resp.Code), resp.Msg)
	}
	var data struct {
		CurrentTSO json.Number `json:"current_tso"`
	}
	dec = json.NewDecoder(bytes.NewReader(resp.Data))
	dec.UseNumber()
	if err := dec.Decode(&data); err != nil {
		return 0, url, fmt.Errorf("%s: data: %w", url, err)
	}
	p, err := tso.Parse(data.CurrentTSO.String())
	if err != nil || p.Kind != tso.KindTSO || p.TSO <= 0 {
		return 0, url, fmt.Errorf("%s: current_tso %q is not a real TSO", url, data.CurrentTSO)
	}
	return p.TSO, url, nil
}

func deref(p *int) any {
	if p == nil {
		return "missing"
	}
	return *p
}

// httpGet is a bounded GET: --timeout for the whole request, a body limit,
// basic auth with the collector's user, and the host in every error.
func httpGet(ctx context.Context, cfg Config, url string, maxBytes int64) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.SetBasicAuth(cfg.User, cfg.Password)
	client := &http.Client{Timeout: cfg.Timeout, Transport: &http.Transport{
		DialContext:           (&net.Dialer{Timeout: cfg.Timeout}).DialContext,
		ResponseHeaderTimeout: cfg.Timeout,
		Proxy:                 nil,
	}}
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("no answer within --timeout %s: %w", cfg.Timeout, err)
		}
		return nil, redact(err, cfg.Password)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: HTTP %d", url, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
	if err != nil {
		return nil, redact(fmt.Errorf("GET %s: %w", url, err), cfg.Password)
	}
	if int64(len(body)) > maxBytes {
		return nil, fmt.Errorf("GET %s: body larger than the %d-byte limit", url, maxBytes)
	}
	return body, nil
}
