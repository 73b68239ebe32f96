/** A JSON value, as stored in a TEXT column (inverse ops, archived payloads, state). */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
