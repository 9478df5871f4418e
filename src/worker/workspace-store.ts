// WorkspaceStore over Durable Objects, bound to one caller. A project's object is found from its owner and
// name (idFromName(`${owner}|${name}`)): the caller's own name goes to their own object; another owner comes
// only from the caller's share index, written when that owner shared, and only once the caller accepted the
// share (until then it is an offer, listed apart). Whatever the caller may not see is "not found" in the same
// words as a project that does not exist.
import { createHash } from "node:crypto";
import { closest, suggestion } from "../core/catalog/closest.js";
import { shownTime } from "../core/count.js";
import type { InstallerAnswers } from "../core/workspace/installer.js";
import type { ConfigFile } from "../core/workspace/setup.js";
import { checkProjectCount, MAX_OFFERS_FROM_ONE_OWNER, MAX_OFFERS_SHOWN, MAX_PROJECTS } from "../core/workspace/limits.js";
import { checkProjectName, parseProjectRef, shareHandle, shownHandle } from "../core/workspace/paths.js";
import { OFFER_STEP, shownOffer, withOwnerNote, type ChangedFile, type Configured, type DeletedFile, type FileContent, type ManyRead, type ManyReadingFiles, type ProjectInfo, type ProjectSummary, type RemovedEntry, type ShareAccess, type VersionEntry, type WorkspaceStore, type WsError, type WrittenEntry, type WsResult } from "../core/workspace/store.js";
import type { Memory, MemResult } from "../core/memory/model.js";
import type { Listed, MemoryFilter, MemoryOrder, ProjectMemory, Recalled } from "../core/memory/store.js";
import type { Env } from "./env.js";
import type { Caller, DoResult, WorkspaceProject, ZonedResult } from "./workspace-do.js";
import { fromColumns, type ListingColumns } from "./workspace-listing.js";
import { UNDO_DAYS } from "./workspace-versions.js";
import { DECLINE_KEPT_MS, type Offered, type OwnedRow, type ReceivedShare, type Standing } from "./workspace-index-do.js";
import type { TextEdited } from "../core/runtime/fs.js";
import { DEFAULT_TIME_ZONE, zonedTime } from "../core/runtime/time-zone.js";

type Stub = DurableObjectStub<WorkspaceProject>;

/** What a listing finds: the caller's projects, the offers to them, and their deleted projects still kept. */
type ProjectListing = { mine: ProjectSummary[]; offers: ProjectSummary[]; offersLeftOut: number; deleted: Array<{ name: string; until: string }> };

/** How long a name may be pending without its project before a listing takes it for a create cut short. */
const CREATE_GRACE_MS = 60_000;

/** Who signed in, as far as workspaces care. */
export interface SignedIn {
  userId: string;
  upstream: "local" | "oidc" | "github";
  login?: string;
  email?: string;
  emailVerified?: boolean;
}

/** The caller's handles: always their user id; their GitHub login when GitHub signed them in; their email only
 *  where sign-in vouches for it (GitHub gives only verified emails, the loopback-only local page is the
 *  developer's own, OIDC says so in email_verified). All come from the token, never from a tool's arguments, as does
 *  `readOnly`: the token carries bmad:read only (Caller.readOnly). */
export function workspaceCaller(who: SignedIn, readOnly = false): Caller {
  const email = who.email?.trim().toLowerCase();
  const trusted = email && (who.upstream !== "oidc" || who.emailVerified === true) ? email : undefined;
  const login = who.upstream === "github" && who.login ? `github:${who.login.toLowerCase()}` : undefined;
  const handles = [`user:${who.userId}`, ...(login ? [login] : []), ...(trusted ? [`email:${trusted}`] : [])];
  return { id: who.userId, handles, label: trusted ?? login ?? who.userId, ...(readOnly ? { readOnly: true as const } : {}) };
}


/** The caller's own project `name`, deleted and kept until `until`: said wherever that name is met. */
const deletedOwn = (name: string, until: string) => `"${name}" names your own project, which you deleted: it is kept until ${shownTime(until)} UTC, and bmad-project "undelete" brings it back.`;

/** A shared project's failure, naming it as the caller addressed it (`ref`) where its object named it by its bare name,
 *  which for a caller with a project of that name is their own (review 363: "No file X in project "shop"" to a caller
 *  who had asked for "shop@1bc2a21e"), as its successes do. Only where the words before say it is the project: a path
 *  the caller sent may quote the name too (review 371: `"a"/x.md` in project "a" became `"a@ff9bb6b1"/x.md`). */
