/**
 * A bounded heap: keeps the `limit` best of a stream of items in O(limit)
 * memory, so the evaluation and memory_stats can scan 100,000 rows and hold
 * only the few they need (the lowest priorities to prune, the top ten).
 */
export class BoundedHeap<T> {
  /** A binary heap whose root is the worst item kept, the first to give way. */
  private readonly items: T[] = [];

  /** `better(a, b)`: a ranks before b (for "lowest N", a smaller score). */
  constructor(
    readonly limit: number,
    private readonly better: (a: T, b: T) => boolean,
  ) {}

  get size(): number {
    return this.items.length;
  }

  /** Whether an item with this rank would be kept now (skips building items that would not). */
  wouldKeep(probe: T): boolean {
    if (this.limit <= 0) return false;
    const root = this.items[0];
    return this.items.length < this.limit || root === undefined || this.better(probe, root);
  }

  push(item: T): void {
    if (!this.wouldKeep(item)) return;
    if (this.items.length < this.limit) {
      this.items.push(item);
      this.up(this.items.length - 1);
      return;
    }
    this.items[0] = item;
    this.down(0);
  }

  /** The kept items, best first. */
  sorted(): T[] {
    return [...this.items].sort((a, b) => (this.better(a, b) ? -1 : this.better(b, a) ? 1 : 0));
  }

  // The root is the worst: a parent is never better than its children.
  private up(i: number): void {
    const h = this.items;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.better(h[p] as T, h[i] as T)) return;
      [h[p], h[i]] = [h[i] as T, h[p] as T];
      i = p;
    }
  }

  private down(i: number): void {
    const h = this.items;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < h.length && this.better(h[worst] as T, h[l] as T)) worst = l;
      if (r < h.length && this.better(h[worst] as T, h[r] as T)) worst = r;
      if (worst === i) return;
      [h[worst], h[i]] = [h[i] as T, h[worst] as T];
      i = worst;
    }
  }
}
