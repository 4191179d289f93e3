// Concise diagnostics. console.log lines reach Chromium's stderr as
// INFO:CONSOLE, which end-to-end tests read. Never pass message contents here:
// method names, ids, sizes and error codes only.

export function log(text) {
  console.log(`gasoline: ${text}`);
}
