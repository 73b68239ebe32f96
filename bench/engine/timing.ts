/** The engine benches' clock: runs timed between two readings taken after I/O, since the object's clock stands still during synchronous code. */
export const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Milliseconds per run of `fn`, over `n` runs between two clock readings taken after I/O. */
export async function timePerRun(n: number, fn: () => void): Promise<number> {
  await tick();
  const t0 = Date.now();
  for (let i = 0; i < n; i++) fn();
  await tick();
  return (Date.now() - t0) / n;
}
