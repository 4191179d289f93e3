// Package untrusted marks page-derived text as data, never instructions
// (SAFETY.md, "Page content is untrusted"). Three parts, each usable on
// its own:
//
//   - Fence: a random nonce per tool result (NewNonce) that opens and
//     closes its page text; page text is cleaned of what no person sees
//     (Clean) and every line of it that reads as a fence line or a note of
//     Gasoline's after folding (fold.go: NFKC, UTS #39 confusables, case,
//     letter-spacing) is neutralised, so a page cannot close the fence
//     early or forge one.
//   - Scan: finds what page text asks of an agent, by family (families.go:
//     ignore your instructions, pose as the system, speak for the user,
//     send data or money elsewhere, dictate the answer, plant a task, …)
//     with a Classifier, reading only the page text a result declares
//     (Page). Rules — the families' expressions and a small linear model
//     (model.go) — is the default.
//   - Notes: the lines Gasoline writes beside the fence (a warning naming the
//     lines, how much hidden text was dropped) and the warning that later
//     approval requests of the session carry for the user.
//
// The MCP dispatcher (internal/mcpserver) applies all three to the results
// of the modes internal/tools lists as page text, after redaction.
package untrusted
