package tools

// Risk beyond the classes. Today's approvals know three classes
// (read_only, mutating, sensitive); issue 30 adds risk tiers. What is
// high risk whatever its class is listed here, so that change finds it in
// one place.

// DownloadAction is the approval action of a download a session's tab
// starts (internal/download): not a mode of the table, since a download is
// caused by another action (a click, a navigation), but asked like one,
// with class mutating, when the browser begins it.
const DownloadAction = "interact.download"

// highRisk are the actions that are high risk, and why.
var highRisk = map[string]string{
	DownloadAction: "a download saves a file from the web on this computer",
}

// HighRisk reports whether an approval action is high risk, and why.
func HighRisk(action string) (why string, ok bool) {
	why, ok = highRisk[action]
	return why, ok
}
