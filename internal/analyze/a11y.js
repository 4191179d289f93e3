// analyze accessibility: axe-core (injected into this world by the
// extension) on the page or the elements a selector matches, limited to
// the WCAG rules of the level asked for. Returns {missing: true} when axe
// is not in this world yet.
async (opts) => {
  if (typeof axe === 'undefined' || typeof axe.run !== 'function') return { missing: true };
  const rank = { A: 1, AA: 2, AAA: 3 }[opts.level];
  const tags = new Set();
  for (const r of axe.getRules()) {
    for (const t of r.tags) {
      const m = /^wcag\d*(a{1,3})$/.exec(t);
      if (m && m[1].length <= rank) tags.add(t);
    }
  }
  const context = opts.selector ? { include: within(opts.selector) } : document;
  const t0 = performance.now();
  let res;
  try {
    res = await axe.run(context, {
      runOnly: { type: 'tag', values: [...tags] },
      resultTypes: ['violations'],
      elementRef: true,
      iframes: false,
      // No preloading: axe would fetch the page's cross-origin stylesheets
      // itself, requests the page never made (its CSSOM rule is then
      // reported as needing review).
      preload: false,
      performanceTimer: false,
    });
  } catch (e) {
    // A previous call that ran out of time left its audit running.
    if (/already running/i.test(String(e && e.message))) throw 'busy';
    throw e;
  }
  const ms = performance.now() - t0;
  const target = (t) => t.map((x) => (Array.isArray(x) ? x.join(' >>> ') : x)).join(' | ');
  return {
    url: location.href,
    version: axe.version,
    page_ms: ms,
    tags: [...tags].sort(),
    needs_review: res.incomplete.length,
    passed_rules: res.passes.length,
    violations: res.violations.map((v) => ({
      id: v.id,
      impact: v.impact || 'minor',
      help: v.help,
      description: v.description,
      help_url: v.helpUrl,
      wcag: v.tags.filter((t) => /^wcag/.test(t)),
      count: v.nodes.length,
      nodes: v.nodes.slice(0, opts.max_nodes).map((n) => ({
        ref: refOf(n.element),
        selector: clip(target(n.target), 300),
        html: clip(norm(maskHTML(n.element, n.html || '')), 200),
        summary: clip(norm(n.failureSummary || ''), 400),
      })),
    })),
  };
}
