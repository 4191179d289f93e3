// Package untrusted marks page-derived text as data, never instructions
// (SAFETY.md, "Page content is untrusted"). Three parts, each usable on
// its own:
//
//   - Fence: a per-session random nonce (NewNonce) that opens and closes
//     the page text of a tool result; the nonce is removed from page text
//     first, so a page cannot close the fence early or forge one.
//   - Scan: finds instruction-like passages (text addressed to an AI, "ignore
//     previous instructions", role prefixes, requests to approve, to change
//     policy or redaction, to reveal a prompt, to send data elsewhere) with a
//     Classifier. Rules is the deterministic one; a model-based classifier
//     can implement Classifier later.
//   - Notes: the lines Gasoline writes beside the fence (a warning naming the
//     lines, how much hidden text was dropped) and the warning that later
//     approval requests of the session carry for the user.
//
// The MCP dispatcher (internal/mcpserver) applies all three to the results
// of the modes internal/tools lists as page text, after redaction.
package untrusted
