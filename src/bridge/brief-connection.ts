// How the --remote proxy waits for its connection to the remote: briefly, whichever way it signs in. The content a
// call asks for is in the local bundle too, so a remote that takes connections and never answers must not hold the
// call until the SDK's 60 s timeout (review 423: with a token, tools/list took 60 s, and under --http such calls held
// every place, refusing even the local tools).

/** How long a call waits for a connection under way before it is answered without the remote. */
export const CONNECT_WAIT_MS = 3000;

/** One connection attempt at a time, shared by the calls that wait on it: each waits CONNECT_WAIT_MS at most, and
 *  the attempt goes on for the next call. A failed attempt goes to `failed` (which says why), and the next call
 *  starts another. */
export class BriefConnection<T> {
  private made?: T;
  private attempt?: Promise<void>;

  constructor(
    private readonly open: () => Promise<T>,
    private readonly failed: (error: unknown) => void,
  ) {}

  /** The connection, or undefined when there is none after CONNECT_WAIT_MS. */
  async current(): Promise<T | undefined> {
    if (this.made !== undefined) return this.made;
    this.attempt ??= this.open()
      .then((made) => void (this.made = made), this.failed)
      .finally(() => (this.attempt = undefined));
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([this.attempt, new Promise((r) => (timer = setTimeout(r, CONNECT_WAIT_MS)))]);
    clearTimeout(timer);
    return this.made;
  }

  /** After a request on it failed: the next call connects again. */
  forget(): void {
    this.made = undefined;
  }
}
