package launcher

import "github.com/gasoline-mcp/gasoline/internal/state"

// Known returns the daemon state.json names when it is of opts.Version and
// listens on opts.Port, without asking it anything: no /health round trip
// and no process check. It is a guess for a caller whose own first request
// checks it (the stdio relay dials /ws/mcp and compares the version the
// daemon answers with) and who falls back to Ensure when that fails; a
// caller that cannot check must use Ensure.
func Known(opts Options) (Daemon, bool) {
	if err := opts.fillPlace(); err != nil {
		return Daemon{}, false
	}
	st, err := state.Read(opts.Dir)
	if err != nil || st.Version != opts.Version || st.Port != opts.Port || st.PID <= 0 {
		return Daemon{}, false
	}
	return Daemon{Port: st.Port, PID: st.PID, Dir: opts.Dir}, true
}