function namedAsAddressed<T>(out: DoResult<T>, name: string, ref: string): DoResult<T> {
  return out.ok ? out : { ...out, error: out.error.replace(PROJECT_NAMED, (whole, words: string, quoted: string) => (quoted === name ? `${words}"${ref}"` : whole)) };
}
/** How the project's object names its project in a message: `project "x"`, `the owner of "x"`, `The answers of "x"`. */
const PROJECT_NAMED = /((?:[Pp]roject|owner of|answers of) )"([^"\n]*)"/g;

/** 8 hex digits naming an owner in `name@tag`, for shared projects whose name the caller also uses. */
export function ownerTag(owner: string): string {
  return createHash("sha256").update(owner).digest("hex").slice(0, 8);
}

const encode = (text: string) => new TextEncoder().encode(text);
const filesOf = (files: Map<string, string>) => [...files].map(([path, text]) => ({ path, data: encode(text) }));
/** Config files for RPC: each with what the old answers made of it, to keep edits made to it by hand since. */
const configsOf = (files: Map<string, ConfigFile>) => [...files].map(([path, f]) => ({ path, data: encode(f.text), ...(f.before === undefined ? {} : { before: f.before }) }));
/** Plain objects for RPC (answers may come with null prototypes, which do not serialise). */
const plain = (answers: InstallerAnswers): InstallerAnswers => JSON.parse(JSON.stringify(answers)) as InstallerAnswers;

/** Whether a project's owner, as the project recorded them, no longer passes this server's access rules. */
export type OwnerCheck = (owner: { id: string; label: string }) => boolean;

export class DurableWorkspaceStore implements WorkspaceStore {
  constructor(
    private readonly env: Env,
    readonly caller: Caller,
    private readonly ownerNoLongerAllowed: OwnerCheck = () => false,
  ) {}

  /** Marks another's project whose owner no longer passes the access rules: asked only where an answer names them. */
  private ownerMark(owner: string, label: string): { owner_not_allowed?: true } {
    return this.ownerNoLongerAllowed({ id: owner, label }) ? { owner_not_allowed: true } : {};
  }

  private index(handle: string) {
    return this.env.WORKSPACE_INDEX.get(this.env.WORKSPACE_INDEX.idFromName(handle));
  }

  private project(owner: string, name: string): Stub {
    return this.env.WORKSPACE_PROJECT.get(this.env.WORKSPACE_PROJECT.idFromName(`${owner}|${name}`));
  }

  private now(): string {
    return new Date().toISOString();
  }

  /** Shares to any of the caller's handles, one per project: accepted if any is (the widest accepted access
   *  wins), else the widest offer. `checked`: each row as its project holds it now, rows it no longer holds
   *  dropped from the index (a share or delete cut short between the project and the index leaves one). */
  private async received(checked = false): Promise<ReceivedShare[]> {
    return (await this.receivedShown(checked)).shares;
  }

  /** received(), where `checked` leaves out (and counts in `leftOut`) each handle's offers past its newest
   *  MAX_OFFERS_SHOWN: each is a call to its project, and anyone may offer (review 341: a list grew by 105 bytes and a
   *  call with each account that offered). */
  private async receivedShown(checked: boolean): Promise<{ shares: ReceivedShare[]; leftOut: number }> {
    let leftOut = 0;
    const lists = await Promise.all(this.caller.handles.map(async (h) => {
      const all = await this.index(h).received();
      if (!checked) return all;
      const newest = new Set(all.filter((s) => !s.accepted).sort((a, b) => b.at.localeCompare(a.at)).slice(0, MAX_OFFERS_SHOWN));
      const rows = all.filter((s) => s.accepted || newest.has(s));
      leftOut += all.length - rows.length;
      const held = await Promise.all(rows.map((s) => this.project(s.owner, s.name).shareFor([h], this.caller.id)));
      await Promise.all(rows.map((s, i) => (held[i] ? undefined : this.index(h).revoke(s.owner, s.name))));
      return rows.flatMap((s, i) => (held[i] ? [{ ...s, ...held[i] }] : []));
    }));
    const byProject = new Map<string, ReceivedShare>();
    const rank = (s: ReceivedShare) => (s.accepted ? 2 : 0) + (s.access === "write" ? 1 : 0);
    for (const share of lists.flat()) {
      if (share.owner === this.caller.id) continue;
      const key = `${share.owner}|${share.name}`;
      const held = byProject.get(key);
      if (!held || rank(share) > rank(held)) byProject.set(key, share);
    }
    return { shares: [...byProject.values()], leftOut };
  }

