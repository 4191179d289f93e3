// The real timers, wrapped so they can be called as methods of another
// object (browsers throw "Illegal invocation" otherwise). Tests inject fakes.

export const realTimers = Object.freeze({
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle),
});
