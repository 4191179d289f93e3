package mcpserver

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// resultSize is what a retained result holds in memory, roughly: its
// text, image and audio bytes and its structuredContent (the retention
// caps of internal/session).
func resultSize(v any) int64 {
	res, ok := v.(*mcp.CallToolResult)
	if !ok || res == nil {
		return 0
	}
	n := int64(256)
	for _, c := range res.Content {
		switch x := c.(type) {
		case *mcp.TextContent:
			n += int64(len(x.Text))
		case *mcp.ImageContent:
			n += int64(len(x.Data))
		case *mcp.AudioContent:
			n += int64(len(x.Data))
		case *mcp.EmbeddedResource:
			if x.Resource != nil {
				n += int64(len(x.Resource.Text) + len(x.Resource.Blob))
			}
		default:
			n += 256
		}
	}
	if raw, ok := res.StructuredContent.(json.RawMessage); ok {
		n += int64(len(raw))
	}
	return n
}