  /** Own projects, accepted shares and offers, each with the name to pass: `name@tag` where the bare name is
   *  another of these, or an own project deleted and kept, which holds it (an offer never changes how the caller's own
   *  or accepted projects are named). */
  private async everything(): Promise<ProjectListing> {
    const index = this.index(`user:${this.caller.id}`);
    const [rows, { shares: received, leftOut }, deleted] = await Promise.all([index.owned(), this.receivedShown(true), index.keptDeleted(this.now())]);
    const owned = (await Promise.all(rows.map((row) => this.settled(row)))).filter((row) => row !== undefined);
    const summary = (group: ReceivedShare[], taken: Set<string>) => {
      const count = new Map<string, number>();
      for (const s of group) count.set(s.name, (count.get(s.name) ?? 0) + 1);
      return group.map((s): ProjectSummary => ({
        project: taken.has(s.name) || count.get(s.name)! > 1 ? `${s.name}@${ownerTag(s.owner)}` : s.name,
        name: s.name, owner: s.owner_label, access: s.access, ...(s.accepted ? {} : { pending: true as const }), ref: `${s.name}@${ownerTag(s.owner)}`,
        ...this.ownerMark(s.owner, s.owner_label),
      }));
    };
    const own = owned.map((p): ProjectSummary => ({ project: p.name, name: p.name, owner: "you", access: "owner", created_at: p.created_at }));
    const shared = summary(received.filter((s) => s.accepted), new Set([...owned, ...deleted].map((p) => p.name)));
    const mine = [...own, ...shared];
    return { mine, offers: summary(received.filter((s) => !s.accepted), new Set(mine.map((p) => p.project))), offersLeftOut: leftOut, deleted };
  }

  /** One listing for the calls made at once (bmad-project list asks for projects, offers and deleted ones together):
   *  each settles index rows and checks shares with their projects, work not to do twice. A later call lists afresh. */
  private listing?: Promise<ProjectListing>;
  private listed(): Promise<ProjectListing> {
    return (this.listing ??= this.everything().finally(() => (this.listing = undefined)));
  }

  async projects(): Promise<ProjectSummary[]> {
    return (await this.listed()).mine;
  }

  async offers(): Promise<ProjectSummary[]> {
    return (await this.listed()).offers;
  }

  async offersLeftOut(): Promise<number> {
    return (await this.listed()).offersLeftOut;
  }

  async deleted(): Promise<Array<{ name: string; until: string }>> {
    return (await this.listed()).deleted;
  }

  /** The offer or share `ref` names (the caller's own projects are not answered here). */
  private async shareNamed(ref: string, pendingOnly: boolean): Promise<WsResult<ReceivedShare>> {
    const parsed = parseProjectRef(ref);
    const matches = parsed.ok ? (await this.received()).filter((s) => s.name === parsed.value.name && (!parsed.value.tag || ownerTag(s.owner) === parsed.value.tag) && (!pendingOnly || !s.accepted)) : [];
    if (matches.length === 1) return { ok: true, value: matches[0]! };
    if (matches.length > 1) return { ok: false, kind: "invalid", error: `Several projects named "${matches[0]!.name}" are offered to you: ${matches.map((s) => `${s.name}@${ownerTag(s.owner)} (${s.owner_label})`).join(", ")}. Pass one of these.` };
    const offers = (await this.offers()).map((p) => p.project);
    const hint = offers.length ? ` Offered to you: ${offers.slice(0, 20).join(", ")}.` : " Nothing is offered to you now; bmad-project list shows what is.";
    return { ok: false, kind: "no_project", error: `No share of "${ref.slice(0, 100)}" is ${pendingOnly ? "waiting for your answer" : "yours to decline"}.${hint}` };
  }

  async offer(project: string): Promise<WsResult<ProjectSummary>> {
    const found = await this.offerNamed(project);
    if (!found.ok) return found;
    const { owner, owner_label, name, access } = found.value;
    return { ok: true, value: { project: `${name}@${ownerTag(owner)}`, name, owner: owner_label, access, pending: true, ...this.ownerMark(owner, owner_label) } };
  }

