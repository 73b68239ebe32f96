/** Small text helpers for tool replies. */

/** "1 line", "3 lines". */
export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
