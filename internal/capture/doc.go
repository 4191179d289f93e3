// Package capture keeps what each browser tab did — console messages,
// uncaught exceptions, network requests with timing, WebSocket frames,
// JavaScript dialogs and navigations — in bounded per-tab buffers filled from
// the CDP events the extension relays ([Store.Ingest]). It is what the
// observe modes (errors, logs, network_waterfall, websocket_events,
// timeline, …) read.
//
// Memory stays bounded under an event flood: every buffer is a [Ring] capped
// by entry count and approximate bytes, text is cut to documented limits, and
// the maps that merge events (requests in flight, WebSocket URLs, error
// groups, tabs) are capped too. Old entries are evicted and counted; cursors
// are sequence numbers that are never reused, so a reader that falls behind
// learns how many entries it missed and resumes at the oldest one kept.
//
// Each tab also knows its current main-frame [Document] (by CDP loaderId),
// so a reader can ask for the current page's requests only
// ([NetworkQuery].Doc).
//
// Every entry passes the [Redactor] before it is stored; an entry the
// redactor refuses is dropped and counted (fail closed).
//
// The package starts no goroutines; a [Store] is safe for concurrent use.
package capture