  /** The offer `ref` names; where none is but the caller declined that project, the decline is taken back (accepting it
   *  is how they ask for it again), and they are told to ask its owner to offer it again. */
  private async offerNamed(ref: string): Promise<WsResult<ReceivedShare>> {
    const found = await this.shareNamed(ref, true);
    const parsed = parseProjectRef(ref);
    // A bare name that is also the caller's own project's names that one to every other tool: an offer of the name is
    // accepted by the name@tag that tells it apart, said so (review 363: "accept shop" took Olive's offer unremarked).
    if (found.ok && parsed.ok && !parsed.value.tag && ((await this.project(this.caller.id, found.value.name).standing(this.caller)) as Standing).state === "live") {
      const { name, owner, owner_label } = found.value;
      return { ok: false, kind: "invalid", error: `You own a project "${name}" too: accept "${name}@${ownerTag(owner)}" to take ${owner_label}'s offer.` };
    }
    if (found.ok || found.kind !== "no_project" || !parsed.ok) return found;
    const { name, tag } = parsed.value;
    const lists = await Promise.all(this.caller.handles.map((h) => this.index(h).declined()));
    const declined = lists.flat().filter((d) => d.name === name && (!tag || ownerTag(d.owner) === tag));
    if (!declined.length) return found;
    await Promise.all(this.caller.handles.flatMap((h) => declined.map((d) => this.index(h).undecline(d.owner, d.name))));
    const owners = [...new Set(declined.map((d) => d.owner_label))].join(", ");
    return { ok: false, kind: "no_project", error: `You declined "${name}" from ${owners}, so there is no offer to accept. Your decline is taken back now: ask ${owners} to share it with you again.` };
  }

  async accept(project: string): Promise<WsResult<ProjectSummary>> {
    const found = await this.offerNamed(project);
    if (!found.ok) return found;
    const { owner, name } = found.value;
    const out = (await this.project(owner, name).answerShare(this.caller, true)) as DoResult<{ access: "read" | "write"; handles: string[]; owner_label: string }>;
    if (!out.ok) {
      // Withdrawn meanwhile: the index forgets it.
      await Promise.all(this.caller.handles.map((h) => this.index(h).revoke(owner, name)));
      return { ok: false, kind: "no_project", error: `The share of "${project.slice(0, 100)}" was withdrawn by its owner.` };
    }
    // Kept in the caller's own index, and gone from the handles': a handle can pass to someone else (review 38).
    const mine = `user:${this.caller.id}`;
    await this.index(mine).accept({ owner, owner_label: out.value.owner_label, name, access: out.value.access, at: this.now() });
    await Promise.all(out.value.handles.filter((h) => h !== mine).map((h) => this.index(h).revoke(owner, name)));
    const listed = (await this.projects()).find((p) => p.name === name && p.owner === out.value.owner_label && p.access !== "owner");
    return { ok: true, value: listed ?? { project: `${name}@${ownerTag(owner)}`, name, owner: out.value.owner_label, access: out.value.access, ...this.ownerMark(owner, out.value.owner_label) } };
  }

  async decline(project: string): Promise<WsResult<{ name: string; owner: string }>> {
    const found = await this.shareNamed(project, false);
    if (!found.ok) return found;
    const { owner, name, owner_label } = found.value;
    await this.project(owner, name).answerShare(this.caller, false);
    const now = this.now();
    await Promise.all(this.caller.handles.map((h) => this.index(h).decline(owner, owner_label, name, now)));
    return { ok: true, value: { name, owner: owner_label } };
  }

  /** An owned name as listed: a live one as it is; one whose create or delete was cut short, settled by asking its
   *  project (there: live; not there: released, unless a create may still be running). */
  private async settled(row: OwnedRow): Promise<OwnedRow | undefined> {
    if (row.state === "live") return row;
    const standing = (await this.project(this.caller.id, row.name).standing(this.caller)) as Standing;
    if (standing.state !== "live" && row.state === "pending" && Date.parse(this.now()) - Date.parse(row.created_at) < CREATE_GRACE_MS) return undefined;
    await this.index(`user:${this.caller.id}`).settle(row.name, standing);
    return standing.state === "live" ? { ...row, state: "live" } : undefined;
  }

  /** The caller's own project `name` in their index as the project says it stands: how every create, delete and
   *  undelete ends, done or refused, so that the last change of the project decides its row. */
  private async resettle(name: string): Promise<Standing> {
    const standing = (await this.project(this.caller.id, name).standing(this.caller)) as Standing;
    await this.index(`user:${this.caller.id}`).settle(name, standing);
    return standing;
  }

