/**
 * Embedders: text in, one unit-length vector per text out. The Workers AI
 * implementation runs over the deployment's `AI` binding, with the model the
 * EMBEDDING_MODEL setting names (src/settings.ts); without the binding a
 * context has no embedder and searches lexically.
 *
 * ## Invariants
 * - `embed` returns exactly one vector of `dimensions` numbers per text, in
 *   order, each scaled to unit length (so a dot product is the cosine), or
 *   throws naming what the model returned instead.
 * - Calls carry at most MAX_BATCH texts of at most MAX_TEXT_CHARS characters
 *   each: the model reads about 512 tokens of a text, and a longer one only
 *   costs transfer.
 */

export interface Embedder {
  /** The model's name: stored with every vector, so a change of model re-embeds everything. */
  readonly model: string;
  /** Numbers per vector; known once the first call answered (0 before). */
  readonly dimensions: number;
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

/** What the embedder needs of the `AI` binding: one model call. */
export interface AiBinding {
  run(model: string, inputs: Record<string, unknown>): Promise<unknown>;
}

export const MAX_BATCH = 50;
export const MAX_TEXT_CHARS = 2000;

/** Scales `v` to unit length in place (a zero vector stays zero). */
export function normalize(v: Float32Array): Float32Array {
  let sum = 0;
  for (const x of v) sum += x * x;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) / norm;
  return v;
}

export class WorkersAiEmbedder implements Embedder {
  dimensions = 0;

  constructor(
    private readonly ai: AiBinding,
    readonly model: string,
  ) {}

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += MAX_BATCH) {
      const batch = texts.slice(i, i + MAX_BATCH).map((t) => t.slice(0, MAX_TEXT_CHARS));
      // The BGE models' "cls" pooling is the one their authors recommend; other models take their default.
      const inputs: Record<string, unknown> = this.model.startsWith("@cf/baai/bge-") ? { text: batch, pooling: "cls" } : { text: batch };
      out.push(...this.vectors(await this.ai.run(this.model, inputs), batch.length));
    }
    return out;
  }

  /** The answer's `data` as unit vectors, checked: as many as asked, all of one length. */
  private vectors(answer: unknown, expected: number): Float32Array[] {
    const data = (answer as { data?: unknown } | null)?.data;
    if (!Array.isArray(data) || data.length !== expected) {
      throw new Error(`${this.model} returned ${Array.isArray(data) ? `${data.length} vectors for ${expected} texts` : "no vectors (no data array)"}`);
    }
    return data.map((row: unknown) => {
      if (!Array.isArray(row) || row.length === 0 || !row.every((x) => typeof x === "number" && Number.isFinite(x))) {
        throw new Error(`${this.model} returned a vector that is not a list of numbers`);
      }
      if (this.dimensions === 0) this.dimensions = row.length;
      if (row.length !== this.dimensions) throw new Error(`${this.model} returned a vector of ${row.length} numbers, expected ${this.dimensions}`);
      return normalize(Float32Array.from(row as number[]));
    });
  }
}
