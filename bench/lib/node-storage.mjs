/**
 * The slice of a Durable Object's state that MemoryContext uses (storage.sql,
 * transactionSync, alarms, getWebSockets), over a node:sqlite database, so
 * the bench's Node scripts (profile-write.mjs, ta-depth.mjs) run the real
 * object outside workerd. `hooks.statement(query, ms)` hears every
 * statement's time, `hooks.beforeCommit()` each commit's start and
 * `hooks.commit(ms)` its time, for the profilers.
 */
export function nodeState(sqlite, hooks = {}) {
  const statements = new Map();
  const sql = {
    exec(query, ...params) {
      let rows = [];
      let written = 0;
      const t0 = performance.now();
      if (params.length === 0 && /;\s*\S/.test(query.trim().replace(/;\s*$/, ""))) {
        sqlite.exec(query); // a script (migrations)
      } else {
        let st = statements.get(query);
        if (!st) statements.set(query, (st = sqlite.prepare(query)));
        if (st.columns().length > 0) rows = st.all(...params);
        else written = Number(st.run(...params).changes);
      }
      hooks.statement?.(query, performance.now() - t0);
      return {
        toArray: () => rows,
        one: () => rows[0],
        raw: () => rows.map((r) => Object.values(r))[Symbol.iterator](),
        [Symbol.iterator]: () => rows[Symbol.iterator](),
        rowsWritten: written,
      };
    },
  };
  const storage = {
    sql,
    transactionSync(fn) {
      sqlite.exec("SAVEPOINT tx");
      try {
        const value = fn();
        hooks.beforeCommit?.();
        const t0 = performance.now();
        sqlite.exec("RELEASE tx");
        hooks.commit?.(performance.now() - t0);
        return value;
      } catch (error) {
        sqlite.exec("ROLLBACK TO tx");
        sqlite.exec("RELEASE tx");
        throw error;
      }
    },
    getAlarm: async () => null,
    setAlarm: async () => {},
    deleteAlarm: async () => {},
  };
  let ready = Promise.resolve();
  const state = { storage, blockConcurrencyWhile: (fn) => (ready = fn()), waitUntil: () => {}, getWebSockets: () => [] };
  return { state, ready: () => ready };
}
