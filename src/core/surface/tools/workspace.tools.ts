// Toolset `workspace`: project workspaces on the remote (a `{project-root}` without a machine). bmad-project
// manages projects (created with BMAD's installer answers) and sharing; bmad-files reads and writes their files,
// each change a version. Both read or write by action: `writes` tells the scope check which.
import * as z from "zod";
import { answersHint, holdsInstallerAnswers, isSecretKey, isServedStandIn, mayServeAsConfig, sanitizeConfigText, servedFile, servedVersion, servedWithout, unjudged } from "../../catalog/config.js";
import { HISTORY_PAGE, MAX_FILE_BYTES, MAX_LISTED } from "../../workspace/limits.js";
import { absoluteRefusal, backslashRefusal, checkWorkspacePath, checkWritablePath, parseProjectRef, printable, PROJECTS_PREFIX, projectRootUri, shareHandle, shownHandle, shownPath, terminalText, unicodeForms, unportableName, workspaceFsRoot, WORKSPACE_FILE_UNOPENED } from "../../workspace/paths.js";
import { parse as parseToml } from "smol-toml";
import { compileGlob, literalSyntaxNote } from "../../catalog/glob.js";
import { parseBoundedToml } from "../../yaml.js";
import { fillInFirst, unfilledPlaceholders } from "../../runtime/command-line.js";
import type { Result } from "../../result.js";
import { configFiles, initialFiles, mergeAnswers } from "../../workspace/setup.js";
import { byAt, OFFER_STEP, olderKept, readAccessRefusal, shortOf, shownAt, shownOffer, staleVersion, withOwnerNote, type ChangedFile, type Configured, type FileEntry, type ListedFile, type Listing, type ProjectInfo, type ProjectSummary, type VersionEntry, type WorkspaceFiles, type WorkspaceStore, type WrittenEntry, type WsResult } from "../../workspace/store.js";
import { updateFile } from "../../workspace/update-file.js";
import { pullLeaves } from "../../workspace/sync-kinds.js";
import { installerQuestions, type InstallerQuestion } from "../../workspace/installer.js";
import { checkTimeZone, DEFAULT_TIME_ZONE, todayWhere, zonedTime } from "../../runtime/time-zone.js";
import type { SurfaceDeps } from "../deps.js";
import { TOOL } from "../names.js";
import { SCRATCH_ADVICE } from "../runtime-block.js";
import { bundleUrisFor } from "../resources.js";
import { FOLDER_KEY, fillConfigValues, projectConfigValues } from "../skill-render.js";
import { done, fail, type ToolOutcome } from "../outcome.js";
import { defineTool, type CallContext } from "../tool.js";
import { count as n, shownTime } from "../../count.js";
import { othersClause } from "../../workspace/line-authors.js";
import { changedSinceClause, changedSinceShort, displacedNote, othersBeside } from "../../workspace/changed-since.js";
import { isOneLine } from "../../lines.js";
import { BOM_NOTE, inFileEndings, NOT_UTF8_NOTE, notUtf8Refusal, shownText, utf8Text } from "../../workspace/file-text.js";

const NO_WORKSPACES = "Project workspaces live on the remote server; here your project is a directory: use it (and your own file tools) instead.";
const PROJECT_READS = new Set(["list"]);
const FILE_READS = new Set(["read", "list", "history"]);
/** Shown at most, of a long list. */
const MAX_LINES = 1000;

const action = (raw: unknown) => (raw && typeof raw === "object" ? (raw as { action?: unknown }).action : undefined);
const answersField = z.record(z.string(), z.record(z.string(), z.string())).optional().describe("Installer answers: module -> key -> value (create, config)");

function withStore(deps: SurfaceDeps, run: (store: WorkspaceStore) => Promise<ToolOutcome>): Promise<ToolOutcome> {
  return deps.workspaces ? run(deps.workspaces) : Promise.resolve(fail(NO_WORKSPACES));
}

const result = <T>(out: WsResult<T>, render: (value: T) => ToolOutcome): ToolOutcome => (out.ok ? render(out.value) : fail(out.error));

const projectInput = z.object({
  action: z.enum(["list", "create", "config", "delete", "undelete", "share", "accept", "decline"]).describe("What to do"),
  name: z.string().optional().describe("Project (all but list)"),
  answers: answersField,
  time_zone: z.string().max(64).optional().describe("IANA zone (create, config)"),
  confirm: z.string().optional().describe("delete: the name again"),
  with: z.string().optional().describe("share: email, github:login or user id"),
  access: z.enum(["read", "write", "none"]).optional().describe("share: none revokes"),
});

export const bmadProjectTool = defineTool({
  name: TOOL.bmadProject,
  toolset: "workspace",
  description:
    "Your project workspaces (root bmad://projects/{name}): list; create; config (show; answers rewrite _bmad config); delete (confirm: name), undelete (7 days); share (with; access read|write|none); accept|decline offers.",
  input: projectInput,
  // The bridge's one project is its folder: it lists it and says where its config is, and refuses the rest.
  listedOn: {
    bridge: {
      description: "This project, the bridge's folder: list names it; config says where its BMAD config is (its _bmad/ files).",
      input: projectInput.pick({ action: true, name: true }).extend({ action: z.enum(["list", "config"]).describe("What to do"), name: z.string().optional().describe("config: the folder's name") }),
    },
  },
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  writes: (args) => !(PROJECT_READS.has(action(args) as string) || (action(args) === "config" && (args as { answers?: unknown }).answers === undefined && (args as { time_zone?: unknown }).time_zone === undefined)),
  run: (args, deps, _signal, call) =>
    withStore(deps, async (store) => {
      if (args.action === "list") return listProjects(store);
      if (!args.name) return fail(`bmad-project "${args.action}" needs "name": the project.`);
      const name = args.name;
      const badAnswer = args.answers ? answerRefusal(args.answers, await installerQuestions(deps.reader).catch(() => [])) : undefined;
      if (badAnswer) return fail(badAnswer);
      switch (args.action) {
        case "create": {
          const zone = args.time_zone === undefined ? undefined : checkTimeZone(args.time_zone);
          if (zone && !zone.ok) return fail(zone.error);
          const files = await initialFiles(deps.reader, name, args.answers ?? {});
          if (!files.ok) return fail(files.error);
          const created = await store.create(name, args.answers ?? {}, files.files, zone?.zone);
          // BMAD's skills greet the user by user_name; the installer's default is nobody's name.
          const named = args.answers?.core?.user_name !== undefined || !created.ok ? "" : await unsetUserName(deps, created.value.project);
          const renamed = created.ok ? await sharedRenamed(store, created.value.project) : "";
          return result(created, (p) =>
            done(`Created project "${p.project}" (${files.files.size} files: BMAD's _bmad/ config and scripts). Root: ${projectRootUri(p.project)}; files with ${TOOL.bmadFiles} "project": "${p.project}".${renamed}${named} ${zoneSentence(p.project, zone?.zone)}`, { ...p, files: files.files.size, time_zone: zone?.zone ?? DEFAULT_TIME_ZONE }),
          );
        }
        case "config":
          if (store.folder) return args.time_zone !== undefined ? fail(BRIDGE_TIME) : folderConfig(store.folder, args.answers !== undefined);
          return args.answers || args.time_zone !== undefined ? setConfig(deps, store, name, args.answers ?? {}, args.time_zone) : showConfig(deps, store, name);
        case "delete":
          return result(await store.remove(name, args.confirm ?? ""), (r) =>
            done(`Deleted project "${r.name}" with its ${n(r.files)} files and their history${r.until ? `, and withdrew its shares. It is kept until ${shownTime(r.until)} UTC, when it goes for good: until then bmad-project "undelete" brings it back` : ""}.`, r));
        case "undelete":
          return result(await store.undelete(name), (p) => done(`Brought back project "${p.project}" as it was when deleted, shared with nobody.`, { ...p }));
        case "share": {
          if (!args.with || !args.access) return fail('bmad-project "share" needs "with" (an email, github:login or user id) and "access" (read, write, or none to revoke).');
          if (args.access !== "none" && call?.elicitation) {
            // Checked before the user is asked: the question names only a valid project of theirs and who a handle is,
            // in words the model cannot bend (a name like "app (your own backup)" is refused here, not shown there).
            const ref = parseProjectRef(name);
            if (!ref.ok) return fail(ref.error);
            const handle = shareHandle(args.with);
            if (!handle.ok) return fail(handle.error);
            // Asked whenever the client can ask, and acted on as asked: a share only ever reaches the caller's own project
            // of that name (review 43: a check that found a shared one, and skipped the question, raced a create or an
            // undelete of their own, which was then shared unasked).
            const who = handleInWords(handle.handle);
            const asked = await userConsent(call, `Share your project "${name}" with ${who}? They get ${args.access} access to all its files, now and later.`, "Share it", `The user did not agree to share "${name}" with ${who}: nothing was shared.`);
            if (asked) return asked;
          }
          return result(await store.share(name, args.with, args.access), (s) =>
            done(s.access === "none" ? `${s.with} no longer has access to "${name}"${s.previous === "none" ? " (had none)" : ""}.${unnamedNote(s.unnamed)}` : s.previous === "none" ? `Offered ${s.with} ${s.access} access to "${name}": it applies once they accept it.` : `${s.with}'s share of "${name}" is now ${s.access} (before: ${s.previous}).`, s),
          );
        }
        case "accept": {
          const ref = parseProjectRef(name);
          if (!ref.ok) return fail(ref.error);
          let accepting = name;
          if (call?.elicitation) {
            // The offer as accept finds it, asked about by who makes it (as their sign-in says), then accepted by the
            // reference that names it alone: a name written otherwise than listed found it without a question (review 40).
            const offer = await store.offer(name);
            if (!offer.ok) return fail(offer.error);
            const { owner, access, project: exact } = offer.value;
            const asked = await userConsent(call, withOwnerNote(`Accept ${printed(owner)}'s project "${offer.value.name}" (${access} access)? Its files, written by others, become a project you work in here.`, offer.value), "Accept it", `The user did not agree to accept "${name}": nothing changed.`);
            if (asked) return asked;
            accepting = exact;
          }
          return result(await store.accept(accepting), (p) => done(withOwnerNote(`Accepted: you can now ${p.access} "${p.project}", shared by ${p.owner}.`, p), { ...p }));
        }
        case "decline":
          return result(await store.decline(name), (d) => done(`Declined "${name}": ${d.owner}'s project is not shared with you now.`, d));
      }
    }),
});

