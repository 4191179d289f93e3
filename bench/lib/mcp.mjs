// The agents' side: the official MCP client over stdio, with timing and
// byte counts of what comes back.
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export const CALL_TIMEOUT_MS = 60000;

// connect spawns the server and completes initialize; ms is the spawn →
// initialized time.
export async function connect({ command, args, env, cwd, logPath }) {
  const t0 = performance.now();
  const transport = new StdioClientTransport({
    command,
    args,
    cwd,
    env: { ...process.env, ...env },
    stderr: 'pipe',
  });
  if (logPath) {
    transport.stderr.pipe(fs.createWriteStream(logPath, { flags: 'a' }));
  }
  const client = new Client({ name: 'gasoline-bench', version: '0.1.0' });
  await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
  const ms = performance.now() - t0;
  return { client, transport, ms, pid: transport.pid };
}

// listTools reads every page of tools/list (agent-browser pages by 64);
// ms and bytes cover all pages.
export async function listTools(client) {
  const t0 = performance.now();
  const tools = [];
  let size = 0;
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    tools.push(...page.tools);
    size += bytes(page);
    cursor = page.nextCursor;
  } while (cursor);
  return { tools, ms: performance.now() - t0, bytes: size };
}

export function bytes(value) {
  return Buffer.byteLength(JSON.stringify(value));
}

// call times one tools/call; it returns the result, ms and bytes, and
// never throws (a protocol error becomes an isError result).
export async function call(client, name, args) {
  const t0 = performance.now();
  let result;
  try {
    result = await client.callTool({ name, arguments: args }, undefined, {
      timeout: CALL_TIMEOUT_MS,
    });
  } catch (err) {
    result = {
      isError: true,
      protocolError: true,
      content: [{ type: 'text', text: String(err.message || err) }],
    };
  }
  const ms = performance.now() - t0;
  return { result, ms, bytes: bytes(result) };
}

// text joins the text parts of a tool result.
export function text(result) {
  return (result?.content || [])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
}

export function hasImage(result) {
  return (result?.content || []).some(
    (c) => c.type === 'image' && c.data && c.data.length > 100,
  );
}
