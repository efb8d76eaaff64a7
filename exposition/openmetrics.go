package exposition

import "github.com/dorisdiag/dorisdiag/exposition/internal/syntax"

// OpenMetricsSign is the first line that shows a payload is OpenMetrics text
// (application/openmetrics-text), not Prometheus text: its rules differ (an
// exemplar after "# ", "# UNIT", "# EOF" as the last line, the types info,
// stateset, gaugehistogram and unknown), so the linter's verdicts and
// Fix's repairs, made for Prometheus text, do not apply to it.
type OpenMetricsSign = syntax.Sign

// OpenMetricsError refuses an OpenMetrics payload.
type OpenMetricsError = syntax.OpenMetricsError

// DetectOpenMetrics returns the first sign that data is OpenMetrics text.
func DetectOpenMetrics(data []byte) (OpenMetricsSign, bool) { return syntax.DetectOpenMetrics(data) }
