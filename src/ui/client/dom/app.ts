/**
 * The page's state and the operations every view shares: which context is
 * picked and what the visitor may do there, messages (status, alert, the
 * notice with its Undo button), and `write`, the one way a view changes
 * memory.
 *
 * ## Writes
 * A write is one or more MCP tool calls on the picked context: the same
 * tools, checks and history as an agent's. Before it, the page notes the
 * newest change's #seq; after it, it looks up this tab's changes since then
 * (memory_history, by the tab's session key) and offers to undo them with
 * one `undo{change}`. Then every view that shows memory refreshes (unless
 * the write was refused with nothing written: then an editor keeps its text).
 */
import { type Change, ownChangeToUndo } from "../changes";
import type { ContextChoice } from "../contexts";
import { CallError, type EngramClient, type ToolInfo } from "../mcp";
import { byId, fill } from "./dom";

export interface WriteStep {
  tool: string;
  args: Record<string, unknown>;
}

type Listener = () => void | Promise<void>;

export class App {
  context = "";
  choice: ContextChoice | undefined;
  tools = new Map<string, ToolInfo>();
  /** The item shown in the detail panel (`entity:<name>`, `file:<path>`, `doc:<id>`). */
  openItem: string | undefined;
  private readonly changed: Listener[] = [];
  private readonly signedOut: Listener[] = [];

  constructor(
    readonly client: EngramClient,
    /** This tab's Mcp-Memory-Session key. */
    readonly session: string,
  ) {}

  /** Whether the visitor may write here (a write or admin grant on a context that is not read-only). */
  get writable(): boolean {
    return this.choice !== undefined && !this.choice.readOnly && this.choice.role !== "read";
  }

  has(tool: string): boolean {
    return this.tools.has(tool);
  }

  /** Whether the server lists `argument` among `tool`'s arguments. */
  takes(tool: string, argument: string): boolean {
    return Object.hasOwn(this.tools.get(tool)?.inputSchema?.properties ?? {}, argument);
  }

  /** A tool call on the picked context; its structuredContent. */
  call<T>(tool: string, args: Record<string, unknown> = {}): Promise<T> {
    return this.client.call<T>(this.context, tool, args);
  }

  onChanged(listener: Listener): void {
    this.changed.push(listener);
  }

  onSignedOut(listener: Listener): void {
    this.signedOut.push(listener);
  }

  /** Tells every view that memory changed, so each shows it again. */
  async emitChanged(): Promise<void> {
    await Promise.all(this.changed.map(async (l) => l()));
  }

  status(message: string): void {
    byId("status").textContent = message;
  }

  /** Shows what went wrong; a refused token signs the visitor out. */
  fail(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    const alert = byId("alert");
    alert.textContent = message;
    alert.hidden = false;
    if (error instanceof CallError && error.kind === "auth") for (const l of this.signedOut) void l();
  }

  clearAlert(): void {
    const alert = byId("alert");
    alert.hidden = true;
    alert.textContent = "";
  }

  /** A message after a write (a polite live region), with an Undo button when there is a change of this tab's to undo. */
  notice(message: string, undoChange?: number): void {
    byId("notice-text").textContent = message;
    const undo = byId<HTMLButtonElement>("notice-undo");
    undo.hidden = undoChange === undefined || !this.writable;
    undo.onclick = undoChange === undefined ? null : () => void this.undo(undoChange);
    byId("notice").hidden = false;
  }

  /** The newest change's #seq (0 before any), or undefined where history is not offered. */
  private async newestChange(): Promise<number | undefined> {
    if (!this.has("memory_history")) return undefined;
    const h = await this.call<{ changes: Change[] }>("memory_history", { limit: 1 });
    return h.changes[0]?.seq ?? 0;
  }

  /**
   * Runs `steps` in order, then offers to undo them. A step that fails stops
   * the rest; what earlier steps wrote stays, is shown, and can be undone.
   */
  async write(done: string, steps: readonly WriteStep[]): Promise<boolean> {
    this.clearAlert();
    let ok = true;
    try {
      const before = await this.newestChange();
      try {
        for (const step of steps) await this.client.callTool(this.context, step.tool, step.args);
      } catch (error) {
        ok = false;
        this.fail(error);
      }
      let target: number | undefined;
      if (before !== undefined) {
        const h = await this.call<{ changes: Change[] }>("memory_history", { limit: 50 });
        target = ownChangeToUndo(h.changes, this.session, before);
      }
      if (ok) this.notice(done, target);
      else if (target !== undefined) this.notice("Part of the change was made.", target);
      // Refused with nothing written: the views stay as they are, an editor keeps its text.
      if (!ok && before !== undefined && target === undefined) {
        this.hideNotice();
        return false;
      }
    } catch (error) {
      ok = false;
      this.fail(error);
    }
    await this.emitChanged();
    return ok;
  }

  /** undo{change}: reverts it and the later changes to the same items; offers to take the undo back. */
  async undo(change?: number): Promise<void> {
    this.clearAlert();
    try {
      const r = await this.call<{ change: number; undone: { seq: number; tool: string; summary: string }[] }>("undo", change === undefined ? {} : { change });
      const what = r.undone.map((u) => `#${u.seq} ${u.tool}`).join(", ");
      this.notice(`Undid ${what} (recorded as #${r.change}).`, r.change);
    } catch (error) {
      this.fail(error);
    }
    await this.emitChanged();
  }

  hideNotice(): void {
    byId("notice").hidden = true;
    fill(byId("notice-text"));
  }
}
