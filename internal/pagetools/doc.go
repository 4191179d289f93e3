// Package pagetools serves a page's own WebMCP tools to the agent:
// observe page_tools lists the tools the tab's page and its same-origin
// frames registered (document.modelContext.registerTool, and forms with a
// toolname attribute), and interact call_page_tool calls one, behind the
// user's approval unless the page marked it readOnlyHint.
//
// Chrome's DevTools protocol does the work (docs/PAGETOOLS.md): the
// WebMCP domain, enabled in every tab Gasoline attaches to, reports tools
// as the page adds and removes them (Manager.Event keeps them per tab)
// and runs invocations (WebMCP.invokeTool, toolResponded). Chrome leaves
// out the tools' titles and, on enable, the tools of frames registered
// before it, so a listing also reads document.modelContext.getTools() in
// Gasoline's isolated world of each same-origin frame (sweep.js), where the
// page's scripts cannot reach.
//
// Everything a page tool says is page text: the dispatcher fences and
// scans both modes' answers (internal/tools/pagetext.go), and the
// approval prompt labels the page's description as the page's words
// (prompt.go).
package pagetools
