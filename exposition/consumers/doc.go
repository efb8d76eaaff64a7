// Package consumers says what each consumer of a Prometheus text payload
// does with it: a Prometheus server's scrape (PrometheusServer, its parser
// re-implemented and checked against prometheus v0.316.0 by the
// differential test and fuzz target in exposition/lint's tests) and expfmt (the
// linter's verdict, lint.Lint). It builds on exposition's types and rules;
// neither exposition nor exposition/lint imports it.
package consumers