  /** Not found, with what the caller can do: bring back their own project of the name they deleted, accept the offer
   *  of it (review 212: both were told they had no projects), or pick one of the closest names they have. Another
   *  owner's (`name@tag`) is not available to them, in the same words whether it ever was: creating one is no way to it
   *  (review 220: a member whose owner deleted the project was told to create one). */
  private async notFound(ref: string): Promise<WsError> {
    const { mine, offers, deleted } = await this.listed();
    const parsed = parseProjectRef(ref);
    const { name, tag } = parsed.ok ? parsed.value : { name: undefined, tag: undefined };
    const others = tag !== undefined && tag !== ownerTag(this.caller.id);
    const gone = others ? undefined : deleted.find((d) => d.name === name);
    const offered = offers.filter((o) => o.name === name && (!tag || o.ref === `${name}@${tag}`));
    const refs = mine.map((p) => p.project);
    const close = refs.length ? suggestion(closest(ref, refs, 3)) : "";
    const hint = gone ? ` ${deletedOwn(gone.name, gone.until)}`
      : offered.length ? ` Offered to you, not accepted (bmad-project: ${OFFER_STEP}): ${offered.map(shownOffer).join(", ")}. An offer grants nothing until accepted.`
      : others ? ` It is not available to you: nobody shares a project of that name with you now (its owner may have deleted it, or withdrawn your share).${close}`
      : close || ' You have no projects: create one with bmad-project {"action": "create", "name": "my-app"}.';
    return { ok: false, kind: "no_project", error: `Project "${ref.slice(0, 100)}" not found.${hint}` };
  }

  /** Runs `op` on the project the caller means by `ref`: their own first, else one shared with them.
   *  (RPC results come typed as the stub sees them: `T` says what the object's method returns.) */
  /** `own`: the caller's own project only (a share: what is acted on is what the user was asked about); a shared one of
   *  that name is answered as not theirs to act on. `rpc` is told the owner's label where the project is someone else's. */
  private async on<T>(ref: string, rpc: (stub: Stub, owner: string, sharedBy?: string) => Promise<unknown>, own = false): Promise<WsResult<T>> {
    const parsed = parseProjectRef(ref);
    if (!parsed.ok) return { ok: false, kind: "no_project", error: parsed.error };
    const { name, tag } = parsed.value;
    const op = async (owner: string, sharedBy?: string) => (await rpc(this.project(owner, name), owner, sharedBy)) as DoResult<T>;
    if (!tag || tag === ownerTag(this.caller.id)) {
      const out = await op(this.caller.id);
      if (out.ok || out.kind !== "no_project") return out;
      if (tag) return this.notFound(ref);
    }
    const matches = (await this.received()).filter((s) => s.accepted && s.name === name && (!tag || ownerTag(s.owner) === tag));
    // The caller's own project of the name, deleted and kept, still holds its bare name: a write meant for it never lands
    // in someone else's project of that name (review 179: Alice's writes went to Mallory's "acme" after her delete).
    if (!tag && matches.length) {
      const standing = (await this.project(this.caller.id, name).standing(this.caller)) as Standing;
      if (standing.state === "live") return op(this.caller.id);
      if (standing.state === "deleted") {
        const theirs = matches.map((s) => `"${name}@${ownerTag(s.owner)}" (${s.owner_label}'s)`).join(", ");
        return { ok: false, kind: "no_project", error: `${deletedOwn(name, standing.until)} Nothing was done. Shared with you under that name: ${theirs}; pass that to work there.` };
      }
    }
    if (own && matches.length) return this.ownersRefusal({ ok: false, kind: "denied", error: `Only the owner of "${name}" (${matches[0]!.owner_label}) can share or delete it.` }, matches[0]!, ref);
    if (matches.length > 1) {
      return { ok: false, kind: "invalid", error: `Several projects named "${name}" are shared with you: ${matches.map((s) => `${name}@${ownerTag(s.owner)} (${s.owner_label})`).join(", ")}. Pass one of these.` };
    }
    const shared = matches[0];
    const out = shared ? this.ownersRefusal(namedAsAddressed(await op(shared.owner, shared.owner_label), name, ref), shared, ref) : undefined;
    return out && (out.ok || out.kind !== "no_project") ? out : this.notFound(ref);
  }