const ConsentAnswer = z.object({ action: z.string(), content: z.looseObject({ confirm: z.unknown() }).optional() });

/** Consent is the person's, not the model's: a share or an accept is asked of the user in their client where it can ask
 *  (elicitation), a form the model can neither see nor answer, so text that steers the model cannot give a project away
 *  or take one in. An answer counts for the question it was given to alone: its key is the question's digest, so a
 *  share or an offer that changed between the rounds is asked about again. Undefined: go ahead (the user said yes, or
 *  the client cannot ask, where its own approval of the call is the check). Else the question, or the refusal when
 *  the user said anything but yes. */
async function userConsent(call: CallContext | undefined, message: string, label: string, refused: string): Promise<ToolOutcome | undefined> {
  if (!call?.elicitation) return undefined;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${label}\0${message}`)));
  const key = `consent-${[...digest.slice(0, 12)].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
  const answer = call.inputResponses?.[key];
  if (answer !== undefined) {
    const parsed = ConsentAnswer.safeParse(answer);
    return parsed.success && parsed.data.action === "accept" && parsed.data.content?.confirm === true ? undefined : fail(refused);
  }
  return { ok: true, text: "", confirm: { key, message, label } };
}

/** Who a share's handle lets in, as the consent question names them. */
function handleInWords(handle: string): string {
  const value = printed(shownHandle(handle));
  if (handle.startsWith("github:")) return `whoever signs in as GitHub user ${value.slice("github:".length)}`;
  return handle.startsWith("email:") ? `whoever signs in with the email ${value}` : `the account with user id ${value}`;
}

/** A name as a question shows it: anything but printable ASCII escaped (`\u{430}`), so that a look-alike letter, a
 *  bidi control or a blank drawn in braille shows as what it is (review 40). */
const printed = (text: string) => text.replace(/[^\x21-\x7e]/gu, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);

/** A share accepted before shares said by whom names no person, so withdrawing it cannot take that person's others. */
const unnamedNote = (unnamed: string[] | undefined) =>
  unnamed?.length ? ` That share was accepted before shares named their person, so theirs to other handles may remain; accepted now: ${unnamed.join(", ")}. Withdraw those too (access "none") if they are the same person's.` : "";

/** Why a change of a config may not land: it holds secret-looking entries (or text that does not parse here), which no
 *  model was shown, so no change of it is the model's, whatever it writes: the user changes it, in the file. Refused
 *  whole, with nothing counted or named, so that no answer tells a right guess from a wrong one (reviews 23 and 42: a
 *  write was refused only where it left out a secret comment line, so thousands of candidate lines a write found the
 *  one it held; the same rule a collaborator meets, review 23). A config that is there and cannot be read is refused too.
 *  On a workspace, who may change it is said as the project says it (review 290: a reader was told "only the user
 *  changes it", not that they may not write; a writer, not that only the owner may). */
async function secretsLost(store: WorkspaceStore, files: WorkspaceFiles, path: string): Promise<string | undefined> {
  if (!mayServeAsConfig(path)) return undefined;
  const current = await files.read(path, undefined, { served: false });
  // One that is there and cannot be read (a link named otherwise, review 41) is not written over unchecked.
  if (!current.ok) return current.kind === "not_found" ? undefined : `${current.error} Nothing was written: a config is changed by its own path, where its secrets can be checked.`;
  const shown = shownText(current.value.data);
  if (!servedWithout(path, shown.text)) return undefined;
  // Who may change it, asked only of a file held so (one call more): a reader is told their access first.
  const info = store.folder ? undefined : await store.info(files.project);
  if (info?.ok && info.value.access === "read") return readAccessRefusal(files.project, info.value.owner);
  const what = shown.utf8 && !unjudged(shown.text) ? "holds secret-looking entries, which the file as served leaves out" : "is not UTF-8 text (it holds NUL or other bytes no text has), so it is not served whole";
  const who = !info?.ok
    ? "only the user changes it, in the file itself"
    : info.value.access === "owner"
      ? "only you, its owner, change it, not a model (a delete takes it out of the project)"
      : `only the owner of "${files.project}" (${info.value.owner}) changes it: ask them (they can restore an earlier version)`;
  return `${path} ${what}: ${who}. Nothing was written.${answersHint(path)}`;
}

const BRIDGE_TIME = "On the bridge, scripts write your machine's local time, as BMAD's Python does (set TZ for another zone); time_zone is for workspaces.";

/** What a new project's times are in, and how to change it: the model asks the user where they are. */
function zoneSentence(project: string, zone: string | undefined): string {
  if (zone) return `Times scripts write are in ${zone}.`;
  return `Times scripts write are in ${DEFAULT_TIME_ZONE} (the default): if the user is elsewhere, ask their zone and set it with ${TOOL.bmadProject} {"action": "config", "name": "${project}", "time_zone": "Europe/Paris"}.`;
}

/** The caller's shared projects of the name they just took for their own, which that name no longer reaches (review 326:
 *  only list said so, and a model read the new empty project as the shared one). */
async function sharedRenamed(store: WorkspaceStore, name: string): Promise<string> {
  const shared = (await store.projects()).filter((p) => p.name === name && p.access !== "owner");
  return shared.map((p) => ` ${p.owner}'s shared project of that name is now "${p.project}": pass that as "project" to work there.`).join("");
}

/** A missing file that a shared project the name hides holds (the caller's own took the name), named with the name that
 *  reaches it (review 326: a member's epics read as missing, and a model planned again in the empty project). */
async function inHiddenShare(files: WorkspaceFiles, path: string): Promise<string> {
  const held = await files.sharedHolding?.(path);
  return held ? ` ${shownPath(path)} is in ${held.owner}'s shared project, named "${held.project}": pass that as "project".` : "";
}

async function unsetUserName(deps: SurfaceDeps, project: string): Promise<string> {
  const question = (await installerQuestions(deps.reader).catch(() => [])).find((q) => q.module === "core" && q.key === "user_name");
  if (!question) return "";
  return ` user_name is the installer's default (${JSON.stringify(question.default ?? "")}), which BMAD's skills greet the user by: ask the user's name and set it with ${TOOL.bmadProject} {"action": "config", "name": "${project}", "answers": {"core": {"user_name": "…"}}}.`;
}

/** What the caller is to do where they have no project, and the offers to them waiting: bmad-project list's lines, and
 *  get_workflow_status's for a returning user (review 385: "No runs" hid an offer). */
export function offerLines(hasProjects: boolean, offers: ProjectSummary[]): string[] {
  const lines: string[] = [];
  // With an offer waiting, the user chooses first (review 124: a literal model created its own "acme" beside Alice's).
  if (!hasProjects) lines.push(offers.length ? `No projects of yours yet: ask the user whether to accept an offer below, or create one (${TOOL.bmadProject} {"action": "create", "name": "my-app"}).` : `No projects yet. Create one: ${TOOL.bmadProject} {"action": "create", "name": "my-app"}.`);
  // Offers grant nothing until accepted: only the user decides, so the model asks them.
  if (offers.length) lines.push(`Offered to you, not accepted (${OFFER_STEP}):`, ...offers.map(shownOffer));
  return lines;
}

async function listProjects(store: WorkspaceStore): Promise<ToolOutcome> {
  const [projects, offers, leftOut, deleted] = await Promise.all([store.projects(), store.offers(), store.offersLeftOut?.() ?? 0, store.deleted?.() ?? []]);
  const lines = [...projects.map((p) => (p.access === "owner" ? `${p.project} (yours)` : withOwnerNote(`${p.project} (${p.access}, shared by ${p.owner})`, p))), ...offerLines(projects.length > 0, offers)];
  if (leftOut) lines.push(`${leftOut} older offers are waiting and not shown: the list shows the newest; decline those the user does not want, and older ones show.`);
  if (deleted.length) lines.push(`Deleted, kept until they go for good ("undelete" with "name" brings one back): ${deleted.map((d) => `${d.name} (until ${shownTime(d.until)} UTC)`).join(", ")}.`);
  return done(lines.join("\n"), { projects, ...(offers.length ? { offers } : {}), ...(leftOut ? { offers_left_out: leftOut } : {}), ...(deleted.length ? { deleted } : {}) });
}

async function showConfig(deps: SurfaceDeps, store: WorkspaceStore, name: string): Promise<ToolOutcome> {
  const info = await store.info(name);
  if (!info.ok) return fail(info.error);
  const p = info.value;
  const questions = await installerQuestions(deps.reader, { projectName: p.name }).catch(() => []);
  const lines = [`Project "${name}" (${p.access === "owner" ? "yours" : `${p.access}, owner ${p.owner}`}): ${n(p.files)} files, ${n(p.bytes)} bytes${p.configs_not_counted ? " besides configs" : ""}, created ${zonedTime(p.time_zone ?? DEFAULT_TIME_ZONE, p.created_at)}; time zone ${p.time_zone ?? `${DEFAULT_TIME_ZONE} (default)`}${p.time_zone_by ? ` (set by ${p.time_zone_by}, not you)` : ""}.`];
  if (p.shares) lines.push(`Shared with: ${p.shares.map((s) => `${s.with} (${s.access}${s.pending ? ", not accepted yet" : ""})`).join(", ") || "nobody"}.`);
  lines.push("Installer answers (module.key = value; unanswered ones keep the default):");
  // A collaborator's answer is named as theirs (review 53: listed with the owner's, unnamed).
  const setBy = new Map((p.answersByOthers ?? []).map((a) => [a.key, a.who]));
  for (const q of questions) {
    const given = p.answers[q.module]?.[q.key];
    const who = setBy.get(`${q.module}.${q.key}`);
    const shown = given !== undefined ? `${isSecretKey(q.key, given) ? SECRET_HIDDEN : JSON.stringify(given)}${who ? ` (set by ${who}, not you)` : ""}` : `default ${JSON.stringify(q.default ?? "")}`;
    const prompt = q.prompt.split("\n")[0]!;
    // Cut visibly: the whole prompt is in the structured result.
    lines.push(`${q.module}.${q.key} = ${shown}: ${prompt.length > 100 ? `${prompt.slice(0, 99)}…` : prompt}${q.choices ? ` (${q.choices.map((c) => c.value).join("|")})` : ""}`);
  }
  return done(lines.join("\n"), { ...p, answers: answersShown(p.answers), questions });
}

/** What an answer shows in place of a secret-looking value, by the rule the served config files use (isSecretKey):
 *  they leave it out, so no answer repeats it (review 331: project_name "ghp_…"). */
const SECRET_HIDDEN = "(secret-looking value hidden)";
function answersShown(answers: ProjectInfo["answers"]): ProjectInfo["answers"] {
  return Object.fromEntries(Object.entries(answers).map(([module, values]) => [module, Object.fromEntries(Object.entries(values).map(([key, value]) => [key, isSecretKey(key, value) ? SECRET_HIDDEN : value]))]));
}

/** On the bridge the config is the project's own files, as BMAD's installer wrote them. */
function folderConfig(folder: string, answers: boolean): ToolOutcome {
  const where = `On the bridge the project is this folder (${folder}), and its BMAD config is its own files: _bmad/config.toml, _bmad/config.user.toml and the overrides in _bmad/custom/. ${TOOL.bmadRun} "uv run {project-root}/_bmad/scripts/resolve_config.py --project-root {project-root}" prints the merged values.`;
  return answers ? fail(`${where} Change them with ${TOOL.bmadFiles} or BMAD's installer; "answers" are for workspaces.`) : done(where, { folder });
}

const CONFIG_ATTEMPTS = 5;

/** The config files a change kept hand edits in, as they were kept: only the answers' lines changed there. */
const keptEdits = (kept: Configured["kept"]): string =>
  (kept ?? []).map((k) => `; kept ${k.by.map((who) => (who === "you" ? "your" : `${who}'s`)).join(" and ")} edits to ${k.path}, changing only the answer's lines`).join("");

async function setConfig(deps: SurfaceDeps, store: WorkspaceStore, name: string, given: Record<string, Record<string, string>>, timeZone?: string): Promise<ToolOutcome> {
  const zone = timeZone === undefined ? undefined : checkTimeZone(timeZone);
  if (zone && !zone.ok) return fail(zone.error);
  // Made from the answers as read, and stored only if they are still those: another member's change meanwhile is read
  // and merged again (review 99: one's answer was lost), a few times at most.
  let stored: WsResult<Configured> | undefined;
  let whose = "";
  let replaced: string[] = [];
  for (let attempt = 0; attempt < CONFIG_ATTEMPTS && (!stored || (!stored.ok && stored.kind === "conflict")); attempt++) {
    const info = await store.info(name);
    if (!info.ok) return fail(info.error);
    if (info.value.access === "read") return fail(`You have read access to "${name}"; changing its config needs write access from its owner (${info.value.owner}).`);
    // Someone else's project is named as theirs, as a file's change in it is (review 179).
    whose = info.value.access === "owner" ? "" : `, ${info.value.owner}'s project`;
    replaced = othersAnswersReplaced(info.value, given);
    const answers = mergeAnswers(info.value.answers, given);
    const files = await configFiles(deps.reader, info.value.name, info.value.created_at, info.value.answers, answers);
    if (!files.ok) return fail(files.error);
    stored = await store.configure(name, info.value.answers, answers, files.files, zone?.zone);
  }
  const answered = Object.keys(given).length > 0;
  const zoneSet = zone ? ` Times scripts write in "${name}"${answered ? "" : whose} are in ${zone.zone} now.` : "";
  const pins = stored!.ok && answered ? await pinnedOver(store, name, given) : [];
  const pinned = pins.length ? ` But ${pins.join("; ")}, which BMAD reads over the answers: change ${pins.length === 1 ? "it" : "them"} there too, or the answer has no effect.` : "";
  return result(stored!, (r) =>
    done(!answered ? zoneSet.trim() : `Set the answers of "${name}"${whose}; ${r.changed.length ? `rewrote ${r.changed.join(", ")}` : "no file changed"}${keptEdits(r.kept)}${replaced.length ? `; replaced ${replaced.join(", ")}` : ""}.${pinned}${zoneSet}`, { ...r, ...(zone ? { time_zone: zone.zone } : {}) }),
  );
}

