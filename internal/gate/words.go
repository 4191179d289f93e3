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

// describe says in plain words what each gated mode does, the same for
// every call of the mode; the prompt's specifics are in Words. Every
// mutating or sensitive mode of the tool table has its own line
// (TestEveryGatedModeHasItsOwnWords): nothing is "an action in the
// browser" unless it is one. This is the one place the wording of a mode
// lives.
var describe = map[string]string{
	"interact.back":           "Go back in the tab's history",
	"interact.batch":          "Run several page actions in a row",
	"interact.call_page_tool": "Call one of the page's own tools (WebMCP): the page's code runs with these arguments",
	"interact.check":          "Tick or untick a checkbox",
	"interact.click":          "Click on the page",
	"interact.close_tab":      "Close a tab",
	"interact.drag":           "Drag something on the page",
	"interact.execute_js":     "Run its own JavaScript in the page (a script can read and change anything the page can, and send it anywhere)",
	"interact.fill_form":      "Fill in a form",
	"interact.forward":        "Go forward in the tab's history",
	"interact.handle_dialog":  "Answer a dialog the page opened",
	"interact.key_press":      "Press keys on the page",
	"interact.navigate":       "Go to another page in a tab",
	"interact.new_tab":        "Open a new tab",
	"interact.refresh":        "Reload the page",
	"interact.select":         "Choose an option in a list",
	"interact.type":           "Type text into the page",
	"interact.upload":         "Give the page files from this computer",

	"configure.agent_watch":     "Change Gasoline's automatic read-only checks on errors and failed requests",
	"configure.clear":           "Clear data Gasoline captured (logs, errors, network)",
	"configure.noise_rule":      "Change which recurring errors and logs Gasoline hides from the agent as noise",
	"configure.policy":          "Change which actions need your approval",
	"configure.recording_start": "Start recording what you do in the tab",
	"configure.recording_stop":  "Stop recording what you do in the tab",
	"configure.redaction":       "Change what Gasoline hides from the agent",
	"configure.store":           "Save a note in Gasoline's state folder",
}

// Describe is the plain words of a mode ("tool.mode"), or "" for a mode
// with none (read-only modes are never put to the user).
func Describe(key string) string { return describe[key] }