  /** `out` from the project `share` reaches: a refusal there is for its owner to lift (only they share, delete, purge,
   *  give write access, change what only they are shown), so it says when they no longer pass the access rules. */
  private ownersRefusal<T>(out: DoResult<T>, share: ReceivedShare, ref: string): DoResult<T> {
    if (out.ok || out.kind !== "denied") return out;
    return { ...out, error: withOwnerNote(out.error, { project: ref, owner: share.owner_label, access: share.access, ...this.ownerMark(share.owner, share.owner_label) }) };
  }

  async create(name: string, answers: InstallerAnswers, files: Map<string, string>, timeZone?: string): Promise<WsResult<ProjectSummary>> {
    const checked = checkProjectName(name);
    if (!checked.ok) return { ok: false, kind: "invalid", error: checked.error };
    const now = this.now();
    const stub = this.project(this.caller.id, name);
    const index = this.index(`user:${this.caller.id}`);
    const reserved = await index.reserve(name, now, MAX_PROJECTS);
    // A name the index holds without a live project (a create or a delete cut short, or a delete finishing now) is free
    // to take again: claimed, so that it counts toward the limit while this create runs.
    if (!reserved.ok && (reserved.reason === "limit" || (await this.resettle(name)).state === "live")) {
      return reserved.reason === "limit"
        ? { ok: false, kind: "limit", error: (checkProjectCount(reserved.count, reserved.deleted) as { error: string }).error }
        : { ok: false, kind: "conflict", error: `You already have a project "${name}"; pick another name or delete it first.` };
    }
    if (!reserved.ok) await index.claim(name, now);
    const out = (await stub.init(this.caller, name, plain(answers), filesOf(files), now, timeZone)) as DoResult<ProjectInfo>;
    await this.resettle(name);
    if (!out.ok) return out.kind === "no_project" ? this.notFound(name) : out;
    return { ok: true, value: { project: name, name, owner: "you", access: "owner", created_at: out.value.created_at } };
  }

  /** With `ref`, the name that means this project alone (`name@tag`), whatever the caller owns or is offered later. */
  info(project: string) {
    return this.on<ProjectInfo>(project, async (s, owner) => {
      const out = (await s.info(this.caller)) as DoResult<ProjectInfo>;
      return out.ok ? { ok: true, value: { ...out.value, ref: `${out.value.name}@${ownerTag(owner)}` } } : out;
    });
  }

  configure(project: string, read: InstallerAnswers, answers: InstallerAnswers, files: Map<string, ConfigFile>, timeZone?: string) {
    return this.on<Configured>(project, (s) => s.configure(this.caller, plain(read), plain(answers), configsOf(files), this.now(), timeZone));
  }

  async remove(project: string, confirm: string) {
    // The caller's own project of that name, if any, is the one `on` deletes: its name is marked first, so a delete
    // cut short is settled by the next listing, and put back where the delete is refused.
    const own = parseProjectRef(project);
    const index = this.index(`user:${this.caller.id}`);
    const mine = own.ok && (!own.value.tag || own.value.tag === ownerTag(this.caller.id)) ? own.value.name : undefined;
    if (mine !== undefined && confirm === mine) await index.mark(mine, "deleting");
    const out = await this.on<{ name: string; files: number; handles: string[]; until: string }>(project, (s) => s.destroy(this.caller, confirm));
    if (!out.ok) {
      if (mine !== undefined && confirm === mine) await this.resettle(mine);
      return out;
    }
    const { name, files, handles, until } = out.value;
    await Promise.all([...handles.map((h) => this.index(h).revoke(this.caller.id, name)), this.resettle(name)]);
    return { ok: true as const, value: { name, files, until } };
  }

  /** The caller's project of that name, deleted and still kept, listed again (as create takes a name). */
  async undelete(name: string): Promise<WsResult<ProjectSummary>> {
    const checked = checkProjectName(name);
    if (!checked.ok) return { ok: false, kind: "invalid", error: checked.error };
    const index = this.index(`user:${this.caller.id}`);
    const reserved = await index.reserve(name, this.now(), MAX_PROJECTS);
    if (!reserved.ok && reserved.reason === "limit") return { ok: false, kind: "limit", error: (checkProjectCount(reserved.count, reserved.deleted) as { error: string }).error };
    const out = (await this.project(this.caller.id, name).undelete(this.caller)) as DoResult<ProjectInfo>;
    await this.resettle(name);
    if (!out.ok) {
      return out.kind === "no_project" ? { ok: false, kind: "no_project", error: `You have no deleted project "${name.slice(0, 100)}" (one is kept ${UNDO_DAYS} days after its delete).` } : out;
    }
    return { ok: true, value: { project: name, name, owner: "you", access: "owner", created_at: out.value.created_at } };
  }

