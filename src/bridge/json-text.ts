// JSON the bridge reads from a file a person may have opened in an editor (its sign-ins, sessions, sync state).

/** The JSON in `text`, or undefined where it holds none. A leading BOM, which Windows editors save, is no part of it
 *  (JSON.parse refuses it: review 253, a sign-ins file saved so was set aside as damaged). */
export function parseJsonText(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    return undefined;
  }
}
