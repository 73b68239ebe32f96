/**
 * CJK text for the documents' full-text index. The graph's tokenizer
 * (`porter unicode61`) keeps a run of Japanese, Chinese or Korean characters
 * as one token, so "設計" would never match "データベース設計について".
 * Each document therefore also indexes the overlapping bigrams of its CJK
 * runs (`search_cjk`), and a CJK query term becomes a phrase of bigrams.
 */

// Kana (incl. the prolonged sound mark), CJK ideographs and extension A,
// iteration marks, Hangul syllables, compatibility ideographs, half-width katakana.
const CJK_RUN = /[\u3005\u3006\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f]+/g;

/** The CJK runs of `s`, in order. */
const cjkRuns = (s: string): string[] => s.match(CJK_RUN) ?? [];

/** Overlapping bigrams of one run; a one-character run is its own token. */
function bigrams(run: string): string[] {
  const chars = [...run];
  if (chars.length < 2) return chars;
  return chars.slice(1).map((c, i) => `${chars[i]}${c}`);
}

/** The `search_cjk` column for a document: every run's bigrams, space-separated. */
export const cjkIndexText = (content: string): string => cjkRuns(content).flatMap(bigrams).join(" ");
