package diag

// metricsCodes are the metrics findings; the owning area fills this file.
var metricsCodes = []Code{}
