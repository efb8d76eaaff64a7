// Package mv renders the MV documents: `mv list` (kind "mv_list") and
// `mv explain` (kind "mv_explain"). Its renderers register with report from
// an init; MVExplain and TextBlocks are shared with report/demo.
package mv
