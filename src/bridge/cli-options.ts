// The CLI's own refusals of its options, said as its tools' are: the name at fault, the closest it knows, and where
// the rest are listed (review 431: `--tset` printed Node's message and then 45 lines of usage, `-h` was unknown).
import { closest, suggestion } from "../core/catalog/closest.js";

/** Why parseArgs refused `argv`, for a command whose options are `options` and whose help is `help`. */
export function optionRefusal(error: unknown, options: Record<string, unknown>, help: string): string {
  const message = (error as Error).message;
  const unknown = /^Unknown option '([^']{1,100})'/.exec(message)?.[1];
  if (unknown === undefined) return `${message.replace(/\.?$/, ".")} ${help} lists the options.`;
  const known = Object.keys(options).map((name) => `--${name}`);
  return `Unknown option ${unknown}.${suggestion(closest(unknown, known, 3))} ${help} lists the options.`;
}
