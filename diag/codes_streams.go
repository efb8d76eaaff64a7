package diag

// streamCodes are the streams findings; the owning area fills this file.
var streamCodes = []Code{}
