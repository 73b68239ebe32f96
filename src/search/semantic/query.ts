/**
 * A query's side of semantic search: the query embedded by the context's
 * model, then the nearest stored items. The model call is the one await:
 * nearest() reads the vectors after it, in one synchronous pass, so a caller
 * ranks with vectors as they are when the answer comes back.
 */
import type { Db } from "../../storage/sql";
import type { Embedder } from "./embedder";
import { nearest, type Neighbour } from "./vectors";

/**
 * The k items nearest in meaning to `query` (among the `scan` stored last, if given), best first; null when the model
 * call fails (logged as `query_embedding_failed`), so the caller ranks by
 * words alone rather than failing the search.
 */
export async function nearestToQuery(db: Db, embedder: Embedder, query: string, k: number, scan?: number): Promise<Neighbour[] | null> {
  let vector: Float32Array | undefined;
  try {
    [vector] = await embedder.embed([query]);
  } catch (error) {
    console.error(JSON.stringify({ event: "query_embedding_failed", model: embedder.model, error: String(error) }));
    return null;
  }
  return vector ? nearest(db, vector, k, embedder.model, scan) : null;
}
