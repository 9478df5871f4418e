// Git sources: a local bare repo with a tagged skills tree under a subdir.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildBundle } from "../../src/compiler/build";
import { parseGitSpec } from "../../src/compiler/git";
import { findFiles, PKG, tempDir } from "./helpers";

const tmp = tempDir("git");
const work = join(tmp.dir, "work");
const bare = join(tmp.dir, "team/repo.git");
const git = (args: string[], cwd?: string) => execFileSync("git", args, { cwd, stdio: "pipe" }).toString().trim();

beforeAll(() => {
  mkdirSync(join(work, "content/src"), { recursive: true });
  cpSync(join(PKG, "bmad-method/src/core-skills"), join(work, "content/src/core-skills"), { recursive: true });
  git(["init", "--quiet", "-b", "main"], work);
  git(["add", "."], work);
  git(["-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-m", "skills"], work);
  git(["tag", "v1"], work);
  // A commit whose `linked` is a link to a BMAD tree of this machine's, outside the repository (review 14, G1).
  mkdirSync(join(tmp.dir, "outside/src"), { recursive: true });
  cpSync(join(PKG, "bmad-method/src/core-skills"), join(tmp.dir, "outside/src/core-skills"), { recursive: true });
  symlinkSync(join(tmp.dir, "outside"), join(work, "linked"));
  git(["add", "linked"], work);
  git(["-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-m", "link"], work);
  git(["tag", "v2"], work);
  git(["clone", "--quiet", "--bare", work, bare]);
});
afterAll(() => tmp.cleanup());

describe("git sources", () => {
  it("parses ref and subpath and hides local paths", () => {
    expect(parseGitSpec("git+https://user:pw@example.com/o/r.git#v2:/a/b")).toMatchObject({
      url: "https://user:pw@example.com/o/r.git",
      ref: "v2",
      subpath: "a/b",
      label: "https://example.com/o/r.git#v2:/a/b",
    });
    expect(parseGitSpec(`${bare}#v1`).label).toBe("team/repo.git#v1");
    // Two repositories of one name, and a working tree's own .git folder, told apart (review 134: `team.git` twice, and
    // `.git`): by their last two folders, a trailing .git left out.
    // The scp-like form GitHub shows, given to git as it is (review 214: taken for a local folder); never with a leading "-".
    expect(parseGitSpec("git+git@github.com:org/repo.git#v2:/a")).toMatchObject({ url: "git@github.com:org/repo.git", ref: "v2", subpath: "a", label: "github.com:org/repo.git#v2:/a" });
    expect(parseGitSpec("-oProxyCommand=x@host:repo.git").url).toMatch(/^file:\/\/\//);
    expect(["/srv/a/team.git", "/srv/b/team.git#v2", "git+file:///srv/a/repo/.git#v2:/content", "/team.git"].map((l) => parseGitSpec(l).label)).toEqual(["a/team.git", "b/team.git#v2", "a/repo#v2:/content", "team.git"]);
  });

  it("builds from file://repo.git#tag:/subdir", async () => {
    const { manifest } = await buildBundle({ sources: [`file://${bare}#v1:/content`], includeDefault: false, cwd: tmp.dir });
    expect(manifest.sources[0]).toMatchObject({ kind: "git", name: "team/repo.git#v1:/content", version: "v1", origin: "cli", layout: "v6-skills-source" });
    expect(manifest.records.filter((r) => r.skill)).toHaveLength(findFiles(join(work, "content/src"), "SKILL.md").length);
    expect(JSON.stringify(manifest)).not.toContain(tmp.dir);
  });

  it("refuses a subpath that links out of the repository", async () => {
    await expect(buildBundle({ sources: [`file://${bare}#v2:/linked`], includeDefault: false, cwd: tmp.dir })).rejects.toThrow(
      /Subpath "linked" of team\/repo\.git#v2:\/linked is a link out of the repository; name a folder inside it/,
    );
  });

  it("fails clearly on a bad ref", async () => {
    await expect(buildBundle({ sources: [`git+file://${bare}#no-such-tag`], includeDefault: false, cwd: tmp.dir })).rejects.toThrow(
      /Cannot fetch ref "no-such-tag" from team\/repo\.git#no-such-tag/,
    );
  });
});
