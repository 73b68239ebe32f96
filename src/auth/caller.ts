/** The authenticated principal behind a request. */
export interface Caller {
  /** Stable identity recorded with changes: "admin", "local", or a token's name. */
  id: string;
  kind: "admin" | "local" | "token";
}
