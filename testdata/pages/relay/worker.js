console.log('from the worker');
fetch('/api/data.json?from=worker').then(() => console.debug('relay:worker-done'));
