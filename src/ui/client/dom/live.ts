/**
 * Live updates: the page notices changes anyone makes to the picked context
 * (an agent, a teammate, another tab) and shows them without a reload.
 *
 * It asks for the newest change's #seq (`memory_history{limit: 1}`) every
 * POLL_MS while the tab is visible; when the number moves, every view that
 * shows memory refreshes (App.emitChanged): lists, the open item, the
 * overview. While the visitor is typing in a form the refresh waits, so an
 * edit in progress is never thrown away. After the page's own write (which
 * refreshes the views itself) the number is read again, so the same change
 * does not refresh them twice.
 */
import type { Change } from "../changes";
import type { App } from "./app";

const POLL_MS = 2_000;

/** Starts polling; call the returned `baseline` when a context is picked, before its views load, so a change made while they load is seen. */
export function watchChanges(app: App): { baseline: () => Promise<void> } {
  let context = "";
  let seen: number | undefined;
  let busy = false;
  const newest = async () => (await app.call<{ changes: Change[] }>("memory_history", { limit: 1 })).changes[0]?.seq ?? 0;
  const baseline = async () => {
    seen = undefined;
    context = app.context;
    if (!app.has("memory_history")) return;
    try {
      seen = await newest();
    } catch {
      // The first tick takes the baseline instead.
    }
  };
  const typing = () => document.activeElement?.closest("form:not(#search-form)") != null;
  let polled = false;
  // A refresh the page made itself (after its own write) reads the views again: the number it shows moves with them.
  app.onChanged(async () => {
    if (!polled) await baseline();
  });
  const tick = async () => {
    if (busy || document.hidden || app.context === "" || !app.has("memory_history")) return;
    if (typing() && seen !== undefined && context === app.context) return;
    busy = true;
    try {
      const now = await newest();
      const moved = context === app.context && seen !== undefined && now !== seen;
      // The visitor may have started an edit while the number was on its way: keep it, and look again later.
      if (moved && typing()) return;
      context = app.context;
      seen = now;
      if (moved) {
        polled = true;
        try {
          await app.emitChanged();
        } finally {
          polled = false;
        }
      }
    } catch {
      // A missed poll is retried at the next tick; a refused token shows at the next call the visitor makes.
    } finally {
      busy = false;
    }
  };
  window.setInterval(() => void tick(), POLL_MS);
  return { baseline };
}
