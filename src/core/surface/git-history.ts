// A project file's history where the project keeps none of its own (the bridge: the folder is the user's, and so is
// its git): the commits that changed it and its text at one, through the door's read-only git (git log, git cat-file).
import type { GitRun, GitRunner } from "../runtime/context.js";
import { showControls } from "../lines.js";
import type { Result } from "../result.js";

export interface Commit { commit: string; author: string; at: string; subject: string }
/** Commits listed at most. */
const MAX_COMMITS = 50;
/** A version's text, at most: what the bridge reads of a file now (review 33: a 30 MiB blob in history answered 31 MB). */
const MAX_SHOWN_BYTES = 8 * 1024 * 1024;
export const COMMIT = /^[0-9a-f]{7,64}$/;

/** A page of the file's commits, newest first: the newest, or those older than `after` (a commit an earlier page listed
 *  last); `older` counts the commits past the page (review 245: "50 commits in git" was said of 120). A page is named by
 *  its last commit, not by how many came before it: a commit made between pages moved a count by one, and the next page
 *  listed a commit again (review 258). */
export interface CommitPage { commits: Commit[]; after?: string; older: number }

/** Newest first, MAX_COMMITS of them, older than `after` where given; undefined where there is no git, no repository, or
 *  the file was never committed; a failure where the door would not run git (the project's .git leads outside it), or
 *  `after` names no commit. */
export async function gitLog(git: GitRunner, root: string, path: string, after?: string): Promise<Result<CommitPage> | undefined> {
  // Fields split at NUL, which neither a name nor a subject can hold (a tab in an author's name moved the date into the
  // subject). One more than a page: whether there are more, to count; one more again for `after` itself, listed first
  // where it changed the file.
  // Resolved first, to the full id the log then starts at: a full id naming no object passed the door's own check, whose
  // refusal told the caller to name HEAD or a branch, which "before" does not take (review 403).
  const from = after === undefined ? undefined : await resolveCommit(git, root, after);
  if (from && !from.ok) return { ok: false, error: from.named ? `"before": ${from.error}` : `"before": ${after} names no commit of this repository: pass an answer's "next".` };
  const start = from?.commit;
  const run = await git({ dir: root, args: ["log", `-n${MAX_COMMITS + 2}`, "--format=%H%x00%an%x00%aI%x00%s", "--end-of-options", start ?? "HEAD", "--", path] });
  if (run?.refused) return { ok: false, error: run.refused };
  if (!run || run.exitCode !== 0) return undefined;
  // An author and a subject are anyone's text: their controls written out, for the answer and the view alike (review
  // 157: a reversed subject moved the view's Restore button into the middle of its row).
  const listed = new TextDecoder().decode(run.stdout).split("\n").filter(Boolean).map((line) => {
    const [commit = "", author = "", at = "", subject = ""] = line.split("\0");
    return { commit, author: showControls(author), at, subject: showControls(subject.slice(0, 200)) };
  });
  const itself = start !== undefined && listed[0]?.commit === start;
  const commits = itself ? listed.slice(1) : listed.slice(0, MAX_COMMITS + 1);
  if (!commits.length && after === undefined) return undefined;
  const page = { ok: true as const, commits: commits.slice(0, MAX_COMMITS), ...(after === undefined ? {} : { after }) };
  if (commits.length <= MAX_COMMITS) return { ...page, older: 0 };
  // Uncounted, there is at least one more than the page.
  const counted = await countCommits(git, root, start ?? "HEAD", path);
  return { ...page, older: counted === undefined ? 1 : Math.max(counted - (itself ? 1 : 0) - MAX_COMMITS, 1) };
}

/** The full id of the commit `id` (hex, as the callers' schemas take it) names, or why none; undefined where there is no
 *  git. A branch or tag named like hex is read before a short id, so what git answers must begin with `id` (review 405:
 *  a branch named as a commit's short id served another branch's text under that commit's name). */
