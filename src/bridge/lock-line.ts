// A process's calls on one cross-process lock (file-lock.ts) wait in line: only the first asks for the lock, and the
// rest wait for it to be done. Every call asked at once, and under load one that kept losing gave up on a lock that was
// busy, not hung (review 246: 44 of 80 memlog appends of two bridges).

/** This process's calls on one lock, in the order they came. Only the first polls the lock; the rest wait for it to be
 *  done (review 246: every call polled at once, and one that kept losing gave up though the lock kept changing hands). */
export interface Line {
  calls: string[];
  /** When the first call took the lock; undefined while it waits for it. */
  heldSince?: number;
  /** The holder the first call last read in the lock, and since when: hung is one holder holding it past a wait. */
  seen?: { token: string; since: number };
  /** Resolves at the line's next change: its first call takes the lock, or is done. */
  changed: Promise<void>;
  wake: () => void;
}

/** Lines by lock folder (a Map: keyed by paths). */
const lines = new Map<string, Line>();

export function nextChange(line: Line): void {
  const wake = line.wake;
  line.changed = new Promise((resolve) => (line.wake = resolve));
  wake();
}

export function joinLine(lock: string, token: string): Line {
  let line = lines.get(lock);
  if (!line) {
    line = { calls: [], changed: Promise.resolve(), wake: () => undefined };
    nextChange(line);
    lines.set(lock, line);
  }
  line.calls.push(token);
  return line;
}

export function leaveLine(lock: string, line: Line, token: string): void {
  if (line.calls[0] === token) line.heldSince = undefined;
  line.calls.splice(line.calls.indexOf(token), 1);
  if (line.calls.length === 0) lines.delete(lock);
  nextChange(line);
}

/** A lock held past the wait by another call, of this process or another: said to the user as busy, never taken for
 *  another failure (a refresh that met one re-authorized in the browser, review 257). */
export class LockBusyError extends Error {}

export const ownCallHolds = (rel: string) => `Cannot lock ${rel}: an earlier call of this bridge still holds it (waiting on a server, or a large file); try again in a moment.`;

/** Waits until `token` is first in its line. While an earlier call waits for the lock, so does this one (that call's
 *  wait is bounded); once one holds it past `waitMs`, this one gives up. */
export async function awaitTurn(line: Line, token: string, rel: string, waitMs: number): Promise<void> {
  while (line.calls[0] !== token) {
    if (line.heldSince === undefined) {
      await line.changed;
      continue;
    }
    const left = line.heldSince + waitMs - Date.now();
    if (left <= 0) throw new LockBusyError(ownCallHolds(rel));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([line.changed, new Promise((resolve) => (timer = setTimeout(resolve, left)))]);
    clearTimeout(timer);
  }
}