  async share(project: string, withWho: string, access: ShareAccess): Promise<WsResult<{ with: string; access: ShareAccess; previous: ShareAccess }>> {
    const parsed = shareHandle(withWho);
    if (!parsed.ok) return { ok: false, kind: "invalid", error: parsed.error };
    const { handle } = parsed;
    if (this.caller.handles.includes(handle)) return { ok: false, kind: "invalid", error: "That is you: you own your projects already." };
    // The grantee's index before the project: a share cut short between them leaves a row the project does not
    // hold (listing checks rows against their projects), never a share its grantee cannot see.
    const ref = parseProjectRef(project);
    const offerTo = (row: Omit<ReceivedShare, "accepted">) => this.index(handle).grant(row, MAX_OFFERS_FROM_ONE_OWNER);
    const refused = (offered: Offered & { ok: false }): WsResult<never> => ({
      ok: false, kind: offered.reason === "declined" ? "denied" : "limit",
      error: offered.reason === "declined"
        ? `${shownHandle(handle)} declined this offer at ${shownTime(offered.at)} UTC; they can ask you to share it again. Until they do, it cannot be offered to them before ${shownTime(new Date(Date.parse(offered.at) + DECLINE_KEPT_MS).toISOString())} UTC.`
        : `${shownHandle(handle)} has ${MAX_OFFERS_FROM_ONE_OWNER} of your offers waiting for an answer, the most one person may have from one owner: ask them to accept or decline those first, or withdraw one (access "none").`,
    });
    const offered = access !== "none" && ref.ok ? await offerTo({ owner: this.caller.id, owner_label: this.caller.label, name: ref.value.name, access, at: this.now() }) : undefined;
    if (offered && !offered.ok) return refused(offered);
    const out = await this.on<{ previous: ShareAccess; withdrawn: string[]; unnamed: string[]; owner: string; owner_label: string; name: string; indexes: string[] }>(project, (s) => s.share(this.caller, handle, access, this.now()), true);
    // An offer the project refused (not the caller's, or no room) is taken back from the index it was written to: each
    // left a row there, for any handle anyone named (review 26).
    if (!out.ok && offered?.ok && offered.state === "new" && ref.ok) await this.index(handle).revoke(this.caller.id, ref.value.name);
    if (!out.ok) return out;
    const { owner, owner_label, name, previous, withdrawn, unnamed, indexes } = out.value;
    if (access === "none") await Promise.all([...new Set([handle, ...withdrawn])].map((h) => this.index(h).revoke(owner, name)));
    else {
      const recorded = await offerTo({ owner, owner_label, name, access, at: this.now() });
      if (!recorded.ok) return refused(recorded);
      // An accepted share's new access, in its person's own index too (an existing row: no offer limit applies).
      await Promise.all(indexes.filter((h) => h !== handle).map((h) => this.index(h).grant({ owner, owner_label, name, access, at: this.now() }, MAX_OFFERS_FROM_ONE_OWNER)));
    }
    return { ok: true, value: { with: shownHandle(handle), access, previous, ...(unnamed.length ? { unnamed: unnamed.map(shownHandle) } : {}) } };
  }

