// mergeConfigEdits against BMAD's Python readers: an answer merged into a config edited by hand is written only where
// PyYAML's safe_load (a module's config.yaml) or tomllib (_bmad/config.toml) then reads the answer's value.
import { execFileSync } from "node:child_process";
import { expect, it } from "vitest";
import { mergeConfigEdits } from "../../src/core/workspace/config-merge.js";

/** What python3 reads at `keys` in each text: the value, or "error" where the file does not parse. */
function pythonReads(cases: Array<{ toml: boolean; text: string; keys: string[] }>): string[] {
  const script = `
import json, sys, tomllib, yaml
out = []
for c in json.load(sys.stdin):
    try:
        data = tomllib.loads(c["text"]) if c["toml"] else yaml.safe_load(c["text"])
        for k in c["keys"]:
            data = data.get(k) if isinstance(data, dict) else None
        out.append(data if isinstance(data, str) else repr(data))
    except Exception:
        out.append("error")
print(json.dumps(out))`;
  return JSON.parse(execFileSync("python3", ["-c", script], { input: JSON.stringify(cases), encoding: "utf8" })) as string[];
}

it("merges an answer exactly where BMAD's Python then reads its value, however a hand edit spells the key again (review 316-7)", () => {
  const yamlBefore = "# CORE Module Configuration\n\nuser_name: BMad\ncommunication_language: English\n";
  const tomlBefore = '[core]\nuser_name = "BMad"\ncommunication_language = "English"\n\n[modules.bmm]\nproject_name = "x"\n';
  // Hand edits, each appended to (YAML) or put under [core] of (TOML) what the old answers made.
  const yamlEdits = [
    '"communication_languag\\x65": Klingon',
    '"communication_languag\\u0065": Klingon',
    "'communication_language': Klingon",
    "? communication_language\n: Klingon",
    "!!str communication_language: Klingon",
    '"communication_\\\n  language": Klingon',
    "communication_language : Klingon",
    '"communication_language ": Klingon',
    "communication_language_2: Klingon",
    "# communication_language: Klingon",
  ];
  const tomlEdits = ['"communication_languag\\u0065" = "Klingon"', "'communication_language' = \"Klingon\"", 'communication_language_2 = "Klingon"', '"communication_language " = "Klingon"'];
  const cases = [
    ...yamlEdits.map((edit) => ({ path: "_bmad/core/config.yaml", before: yamlBefore, head: `${yamlBefore}${edit}\n`, keys: ["communication_language"], from: "communication_language: English", to: "communication_language: French" })),
    ...tomlEdits.map((edit) => ({ path: "_bmad/config.toml", before: tomlBefore, head: tomlBefore.replace("\n\n[modules", `\n${edit}\n\n[modules`), keys: ["core", "communication_language"], from: 'communication_language = "English"', to: 'communication_language = "French"' })),
  ];
  // The file as the line merge makes it: the answer's line changed where it was.
  const merged = cases.map((c) => ({ ...c, lineMerged: c.head.replace(c.from, c.to) }));
  const reads = pythonReads(merged.map((c) => ({ toml: c.path.endsWith(".toml"), text: c.lineMerged, keys: c.keys })));
  expect(reads.filter((r) => r === "French").length).toBeGreaterThan(2);
  expect(reads.filter((r) => r !== "French").length).toBeGreaterThan(6);
  merged.forEach((c, i) => {
    const result = mergeConfigEdits(c.path, c.head, c.before, c.before.replace(c.from, c.to));
    // Merged where Python reads French, and then as the line merge makes it; refused wherever it reads anything else.
    expect(result, `${c.head} (Python reads ${reads[i]})`).toEqual(reads[i] === "French" ? { ok: true, text: c.lineMerged } : expect.objectContaining({ ok: false }));
  });
});
