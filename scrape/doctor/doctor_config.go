package doctor

import (
	"github.com/dorisdiag/dorisdiag/scrape"

	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"

	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Reading configuration. SHOW FRONTEND CONFIG shows the FE the session is
// on and nothing else (ShowConfigCommand is NoForward), so a master-only
// key is read from the Master itself; SHOW BACKEND CONFIG needs ADMIN and
// fails as a whole when one BE does not answer. Each has an HTTP fallback,
// and a refusal for a missing privilege is a named gap, superseded when the
// fallback gave the same facts.

// config reads the session FE's configuration; with full also the Master's
// (when the session is elsewhere) and every BE's.
func (r *doctorRun) config(ctx context.Context, full bool) {
	r.sessionFEConfig(ctx)
	if !full {
		return
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); r.masterFEConfig(ctx) }()
	r.beConfig(ctx)
	wg.Wait()
}

func (r *doctorRun) addReading(c snapshot.ConfigReading) {
	r.mu.Lock()
	r.d.Config = append(r.d.Config, c)
	r.mu.Unlock()
}

// sessionFEConfig: SHOW FRONTEND CONFIG, else GET /rest/v1/config/fe/ on
// the session FE's HTTP port.
func (r *doctorRun) sessionFEConfig(ctx context.Context) {
	node := snapshot.ConfigReading{Node: string(doris.FE), ID: r.d.Session.Name, Host: r.o.Host, IsMaster: r.d.Session.IsMaster}
	if r.c != nil && r.sqlOK {
		q := doris.ShowFrontendConfig.Statements[0].Build()
		t, err := r.c.Query(ctx, q)
		if err == nil {
			node.Source = doris.SourceShowFEConfig
			c := doris.ShowFrontendConfig
			var rows []configRow
			for _, row := range t.Rows {
				get := func(col doris.Column) string { return scrape.Cell(t, row, col) }
				rows = append(rows, configRow{name: get(c.Key), value: get(c.Value), typ: get(c.Type),
					mutable: optBoolText(get(c.IsMutable)), masterOnly: optBoolText(get(c.MasterOnly))})
			}
			fillReading(&node, doris.FE, rows, true)
			r.addReading(node)
			return
		}
		r.gap(doris.SourceShowFEConfig, gapKind(err), privilegeOf(err), q, err)
	}
	if reading, ok := r.httpFEConfig(ctx, r.sessionHTTP, node); ok {
		r.addReading(reading)
		r.supersede(doris.SourceShowFEConfig, doris.SourceHTTPFEConfig)
	}
}

// masterFEConfig reads the Master's own values over HTTP when the session
// is not known to be on it: master-only keys (label windows, task history,
// the MTMV queue) mean what the Master has.
func (r *doctorRun) masterFEConfig(ctx context.Context) {
	if r.d.Session.Known && r.d.Session.IsMaster || r.masterHTTP == "" || r.masterHTTP == r.sessionHTTP {
		return
	}
	name := ""
	for _, fe := range r.d.Frontends {
		if fe.IsMaster {
			name = fe.ID
		}
	}
	host, _, _ := net.SplitHostPort(r.masterHTTP)
	node := snapshot.ConfigReading{Node: string(doris.FE), ID: name, Host: host, IsMaster: true}
	if reading, ok := r.httpFEConfig(ctx, r.masterHTTP, node); ok {
		r.addReading(reading)
	}
}

