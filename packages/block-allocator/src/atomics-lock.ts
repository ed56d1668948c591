/**
 * The pg96 / batch spinlock (phs_mutex) for the shared backing: a lock word in
 * an Int32Array of a SharedArrayBuffer, taken with Atomics.compareExchange.
 *
 * PostgreSQL's s_lock.c spins on a test-and-set, and after
 * DEFAULT_SPINS_PER_DELAY (100) failed tries sleeps with pg_usleep and tries
 * again. JavaScript threads cannot sleep for a microsecond, so after the same
 * 100 tries this lock falls back to a futex-style wait (Atomics.wait), the
 * classic three-state mutex: 0 free, 1 held, 2 held with sleepers; the holder
 * that sees 2 on release wakes one sleeper with Atomics.notify. Where
 * Atomics.wait is forbidden (a browser's main thread) it keeps spinning.
 *
 * The word is only ever touched with Atomics operations, which are
 * sequentially consistent, so the plain fields protected by the lock are
 * ordered by acquire (compareExchange / exchange) and release (sub / store).
 */

/** s_lock.c DEFAULT_SPINS_PER_DELAY: tries before the first sleep. */
const SPINS_BEFORE_WAIT = 100;

const FREE = 0;
const HELD = 1;
const CONTENDED = 2;

let canWait: boolean | undefined;

function waitWhileContended(words: Int32Array, index: number): void {
  if (canWait === false) return;
  try {
    Atomics.wait(words, index, CONTENDED);
    canWait = true;
  } catch {
    // Atomics.wait throws on threads that must not block (a browser's main thread): spin instead.
    canWait = false;
  }
}

/** @internal Takes the lock word `words[index]`. */
export function lockWord(words: Int32Array, index: number): void {
  let c = Atomics.compareExchange(words, index, FREE, HELD);
  if (c === FREE) return;
  for (let i = 0; i < SPINS_BEFORE_WAIT; i++) {
    if (Atomics.load(words, index) === FREE) {
      c = Atomics.compareExchange(words, index, FREE, HELD);
      if (c === FREE) return;
    }
  }
  if (c !== CONTENDED) c = Atomics.exchange(words, index, CONTENDED);
  while (c !== FREE) {
    waitWhileContended(words, index);
    c = Atomics.exchange(words, index, CONTENDED);
  }
}

/** @internal Releases the lock word `words[index]`, waking one sleeper if any. */
export function unlockWord(words: Int32Array, index: number): void {
  if (Atomics.sub(words, index, 1) !== HELD) {
    Atomics.store(words, index, FREE);
    Atomics.notify(words, index, 1);
  }
}
