// A static file server on 127.0.0.1: testdata/ at /, bench/pages/ at
// /bench/. Unknown paths answer 404 (the errors page's failing fetch).
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.json': 'application/json',
  '.css': 'text/css',
};

export function serve(roots) {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    const file = resolve(roots, decodeURIComponent(url.pathname));
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    res.writeHead(200, {
      'content-type': TYPES[path.extname(file)] || 'application/octet-stream',
      'cache-control': 'no-store',
    });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((ok) =>
    server.listen(0, '127.0.0.1', () =>
      ok({
        origin: `http://127.0.0.1:${server.address().port}`,
        close: () => new Promise((done) => server.close(done)),
      }),
    ),
  );
}

// resolve maps a URL path onto the longest matching root prefix, refusing
// anything that escapes its root.
function resolve(roots, p) {
  for (const [prefix, dir] of Object.entries(roots)) {
    if (!p.startsWith(prefix)) continue;
    const file = path.join(dir, p.slice(prefix.length));
    if (!file.startsWith(dir)) return null;
    try {
      if (fs.statSync(file).isFile()) return file;
    } catch {
      // fall through to the next root
    }
  }
  return null;
}
