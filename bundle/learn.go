package bundle

import (
	"net"
	"regexp"
	"strings"
	"sync"

	"github.com/dorisdiag/dorisdiag/doris"
	"github.com/dorisdiag/dorisdiag/snapshot"
)

// Learning the names to pseudonymise (--redact-names) happens before any
// member is written, from everything the bundle holds: the snapshot's rows,
// doctor's nodes and hops, the topology's hosts and the label values of
// every /metrics body, so every member sees one map (sos clean's model).

// LearnSnapshot learns the databases, tables, streams, MVs and hosts of s.
func (r *Redactor) LearnSnapshot(s *snapshot.Snapshot) {
	if !r.o.RedactNames || s == nil {
		return
	}
	r.LearnHostPort(s.Source.Host)
	for _, n := range append(append([]snapshot.Node{}, s.Frontends...), s.Backends...) {
		r.LearnHostPort(n.Host)
	}
	for _, t := range s.Tables {
		r.Learn(KindDB, t.DB)
		r.Learn(KindTable, t.Name)
	}
	for _, d := range s.Databases {
		r.Learn(KindDB, d.DB)
	}
	for _, p := range s.Partitions {
		r.Learn(KindDB, p.DB)
		r.Learn(KindTable, p.Table)
	}
	for _, m := range s.MVs {
		r.Learn(KindDB, m.DB)
		r.Learn(KindMV, m.Name)
	}
	for _, j := range s.Jobs {
		r.Learn(KindDB, j.MVDatabaseName)
		r.Learn(KindMV, j.MVName)
	}
	for _, t := range s.Tasks {
		r.Learn(KindDB, t.MVDatabaseName)
		r.Learn(KindMV, t.MVName)
	}
	for _, m := range s.MVStatus {
		r.Learn(KindDB, m.DB)
		r.Learn(KindMV, m.MVName)
	}
	for _, d := range s.Dependencies {
		r.Learn(KindDB, d.DB)
		r.Learn(KindMV, d.MVName)
		r.Learn(KindDB, d.BaseTableDB)
		r.Learn(KindTable, d.BaseTableName)
	}
	for _, st := range s.Streams {
		r.Learn(KindDB, st.DB)
		r.Learn(KindDB, st.BaseTableDB)
		r.Learn(KindTable, st.BaseTableName)
		r.learnStream(st.Name)
	}
	for _, c := range s.Consumption {
		r.Learn(KindDB, c.DB)
		r.learnStream(c.StreamName)
	}
	for _, m := range s.Metrics {
		r.LearnHostPort(m.Target)
		r.LearnProm(m.Body)
	}
	for _, c := range s.ExternalConsumers {
		// The offset and source tables of an external consumer (db.tbl
		// as the config file gave them).
		for _, qn := range []string{c.OffsetTable, c.SourceTable} {
			if n, err := doris.ParseName(qn); err == nil {
				r.Learn(KindDB, n.DB)
				r.Learn(KindTable, n.Name)
			}
		}
	}
	if d := s.Doctor; d != nil {
		r.LearnHostPort(d.Session.Host)
		r.LearnHostPort(d.LoadHost)
		for _, n := range append(append([]snapshot.DoctorNode{}, d.Frontends...), d.Backends...) {
			r.LearnHostPort(n.Host)
			r.LearnHostPort(n.PublicEndpoint)
			r.LearnHostPort(n.PrivateEndpoint)
		}
		for _, c := range d.Config {
			r.LearnHostPort(c.Host)
		}
		for _, h := range d.Hops {
			r.LearnHostPort(h.Target)
		}
		for _, l := range d.Labels {
			r.Learn(KindDB, l.DB)
		}
	}
}

// learnStream learns a stream's name. The internal stream of an IVM MV
// (doris.IvmStreamName: prefix, MV name, ids) keeps its prefix and ids
// around the MV's pseudonym, so a redacted bundle still tells an internal
// stream from a user's, and whose it is.
func (r *Redactor) learnStream(name string) {
	if !r.o.RedactNames || name == "" {
		return
	}
	if _, ok := r.names[name]; ok {
		return
	}
	mv, _, _, ok := doris.ParseIvmStreamName(name)
	if !ok || mv == "" {
		r.Learn(KindStream, name)
		return
	}
	r.Learn(KindMV, mv)
	rest := strings.TrimPrefix(name, doris.IvmStreamPrefix+mv)
	r.names[name] = doris.IvmStreamPrefix + r.names[mv] + rest
	r.kinds[name] = KindStream
	r.dirty = true
}

// promLabelRE finds a label whose value names an object or a host.
var promLabelRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(db_name|db|database|table_name|table|tbl|mv_name|mv|stream_name|stream|instance|host)="((?:[^"\\\n]|\\.)*)"`)
})

// LearnProm learns the object and host names in the label values of a
// /metrics body.
func (r *Redactor) LearnProm(body string) {
	if !r.o.RedactNames || body == "" {
		return
	}
	for _, m := range promLabelRE().FindAllStringSubmatch(body, -1) {
		v := m[2]
		switch m[1] {
		case "db_name", "db", "database":
			r.Learn(KindDB, v)
		case "table_name", "table", "tbl":
			r.Learn(KindTable, v)
		case "mv_name", "mv":
			r.Learn(KindMV, v)
		case "stream_name", "stream":
			r.learnStream(v)
		case "instance", "host":
			r.LearnHostPort(v)
		}
	}
}

// LearnTableHosts learns the hosts of a SHOW FRONTENDS / SHOW BACKENDS /
// SHOW BACKEND CONFIG result (columns Host, IP, HostName).
func (r *Redactor) LearnTableHosts(cols []string, rows [][]*string) {
	if !r.o.RedactNames {
		return
	}
	for i, c := range cols {
		switch strings.ToLower(c) {
		case "host", "ip", "hostname":
			for _, row := range rows {
				if i < len(row) && row[i] != nil {
					r.LearnHostPort(*row[i])
				}
			}
		}
	}
}

// LearnURL learns the host of a URL's authority.
func (r *Redactor) LearnURL(raw string) {
	if !r.o.RedactNames {
		return
	}
	rest := raw
	if i := strings.Index(rest, "://"); i >= 0 {
		rest = rest[i+3:]
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.LastIndex(rest, "@"); i >= 0 {
		rest = rest[i+1:]
	}
	if h, _, err := net.SplitHostPort(rest); err == nil {
		rest = h
	}
	r.Learn(KindHost, strings.Trim(rest, "[]"))
}
