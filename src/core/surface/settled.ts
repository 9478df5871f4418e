// Which document statuses settle a step: one rule for Next, the map's done marks and the views' badges, so that no
// badge shows settled what Next calls unsettled (review 328: `fin\u200bal` was a green "final").

/** A status that settles its skill's step. */
const SETTLED = /^(final|complete|completed|done|approved)$/i;

/** Whether `status`, as written, is a settling one: the whole of it, no character left out. */
export const isSettledStatus = (status: string): boolean => SETTLED.test(status);
