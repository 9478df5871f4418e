// Which of a skill's companion files its first answer inlines and which it lists to load on demand: the rule follows
// where the skill's own entry (SKILL.md) first asks for the file, as a run in Claude Code reads it.

/** A numbered step of a BMAD XML workflow (create-story, dev-story, correct-course). */
const STEP = /<step n="[^"]*"/g;

/** A companion the entry asks for only later, so the first answer lists it rather than inlines it:
 *  - one it names only among its `## References` (sprint-planning's template, which its script embeds: review 77);
 *  - one it first asks for in its closing steps, past four fifths of them (dev-story's definition-of-done checklist at
 *    step 9 of 10, create-story's at 6 of 6: review 373, 4.4 KB up front that a native run reads at the end). A file
 *    the entry never names by its file name is looked for by its stem as a word ("the definition-of-done checklist"). */
export function askedForLater(entrySource: string, path: string): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return onlyReferenced(entrySource, name) || inClosingSteps(entrySource, name);
}

function onlyReferenced(entrySource: string, name: string): boolean {
  const referencesAt = /^## References\s*$/m.exec(entrySource)?.index ?? -1;
  return referencesAt >= 0 && !entrySource.slice(0, referencesAt).includes(name) && entrySource.includes(name, referencesAt);
}

/** `text` with its fenced code blocks blanked to spaces, lengths kept: a step tag or a name in an example is none of
 *  the workflow's (review 383: eight `<step n>` in an example made step 1 of the real two the ninth). Line by line. */
function withoutFences(text: string): string {
  let fenced = false;
  return text
    .split("\n")
    .map((line) => {
      const fence = line.startsWith("```");
      const blank = fenced || fence;
      if (fence) fenced = !fenced;
      return blank ? " ".repeat(line.length) : line;
    })
    .join("\n");
}

/** The last entry's text without its fences: a render asks once for each of its files. */
let lastEntry: { source: string; unfenced: string } | undefined;

function inClosingSteps(entrySource: string, name: string): boolean {
  // Most entries have no numbered steps (v6 skills): nothing more to look at.
  if ((entrySource.match(STEP)?.length ?? 0) < 2) return false;
  if (lastEntry?.source !== entrySource) lastEntry = { source: entrySource, unfenced: withoutFences(entrySource) };
  const source = lastEntry.unfenced;
  const starts = [...source.matchAll(STEP)].map((m) => m.index);
  if (starts.length < 2) return false;
  // From the first step on (a preamble's conventions name checklist.md as an example of a bare path), the first
  // mention by name or by its stem as a word (review 383: "read the checklist" in step 1, the name in the last).
  const steps = source.slice(starts[0]);
  const stem = name.replace(/\.[^.]+$/, "").replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const mentions = [steps.indexOf(name), new RegExp(`\\b${stem}\\b`, "i").exec(steps)?.index ?? -1].filter((at) => at >= 0);
  if (!mentions.length) return false;
  const at = starts[0]! + Math.min(...mentions);
  const step = starts.filter((start) => start <= at).length;
  return step > starts.length * 0.8;
}
