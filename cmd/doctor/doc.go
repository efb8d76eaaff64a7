// Package doctor is `dorisdiag doctor` (issue 22, docs/doctor.md): plain
// `doctor` (config and net), `doctor config`, `doctor net` and `doctor
// labels`, each in the one command shape over cmdutil. scrape.Doctor reads,
// diag/doctor judges, report/doctor renders.
package doctor
