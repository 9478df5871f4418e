// Expected failures are values, never parsed from message text: one shape for all of them.

/** One object type from an intersection: what editors show, and what TypeScript infers generics through. */
type Flat<T> = { [K in keyof T]: T[K] };

/** A failure: `error` says what went wrong and how to fix it; `E` adds what callers branch on (a kind, the closest names). */
export type Failure<E extends object = {}> = Flat<{ ok: false; error: string } & E>;

/** What a fallible step gives back: its fields `T` on success, or a Failure. */
export type Result<T extends object = {}, E extends object = {}> = Flat<{ ok: true } & T> | Failure<E>;
