// bmad-task sessions tied to a workspace, through real MCP clients signed in as different people: each
// artifact a confirm or approve saves is also a version of .claude/specs/{task}/{file} in the project, by
// whoever confirmed it; starting one needs write access to the project.
import { beforeAll, describe, expect, it, vi } from "vitest";
import { specPath } from "../../src/core/delivery/session.js";
import { TOOL } from "../../src/core/surface/names.js";
import { MAX_FILE_BYTES } from "../../src/core/workspace/limits.js";
import { seed } from "./setup.js";
import { ownerTag } from "../../src/worker/workspace-store.js";
import { shareAccepted, signInAs, signInTeam, unique, type Person } from "./workspace-users.js";

vi.setConfig({ testTimeout: 30_000, hookTimeout: 60_000 });

let owner: Person;
let writer: Person;
let reader: Person;
let stranger: Person;
let project: string;

const task = (who: Person, args: Record<string, unknown>) => who.call(TOOL.bmadTask, args);
const prd = (text: string) => JSON.stringify({ prd_draft: text, quality_score: 95 });

beforeAll(async () => {
  await seed();
  ({ owner, writer, reader, stranger } = await signInTeam());
  project = unique("specs");
  expect((await owner.project({ action: "create", name: project })).isError).toBe(false);
  await shareAccepted(owner, project, writer, "write");
  await shareAccepted(owner, project, reader, "read");
});