// httpFEConfig is GET /rest/v1/config/fe/ (Config.dump: bare names, every
// key): the /rest/v1 endpoints need ADMIN or NODE, and answer
// {"code":401,…} without it.
func (r *doctorRun) httpFEConfig(ctx context.Context, addr string, node snapshot.ConfigReading) (snapshot.ConfigReading, bool) {
	u := r.url(addr, doris.FEConfigAction.Name)
	h := r.get(ctx, u, envelopeAsksForAuth)
	if h.err != nil {
		kind, priv := httpGapKind(h.err)
		r.gap(doris.SourceHTTPFEConfig, kind, priv, u, h.err)
		return node, false
	}
	e, err := scrape.DecodeEnvelope(h.p.Body)
	if err != nil || e.Code == nil {
		r.gap(doris.SourceHTTPFEConfig, snapshot.GapError, "", u, fmt.Errorf("GET %s: not the httpv2 envelope", u))
		return node, false
	}
	if *e.Code != 0 {
		err := &scrape.FEAnswerError{URL: u, Code: e.Code, Msg: e.Msg, Data: e.DataText()}
		if *e.Code == 401 || *e.Code == 403 {
			r.gap(doris.SourceHTTPFEConfig, snapshot.GapPrivilege, "ADMIN or NODE", u, err)
		} else {
			r.gap(doris.SourceHTTPFEConfig, snapshot.GapError, "", u, err)
		}
		return node, false
	}
	var data struct {
		Rows []map[string]any `json:"rows"`
	}
	if err := json.Unmarshal(e.Data, &data); err != nil {
		r.gap(doris.SourceHTTPFEConfig, snapshot.GapError, "", u, fmt.Errorf("GET %s: data.rows: %w", u, err))
		return node, false
	}
	c := doris.FEConfigAction
	nameKey := strings.TrimPrefix(c.RowName.Name, "data.rows[].")
	valueKey := strings.TrimPrefix(c.RowValue.Name, "data.rows[].")
	var rows []configRow
	for _, m := range data.Rows {
		name, _ := m[nameKey].(string)
		value := fmt.Sprint(m[valueKey])
		if s, ok := m[valueKey].(string); ok {
			value = s
		}
		rows = append(rows, configRow{name: name, value: value})
	}
	node.Source = doris.SourceHTTPFEConfig
	fillReading(&node, doris.FE, rows, true)
	return node, true
}

