// Package nativemsg implements Chrome native-messaging framing for the
// extension ⇄ gasoline-host hop (docs/PROTOCOL.md, "Transports" and "Chunks").
//
// A frame is a 4-byte length in the machine's native byte order followed by
// that many bytes of UTF-8 JSON. [Reader] reads frames from the extension
// (stdin), bounded by [MaxInbound]; [Writer] is the single owner of stdout and
// never writes a frame over [MaxOutbound], because Chromium closes the pipe at
// 1,048,577 bytes (ARCHITECTURE.md invariant 8). Larger messages are cut by a
// [Splitter] into a contiguous run of chunk frames, which an [Assembler]
// reassembles.
package nativemsg
