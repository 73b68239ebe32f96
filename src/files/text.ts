/**
 * Line arithmetic for file content: splitting into lines, finding an exact
 * occurrence, inserting after a line. Pure functions, no storage.
 *
 * A trailing "\n" ends the last line rather than starting an empty one, so
 * "a\nb\n" has two lines, as an editor shows it.
 */

export const utf8Bytes = (s: string): number => new TextEncoder().encode(s).length;

/** The file's lines and whether it ended with a line break. */
export function splitLines(content: string): { lines: string[]; trailingNewline: boolean } {
  if (content === "") return { lines: [], trailingNewline: false };
  const trailingNewline = content.endsWith("\n");
  return { lines: (trailingNewline ? content.slice(0, -1) : content).split("\n"), trailingNewline };
}

export const lineCount = (content: string): number => splitLines(content).lines.length;

/** 1-based line number of the character at `offset`. */
export function lineAt(content: string, offset: number): number {
  let line = 1;
  for (let i = content.indexOf("\n"); i !== -1 && i < offset; i = content.indexOf("\n", i + 1)) line++;
  return line;
}

/**
 * Every offset where `needle` starts, overlapping ones included, so "aa" in
 * "aaa" counts twice: either could be meant, so the match is not unique.
 * Stops after `max` hits; the caller only needs to know "more than one".
 */
export function occurrences(haystack: string, needle: string, max = 50): number[] {
  const found: number[] = [];
  for (let i = haystack.indexOf(needle); i !== -1 && found.length < max; i = haystack.indexOf(needle, i + 1)) {
    found.push(i);
  }
  return found;
}

/** `content` with `text` inserted after line `after` (0 = at the top). `after` must be within 0..lineCount. */
export function insertAfterLine(content: string, after: number, text: string): string {
  // An empty file has no ending of its own: it takes the text's, so a blank line inserted is a line ("\n"), not nothing.
  if (content === "") return text === "" ? "\n" : text;
  const { lines, trailingNewline } = splitLines(content);
  const added = splitLines(text).lines;
  lines.splice(after, 0, ...(added.length > 0 ? added : [""]));
  // The file keeps its own ending: with or without a final line break.
  return lines.join("\n") + (trailingNewline ? "\n" : "");
}