  files(project: string): ManyReadingFiles {
    // The project's time zone, from the last answer that gave it (the object's ZonedResult, readMany's, timeZone's):
    // the times answers show are in it (showTime), as its scripts write them; undefined until one did.
    let zone: string | null | undefined;
    const on = async <T>(op: (stub: Stub) => Promise<unknown>) => {
      const out: ZonedResult<T> = await this.on<T>(project, op);
      if (out.ok && out.timeZone !== undefined) zone = out.timeZone;
      return out;
    };
    // A change made in someone else's project: whose, for the answer to say (review 179).
    let changeOwner: string | undefined;
    const change = <T>(op: (stub: Stub) => Promise<unknown>) =>
      this.on<T>(project, async (stub, _owner, sharedBy) => {
        const out = (await op(stub)) as DoResult<T>;
        // (An edit that did not apply answers null: nothing changed.)
        if (out.ok && out.value !== null && sharedBy) changeOwner = sharedBy;
        return out;
      });
    const c = this.caller;
    const now = () => this.now();
    return {
      project,
      changeOwner: () => changeOwner,
      showTime: (iso) => (zone === undefined ? undefined : zonedTime(zone ?? DEFAULT_TIME_ZONE, iso)),
      read: (path, version, options) => on<FileContent>((s) => s.read(c, path, version, options?.notes, options?.shown)),
      readMany: async (paths, trees) => {
        const out = await on<ManyRead>((s) => s.readMany(c, paths, trees));
        if (out.ok) zone = out.value.timeZone;
        return out;
      },
      peek: (paths, part) => on<FileContent[]>((s) => s.peek(c, paths, part)),
      markSeen: (shown) => on<null>((s) => s.markSeen(c, shown)),
      timeZone: async () => {
        const out = await on<string | null>((s) => s.timeZone(c));
        if (out.ok) zone = out.value;
        return out;
      },
      lastChanged: () => on<string | null>((s) => s.lastChanged(c)),
      write: (path, data, options = {}) => change<WrittenEntry>((s) => s.write(c, path, data, options.text, options.ifVersion, now(), options.alsoBy, options.edit)),
      edit: (path, edit, alsoBy) => change<TextEdited | null>((s) => s.editText(c, path, edit, now(), alsoBy)),
      createFolder: (dir, files, alsoBy) => change<{ files: number }>((s) => s.createFolder(c, dir, files, now(), alsoBy)),
      restore: (path, version, ifVersion) => change<WrittenEntry>((s) => s.restore(c, path, version, ifVersion, now())),
      remove: (path, ifVersion) => change<RemovedEntry>((s) => s.remove(c, path, ifVersion, now())),
      removeMatching: (glob) => change<{ files: number; more: number; held: number }>((s) => s.removeMatching(c, glob, now())),
      deletedSince: (folders, since) => on<DeletedFile[]>((s) => s.deletedSince(c, folders, since)),
      history: (path, page) => on<VersionEntry[]>((s) => s.history(c, path, page)),
      changes: (glob) => on<{ files: ChangedFile[]; more: number }>((s) => s.changes(c, glob)),
      purge: (glob) => on<{ versions: number; bytes: number; until: string }>((s) => s.purge(c, glob)),
      unpurge: (glob, version) => on<{ versions: number; bytes: number }>((s) => s.unpurge(c, glob, version)),
      list: async (glob) => {
        const out = await on<ListingColumns>((s) => s.list(c, glob));
        return out.ok ? { ok: true, value: fromColumns(out.value) } : out;
      },
      stat: (path) => on<"file" | "dir" | "missing">((s) => s.stat(c, path)),
      children: (dir) => on<string[]>((s) => s.children(c, dir)),
      sharedHolding: (path) => this.sharedHolding(project, path),
    };
  }

  /** The accepted share named `ref` (a bare name: one the caller's own project of that name may hide) that holds the
   *  file `path`, asked only where a read found it missing (review 326: a member's own "acme" hid Olivia's, whose
   *  epics read as missing). */
  private async sharedHolding(ref: string, path: string): Promise<{ project: string; owner: string } | undefined> {
    const parsed = parseProjectRef(ref);
    if (!parsed.ok || parsed.value.tag) return undefined;
    const { name } = parsed.value;
    for (const s of (await this.received()).filter((r) => r.accepted && r.name === name)) {
      const at = (await this.project(s.owner, name).stat(this.caller, path)) as DoResult<"file" | "dir" | "missing">;
      if (at.ok && at.value === "file") return { project: `${name}@${ownerTag(s.owner)}`, owner: s.owner_label };
    }
    return undefined;
  }

  memory(project: string): ProjectMemory {
    const on = <T>(op: (stub: Stub) => Promise<unknown>): Promise<MemResult<T>> => this.on<T>(project, op);
    const c = this.caller;
    return {
      remember: (memory: Memory) => on((s) => s.memory(c, { op: "remember", memory })),
      search: (query: string, filter: MemoryFilter, limit: number) => on<Recalled>((s) => s.memory(c, { op: "search", query, filter, limit })),
      list: (filter: MemoryFilter, order: MemoryOrder, limit: number) => on<Listed>((s) => s.memory(c, { op: "list", filter, order, limit })),
    };
  }
}
