/**
 * A DevTools protocol session on the isolate that runs the Worker and its
 * objects, through `wrangler dev`'s inspector port (bench/cpu-profile.mjs,
 * bench/memory.mjs). Needs Node 22's built-in WebSocket.
 *
 * `send(method, params)` resolves with the command's result; `post` sends a
 * command without awaiting its answer (workerd answers some, such as
 * HeapProfiler.collectGarbage, only when the isolate is next entered).
 */
export async function devtools(port) {
  const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
  const target = targets.find((t) => t.webSocketDebuggerUrl) ?? targets[0];
  // wrangler's inspector proxy refuses a handshake without an Origin it knows.
  const ws = new WebSocket(target.webSocketDebuggerUrl, { headers: { Origin: `http://127.0.0.1:${port}` } });
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  let id = 0;
  const pending = new Map();
  ws.onmessage = (event) => {
    const msg = JSON.parse(event.data);
    if (msg.id !== undefined && pending.has(msg.id)) {
      pending.get(msg.id)(msg);
      pending.delete(msg.id);
    }
  };
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const n = ++id;
      pending.set(n, (msg) => (msg.error ? reject(new Error(`${method}: ${JSON.stringify(msg.error)}`)) : resolve(msg.result)));
      ws.send(JSON.stringify({ id: n, method, params }));
    });
  /** A command whose answer is not awaited. */
  const post = (method, params = {}) => ws.send(JSON.stringify({ id: ++id, method, params }));
  return { send, post, close: () => ws.close() };
}
