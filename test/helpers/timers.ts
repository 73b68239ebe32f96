/**
 * A Scheduler (src/context/pending.ts) whose time moves only when a test
 * says so: `advance(ms)` runs, in order, every callback that falls due.
 */
import type { Scheduler } from "../../src/context/pending";

export interface ManualTimers {
  schedule: Scheduler;
  /** Moves time on by `ms` and runs what falls due, earliest first. */
  advance(ms: number): void;
  /** Callbacks scheduled and not yet run or cancelled. */
  waiting(): number;
}

export function manualTimers(): ManualTimers {
  let now = 0;
  let next = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  return {
    schedule(fn, ms) {
      const id = next++;
      timers.set(id, { at: now + ms, fn });
      return () => timers.delete(id);
    },
    advance(ms) {
      const until = now + ms;
      for (;;) {
        const due = [...timers.entries()].filter(([, t]) => t.at <= until).sort(([a, x], [b, y]) => x.at - y.at || a - b)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].fn();
      }
      now = until;
    },
    waiting: () => timers.size,
  };
}
