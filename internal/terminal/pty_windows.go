package terminal

// github.com/creack/pty has no Windows (ConPTY) support yet: the terminal
// says so rather than pretending.

const osName = "Windows"

// defaultStarter is nil: term.open answers terminal_unavailable.
var defaultStarter Starter
