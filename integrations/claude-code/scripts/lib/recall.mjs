/**
 * What UserPromptSubmit injects from a `recall` answer: the direct matches
 * (not the connectors or co-visited items recall adds around them) that
 * pass both tests below, best first, each as `[key] text`, within
 * RECALL_MAX_CHARS characters.
 *
 * ## Relevance
 * - The item's score is at least the cut (ENGRAM_RECALL_MIN_SCORE, else
 *   DEFAULT_MIN_SCORE).
 * - The item's key and text hold at least two of the prompt's content
 *   words; a prompt with only one content word ("fix it") needs it in the
 *   item's key (its name or path): BM25 scores grow with the
 *   memory's size, so a score alone lets one rare word ("work" in "nice
 *   work!") or a synonym bring an item; two words of the prompt rarely meet
 *   in an item by chance. Words are compared on their first five letters,
 *   a crude stem ("deploys" meets "deploy", "tagging" meets "tag").
 * How both were chosen: docs/integrations.md#choosing-the-recall-threshold.
 */

export const DEFAULT_MIN_SCORE = 5;
export const RECALL_MAX_CHARS = 8000;
const ITEM_MAX_CHARS = 1500;
const STEM = 5;

/** Words that say nothing about a topic; a prompt of only these matches nothing. */
const STOP = new Set(
  (
    "the and for are but not you your yours all any can could had has have her him his how its just let lets may might " +
    "more most much must now off once only other our out own same she should some such than that that's this those these " +
    "then there their them they too very was were what when where which while who whom why will with would yes yet about " +
    "again also back been before being both did does doing done down each even from further here into it's i'm i've " +
    "like make makes made mean meant need please thanks thank thx okay sure good great nice cool awesome perfect fine well " +
    "looks look looking think know want see tell try get got going ahead continue sounds lgtm right wrong one ones thing " +
    "things something anything way lot lots bit really actually maybe hmm hey hello morning wait sorry again work works"
  ).split(/\s+/),
);

const words = (text) =>
  String(text)
    .toLowerCase()
    .match(/[\p{L}\p{N}][\p{L}\p{N}'_-]*/gu) ?? [];

/** The prompt's content words: three letters or more, not in STOP, each once. */
export function contentWords(prompt) {
  return [...new Set(words(prompt).filter((w) => w.length >= 3 && !STOP.has(w)))];
}

/** How many of `terms` the item's key and text hold (compared on their first STEM letters). */
export function matchedWords(item, terms, where = `${item.key ?? ""} ${item.text ?? ""}`) {
  const own = words(where)
    .flatMap((w) => w.split(/[-_]/))
    .filter((w) => w.length >= 3 && !STOP.has(w));
  return terms.filter((t) => own.some((w) => w.startsWith(t.slice(0, STEM)) || t.startsWith(w.slice(0, STEM)))).length;
}

/** ENGRAM_RECALL_MIN_SCORE when it is a number, else DEFAULT_MIN_SCORE. */
export function minScoreFromEnv(env = process.env) {
  const value = Number.parseFloat(env.ENGRAM_RECALL_MIN_SCORE ?? "");
  return Number.isFinite(value) ? value : DEFAULT_MIN_SCORE;
}

/** The items of a recall answer for `prompt` that pass both tests, best first. */
export function relevantItems(structured, prompt, minScore) {
  const terms = contentWords(prompt);
  if (terms.length === 0) return [];
  const items = Array.isArray(structured?.items) ? structured.items : [];
  const words = (item) => (terms.length === 1 ? matchedWords(item, terms, item.key ?? "") : matchedWords(item, terms));
  return items
    .filter((item) => item && item.via === undefined && typeof item.score === "number" && item.score >= minScore)
    .filter((item) => words(item) >= Math.min(2, terms.length))
    .sort((a, b) => b.score - a.score);
}

const oneLine = (s) => String(s).replace(/\s+/g, " ").trim();

/** The context text for the passing items, or "" when none pass. */
export function formatRecall(structured, prompt, minScore) {
  const header = "Memory from engram that may bear on this prompt (each item with its key; open one with open_nodes, read_document or view):";
  let text = header;
  for (const item of relevantItems(structured, prompt, minScore)) {
    let body = oneLine(item.text ?? "");
    if (body.length > ITEM_MAX_CHARS) body = `${body.slice(0, ITEM_MAX_CHARS - 1)}…`;
    const line = `\n- [${item.key}] ${body}`;
    if (text.length + line.length > RECALL_MAX_CHARS) break;
    text += line;
  }
  return text === header ? "" : text;
}
