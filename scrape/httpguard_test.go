package scrape

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"
	"time"
)

func TestCheckHTTPRead(t *testing.T) {
	for _, tc := range []struct {
		method, url string
		ok          bool
	}{
		{"GET", "http://fe:8030/metrics", true},
		{"GET", "http://fe:8030/api/tso", true},
		{"GET", "http://be:8040/api/show_config?conf_item=x", true},
		{"GET", "http://any:9100/custom/metrics", true}, // a URL named to metrics lint
		{"PUT", "http://fe:8030/api/demo/t/_stream_load", false},
		{"POST", "http://fe:8030/metrics", false},
		{"HEAD", "http://fe:8030/metrics", false},
		{"GET", "http://fe:8030/api/_set_config?enable_feature_binlog=true", false},
		{"GET", "http://fe:8030/api/%5fset_config?x=1", false},
		{"GET", "http://fe:8030/API/_set_config", false},
		{"GET", "http://fe:8030/api/_set_config;jsessionid=1", false},
		{"GET", "http://fe:8030/metrics/../api/_set_config", false},
		{"GET", "http://be:8040/api/reset_rpc_channel/all", false},
		{"GET", "http://be:8040/api/file_cache?op=clear", false},
		{"GET", "http://be:8040/api/update_config?disable_auto_compaction=true", false},
	} {
		u, err := url.Parse(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		err = CheckHTTPRead(tc.method, u)
		if (err == nil) != tc.ok {
			t.Errorf("%s %s: %v, want ok=%v", tc.method, tc.url, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrNotReadOnlyHTTP) {
			t.Errorf("%s %s: %v is not ErrNotReadOnlyHTTP", tc.method, tc.url, err)
		}
	}
}

// TestSetConfigNeverSent: GET /api/_set_config changes an FE's
// configuration (SetConfigAction). Named directly, or reached by a
// redirect, it is refused before the request: the server never sees it.
func TestSetConfigNeverSent(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" {
			http.Redirect(w, r, "/api/_set_config?enable_feature_binlog=true&persist=true", http.StatusTemporaryRedirect)
			return
		}
		hits.Add(1)
	}))
	defer srv.Close()
	o := FetchOptions{ConnectTimeout: time.Second, HeaderTimeout: time.Second, RequestTimeout: time.Second}
	client := NewClient(o)
	for _, u := range []string{srv.URL + "/api/_set_config?enable_feature_binlog=true", srv.URL + "/metrics"} {
		_, err := FetchMetrics(context.Background(), client, u, o)
		var fe *ForbiddenEndpointError
		if !errors.As(err, &fe) || fe.Endpoint.Path != "/api/_set_config" {
			t.Errorf("GET %s: %v, want the forbidden /api/_set_config named", u, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the server got %d requests to /api/_set_config", n)
	}
}
