package report

// Renderers is the registry, for the external tests that render every
// registered kind (hostile_test.go).
var Renderers = renderers
