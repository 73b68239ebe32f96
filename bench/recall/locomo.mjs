/**
 * LoCoMo conversations (snap-research/locomo; a folder of <id>.json files,
 * one conversation each) as the recall benchmark stores and asks them.
 *
 * Each turn is one entity: name = its dia_id ("D1:3": session 1, turn 3),
 * entityType = the speaker, observations = [the turn's text, with the caption
 * of a photo it shares as " [shares a photo: <caption>]"] and, unless
 * `dates` is false, a second observation "session date: <date>" with the
 * session's date as the data writes it ("1:56 pm on 8 May, 2023"): many
 * questions ask when something happened, and a turn's text alone never says.
 *
 * Each question is asked as written. Category 5 (adversarial: the
 * conversation does not answer it) is left out; so is a question with no
 * evidence, which no ranking could hit. `evidence` is split on ";" and
 * trimmed, since one entry in the data joins two dia_ids ("D8:6; D9:17").
 */
import fs from "node:fs";
import path from "node:path";

/** The category left out of the scores: questions the conversation does not answer. */
const ADVERSARIAL = 5;

/** LoCoMo's question categories (from the paper's evaluation code). */
export const CATEGORIES = { 1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial" };

/** The conversation files in `dir`, sorted by name; a clear error when the folder or its files are missing. */
export function conversationFiles(dir) {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    throw new Error(`LoCoMo data not found: ${dir} is not a folder (see docs/search.md#measuring-retrieval; give another with --data DIR)`);
  }
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
  if (files.length === 0) throw new Error(`LoCoMo data not found: ${dir} holds no .json conversation files`);
  return files.map((f) => path.join(dir, f));
}

/** Sessions in order: [{n, date, turns}]. */
function sessions(conv) {
  const out = [];
  for (const key of Object.keys(conv)) {
    const m = /^session_(\d+)$/.exec(key);
    if (m && Array.isArray(conv[key])) out.push({ n: Number(m[1]), date: conv[`${key}_date_time`], turns: conv[key] });
  }
  return out.sort((a, b) => a.n - b.n);
}

/** One conversation file as {id, speakers, entities, questions, skipped}. */
export function readConversation(file, { dates = true } = {}) {
  let conv;
  try {
    conv = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`${file}: ${error.message}`);
  }
  const id = path.basename(file, ".json");
  if (!Array.isArray(conv.qa)) throw new Error(`${file}: no "qa" list; is it a LoCoMo conversation?`);
  const entities = [];
  const seen = new Set();
  for (const s of sessions(conv)) {
    for (const turn of s.turns) {
      if (seen.has(turn.dia_id)) throw new Error(`${file}: turn ${turn.dia_id} appears twice`);
      seen.add(turn.dia_id);
      const text = turn.blip_caption ? `${turn.text} [shares a photo: ${turn.blip_caption}]` : turn.text;
      const observations = [text];
      if (dates && s.date) observations.push(`session date: ${s.date}`);
      entities.push({ name: turn.dia_id, entityType: turn.speaker, observations });
    }
  }
  if (entities.length === 0) throw new Error(`${file}: no session_N turns; is it a LoCoMo conversation?`);
  const questions = [];
  const skipped = { adversarial: 0, noEvidence: 0, unknownEvidence: 0 };
  for (const q of conv.qa) {
    if (q.category === ADVERSARIAL) {
      skipped.adversarial++;
      continue;
    }
    const evidence = (q.evidence ?? []).flatMap((e) => String(e).split(";")).map((e) => e.trim());
    const known = evidence.filter((e) => seen.has(e));
    skipped.unknownEvidence += evidence.length - known.length;
    if (known.length === 0) {
      skipped.noEvidence++;
      continue;
    }
    questions.push({ question: q.question, evidence: known, category: q.category });
  }
  return { id, speakers: [conv.speaker_a, conv.speaker_b], entities, questions, skipped };
}

/** 1-based rank of the first evidence name in `names`, or 0 when none is there. */
export function firstHit(names, evidence) {
  const want = new Set(evidence);
  const i = names.findIndex((n) => want.has(n));
  return i + 1;
}