// beConfig: SHOW BACKEND CONFIG LIKE '<key>' for each BE key of the
// contract; after the first failure, GET /api/show_config of each BE.
func (r *doctorRun) beConfig(ctx context.Context) {
	var keys []doris.ConfigKey
	for _, k := range doris.ConfigKeys() {
		if k.Node == doris.BE && k.Avail != doris.Design {
			keys = append(keys, k)
		}
	}
	if r.c != nil && r.sqlOK {
		type beRows struct {
			host string
			rows []configRow
		}
		byBE := map[string]*beRows{}
		var order []string
		failed := false
		for _, k := range keys {
			q := doris.ShowBackendConfig.Statements[0].Build(doris.QuoteLiteral(k.Name))
			t, err := r.c.Query(ctx, q)
			if err != nil {
				r.gap(doris.SourceShowBEConfig, gapKind(err), privilegeOf(err), q, err)
				failed = true
				break
			}
			c := doris.ShowBackendConfig
			for _, row := range t.Rows {
				get := func(col doris.Column) string { return scrape.Cell(t, row, col) }
				id := get(c.BackendID)
				b, ok := byBE[id]
				if !ok {
					b = &beRows{host: get(c.Host)}
					byBE[id] = b
					order = append(order, id)
				}
				b.rows = append(b.rows, configRow{name: get(c.Key), value: get(c.Value), typ: get(c.Type), mutable: optBoolText(get(c.IsMutable))})
			}
		}
		if !failed {
			for _, id := range order {
				node := snapshot.ConfigReading{Node: string(doris.BE), ID: id, Host: byBE[id].host, Source: doris.SourceShowBEConfig}
				fillReading(&node, doris.BE, byBE[id].rows, true)
				r.addReading(node)
			}
			return
		}
	}
	if len(r.d.Backends) == 0 {
		r.gap(doris.SourceHTTPBEShowConfig, snapshot.GapError, "", "", errors.New("no BE is known (SHOW BACKENDS not read): the BEs' configuration is not read"))
		return
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	var mu sync.Mutex
	all := true
	for _, be := range r.d.Backends {
		if be.Host == "" || be.HTTPPort <= 0 {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if !r.httpBEConfig(ctx, be) {
				mu.Lock()
				all = false
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if all {
		r.supersede(doris.SourceShowBEConfig, doris.SourceHTTPBEShowConfig)
	}
}

// httpBEConfig is GET /api/show_config of one BE: [[name, type, value,
// mutable], …].
func (r *doctorRun) httpBEConfig(ctx context.Context, be snapshot.DoctorNode) bool {
	addr := net.JoinHostPort(strings.Trim(be.Host, "[]"), strconv.Itoa(be.HTTPPort))
	u := r.url(addr, doris.BEShowConfig.Name)
	h := r.get(ctx, u, nil)
	if h.err != nil {
		kind, priv := httpGapKind(h.err)
		if kind == snapshot.GapPrivilege {
			priv = "BE HTTP credentials (enable_all_http_auth)"
		}
		r.gap(doris.SourceHTTPBEShowConfig, kind, priv, u, fmt.Errorf("backend %s: %w", be.ID, h.err))
		return false
	}
	var list [][]string
	if err := json.NewDecoder(bytes.NewReader(h.p.Body)).Decode(&list); err != nil {
		r.gap(doris.SourceHTTPBEShowConfig, snapshot.GapError, "", u, fmt.Errorf("backend %s: GET %s: not a list of [name, type, value, mutable]: %w", be.ID, u, err))
		return false
	}
	var rows []configRow
	for _, e := range list {
		if len(e) < 3 {
			continue
		}
		cr := configRow{name: e[0], typ: e[1], value: e[2]}
		if len(e) > 3 {
			cr.mutable = optBoolText(e[3])
		}
		rows = append(rows, cr)
	}
	node := snapshot.ConfigReading{Node: string(doris.BE), ID: be.ID, Host: be.Host, Source: doris.SourceHTTPBEShowConfig}
	fillReading(&node, doris.BE, rows, true)
	r.addReading(node)
	return true
}

// configRow is one key as a source printed it.
type configRow struct {
	name, value, typ    string
	mutable, masterOnly *bool
}

// fillReading keeps the rows of the contract's keys (no other key is kept:
// a node's configuration holds passwords and tokens) and, when the source
// listed every key (complete), names the keys the node does not have.
func fillReading(c *snapshot.ConfigReading, node doris.NodeKind, rows []configRow, complete bool) {
	c.Entries = []snapshot.ConfigEntry{}
	found := map[string]bool{}
	for _, row := range rows {
		k, ok := doris.ConfigKeyNamed(node, row.name)
		if !ok || !k.Matches(row.name) {
			continue
		}
		found[k.Name] = true
		c.Entries = append(c.Entries, snapshot.ConfigEntry{Key: k.Name, Name: row.name, Value: row.value, Masked: doris.IsMasked(row.value),
			Type: row.typ, Mutable: row.mutable, MasterOnly: row.masterOnly})
	}
	if !complete {
		return
	}
	for _, k := range doris.ConfigKeys() {
		if k.Node == node && !found[k.Name] {
			c.Missing = append(c.Missing, k.Name)
		}
	}
}

func optBoolText(s string) *bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true", "1":
		b := true
		return &b
	case "false", "0":
		b := false
		return &b
	}
	return nil
}

// httpGapKind names a failed HTTP read: a 401/403 (or credentials refused
// over cleartext) is a privilege gap, silence an unreachable node.
func httpGapKind(err error) (string, string) {
	switch out, _ := classifyHTTP(err, false); out {
	case snapshot.OutcomeUnauthorized, snapshot.OutcomeForbidden:
		return snapshot.GapPrivilege, "HTTP credentials"
	case snapshot.OutcomeConnectTimeout, snapshot.OutcomeReadTimeout, snapshot.OutcomeRefused, snapshot.OutcomeUnresolvable, snapshot.OutcomeClosed:
		return snapshot.GapUnreachable, ""
	}
	return snapshot.GapError, ""
}

// effectivePolicy records which redirect policy the BE hops apply under:
// the loader's header, else the streamload_redirect_policy of the FE the
// loader addresses (the session FE), else the Master's.
func (r *doctorRun) effectivePolicy() {
	d := r.d
	if r.o.RedirectPolicy != "" {
		d.EffectivePolicy, d.PolicySource = r.o.RedirectPolicy, "header"
		return
	}
	d.PolicySource = "unknown"
	const key = "streamload_redirect_policy"
	for _, prefer := range []func(snapshot.ConfigReading) bool{
		func(c snapshot.ConfigReading) bool { return c.Host == r.o.Host }, // the session FE
		func(c snapshot.ConfigReading) bool { return c.IsMaster },
	} {
		for _, c := range d.Config {
			if c.Node != string(doris.FE) || !prefer(c) {
				continue
			}
			for _, e := range c.Entries {
				if e.Key == key {
					d.EffectivePolicy, d.PolicySource = e.Value, c.Source+" ("+scrape.FirstNonEmpty(c.ID, c.Host)+")"
					return
				}
			}
		}
	}
}