/** The answers `given` changes that another member set, each with its value and who set it (`olivia@example.com's
 *  core.user_name "Olivia"`), as a write names whose version it replaced (review 326: Olivia's name was replaced unsaid). */
function othersAnswersReplaced(info: ProjectInfo, given: Record<string, Record<string, string>>): string[] {
  const setBy = new Map((info.answersByOthers ?? []).map((a) => [a.key, a.who]));
  return Object.entries(given).flatMap(([module, values]) =>
    Object.entries(values).flatMap(([key, value]) => {
      const who = setBy.get(`${module}.${key}`);
      const old = who === undefined ? undefined : info.answers[module]?.[key];
      return old === undefined || old === value ? [] : [`${who}'s ${module}.${key} ${isSecretKey(key, old) ? SECRET_HIDDEN : shownValue(old)}`];
    }),
  );
}

/** Someone's answer inside an answer: quoted, cut, and with anything a terminal acts on or shows as nothing escaped. */
function shownValue(value: unknown): string {
  const text = String(value);
  return terminalText(JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text));
}

/** The team's and a person's own central config pins, which BMAD's resolve_config.py reads over the installer's. */
const PIN_LAYERS = ["_bmad/custom/config.toml", "_bmad/custom/config.user.toml"];

/** The answers just set that a pin layer sets too (`_bmad/custom/config.toml sets core.user_name`), as each is said: an
 *  answer reported set that does not take effect is named so (review 314). A layer that does not parse pins nothing here. */