describe("a session started with a project", () => {
  it("writes each confirmed artifact into the project as well, by the one who confirmed it", async () => {
    const started = await task(writer, { action: "start", objective: "Build the login page", project });
    expect(started.isError, started.text).toBe(false);
    const { session_id, task_name } = started.structured;
    // Pinned to the project it started in (name@tag): a project of the same name later, the starter's own or one shared
    // with them, gets nothing of it (a ninth review).
    expect(started.structured.project).toBe(`${project}@${ownerTag(owner.id)}`);
    expect((await task(writer, { action: "submit", session_id, claude_result: prd("# PRD\nSign in with email.") })).structured.current_state).toBe("awaiting_confirmation");
    // Nothing reaches the project before the user confirms.
    const path = specPath(task_name, "01-product-requirements.md");
    expect((await owner.files({ action: "read", project, path })).text).toMatch(/No file/);

    const confirmed = await task(writer, { action: "confirm", session_id });
    // Saved in the owner's project, and said so (review 181).
    expect(confirmed.structured).toMatchObject({ current_stage: "architect", saved_to: `bmad://projects/${project}@${ownerTag(owner.id)}/${path}`, project_owner: owner.email });
    const read = await owner.files({ action: "read", project, path });
    expect(read.text).toBe(`[${path}, version 1, 25 bytes, by ${writer.email} at ${(read.structured.updated_at as string).slice(0, 16).replace("T", " ")} UTC]\n# PRD\nSign in with email.`);
    expect((await owner.files({ action: "history", project, path })).structured.versions).toMatchObject([{ version: 1, op: "write", author: writer.email }]);
    // The session keeps its own copy.
    const kept = await writer.client.readResource({ uri: confirmed.structured.artifacts[0] });
    expect(kept.contents[0]).toMatchObject({ text: "# PRD\nSign in with email." });

    // The architecture on confirm, the sprint plan on approve.
    await task(writer, { action: "submit", session_id, claude_result: JSON.stringify({ architecture_draft: "# Architecture", quality_score: 95 }) });
    await task(writer, { action: "confirm", session_id });
    await task(writer, { action: "submit", session_id, claude_result: JSON.stringify({ sprint_plan: "# Sprint 1" }) });
    expect((await task(writer, { action: "approve", session_id })).structured.saved_to).toBe(`bmad://projects/${project}@${ownerTag(owner.id)}/${specPath(task_name, "03-sprint-plan.md")}`);
    const listed = await owner.files({ action: "list", project, path: `.claude/specs/${task_name}/*` });
    expect(listed.structured.files.map((f: { path: string }) => f.path.split("/").pop())).toEqual(["01-product-requirements.md", "02-system-architecture.md", "03-sprint-plan.md"]);
    expect((await owner.files({ action: "read", project, path: specPath(task_name, "03-sprint-plan.md") })).text).toMatch(/\n# Sprint 1$/);

    // Done: BMAD's own skills read {planning_artifacts}, not .claude/specs/, and the answer says how to carry them on.
    let view = (await task(writer, { action: "status", session_id })).structured;
    for (const stage of ["dev", "review", "qa"]) {
      await task(writer, { action: "submit", session_id, codex_result: `# ${stage}` });
      view = (await task(writer, { action: "confirm", session_id })).structured;
    }
    expect(view.current_state).toBe("completed");
    expect(view.user_message).toContain(
      ` They are in .claude/specs/${task_name}/ of project "${project}@${ownerTag(owner.id)}"; BMAD's own skills (bmad-sprint-planning, bmad-create-story) look for the PRD and architecture in {planning_artifacts} (by default _bmad-output/planning-artifacts/): copy them there to go on with those, e.g. bmad-files {"action": "write", "project": "${project}@${ownerTag(owner.id)}", "path": "{planning_artifacts}/prd.md", "content": "<01-product-requirements.md>"}.`,
    );
    // The call it gives works as given.
    expect((await writer.files({ action: "write", project: `${project}@${ownerTag(owner.id)}`, path: "{planning_artifacts}/prd.md", content: "# PRD" })).isError).toBe(false);
    expect((await owner.files({ action: "read", project, path: "_bmad-output/planning-artifacts/prd.md" })).text).toMatch(/\n# PRD$/);
  });

  it("tells the stage it works for the project and names the project's own planning files (review 190)", async () => {
    const mine = unique("brief");
    expect((await owner.project({ action: "create", name: mine })).isError).toBe(false);
    expect((await owner.files({ action: "write", project: mine, path: "_bmad-output/planning-artifacts/product-brief.md", content: "# Brief\nNurses first." })).isError).toBe(false);
    const prompt = (await task(owner, { action: "start", objective: "Build the nurse app", project: mine })).structured.role_prompt as string;
    expect(prompt).toContain(`This stage runs headless in bmad-task session build-the-nurse-app for project "${mine}@${ownerTag(owner.id)}"`);
    expect(prompt).toContain("- This project already has `_bmad-output/planning-artifacts/product-brief.md`. Read those that bear on this stage with bmad-files");
    expect(prompt).not.toMatch(/There is no BMAD project here|this session has none/);
    // Without a project, the session is its own.
    const alone = (await task(owner, { action: "start", objective: "Build the nurse app alone" })).structured.role_prompt as string;
    expect(alone).toContain("There is no BMAD project here");
    expect(alone).not.toContain("This project already has");
  });

  it("takes a task name no other session has used in the project", async () => {
    // The writer's session above saved into .claude/specs/build-the-login-page/: the owner's gets another folder.
    expect((await task(owner, { action: "start", objective: "Build the login page", project })).structured.task_name).toBe("build-the-login-page-1");
    expect((await task(owner, { action: "start", objective: "Build the login page" })).structured.task_name).toBe("build-the-login-page");
  });

  it("never replaces a file another session saved: two sessions started at once take one folder (review 26)", async () => {
    const objective = `Build shared auth ${project}`;
    const [a, b] = await Promise.all([task(owner, { action: "start", objective, project }), task(writer, { action: "start", objective, project })]);
    expect(a.structured.task_name).toBe(b.structured.task_name);
    for (const [who, started, text] of [[owner, a, "# Owner's PRD"], [writer, b, "# Writer's PRD"]] as const) {
      await task(who, { action: "submit", session_id: started.structured.session_id, claude_result: prd(text) });
    }
    const own = (await task(owner, { action: "confirm", session_id: a.structured.session_id })).structured;
    expect(own.saved_to).toMatch(/01-product-requirements\.md$/);
    expect(own).not.toHaveProperty("project_owner");
    const second = await task(writer, { action: "confirm", session_id: b.structured.session_id });
    const path = specPath(b.structured.task_name, "01-product-requirements.md");
    expect(second.structured.project_error).toBe(`01-product-requirements.md is saved in the session, but not in project "${project}@${ownerTag(owner.id)}": ${path} is there already (another session's, or written since), and was left as it is. Read it with bmad-files, then write this one (bmad://sessions/${b.structured.session_id}/artifacts/01-product-requirements.md) beside it under another name.`);
    expect((await owner.files({ action: "read", project, path })).text).toMatch(/\n# Owner's PRD$/);
  });

  it("refuses at submit a draft no project file could hold, naming the limit and the fix", async () => {
    const { session_id, task_name } = (await task(writer, { action: "start", objective: "Build the huge page", project })).structured;
    const big = await task(writer, { action: "submit", session_id, claude_result: prd(`# Huge PRD\n${"x".repeat(MAX_FILE_BYTES)}`) });
    expect(big.isError).toBe(true);
    expect(big.text).toBe(`claude_result's document (01-product-requirements.md) is 1,048,587 bytes; session ${task_name} saves its artifacts in project "${project}@${ownerTag(owner.id)}", where a file holds at most 1 MiB (1,048,576 bytes), so it could never be saved there. Nothing was saved: shorten it under 1 MiB, or split it, writing the details to files of their own with bmad-files and linking them from it.`);
    expect((await task(writer, { action: "status", session_id })).structured).toMatchObject({ current_stage: "po", current_state: "generating" });
    // Without a project the session keeps it (up to its own 2 MiB).
    const alone = (await task(writer, { action: "start", objective: "Build the huge page alone" })).structured;
    expect((await task(writer, { action: "submit", session_id: alone.session_id, claude_result: prd(`# Huge PRD\n${"x".repeat(MAX_FILE_BYTES)}`) })).structured.current_state).toBe("awaiting_confirmation");
  });

  it("is refused to a reader and to a stranger, naming why", async () => {
    const byReader = await task(reader, { action: "start", objective: "Read only", project });
    expect(byReader.isError).toBe(true);
    expect(byReader.text).toBe(`You have read access to "${project}"; a session saves its artifacts there, which needs write access from its owner (${owner.email}). Start it without "project", or ask for write access.`);
    const byStranger = await task(stranger, { action: "start", objective: "Not mine", project });
    expect(byStranger.isError).toBe(true);
    expect(byStranger.text).toMatch(new RegExp(`^Project "${project}" not found\\.`));
    expect((await task(stranger, { action: "start", objective: "Not mine" })).isError).toBe(false); // without a project it starts
  });

  it("says a project only offered is to be accepted first, not that there are no projects (review 212)", async () => {
    const offered = unique("offered");
    expect((await owner.project({ action: "create", name: offered })).isError).toBe(false);
    expect((await owner.project({ action: "share", name: offered, with: stranger.email, access: "write" })).isError).toBe(false);
    const byStranger = await task(stranger, { action: "start", objective: "Not accepted yet", project: offered });
    expect(byStranger.isError).toBe(true);
    expect(byStranger.text).toBe(`Project "${offered}" not found. Offered to you, not accepted (bmad-project: ask the user before accepting; "accept" or "decline" with "name"): ${offered} (PENDING: ${owner.email} offers write). An offer grants nothing until accepted.`);
    // bmad-files says the same.
    expect((await stranger.files({ action: "list", project: offered })).text).toBe(byStranger.text);
  });

  it("says where its project was deleted and kept that undelete brings it back, not that there are no projects (review 212)", async () => {
    const mine = unique("deleted");
    expect((await owner.project({ action: "create", name: mine })).isError).toBe(false);
    const { session_id, task_name } = (await task(owner, { action: "start", objective: "Build the lost page", project: mine })).structured;
    await task(owner, { action: "submit", session_id, claude_result: prd("# Lost PRD") });
    expect((await owner.project({ action: "delete", name: mine, confirm: mine })).isError).toBe(false);
    const confirmed = await task(owner, { action: "confirm", session_id });
    const until = /it is kept until (\S+ \S+) UTC/.exec(confirmed.structured.project_error)?.[1];
    const deleted = `"${mine}" names your own project, which you deleted: it is kept until ${until} UTC, and bmad-project "undelete" brings it back.`;
    expect(confirmed.structured.project_error).toBe(
      `01-product-requirements.md is saved in the session (bmad://sessions/${session_id}/artifacts/01-product-requirements.md), but not in project "${mine}@${ownerTag(owner.id)}": Project "${mine}@${ownerTag(owner.id)}" not found. ${deleted} To have it in a project you can write, copy it there with bmad-files "write" (path ${specPath(task_name, "01-product-requirements.md")}).`,
    );
    expect((await owner.files({ action: "list", project: mine })).text).toBe(`Project "${mine}" not found. ${deleted}`);
    // The way out it names works: brought back, the session's next artifact lands there.
    expect((await owner.project({ action: "undelete", name: mine })).isError).toBe(false);
    await task(owner, { action: "submit", session_id, claude_result: JSON.stringify({ architecture_draft: "# Architecture", quality_score: 95 }) });
    expect((await task(owner, { action: "confirm", session_id })).structured.saved_to).toBe(`bmad://projects/${mine}@${ownerTag(owner.id)}/${specPath(task_name, "02-system-architecture.md")}`);
  });

  it("moves on when the project can no longer be written, keeping the artifact and saying how to finish", async () => {
    const { session_id, task_name } = (await task(writer, { action: "start", objective: "Build the admin page", project })).structured;
    await task(writer, { action: "submit", session_id, claude_result: prd("# Admin PRD") });
    await owner.project({ action: "share", name: project, with: writer.email, access: "read" });
    const confirmed = await task(writer, { action: "confirm", session_id });
    expect(confirmed.isError).toBe(false);
    const path = specPath(task_name, "01-product-requirements.md");
    expect(confirmed.structured.current_stage).toBe("architect");
    expect(confirmed.structured.project_error).toBe(
      `01-product-requirements.md is saved in the session (bmad://sessions/${session_id}/artifacts/01-product-requirements.md), but not in project "${project}@${ownerTag(owner.id)}": You have read access to "${project}"; changing it needs write access from its owner (${owner.email}). Copy it there with bmad-files "write" (path ${path}) once that is fixed.`,
    );
    expect((await owner.files({ action: "read", project, path })).text).toMatch(/No file/);
    expect((await writer.client.readResource({ uri: confirmed.structured.artifacts[0] })).contents[0]).toMatchObject({ text: "# Admin PRD" });
  });

  it("tells a member their owner's deleted project is not available to them, never to create one (review 220)", async () => {
    const member = await signInAs(`${unique("member")}@example.com`);
    const shared = unique("t");
    expect((await owner.project({ action: "create", name: shared })).isError).toBe(false);
    await shareAccepted(owner, shared, member, "write");
    const { session_id, task_name, project: ref } = (await task(member, { action: "start", objective: "Build the shared page", project: shared })).structured;
    await task(member, { action: "submit", session_id, claude_result: prd("# Shared PRD") });
    expect((await owner.project({ action: "delete", name: shared, confirm: shared })).isError).toBe(false);

    const unavailable = (p: string) => `Project "${p}" not found. It is not available to you: nobody shares a project of that name with you now (its owner may have deleted it, or withdrawn your share).`;
    const confirmed = await task(member, { action: "confirm", session_id });
    const path = specPath(task_name, "01-product-requirements.md");
    expect(confirmed.structured.project_error).toBe(
      `01-product-requirements.md is saved in the session (bmad://sessions/${session_id}/artifacts/01-product-requirements.md), but not in project "${ref}": ${unavailable(ref)} To have it in a project you can write, copy it there with bmad-files "write" (path ${path}).`,
    );
    expect((await member.client.readResource({ uri: `bmad://sessions/${session_id}/artifacts/01-product-requirements.md` })).contents[0]).toMatchObject({ text: "# Shared PRD" });
    // A plain write says the same; so does a project of that form that never was, in the same words.
    expect((await member.files({ action: "write", project: ref, path: "notes.md", content: "x" })).text).toBe(unavailable(ref));
    expect((await member.files({ action: "write", project: `${shared}@00000000`, path: "notes.md", content: "x" })).text).toBe(unavailable(`${shared}@00000000`));
    // A share withdrawn answers alike.
    const withdrawn = unique("w");
    expect((await owner.project({ action: "create", name: withdrawn })).isError).toBe(false);
    await shareAccepted(owner, withdrawn, member, "write");
    await owner.project({ action: "share", name: withdrawn, with: member.email, access: "none" });
    const withdrawnRef = `${withdrawn}@${ownerTag(owner.id)}`;
    expect((await member.files({ action: "write", project: withdrawnRef, path: "notes.md", content: "x" })).text).toBe(unavailable(withdrawnRef));
  });
});
