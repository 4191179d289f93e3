package gate

// Words is what a prompt says of a call besides its mode: what it acts on
// (Target, one line), what the user should weigh (Notes), and the whole
// of what it carries when that does not fit a line (Detail, shown whole
// and scrollable, named by DetailLabel). The panel, the terminal CLI,
// observe approvals and the audit log all carry exactly these words.
type Words struct {
	Target      string
	Notes       []string
	Detail      string
	DetailLabel string
}

// A prompt also says what the mode does in plain words, the same for
// every call of it: the mode's definition holds them (tools.Mode.Words),
// and every mutating or sensitive mode has its own.