async function pinnedOver(store: WorkspaceStore, name: string, given: Record<string, Record<string, string>>): Promise<string[]> {
  const files = store.files(name);
  const found: string[] = [];
  for (const layer of PIN_LAYERS) {
    const read = await files.read(layer);
    if (!read.ok) continue;
    let doc: unknown;
    try {
      const text = new TextDecoder().decode(read.value.data);
      doc = parseBoundedToml(text, () => parseToml(text));
    } catch {
      continue;
    }
    for (const [module, values] of Object.entries(given)) {
      const table = tableAt(doc, module === "core" ? ["core"] : ["modules", module]);
      const keys = Object.keys(values).filter((key) => table !== undefined && Object.hasOwn(table, key));
      if (keys.length) found.push(`${layer} sets ${keys.map((key) => `${module}.${key}`).join(", ")}`);
    }
  }
  return found;
}

/** The TOML table at `path` (own keys only), or undefined. */
function tableAt(doc: unknown, path: string[]): Record<string, unknown> | undefined {
  let at = doc;
  for (const part of path) {
    if (!at || typeof at !== "object" || Array.isArray(at) || !Object.hasOwn(at, part)) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at && typeof at === "object" && !Array.isArray(at) ? (at as Record<string, unknown>) : undefined;
}

const FILE_ACTIONS = ["read", "write", "append", "edit", "list", "history", "restore", "delete"] as const;
const filesInput = z.object({
  action: z.enum([...FILE_ACTIONS, "purge", "unpurge"]).describe("What to do"),
  project: z.string().optional().describe("Project, as bmad-project lists it (bridge: its folder)"),
  path: z.string().optional().describe("From the project root (docs/prd.md); list: glob (default **)"),
  content: z.string().optional().describe("write, append: the text; edit: the new text"),
  old: z.string().optional().describe("edit: exact text to replace"),
  // Safe integers: the bridge's versions are 48 bits of the content's sha256.
  version: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional().describe("restore, unpurge, read: that version; history: those before it"),
  if_version: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional().describe("Only if the file is at this version (0: absent)"),
});

export const bmadFilesTool = defineTool({
  name: TOOL.bmadFiles,
  toolset: "workspace",
  description:
    "A bmad-project's files, by path from its root. Each change is a version; purge|unpurge (owner) drop old versions, 7 days to undo.",
  input: filesInput,
  // A project folder's history is the user's git: the bridge has none to purge.
  listedOn: {
    bridge: {
      description: "This project folder's files, by path from its root. Each change is a version.",
      input: filesInput.extend({ action: z.enum(FILE_ACTIONS).describe("What to do"), version: filesInput.shape.version.describe("restore, read: that version; history: those before it") }),
    },
  },
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  // 1 MiB of content as JSON, escaped: the file size limit is the one a caller meets, named.
  maxArgumentBytes: 3 * MAX_FILE_BYTES,
  writes: (args) => !FILE_READS.has(action(args) as string),
  run: (args, deps, _signal, call) =>
    withStore(deps, async (store) => {
      // Renders hand the model paths as URIs (review 265): one names its project where "project" is left out.
      const named = args.project ?? projectInPath(args.path);
      const other = notThisProject(store, named, TOOL.bmadFiles);
      if (other) return fail(other);
      const project = folderName(store) ?? named;
      if (project === undefined) {
        const yours = (await store.projects()).map((p) => p.project);
        return fail(`bmad-files needs "project": ${yours.length ? `yours are ${yours.slice(0, 20).join(", ")}` : `create one with ${TOOL.bmadProject} {"action": "create", "name": "my-app"}`}.`);
      }
      const files = store.files(project);
      const raw = args.path === undefined ? undefined : await withConfigValues(deps, project, args.path);
      const given = raw === undefined ? undefined : inProject(project, raw, store.folder);
      if (given && !given.ok) return fail(given.error);
      // A step file's relative link (`../templates/x.md`) names BMAD's file, not one in the project.
      const linked = given?.path.split("/").includes("..") ? bundleUrisFor(deps.reader.catalog, given.path) : [];
      if (linked.length === 1) return fail(`"${given!.path}" leaves the project root: a skill's relative link. BMAD's file of that path is ${linked[0]}: read it with ${TOOL.bmadResources} {"operation": "read", "uri": "${linked[0]}"}.`);
      if (args.action === "list") return listAction(files, given?.path ?? "**");
      if (args.action === "purge" || args.action === "unpurge") {
        if (!files.purge || !files.unpurge) return fail(`This project keeps no history to ${args.action}: on the bridge it is the user's git.`);
        if (!given) return fail(`bmad-files "${args.action}" needs "path": a glob of the files whose earlier versions to ${args.action === "purge" ? "drop" : "bring back"} ("**" for all).`);
        if (args.action === "unpurge") return result(await files.unpurge(given.path, args.version), (r) => done(`Brought back ${n(r.versions)} purged versions (${n(r.bytes)} bytes) of files matching ${JSON.stringify(given.path)}${args.version === undefined ? "" : ` at version ${args.version}`}.`, r));
        // The history is the user's: asked of them where the client can ask, as a share is (review 295: text a member
        // planted had the owner's model purge it, unasked).
        const asked = await userConsent(call, `Purge the earlier versions of the files matching ${printed(given.path.slice(0, 200))} in your project "${project}"? Nobody can read or restore them then; in a week they go for good.`, "Purge them", `The user did not agree to purge them: nothing was purged.`);
        if (asked) return asked;
        return result(await files.purge(given.path), (r) =>
          done(`Purged ${n(r.versions)} earlier versions (${n(r.bytes)} bytes) of files matching ${JSON.stringify(given.path)}: nobody can read or restore them now; current files are kept.${r.until ? ` Their content, and the room it takes, go for good at ${shownTime(r.until)} UTC; until then bmad-files "unpurge" brings them back.` : ""}`, r));
      }
      if (given === undefined) return fail(`bmad-files "${args.action}" needs "path": the file, from the project root.`);
      const path = given.path;
      switch (args.action) {
        case "read": {
          const read = await files.read(path, args.version, { notes: true, shown: true });
          // Looked up as written, so a file named so by mistake is still found; if none is, say what to fill in.
          const unfilled = !read.ok && read.kind === "not_found" ? unfilledPlaceholders([path]) : [];
          if (unfilled.length) return fail(await fillInPathFirst(files, unfilled));
          // A skill's own file (`assets/prd-template.md`, bare paths resolve from the skill) is BMAD's, not the project's.
          const bmads = !read.ok && read.kind === "not_found" ? bundleUrisFor(deps.reader.catalog, path) : [];
          if (bmads.length) return fail(`${read.ok ? "" : read.error} BMAD's ${bmads.length === 1 ? `file of that path is ${bmads[0]}` : `files of that path are ${bmads.join(", ")}`}: read it with ${TOOL.bmadResources} {"operation": "read", "uri": "${bmads[0]}"}.`);
          if (!read.ok) return fail(read.kind === "not_found" && args.version === undefined ? `${read.error}${await inHiddenShare(files, path)}` : read.error);
          const { data, ...stored } = read.value;
          const { text, meta } = await servedFile(path, stored, data);
          // The file's text is a block of its own: a read, edited and written back, carries no header line. What others
          // changed since the reader's last version goes unsaid beside the note that says their version was replaced (the
          // store leaves it out); the lines others wrote go unsaid beside it where they tell the same change (othersBeside).
          return { ok: true, header: `[${path}, version ${meta.version}, ${n(meta.size)} bytes${meta.redacted ? " as served" : ""}${meta.not_utf8 ? `, ${NOT_UTF8_NOTE}` : meta.bom ? `, ${BOM_NOTE}` : ""}, ${byAt(meta.author, shownAt(files, meta.updated_at))}${othersClause(othersBeside(meta.others, meta.changed_since), meta.author)}${changedSinceClause(meta.changed_since)}]${meta.displaced ? ` ${displacedNote(path, meta.displaced)}` : ""}`, text, structured: meta };
        }
        case "write":
        case "append": {
          if (args.content === undefined) return fail(await argumentsRefusal(store, files.project, path, `bmad-files "${args.action}" needs "content": the text.`));
          // Not for reads or deletes: a file named so by mistake can still be found and removed.
          const unfilled = unfilledPlaceholders([path]);
          if (unfilled.length) return fail(await fillInPathFirst(files, unfilled));
          // A config as served has lost its secret-looking keys: written back (a model's edit of a read, a view's restore
          // of a git commit), it would delete them from the user's file.
          if (mayServeAsConfig(path) && isServedStandIn(args.content)) {
            return fail(`This is ${path} as served, without its secret-looking keys (or the notice that it is not served): written back, it would delete them from the file. Nothing was written. The user changes this file, in the file itself (or restores it with git).${answersHint(path)}`);
          }
          // However the served text was edited (its first line dropped, lines added): judged by what it would delete or
          // blank. A model was shown none of the values, so it can keep none: the user changes them, in the file.
          // The owner's only: a collaborator's change to a config that holds secrets is refused by the project whatever it
          // writes, so that no answer tells a right guess from a wrong one (review 23: a reader guessed a secret key here).
          // An append that leaves the file unparseable drops them as surely (review 21).
          const lost = await secretsLost(store, files, path);
          if (lost) return fail(lost);
          const data = new TextEncoder().encode(args.content);
          // A page a skill writes for the user to open (a keepsake, a report): a workspace has no URL to open it at.
          const page = !store.folder && /\.html?$/i.test(path) ? ` ${WORKSPACE_FILE_UNOPENED}` : "";
          return result(await files.write(path, data, { text: args.action, ...(args.if_version !== undefined ? { ifVersion: args.if_version } : {}) }), (f) => changed(`${page ? "" : leftNote(store, path)}Wrote ${path}${inWhose(files)}`, f, `${page}${replacedNote(f)}`));
        }
        case "edit": {
          if (!args.old || args.content === undefined) return fail(await argumentsRefusal(store, files.project, path, `bmad-files "edit" needs "old" (the text to replace, exactly as read) and "content" (what replaces it; "" removes it).`));
          const lost = await secretsLost(store, files, path);
          if (lost) return fail(lost);
          // A path no tool changes is refused as a write's is, before the text is looked at (review 350: it was told to
          // give more of the text around "old", or to "write" a file a write is refused).
          const writable = checkWritablePath(path);
          if (!writable.ok) return fail(writable.error);
          const edit = await editFile(files, path, args.old, args.content, args.if_version);
          if (typeof edit === "string") {
            // Nothing was written, so the project never judged the caller: a reader is told they cannot write, not how
            // to redo the edit (review 191: "merge your change into it, and edit again").
            const info = await store.info(files.project);
            return fail(info.ok && info.value.access === "read" ? readAccessRefusal(files.project, info.value.owner) : edit);
          }
          if ("unchanged" in edit) return done(`Nothing to change: "old" and "content" are the same; ${path} stays at version ${edit.unchanged}.`, { path, version: edit.unchanged });
          return result(edit, (f) => changed(`${leftNote(store, path)}Edited ${path}${inWhose(files)}`, f, replacedNote(f)));
        }
        case "restore":
          if (args.version === undefined) return fail('bmad-files "restore" needs "version": the one to bring back (history lists them).');
          {
            // Every change of a config that holds secrets is refused alike, on both doors (review 45: a delete, a write
            // and a restore replaced one, and on the remote a restore that made no new version told a right guess).
            const lost = await secretsLost(store, files, path);
            if (lost) return fail(lost);
          }
          // The installer's answers stay as they were: said, since they may no longer be what the file holds (review 314).
          return result(await files.restore(path, args.version, args.if_version), (f) => changed(`${leftNote(store, path)}Restored ${path}${inWhose(files)} to version ${args.version}'s content`, f, `${replacedNote(f, "restore")}${holdsInstallerAnswers(path) && !store.folder ? ` The project's installer answers are as they were (bmad-project "config" shows them): set them again where this version holds other values.` : ""}`));
        case "delete": {
          // On the bridge the user's own file, which the model's delete and write would replace (review 45); a workspace
          // keeps every version, and its owner takes a secret out of one this way (a restore over it is refused).
          const lost = store.folder ? await secretsLost(store, files, path) : undefined;
          if (lost) return fail(lost);
          // `*` and `?` are in no name a workspace takes (unportableName): a glob, each file it matches deleted as one is.
          if (files.removeMatching && /[*?]/.test(path)) {
            if (args.if_version !== undefined) return fail(`bmad-files "delete" with a glob ("${printable(path)}") takes no "if_version": give one file's path for that.`);
            return result(await files.removeMatching(path), (r) => {
              const rule = "a glob deletes only files members last changed, never the owner's own work, BMAD's config files or what you may not delete";
              // Nothing deleted is no success, and names no one's project as changed (review 180).
              if (!r.files) return fail(`None of the ${n(r.held)} files matching ${JSON.stringify(path)} may go by a glob: ${rule}. Nothing was deleted.`);
              const more = r.more ? ` ${n(r.more)} more match: delete again for them.` : "";
              const held = r.held ? ` ${n(r.held)} matching ${r.held === 1 ? "was" : "were"} left: ${rule}.` : "";
              return done(`Deleted ${n(r.files)} files matching ${JSON.stringify(path)}${inWhose(files)}, each a version in its history (restore brings one back).${more}${held}`, r);
            });
          }
          return result(await files.remove(path, args.if_version), (r) => done(`Deleted ${path}${inWhose(files)} (version ${r.version}); restore brings back an earlier version.${replacedNote(r)}`, r));
        }
        case "history":
          // A glob (`*` and `?` are in no name a workspace takes): what changed across files, one line each.
          if (files.changes && /[*?]/.test(path)) {
            if (args.version !== undefined) return fail(`bmad-files "history" with a glob ("${printable(path)}") takes no "version": give one file's path for its older versions.`);
            return result(await files.changes(path), (r) => done(changedFilesText(path, r.files, r.more, (at) => shownAt(files, at)), r));
          }
          // One more than a page: whether there is a next one.
          {
            const page = await files.history(path, { before: args.version, limit: HISTORY_PAGE + 1 });
            // A glob where no file has that name: this door lists no changes across files (review 380: "No file *.md").
            if (!page.ok && page.kind === "not_found" && /[*?]/.test(path)) return fail(`${TOOL.bmadFiles} "history" with a glob lists what changed across a remote workspace's files; here, give one file's path (its kept copies).`);
            if (!page.ok && page.kind === "not_found") return fail(`${page.error}${literalSyntaxNote(path) ?? await inHiddenShare(files, path)}`);
            // The older versions a workspace keeps, counted (review 255: "Versions 1 to 100 are older" of 74 kept).
            const older = page.ok && page.value.length > HISTORY_PAGE && store.folder === undefined ? await olderKept(files, path, page.value[HISTORY_PAGE - 1]!.version, HISTORY_PAGE) : undefined;
            return result(page, (versions) => historyPage(path, versions, args.version, store.folder !== undefined, (at) => shownAt(files, at), older));
          }
      }
    }),
});

/** History with a glob: each file's head, who made it and when, and the lines others changed since the caller's last
 *  version; then how to see more of one. */
function changedFilesText(glob: string, changed: ChangedFile[], more: number, show: (at: string) => string): string {
  const lines = changed.map((f) => `${f.path} v${f.version} ${byAt(f.author, show(f.at))}${f.changed_since ? `; ${changedSinceShort(f.changed_since)}` : ""}`);
  const rest = more ? `\n${n(more)} more changed earlier: a narrower glob lists them.` : "";
  return `${n(changed.length + more)} files match ${JSON.stringify(glob)}, the newest change first:\n${lines.join("\n")}${rest}\n"history" with one file's path lists its versions; where views are shown, ${TOOL.bmadDoc} (the views toolset) diffs any two.`;
}

/** A page of a file's history (HISTORY_PAGE versions, plus one that says there are more), ending with the call for
 *  the next (`next` in what a program reads). A workspace's versions run 1..n, so it names how many are older; a project
 *  folder's name their content. */
function historyPage(path: string, page: VersionEntry[], before: number | undefined, folder: boolean, show: (at: string) => string, counted?: number): ToolOutcome {
  const versions = page.slice(0, HISTORY_PAGE).map((v) => servedVersion(path, v));
  // A workspace's numbers run 1..n: one missing between two rows was dropped whole under the history cap (review 244).
  let above = before;
  const lines = versions.flatMap((v) => [
    ...(!folder && above !== undefined && above - v.version > 1 ? [`${above - v.version > 2 ? `v${v.version + 1} to v${above - 1}` : `v${v.version + 1}`}: no longer kept (dropped whole under the history cap)`] : []),
    `v${(above = v.version)} ${v.op}${v.restored_from ? ` of v${v.restored_from}` : ""}${v.size === undefined ? "" : ` ${n(v.size)} B`} ${v.kept ? `kept when replaced or deleted at ${show(v.at)}` : byAt(v.author, show(v.at))}${v.purged ? " (purged: unpurge brings it back for 7 days)" : v.pruned ? " (content pruned)" : ""}`,
  ]);
  const which = before === undefined ? "" : ` older than v${before}`;
  if (!versions.length) return done(`${path} has no versions${which}.`, { path, versions });
  const last = versions[versions.length - 1]!.version;
  const next = page.length > versions.length ? last : undefined;
  // A workspace's last page that starts past v1: the numbers before it name nothing kept (dropped under the history cap).
  const dropped = next === undefined && !folder && last > 1 ? `\nNo version before v${last} is kept.` : "";
  // Past a page of them (olderKept), "more than" a page.
  const kept = counted === undefined ? `More than ${HISTORY_PAGE} older versions are kept` : `${counted} older version${counted === 1 ? " is" : "s are"} kept`;
  const older = next === undefined ? dropped : `\n${folder ? "The bridge kept older versions" : kept}: "history" with "version": ${last} lists the next page; "read" with "version" reads one.`;
  return done(`${path}${which ? `, versions${which}` : ""}, newest first:\n${lines.join("\n")}${older}`, { path, versions, ...(next === undefined ? {} : { next, ...(folder || counted === undefined ? {} : { older: counted }) }) });
}

/** `value` as a name every file system holds, for a refusal's example (a device's name gets a word more: review 123). */
function portableName(value: string): string {
  const name = value.replace(/[/\\<>:"|?*]+/g, "-").replace(/[. ]+$/, "").slice(0, 80) || "my-app";
  return unportableName(name) ? `${name}-app` : name;
}

/** Installer answers are one line each, as the installer's prompts take them: a line break in one would be a line of
 *  its own wherever the value is shown (the runtime block), in the server's voice. A folder answer names a folder of
 *  this project: one elsewhere (another project's `bmad://projects/…`, `..`, an absolute path) sent the owner's model
 *  to read and write there from this project's skills (review 60: a writer's project_knowledge pointed into the owner's
 *  private project). */
function answerRefusal(answers: Record<string, Record<string, string>>, questions: InstallerQuestion[]): string | undefined {
  const folders = new Set(questions.filter(isFolderQuestion).map((q) => `${q.module}.${q.key}`));
  for (const [module, values] of Object.entries(answers)) {
    for (const [key, value] of Object.entries(values)) {
      // C1 controls too: Python's splitlines and YAML break a line at U+0085 (review 63); and bidirectional controls and
      // the BOM, which make a value read as other text than it holds (review 65).
      if (!isOneLine(value)) return `Answer ${module}.${key} holds a line break or a control character: give it as one line of text.`;
      if (value.length > 1000) return `Answer ${module}.${key} is ${value.length} characters; an installer answer is at most 1,000.`;
      // BMAD names files by it (`prd-{project_name}-{date}`): a name a workspace cannot make stalled every such write (review 119).
      if (key === "project_name" && (value.includes("/") || unportableName(value))) return `Answer ${module}.${key} (${JSON.stringify(value.slice(0, 200))}) goes into the names of files BMAD writes (prd-{project_name}-{date}), and it holds a character no file name may (/ \\ < > : " | ? *), ends in a dot or a space, or is a device's name on Windows: give it without them, e.g. "${portableName(value)}".`;
      if (folders.has(`${module}.${key}`) && leavesProject(value)) {
        return `Answer ${module}.${key} names a folder outside this project (${JSON.stringify(value.slice(0, 200))}): a folder answer is one inside it, from its root (e.g. "docs" or "{project-root}/docs").`;
      }
    }
  }
  return undefined;
}

/** A question whose answer is a folder of the project (its default is a path below `{project-root}`, or names one). */
const isFolderQuestion = (q: InstallerQuestion): boolean =>
  (typeof q.default === "string" && /\{(project-root|output_folder)\}/.test(q.default)) || FOLDER_KEY.test(q.key);

/** Whether a folder answer leaves the project, or may: a URI (any scheme, however many slashes follow it: review 73's
 *  `bmad:/projects/other`), an absolute or home path, a drive, a `..` step, or a reference to another answer but the
 *  output folder at its start (review 61: `{user_name}//projects/…` with user_name "bmad:" filled to another
 *  project's URI once rendered). */
const leavesProject = (value: string): boolean => {
  const rest = value.replace(/^\{project-root\}\/?/, "").replace(/^\{output_folder\}(\/|$)/, "");
  return /[{}]|:\/\/|^[\\/~]|^[A-Za-z][\w+.-]*:|(^|[\\/])\.\.([\\/]|$)/.test(rest);
};

/** A path in a system temp folder: /tmp, /var/tmp, macOS's /private/tmp and /var/folders/…, Windows' %TEMP% (written with
 *  forward slashes: a backslash is refused as such). One anchored scan. */
const SYSTEM_TEMP = /^(\/private)?\/(var\/)?tmp(\/|$)|^(\/private)?\/var\/folders\/|^[a-z]:\/(users\/[^/]+\/appdata\/local\/|windows\/)?te?mp(\/|$)/i;

/** The project a `bmad://projects/NAME/…` path names; inProject refuses it where "project" names another. */
const projectInPath = (path: string | undefined): string | undefined =>
  path?.startsWith(PROJECTS_PREFIX) ? path.slice(PROJECTS_PREFIX.length).split("/")[0] || undefined : undefined;

/** On the bridge the folder is the one project; a workspace is named. */
export const folderName = (store: WorkspaceStore) => store.folder?.slice(store.folder.lastIndexOf("/") + 1);

/** On the bridge, the refusal of a `project` that is not its folder: another name is a workspace's, which this door
 *  does not reach (review 163: with --remote, a write "into" one the remote's bmad-project had just made landed in this
 *  folder, said to be written; review 186: the map and a document answered the folder's under another's name). */
export function notThisProject(store: WorkspaceStore, project: string | undefined, tool: string): string | undefined {
  const folder = folderName(store);
  // The same name however its accents are composed (review 189: macOS types "é" as e and U+0301, the folder held é):
  // the caller then works on the folder by its own name (folderName first).
  if (folder === undefined || project === undefined || project.normalize("NFC") === folder.normalize("NFC")) return undefined;
  return `"${printable(project.slice(0, 100))}" is not this project: ${tool} here works on the project folder, "${folder}" (give that, or no "project"). A workspace's files come here with bmad-mcp pull --project <name>, and go back with bmad-mcp push.`;
}

/** A change that lacks an argument (`missing` says which), refused with everything else wrong in one answer: the path,
 *  and a project the caller has none of (review 254: three problems took three calls to learn, one at a time). */
async function argumentsRefusal(store: WorkspaceStore, project: string, path: string, missing: string): Promise<string> {
  const checked = checkWorkspacePath(path);
  const info = await store.info(project);
  return [missing, ...(checked.ok ? [] : [checked.error]), ...(info.ok ? [] : [info.error])].join(" ");
}

/** A path into another project than `project`, in the words bmad-files and bmad-run share. Judged by its form alone: it
 *  says nothing of whether that project exists or is the caller's to see. */
export const inAnotherProject = (what: string, project: string) => `${what} is in another project than "${project}": give it from ${projectRootUri(project)}/, or name its project in "project".`;

/** A path as a skill's text gives it: from the project root, or below `{project-root}/`, the project's own URI,
 *  or on the bridge the folder's absolute path (what `{project-root}` is rendered as there). */
export function inProject(project: string, raw: string, folder?: string): Result<{ path: string }> {
  const uri = `${projectRootUri(project)}/`;
  // On the remote, a path a script wrote into a file (`/projects/app/_bmad-output/…`) is the project's too.
  // A folder bound with its trailing slash and a name after it (`{doc_workspace}/prd.md` with `…/prd-app/`) is one path:
  // "//" read as "/", as every file system reads it (review 98: refused, one call more each phase).
  raw = raw.replace(/(?<!:)\/{2,}/g, "/");
  const roots = ["{project-root}/", uri, ...unicodeForms(`${folder ?? workspaceFsRoot(project)}/`), "./"];
  // The root itself, written without its slash (review 107: `{project-root}` was "to fill in", its URI "another project").
  if (roots.some((root) => raw === root.slice(0, -1))) return { ok: true, path: "" };
  for (const root of roots) if (raw.startsWith(root)) return { ok: true, path: raw.slice(root.length) };
  // BMAD's build and code review keep a diff and a claims list "in the system temp directory": refused as "absolute",
  // a literal model wrote them into the project, and bmad-build's commit took them in (review 160).
  if (SYSTEM_TEMP.test(raw)) return { ok: false, error: `"${printable(raw)}" is in the system's temp folder: ${TOOL.bmadFiles} reaches only the project's files, and a scratch file written into the project becomes one of them${folder ? " and ends up in the user's commits" : ""}. ${SCRATCH_ADVICE}` };
  if (raw.startsWith("{skill-root}/")) return { ok: false, error: `{skill-root} is the skill's folder, BMAD's and not the project's: the rendered skill names it at the top; read its files with ${TOOL.bmadResources} (bmad://<skill folder>/${raw.slice("{skill-root}/".length, 200)}).` };
  if (raw.startsWith(PROJECTS_PREFIX)) return { ok: false, error: inAnotherProject('"path"', project) };
  if (/^(bmad|skill):\/\//.test(raw)) return { ok: false, error: `${raw.slice(0, 200)} is BMAD's file, not the project's: read it with ${TOOL.bmadResources} {"operation": "read", "uri": "${raw.slice(0, 200)}"}.` };
  return { ok: true, path: raw };
}

/** Config values a model left in a path (`{planning_artifacts}/prds/…`, as resolve_customization prints them), filled in. */
async function withConfigValues(deps: SurfaceDeps, project: string, path: string): Promise<string> {
  if (!unfilledPlaceholders([path]).length || !deps.runtime) return path;
  const found = await deps.runtime(project, { lazy: true });
  return found.ok ? fillConfigValues(path, await projectConfigValues(deps.reader, found.runtime)) : path;
}

/** What a path's placeholders are, `{date}` with today as bmad-run says it: in the project's time zone (a workspace
 *  without one: UTC), or this machine's (the bridge). */
async function fillInPathFirst(files: WorkspaceFiles, unfilled: string[]): Promise<string> {
  if (!unfilled.includes("{date}")) return fillInFirst(unfilled);
  const zone = files.timeZone ? await files.timeZone() : undefined;
  return fillInFirst(unfilled, [], await todayWhere(zone ? { timeZone: async () => (zone.ok && zone.value) || DEFAULT_TIME_ZONE } : {}));
}

/** list takes a glob, or a folder (all below it). Where no file matches, what the glob may have meant is named:
 *  the folders it matches (a skill's scan for earlier runs, `prds/prd-app-*`), and files of its last segment's
 *  pattern deeper down, in any case (BMAD's `{planning_artifacts}/*prd*.md` for what bmad-prd writes in `prds/…/prd.md`). */
async function listAction(files: WorkspaceFiles, path: string): Promise<ToolOutcome> {
  const unfilled = unfilledPlaceholders([path]);
  if (unfilled.length) return fail(await fillInPathFirst(files, unfilled));
  // As a read refuses one: "0 files match /abs/…" read as "there are none" (review 77).
  const absolute = absoluteRefusal(path, "_bmad-output/**/*.md");
  if (absolute) return fail(absolute);
  // As a read refuses one too (review 140: `_bmad-output\` listed "0 files").
  if (path.includes("\\")) return fail(backslashRefusal(path));
  const trimmed = path === "." ? "" : path.replace(/\/+$/, "");
  const literal = !/[*?]/.test(trimmed);
  const kind = trimmed && literal ? await files.stat(trimmed) : undefined;
  const isFolder = trimmed === "" || (kind?.ok === true && kind.value === "dir");
  const glob = isFolder ? (trimmed ? `${trimmed}/**` : "**") : path;
  const listed = await files.list(glob);
  if (!listed.ok) return fail(listed.error);
  const syntax = listed.value.length ? undefined : literalSyntaxNote(glob);
  if (syntax) return fail(`No file matches "${printable(glob)}".${syntax}`);
  if (listed.value.length || literal) return listFiles(glob, listed.value, listed);
  const near = await nearMatches(files, glob);
  if (!near.folders.length && !near.deeper.length) return listFiles(glob, [], listed);
  const lines = [`No file matches ${JSON.stringify(glob)}.`, ...shortOf(listed)];
  if (near.folders.length) lines.push(`Folders that do (list one for its files):`, ...near.folders);
  if (near.deeper.length) lines.push(`Files its last part matches deeper down, or in another case:`, ...near.deeper);
  return done(lines.join("\n"), { total: 0, files: [], ...near });
}

/** Below the glob's literal start: the folders it matches, and the files its last segment matches at any depth. */
async function nearMatches(files: WorkspaceFiles, glob: string): Promise<{ folders: string[]; deeper: string[] }> {
  const start = glob.slice(0, /[*?]/.exec(glob)?.index ?? glob.length);
  const base = start.slice(0, start.lastIndexOf("/") + 1);
  const whole = compileGlob(glob);
  // A file's glob (`*ux*.md`) also names the folder a run writes that file in (`ux-designs/`): 6.12 keeps a run's files
  // in a folder of their own (review 77: no hint, and the skill went on without the UX design). Not a name that is only
  // its extension (review 265: `**/*.diff` as `**/*` named every folder).
  const stem = glob.replace(/\.[A-Za-z0-9]{1,8}$/, "");
  const asFolder = compileGlob(/(^|\/)[*?]*$/.test(stem) ? glob : stem);
  // Its parts in order, more folders allowed between them, in any case: `*prd*/*.md` finds `prds/prd-app/prd.md`, not
  // every document below (review 77: ten files for each such glob).
  const parts = glob.slice(base.length).toLowerCase().split("/").filter((p) => p !== "**").map((p) => compileGlob(p));
  const below = await files.list(`${base}**`);
  if (!whole.ok || !asFolder.ok || !below.ok || !parts.length || parts.some((p) => !p.ok)) return { folders: [], deeper: [] };
  const segments = parts.map((p) => (p as Extract<typeof p, { ok: true }>).glob);
  const name = segments.pop()!;
  const folders = new Set<string>();
  const deeper: string[] = [];
  for (const { path } of below.value) {
    for (let end = path.lastIndexOf("/"); end > base.length; end = path.lastIndexOf("/", end - 1)) folders.add(path.slice(0, end));
    if (deeper.length >= MAX_LINES) continue;
    const names = path.slice(base.length).toLowerCase().split("/");
    if (!name.test(names.pop()!)) continue;
    let matched = 0;
    for (const folder of names) if (matched < segments.length && segments[matched]!.test(folder)) matched++;
    if (matched === segments.length) deeper.push(path);
  }
  return { folders: [...folders].filter((f) => whole.glob.test(f) || asFolder.glob.test(f)).sort().slice(0, MAX_LINES), deeper };
}

/** Where a change was made in someone else's project, whose: said once, so that nobody writes there unknowingly (review
 *  179: after Alice deleted her "acme", her writes went to Mallory's, answered as plainly as into her own). */
const inWhose = (files: WorkspaceFiles): string => {
  const owner = files.changeOwner?.();
  return owner ? ` in "${files.project}", ${owner}'s project` : "";
};

/** Others' work a write, restore or delete replaced, or an append or edit followed, without naming its version: to read
 *  and merge, if it was not read (on the bridge, a version the session was never served: the user's save in their editor).
 *  A restore's note never says to restore what it replaced: that would undo it (review 392). */
const replacedNote = (f: Pick<WrittenEntry, "replaced" | "followed">, restore?: "restore"): string =>
  f.replaced
    ? ` It replaced version ${f.replaced.version}, with work by ${f.replaced.by}, which this change did not name with if_version: if you had not read it, read version ${f.replaced.version} (bmad-files history lists it${restore ? ") and write into this one what of theirs should stay" : "; restore brings it back whole) and put their change back"}.`
    : f.followed
      ? ` It followed version ${f.followed.version}, by ${f.followed.by}, which this change did not name with if_version: if you had not read it, read the file and check your change fits with theirs.`
      : "";

/** A workspace file that never reaches the user's project: said where it is written, first (review 111: dev-story's code
 *  was written on the remote, listed in the story, and left there by every pull; review 213: said after the write's
 *  version, it read as a footnote). */
function leftNote(store: WorkspaceStore, path: string): string {
  const left = store.folder ? undefined : pullLeaves(path);
  return left ? `Note: bmad-mcp pull leaves ${path} on the remote: ${left}.\n` : "";
}

/** Replaces the one place `old` is in the file's text by `content`, as a compare-and-set: another writer's change
 *  meanwhile is read and edited again (the edit still names one place there, or it is refused). A string: why
 *  nothing changed; `unchanged`: the version, where the edit would change nothing. */
async function editFile(files: WorkspaceFiles, path: string, old: string, content: string, ifVersion?: number): Promise<WsResult<WrittenEntry> | { unchanged: number } | string> {
  let refused: string | undefined;
  /** Another's version the edit was made on, where the call named none (review 290: Alice's edit after Bob's said nothing of his). */
  let followed: WrittenEntry["followed"];
  let unchanged: number | undefined;
  /** The version `old` is not in, if that is why nothing changed. */
  let notIn: number | undefined;
  const out = await updateFile(files, path, (current) => {
    if (!current) return (refused = `${path} is not in this project: bmad-files "write" creates it.`), undefined;
    if (ifVersion !== undefined && current.version !== ifVersion) return (refused = `${staleVersion(files, path, current, ifVersion)}: nothing was changed. Read it again, and edit that version (if_version ${current.version}).`), undefined;
    // Its byte order mark kept as U+FEFF, so that the edited text written back keeps it.
    const text = utf8Text(current.data, true);
    if (text === undefined) return (refused = notUtf8Refusal(path, current.data, current.version, false, "edit")), undefined;
    // Matched against text the caller is not shown, an edit would tell a guess at it right or wrong (review 116: a
    // reader spelled out a config that does not parse, a character at a time): refused before any match, alike.
    if (sanitizeConfigText(path, text) !== text) {
      return (refused = `${path} is served without some of its text (secret-looking entries, or all of it where it does not parse): "edit" matches only what you were shown, so it is refused here. The user edits this file themselves.`), undefined;
    }
    // Where every line of the file ends in CRLF, "old" with LF lines is found as the file has them, and "content" is
    // written so (review 275: refused as not in the file, or the edit mixed endings).
    const asGiven = occurrences(text, old);
    const inFile = asGiven ? old : inFileEndings(current.data, old);
    const times = asGiven || (inFile === old ? 0 : occurrences(text, inFile));
    if (times === 0) return (notIn = current.version), undefined;
    if (times !== 1) return (refused = `"old" is in ${path} ${n(times)} times (version ${current.version}): nothing was changed. Give more of the text around it, so that it names one place.`), undefined;
    const replacing = inFileEndings(current.data, content);
    if (inFile === replacing) return (unchanged = current.version), undefined;
    const at = text.indexOf(inFile);
    followed = ifVersion === undefined && current.changed_by_other ? { version: current.version, by: current.author ?? "another member" } : undefined;
    return new TextEncoder().encode(text.slice(0, at) + replacing + text.slice(at + inFile.length));
  }, { edit: true });
  if (notIn !== undefined) {
    const went = await whereOldWent(files, path, old, notIn);
    return `"old" is not in ${path} (version ${notIn}): nothing was changed. ${went ?? "Give the text exactly as the file has it, spaces and line breaks included, or read it again."}`;
  }
  if (refused) return refused;
  if (unchanged !== undefined) return { unchanged };
  return out.ok ? { ok: true, value: { ...(out.value as FileEntry), ...(followed ? { followed } : {}) } } : out;
}

/** Earlier versions an edit looks for its missing `old` in: the few before the file's current one. */
const EDIT_LOOKBACK = 4;

/** Where `old`, not in the file at version `now`, went: the newest of its few earlier versions that held it, as a read
 *  of that version shows it, and the change after it (review 188: two members edited the same line from one read, and
 *  the second was told to check their spaces and line breaks). Who made the change where the store knows (not the
 *  bridge, whose every version is "you"). */
async function whereOldWent(files: WorkspaceFiles, path: string, old: string, now: number): Promise<string | undefined> {
  const history = await files.history(path);
  if (!history.ok) return undefined;
  // Newest first: each version's successor is the one before it in the list.
  const versions = history.value;
  const from = versions.findIndex((v) => v.version === now);
  for (let i = from + 1; from >= 0 && i < versions.length && i <= from + EDIT_LOOKBACK; i++) {
    const v = versions[i]!;
    if (v.op === "delete" || v.pruned || v.version === now) continue;
    const read = await files.read(path, v.version);
    if (!read.ok) continue;
    const text = new TextDecoder().decode(read.value.data);
    if (!sanitizeConfigText(path, text).includes(old)) continue;
    const next = versions[i - 1]!;
    const by = next.author === undefined || next.author === "you" ? "" : `, by ${next.author},`;
    return `It was in version ${v.version}; version ${next.version}${by} changed that text since: read version ${now}, merge your change into it, and edit again.`;
  }
  return undefined;
}

/** How many times `part` is in `text`, without overlaps: one pass. */
function occurrences(text: string, part: string): number {
  let times = 0;
  for (let at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + part.length)) times++;
  return times;
}

/** A change's answer. A config file's gives no size or digest: of content that may hold a secret (an append's or a
 *  restore's), they would let a reader test guesses at it offline. */
function changed(what: string, f: FileEntry, note = ""): ToolOutcome {
  const shown = servedVersion(f.path, f);
  return done(`${what}: now version ${f.version}${shown.size === undefined ? "" : `, ${n(shown.size)} bytes`}.${note}`, { ...shown });
}


function listFiles(glob: string, entries: ListedFile[], { cut, leftOut }: Pick<Listing, "cut" | "leftOut">): ToolOutcome {
  const files = entries.slice(0, MAX_LISTED);
  const head = `${entries.length} file${entries.length === 1 ? " matches" : "s match"} ${JSON.stringify(glob)}${entries.length > files.length ? `; the first ${MAX_LISTED} (narrow the glob for more)` : ""}:`;
  // A long list is mostly paths: each line and entry holds what a caller acts on (plain numbers, no digests): the
  // bridge's entries carry each file's digest and time too, which no program reads off a listing (review 373: 640 B of
  // them beside 246 B of text); a read gives both.
  const shown = files.map((e) => servedVersion(e.path, { path: e.path, version: e.version, size: e.size }));
  // Past the first MAX_LISTED, the folders below the glob's literal start that hold the rest, so that a client (a pull)
  // lists each on its own (review 92: folders past the 1,000th file were never found); only those, so that a walk
  // spends no call on a folder shown whole (a member's 250 small folders ran a pull out of calls).
  const rest = entries.length > files.length ? foldersBelow(glob, entries.slice(files.length)) : undefined;
  const folders = rest && [...rest.folders.keys()].sort();
  return done([head, ...shortOf({ cut, leftOut }), ...shown.map((e) => `${shownPath(e.path)} v${e.version}${e.size === undefined ? "" : ` ${e.size} B`}`), ...(rest ? [restLine(glob, rest)] : [])].join("\n"), { total: entries.length, files: shown, ...(folders ? { folders } : {}), ...(cut ? { cut } : {}) });
}

/** A glob's literal start up to its last "/": `_bmad-output/` of `_bmad-output/**`, "" of a glob starting with `*`. */
const globBase = (glob: string): string => {
  const start = glob.slice(0, /[*?]/.exec(glob)?.index ?? glob.length);
  return start.slice(0, start.lastIndexOf("/") + 1);
};

/** Where entries are below a glob's literal start: the first folder names (`_bmad-output/**`: `a`, `b`), each with how
 *  many of them it holds, and how many are directly in it. */
function foldersBelow(glob: string, entries: ListedFile[]): { folders: Map<string, number>; direct: number } {
  const base = globBase(glob);
  const folders = new Map<string, number>();
  let direct = 0;
  for (const { path } of entries) {
    const slash = path.indexOf("/", base.length);
    if (!path.startsWith(base)) continue;
    if (slash > base.length) folders.set(path.slice(base.length, slash), (folders.get(path.slice(base.length, slash)) ?? 0) + 1);
    else direct++;
  }
  return { folders, direct };
}

/** Folders named in a cut listing's last line, at most. */
const MAX_REST_NAMED = 20;

/** Where a cut listing's other files are, in full paths with how many each, and a glob that lists one (review 477: 974
 *  docs/ files were left out of 2,774, and the text never said docs/; the folder names were in the structured answer
 *  alone). The example is a folder whose name is plain: one with a wildcard or an invisible character in it would list
 *  others, or be copied wrong (review 482). */
function restLine(glob: string, { folders, direct }: { folders: Map<string, number>; direct: number }): string {
  const base = globBase(glob);
  const tail = glob.slice(base.length);
  const most = [...folders].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const named = most.slice(0, MAX_REST_NAMED).map(([name, count]) => `${shownPath(`${base}${name}/`)} (${count})`);
  const more = most.length - named.length;
  const places = [...named, ...(more > 0 ? [`${more} more folders`] : []), ...(direct ? [`${direct} directly in ${base ? shownPath(base) : "the top folder"}`] : [])];
  const plainName = (name: string) => shownPath(name) === name && !/[*?"]/.test(name);
  const plain = plainName(base) ? most.find(([name]) => plainName(name)) : undefined;
  const example = plain ? `; list each with its own glob, e.g. "${base}${plain[0]}/${tail}"` : "; list each with its own glob";
  return `The rest: ${places.join(", ")}${example}.`;
}

export const workspaceTools = [bmadProjectTool, bmadFilesTool];
