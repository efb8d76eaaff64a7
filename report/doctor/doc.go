// Package doctor renders `dorisdiag doctor` (kind "doctor"): diag/doctor's
// lines grouped by node, the worst first, like flutter doctor. Its renderers
// register with report from an init.
package doctor
