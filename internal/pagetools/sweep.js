// Runs in Gasoline's isolated world of one frame (the page's scripts cannot
// reach it): the tools this frame registered, as document.modelContext
// reports them, with the titles Chrome's WebMCP domain leaves out, and for
// forms with a toolname, whether they submit by themselves. Bounded: at
// most MAX tools, long strings and schemas cut.
(async () => {
  const MAX = 100;
  const TEXT = 8192;
  const SCHEMA = 65536;
  const mc = document.modelContext;
  if (!mc || typeof mc.getTools !== 'function') return { webmcp: false };
  const clip = (v) => String(v ?? '').slice(0, TEXT);
  const forms = new Map();
  for (const f of document.querySelectorAll('form[toolname]')) {
    const n = f.getAttribute('toolname');
    if (!forms.has(n)) forms.set(n, f);
  }
  let all;
  try {
    all = await mc.getTools();
  } catch (e) {
    return { webmcp: true, error: clip(e && e.message) };
  }
  const tools = [];
  for (const t of all || []) {
    if (tools.length >= MAX) break;
    if (t.window !== undefined && t.window !== window) continue; // another frame's
    let schema = t.inputSchema ?? null;
    if (typeof schema === 'string') {
      try {
        schema = JSON.parse(schema);
      } catch {
        schema = null;
      }
    }
    let schemaTooBig = false;
    if (schema !== null && JSON.stringify(schema).length > SCHEMA) {
      schema = null;
      schemaTooBig = true;
    }
    const a = t.annotations || {};
    const form = forms.get(t.name);
    tools.push({
      name: String(t.name ?? '').slice(0, 256),
      title: clip(t.title),
      description: clip(t.description),
      inputSchema: schema,
      schemaTooBig,
      readOnly: a.readOnlyHint === true,
      untrusted: a.untrustedContentHint === true,
      consequential: a.consequentialHint === true,
      declarative: !!form,
      autosubmit: !!form && form.hasAttribute('toolautosubmit'),
    });
  }
  return { webmcp: true, tools, more: (all || []).length > MAX };
})()
