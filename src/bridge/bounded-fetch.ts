// The one fetch the bridge reads a remote bmad-mcp server's answers with (pull, push, the --remote proxy and their
// sign-in): the body is streamed and cut off past a byte cap, so a hostile server cannot make the bridge hold an
// answer of any size (one 400 MiB answer took a pull, or the long-lived proxy, to 2.1 GB: review 27).
import { MIB } from "../core/workspace/limits.js";
import { streamText } from "../core/workspace/paths.js";

/** The most one answer may hold. The largest a bmad-mcp server sends carries one workspace file (at most 1 MiB) once,
 *  in a JSON string: 6 MiB when every byte is escaped (`\u0001`); a listing of 1,000 paths or a proxied prompt is far
 *  below it. 16 MiB leaves room for that and a framing, and bounds a pull's eight reads at once to 128 MiB. */
export const MAX_ANSWER_BYTES = 16 * MIB;
/** An error answer (not 2xx) at most: only its start is ever shown (remoteText). */
const MAX_ERROR_BYTES = 64 * 1024;
/** What a message shows of text a remote sent (an error's reason): a 15 MiB error body, escaped for the terminal, was
 *  94 MB on the user's terminal and in the proxy's answer to its client (review 29). */
const REMOTE_TEXT_CHARS = 1000;

/** Text a remote sent, cut to what a message shows, on one line: its line breaks are shown as escapes, or a failed
 *  pull's message could end in forged success lines (review 31), and so are the characters a terminal acts on or
 *  shows as nothing, as in a script's output (review 423: a proxied error's ESC, OSC 52 and BEL reached the model). */
export function remoteText(text: string): string {
  const cut = text.length > REMOTE_TEXT_CHARS ? `${text.slice(0, REMOTE_TEXT_CHARS)}… (cut)` : text;
  return streamText(cut).replace(/\r?\n/g, "\\n").replace(/\t/g, "\\t");
}

/** `base` (the platform's fetch) with every answer's body cut off, as an error naming the cap, past `maxBytes`. */
export function boundedFetch(base: typeof fetch = fetch, maxBytes = MAX_ANSWER_BYTES): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    if (!response.body) return response;
    const origin = new URL(input instanceof Request ? input.url : String(input)).origin;
    const cap = response.ok ? maxBytes : Math.min(maxBytes, MAX_ERROR_BYTES);
    let read = 0;
    const capped = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, out) {
        read += chunk.byteLength;
        // Erroring the stream cancels the rest unread: the connection is closed, nothing more is buffered.
        if (read > cap) out.error(new Error(`${origin} answered with more than ${cap >= MIB ? `${cap / MIB} MiB` : `${cap / 1024} KiB`}${response.ok ? "" : " of error"}, more than a bmad-mcp server ever sends (a workspace file is at most 1 MiB); the answer was cut off there. Check that the URL names a bmad-mcp server.`));
        else out.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(capped), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
