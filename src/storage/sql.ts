/**
 * The one door to a context's SQLite database. Store modules call these
 * helpers instead of `ctx.storage.sql.exec` directly, so a failing statement
 * is reported with the query that failed and cursors are always consumed
 * before the caller can `await`.
 */
export type SqlValue = string | number | null | ArrayBuffer;
export type Row = Record<string, SqlStorageValue>;

export class SqlError extends Error {
  constructor(
    readonly query: string,
    cause: unknown,
  ) {
    super(`SQL failed: ${cause instanceof Error ? cause.message : String(cause)} in: ${query.slice(0, 200)}`, {
      cause,
    });
    this.name = "SqlError";
  }
}

export class Db {
  constructor(readonly sql: SqlStorage) {}

  /** Runs a statement and returns all rows. */
  all<T extends Row>(query: string, ...params: SqlValue[]): T[] {
    try {
      return this.sql.exec<T>(query, ...params).toArray();
    } catch (error) {
      throw new SqlError(query, error);
    }
  }

  /**
   * Runs a SELECT and returns its rows as objects with `columns` (names the
   * query's result columns carry), which SQLite packs into one JSON text for
   * V8 to parse. Under workerd every cell handed to JavaScript as part of a
   * row object has a cost of its own, so a query returning many short rows
   * spends most of its time there, and far less this way. For hot read paths
   * that return many short rows: the whole result is one SQLite value, which
   * a Durable Object caps at 2 MB, so not for unbounded text such as
   * observations.
   * Values must be numbers, text or NULL (JSON cannot hold a BLOB: the
   * statement fails); reals come back exactly (SQLite writes 17
   * significant digits). `order` (an ORDER BY over the query's result
   * columns) fixes the rows' order, which is otherwise the query's own.
   * Example: ./sql.examples.ts.
   */
  packed<T extends Row>(columns: readonly (keyof T & string)[], query: string, params: readonly SqlValue[] = [], order?: string): T[] {
    return this.tuples(columns, query, params, order).map((tuple) => {
      const row: Row = {};
      for (let i = 0; i < columns.length; i++) row[columns[i] as string] = tuple[i] as SqlStorageValue;
      return row as T;
    });
  }

  /** Db.packed's rows as arrays, values in the order of `columns`: no object per row, for the largest results. */
  tuples<T extends SqlStorageValue[] = SqlStorageValue[]>(columns: readonly string[], query: string, params: readonly SqlValue[] = [], order?: string): T[] {
    const packedQuery = `SELECT json_group_array(json_array(${columns.map((c) => `[${c}]`).join(", ")})${order ? ` ORDER BY ${order}` : ""}) AS rows FROM (${query})`;
    let text: string;
    try {
      text = this.sql.exec<{ rows: string }>(packedQuery, ...params).one().rows;
    } catch (error) {
      throw new SqlError(query, error);
    }
    return JSON.parse(text) as T[];
  }

  /** Runs a statement and returns its first row, if any. */
  one<T extends Row>(query: string, ...params: SqlValue[]): T | undefined {
    return this.all<T>(query, ...params)[0];
  }

  /**
   * Iterates a statement's rows one at a time, so a scan of a large table
   * keeps memory flat. Finish the loop before any `await` and before writing
   * to the rows it reads.
   */
  *each<T extends Row>(query: string, ...params: SqlValue[]): Generator<T> {
    try {
      for (const row of this.sql.exec<T>(query, ...params)) yield row;
    } catch (error) {
      throw new SqlError(query, error);
    }
  }

  /**
   * Db.each's rows as arrays of their values in column order: no object per
   * row, for the longest scans (each row object costs under workerd). Same
   * rules: finish the loop before any `await`.
   */
  *eachTuple<T extends SqlStorageValue[]>(query: string, ...params: SqlValue[]): Generator<T> {
    try {
      for (const row of this.sql.exec(query, ...params).raw()) yield row as T;
    } catch (error) {
      throw new SqlError(query, error);
    }
  }

  /** Runs a statement for its effect; returns the number of rows written. */
  run(query: string, ...params: SqlValue[]): number {
    try {
      const cursor = this.sql.exec(query, ...params);
      cursor.toArray();
      return cursor.rowsWritten;
    } catch (error) {
      throw new SqlError(query, error);
    }
  }

  /** Runs a script of several statements (migrations). */
  script(text: string): void {
    this.run(text);
  }
}

/** SQLite allows at most 100 bound parameters per statement in a Durable Object. */
const MAX_PARAMS = 100;

/**
 * Bytes of JSON one statement's parameter carries at most when rows travel
 * as one JSON array (`json_each(?)`), well under the 2 MB a Durable Object
 * allows one value, estimated at 3 bytes for a non-ASCII character.
 */
export const JSON_PARAM_BYTES = 1_000_000;

const ASCII_ONLY = /^[\x00-\x7f]*$/;

/** An upper bound on a JSON text's UTF-8 bytes: its length, three times that when it holds a non-ASCII character. */
const jsonBytes = (json: string): number => (ASCII_ONLY.test(json) ? json.length : 3 * json.length);

/**
 * `rows` as JSON arrays of at most JSON_PARAM_BYTES each, in order (a larger
 * row goes alone): many rows per statement, where bound parameters hold 100
 * values at most.
 */
export function jsonBatches(rows: readonly unknown[]): string[] {
  if (rows.length === 0) return [];
  // The usual call fits one parameter: one stringify of the whole array costs a fifth of one per row.
  const whole = JSON.stringify(rows);
  if (jsonBytes(whole) <= JSON_PARAM_BYTES) return [whole];
  const out: string[] = [];
  let run: string[] = [];
  let bytes = 0;
  for (const row of rows) {
    const json = JSON.stringify(row);
    const size = jsonBytes(json) + 1;
    if (run.length > 0 && bytes + size > JSON_PARAM_BYTES) {
      out.push(`[${run.join(",")}]`);
      run = [];
      bytes = 0;
    }
    run.push(json);
    bytes += size;
  }
  if (run.length > 0) out.push(`[${run.join(",")}]`);
  return out;
}

/**
 * `n` as the integer literal of a LIMIT. SQLite plans with a LIMIT's value,
 * so a statement whose LIMIT is a bound parameter is prepared again every
 * time it runs, where the literal form reuses the prepared statement. Hot
 * read paths write their LIMIT with this: a constant, or `roundUp` of a
 * value that varies, so each statement has few texts.
 */
export function sqlLimit(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`LIMIT must be a non-negative integer, got ${n}`);
  return String(n);
}

/** The smallest power of two at least `n` (1 for less): a varying LIMIT as one of a few values; the caller keeps the first `n` rows. */
export const roundUp = (n: number): number => (n <= 1 ? 1 : 2 ** Math.ceil(Math.log2(n)));

/** Splits `items` into chunks small enough to bind `perItem` parameters each. */
export function chunksFor<T>(items: readonly T[], perItem = 1, reserved = 0): T[][] {
  const size = Math.max(1, Math.floor((MAX_PARAMS - reserved) / perItem));
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** "?, ?, ?" for n parameters; numbered from `first` ("?4, ?5, ?6") in a statement that numbers its parameters. */
export const placeholders = (n: number, first?: number): string => Array.from({ length: n }, (_, i) => (first === undefined ? "?" : `?${first + i}`)).join(", ");