export async function resolveCommit(git: GitRunner, root: string, id: string): Promise<Result<{ commit: string }, { named?: true }> | undefined> {
  const run = await git({ dir: root, args: ["rev-parse", "--verify", "--quiet", "--end-of-options", `${id}^{commit}`] });
  if (!run) return undefined;
  if (run.refused) return { ok: false, error: run.refused };
  const full = run.exitCode === 0 ? new TextDecoder().decode(run.stdout).trim() : "";
  if (!full) return { ok: false, error: `${id} names no commit of this repository.` };
  if (!full.startsWith(id)) return { ok: false, error: `${id} is also the name of a branch or tag here, which git reads first: give the commit's full id.`, named: true };
  return { ok: true, commit: full };
}

/** How many commits up to `from` changed the file; undefined where git would not say. */
async function countCommits(git: GitRunner, root: string, from: string, path: string): Promise<number | undefined> {
  const count = await git({ dir: root, args: ["rev-list", "--count", "--end-of-options", from, "--", path] });
  const total = count && !count.refused && count.exitCode === 0 ? Number(new TextDecoder().decode(count.stdout).trim()) : NaN;
  return Number.isSafeInteger(total) ? total : undefined;
}

/** The commits a page lists, in words: "3 commits", "the newest 50 of 120 commits", "50 commits older than 1a2b…, 20
 *  more past them", "no commits older than 1a2b…". */
export function commitRange(page: CommitPage): string {
  const { commits, after, older } = page;
  const n = (count: number) => `${count} commit${count === 1 ? "" : "s"}`;
  if (after === undefined) return older ? `the newest ${commits.length} of ${commits.length + older} commits` : n(commits.length);
  const which = `older than ${after.slice(0, 12)}`;
  if (!commits.length) return `no commits ${which}`;
  return `${n(commits.length)} ${which}${older ? `, ${older} more past them` : ""}`;
}

/** The file's text at `commit` (a hex id, checked by the caller's schema), and whether that text is its bytes (UTF-8:
 *  the text of any other is not, and written back it would not be the version). The blob is read as the object
 *  `<commit>:<path>`, its size first: `git show` took a name that is no object for a pathspec on HEAD and answered
 *  nothing (review 188: `docs/story-1[draft].md` at a commit without it read as an empty file, and was restored so). */
export async function gitShow(git: GitRunner, root: string, given: string, path: string): Promise<Result<{ text: string; utf8: boolean; commit: string }>> {
  const resolved = await resolveCommit(git, root, given);
  if (!resolved) return { ok: false, error: "git is not installed here: only the current version can be read." };
  if (!resolved.ok) return resolved;
  const commit = resolved.commit;
  const object = `${commit}:${path}`;
  const missing = (run: GitRun) => ({ ok: false as const, error: `No ${path} at commit ${commit.slice(0, 12)}: ${new TextDecoder().decode(run.stderr).trim().slice(0, 300)}` });
  const size = await git({ dir: root, args: ["cat-file", "-s", "--end-of-options", object] });
  if (!size) return { ok: false, error: "git is not installed here: only the current version can be read." };
  if (size.refused) return { ok: false, error: size.refused };
  if (size.exitCode !== 0) return missing(size);
  const bytes = Number(new TextDecoder().decode(size.stdout).trim());
  if (bytes > MAX_SHOWN_BYTES) return { ok: false, error: `${path} at commit ${commit.slice(0, 12)} is ${(bytes / 1024 / 1024).toFixed(1)} MiB, more than the ${MAX_SHOWN_BYTES / 1024 / 1024} MiB a version is shown at: read it with git itself.` };
  // A folder there has a size too, and is no blob.
  const run = await git({ dir: root, args: ["cat-file", "blob", "--end-of-options", object] });
  if (!run) return { ok: false, error: "git is not installed here: only the current version can be read." };
  if (run.refused) return { ok: false, error: run.refused };
  if (run.exitCode !== 0) return missing(run);
  try {
    // A byte order mark kept: restored, the text is the version's bytes (review 215: it was dropped, the version called restorable).
    return { ok: true, text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(run.stdout), utf8: true, commit };
  } catch {
    return { ok: true, text: new TextDecoder().decode(run.stdout), utf8: false, commit };
  }
}
