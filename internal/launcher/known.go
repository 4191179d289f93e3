package launcher

import (
	"github.com/gasoline-mcp/gasoline/internal/state"
	"github.com/tidwall/gjson"
)

// Known returns the daemon state.json names when it is of opts.Version and
// listens on opts.Port, without asking it anything: no /health round trip
// and no process check. It is a guess for a caller whose own first request
// checks it (the stdio relay dials its link and compares the version the
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

// Running reports whether the daemon state.json names, of opts.Version
// and on opts.Port, is a live process: a file read and a process check,
// no round trip. The stdio relay asks it before answering initialize from
// its cache, so a client (or a probe such as `claude mcp list`) is never
// told it is connected while no daemon runs; a pid reused by another
// process passes, and the relay's dial then finds out. It reads the file
// with plain system calls and gjson (not os.ReadFile and encoding/json,
// whose first use costs a cold start ~0.2 ms).
func Running(opts Options) bool {
	if err := opts.fillPlace(); err != nil {
		return false
	}
	raw, err := state.ReadPrivateFile(state.Path(opts.Dir), 64<<10)
	if err != nil || !gjson.ValidBytes(raw) {
		return false
	}
	f := gjson.GetManyBytes(raw, "pid", "port", "version")
	pid := int(f[0].Int())
	return pid > 0 && int(f[1].Int()) == opts.Port && f[2].Str == opts.Version && processAlive(pid)
}
