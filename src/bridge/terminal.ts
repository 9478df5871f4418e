// The CLI's writes to the user's terminal (stdout, stderr; never the MCP stream). What it prints holds outside text
// (a remote's errors and file names, skill names from a skill-manifest.csv the model may write), so every write goes
// through terminalText: a remote's error retitled the window, wrote the clipboard (OSC 52) and printed a green
// "Pulled OK" over the failure, and a bidi mark showed `report\u202Emd.sh` as `reporths.dm` (review 27).
import { terminalText } from "../core/workspace/paths.js";

export const writeOut = (text: string) => process.stdout.write(terminalText(text));
export const writeErr = (text: string) => process.stderr.write(terminalText(text));
