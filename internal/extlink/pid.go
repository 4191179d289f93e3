package extlink

import "os"

var pid = os.Getpid
