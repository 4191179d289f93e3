// Plants the synthetic secret corpus in every place a page keeps data, then
// logs "plant:done" with the counts. Values that a context cannot hold (a
// header with a newline) are skipped there and planted everywhere else.
(async () => {
  const corpus = await (await fetch('/secrets/corpus.json')).json();
  const negatives = await (await fetch('/secrets/negatives.json')).json();
  const form = document.getElementById('plant-form');
  const counts = { console: 0, url: 0, header: 0, body: 0, ws: 0, local: 0, session: 0, cookie: 0, form: 0 };

  let echoed = 0;
  let allEchoed = () => {};
  const ws = await new Promise((resolve) => {
    const s = new WebSocket(`ws://${location.host}/ws/echo`);
    s.onopen = () => resolve(s);
    s.onerror = () => resolve(null);
    s.onmessage = () => {
      echoed++;
      if (echoed === counts.ws) allEchoed();
    };
  });

  const field = (name, value) => {
    const el = value.includes('\n') ? document.createElement('textarea') : document.createElement('input');
    el.name = name;
    el.value = value;
    form.appendChild(el);
    counts.form++;
  };

  const requests = [];
  corpus.forEach((c, i) => {
    const v = c.value;
    console.log(`plant ${i} ${c.class}: ${v}`);
    counts.console++;
    localStorage.setItem(`note_${i}`, v);
    counts.local++;
    sessionStorage.setItem(`memo_${i}`, v);
    counts.session++;
    field(`note_${i}`, v);
    if (i % 3 === 0) {
      document.cookie = `c${i}=${encodeURIComponent(v)}; path=/`;
      counts.cookie++;
    }
    if (ws && i % 5 === 0) {
      ws.send(JSON.stringify({ note: v }));
      counts.ws++;
    }
    const headers = { 'Content-Type': 'application/json' };
    if (!/[\r\n]/.test(v)) {
      headers['X-Note'] = v;
      counts.header++;
    }
    requests.push(() =>
      fetch(`/api/echo?i=${i}&note=${encodeURIComponent(v)}`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ i, note: v, nested: { text: `value: ${v}` } }),
      }).then(() => {
        counts.url++;
        counts.body++;
      }),
    );
  });
  negatives.forEach((n, i) => {
    console.log(`note: ${n.value}`);
    localStorage.setItem(`neg_${i}`, n.value);
  });
  for (let i = 0; i < requests.length; i += 16) {
    await Promise.all(requests.slice(i, i + 16).map((f) => f().catch(() => {})));
  }
  if (ws) {
    if (echoed < counts.ws) await new Promise((resolve) => (allEchoed = resolve));
    ws.close();
  }
  console.log('plant:done ' + JSON.stringify(counts));
})();
