import { expect, it } from "vitest";
import { parseCommandLine, unfilledPlaceholders } from "../../src/core/runtime/command-line.js";

it("splits a skill's line with POSIX quoting and strips the interpreter", () => {
  const line = `uv run {project-root}/_bmad/scripts/memlog.py init --workspace "/p/a b" --field topic="My PRD; it's \\"big\\""`;
  expect(parseCommandLine(line)).toEqual({ ok: true, script: "{project-root}/_bmad/scripts/memlog.py", args: ["init", "--workspace", "/p/a b", "--field", `topic=My PRD; it's "big"`] });
  expect(parseCommandLine(`uv run --no-cache "{project-root}/_bmad/scripts/render_skill.py" --skill x`)).toMatchObject({ ok: true, script: "{project-root}/_bmad/scripts/render_skill.py", args: ["--skill", "x"] });
  expect(parseCommandLine("python3 _bmad/scripts/resolve_config.py --key core")).toMatchObject({ ok: true, script: "_bmad/scripts/resolve_config.py" });
  expect(parseCommandLine("/abs/_bmad/scripts/memlog.py set --path p --key k --value v")).toMatchObject({ ok: true, script: "/abs/_bmad/scripts/memlog.py" });
});

it("keeps shell syntax literal, and refuses what needs a shell", () => {
  expect(parseCommandLine(`python3 x.py --text "$(whoami) \`id\` > out"`)).toMatchObject({ ok: true, args: ["--text", "$(whoami) `id` > out"] });
  for (const op of ["&&", "|", ";", ">", "||"]) {
    const parsed = parseCommandLine(`uv run a.py ${op} rm -rf /`);
    expect(!parsed.ok && parsed.error, op).toMatch(`"${op}" needs a shell`);
  }
  const open = parseCommandLine(`uv run a.py --text "unclosed`);
  expect(!open.ok && open.error).toMatch(/Close every quote/);
  const notPy = parseCommandLine("uv run pytest");
  expect(!notPy.ok && notPy.error).toMatch(/"pytest" is not one/);
  const flag = parseCommandLine("uv run --with requests a.py");
  expect(!flag.ok && flag.error).toMatch(/uv option "--with" is not supported/);
  const empty = parseCommandLine("uv run");
  expect(!empty.ok && empty.error).toMatch(/No script/);
  const long = parseCommandLine("a".repeat(20_000));
  expect(!long.ok && long.error).toMatch(/at most 16384/);
});

it("finds placeholders the workflow binds at run time", () => {
  expect(unfilledPlaceholders(["{doc_workspace}/x", "/p", "{skill-root}"])).toEqual(["{doc_workspace}", "{skill-root}"]);
});
