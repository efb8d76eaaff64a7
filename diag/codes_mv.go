package diag

// mvCodes are the mv findings; the owning area fills this file.
var mvCodes = []Code{}
