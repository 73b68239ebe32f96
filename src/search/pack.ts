/**
 * Packing recall's items into a token budget (./recall.ts).
 *
 * ## Budget
 * Tokens are counted with the token-economy estimator (`estimateTokens`,
 * src/priority/brief.ts: characters / 4, rounded up) over the JSON of the
 * item list exactly as it is returned, so `usedTokens` is never more than
 * `budgetTokens`. Items go in greedily, in the order given (best first): one
 * that does not fit is left out and the next is tried. An item whose text
 * alone is too long for the room left is cut (ending in "…") when at least
 * MIN_TEXT_CHARS of its text would still show, so the best match is never
 * dropped just for being long.
 */
import { estimateTokens } from "../priority/brief";

export interface RecallItem {
  /** `entity:<name>`, `file:<path>` or `doc:<id>`. */
  key: string;
  kind: "entity" | "file" | "doc";
  name: string;
  score: number;
  /** The text that matched: the best observations, a window of the file or document. */
  text: string;
  /** Set on items added after the matches: they connect matched entities, or were used with them before. */
  via?: "connector" | "covisited";
}

/** Text characters an item must keep to be worth showing cut. */
export const MIN_TEXT_CHARS = 80;

const ELLIPSIS = "…";

export class Packer {
  readonly items: RecallItem[] = [];
  /** Characters of JSON.stringify(items). */
  private chars = 2;
  private readonly maxChars: number;

  constructor(readonly budgetTokens: number) {
    this.maxChars = budgetTokens * 4;
  }

  get usedTokens(): number {
    return estimateTokens(JSON.stringify(this.items));
  }

  /** Characters adding `item` would take: its JSON and a comma after the first. */
  private cost(item: RecallItem): number {
    return JSON.stringify(item).length + (this.items.length > 0 ? 1 : 0);
  }

  /** Adds `item` (cut to fit when worth it); false when it does not fit. */
  add(item: RecallItem): boolean {
    const room = this.maxChars - this.chars;
    const whole = this.cost(item);
    if (whole <= room) {
      this.items.push(item);
      this.chars += whole;
      return true;
    }
    const bare = this.cost({ ...item, text: ELLIPSIS });
    let keep = Math.min(item.text.length, room - bare);
    if (keep < MIN_TEXT_CHARS) return false;
    // JSON escapes can make text longer than its characters: shrink until it fits.
    for (;;) {
      let text = item.text.slice(0, keep);
      if (/[\ud800-\udbff]$/.test(text)) text = text.slice(0, -1);
      const cut = { ...item, text: `${text}${ELLIPSIS}` };
      const c = this.cost(cut);
      if (c <= room) {
        this.items.push(cut);
        this.chars += c;
        return true;
      }
      keep -= Math.max(1, c - room);
      if (keep < MIN_TEXT_CHARS) return false;
    }
  }
}
