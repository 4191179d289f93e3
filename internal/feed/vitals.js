// Gasoline vitals recorder: installed in the main world of every top-level
// document (Page.addScriptToEvaluateOnNewDocument) and again on demand.
// It records Core Web Vitals with PerformanceObserver (buffered, so a late
// install still sees what happened) and long tasks (not buffered by
// Chrome: seen from the install on; analyze performance reads them), and
// never touches the page's DOM.
(() => {
  if (window !== window.top) return;
  const KEY = Symbol.for('gasoline.vitals');
  if (window[KEY]) return;
  const v = { lcp: null, lcpElement: null, fcp: null, cls: 0, inp: null, interactions: 0, longTasks: [], longTaskCount: 0, observers: [] };
  Object.defineProperty(window, KEY, { value: v });
  const durations = new Map();
  let session = 0, first = 0, last = 0;
  const on = {
    'largest-contentful-paint': (e) => {
      v.lcp = e.startTime;
      v.lcpElement = e.element ? e.element.tagName.toLowerCase() : null;
    },
    paint: (e) => {
      if (e.name === 'first-contentful-paint') v.fcp = e.startTime;
    },
    'layout-shift': (e) => {
      if (e.hadRecentInput) return;
      if (session && e.startTime - last < 1000 && e.startTime - first < 5000) {
        session += e.value;
      } else {
        session = e.value;
        first = e.startTime;
      }
      last = e.startTime;
      v.cls = Math.max(v.cls, session);
    },
    event: (e) => {
      if (!e.interactionId) return;
      durations.set(e.interactionId, Math.max(durations.get(e.interactionId) || 0, e.duration));
      const all = [...durations.values()].sort((a, b) => b - a);
      v.interactions = all.length;
      v.inp = all[Math.min(all.length - 1, Math.floor(all.length / 50))];
    },
  };
  on['first-input'] = on.event;
  on.longtask = (e) => {
    v.longTaskCount++;
    if (v.longTasks.length < 200) v.longTasks.push([e.startTime, e.duration]);
  };
  for (const [type, cb] of Object.entries(on)) {
    try {
      const o = new PerformanceObserver((list) => list.getEntries().forEach(cb));
      o.observe({ type, buffered: true, ...(type === 'event' ? { durationThreshold: 16 } : {}) });
      v.observers.push([o, cb]);
    } catch {
      // entry type not supported by this browser
    }
  }
})();
