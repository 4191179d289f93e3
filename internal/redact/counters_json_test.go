package redact

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// Counts under class names that sound secret must survive the server
// stage: configure {what:"redaction"} passes through it.
func TestSnapshotJSONSurvivesRedaction(t *testing.T) {
	s := Snapshot{PolicyVersion: "v1", RedactedCount: 3, ByClass: map[string]int64{"session_id": 2, "github_token": 1}}
	raw, err := json.Marshal(s)
	require.NoError(t, err)
	e, err := New(DefaultPolicy())
	require.NoError(t, err)
	out, _, err := e.JSON(raw)
	require.NoError(t, err)
	var got struct {
		RedactedCount int64        `json:"redacted_count"`
		ByClass       []ClassCount `json:"by_class"`
	}
	require.NoError(t, json.Unmarshal(out, &got), "%s", out)
	require.Equal(t, int64(3), got.RedactedCount)
	require.Equal(t, []ClassCount{{"github_token", 1}, {"session_id", 2}}, got.ByClass, "%s", out)
}
