// Prompt names: bmad-{name}, and bmad-{module}-{name} where two modules share a name (v4 expansion packs).
import { expect, it } from "vitest";
import { buildBundle } from "../../src/compiler/build";
import { Catalog } from "../../src/core/catalog/catalog";
import { shortName } from "../../src/core/catalog/names";
import { promptEntries } from "../../src/core/surface/prompts";

it("qualifies colliding names with their module and leaves the rest short", async () => {
  const { manifest } = await buildBundle({ sources: ["bmad-v4"], includeDefault: false });
  const catalog = new Catalog(manifest);
  const prompts = promptEntries(catalog);
  const records = [...catalog.list("agent"), ...catalog.list("workflow")];
  const count = (name: string) => records.filter((r) => shortName(r) === name).length;
  const shared = records.find((r) => count(shortName(r)) > 1)!;
  const unique = records.find((r) => count(shortName(r)) === 1)!;
  expect(shared, "the v4 package has agents of the same name in several packs").toBeDefined();
  expect(prompts.has(`bmad-${shared.module}-${shortName(shared)}`)).toBe(true);
  expect(prompts.has(`bmad-${shortName(shared)}`)).toBe(false);
  expect(prompts.has(`bmad-${shortName(unique)}`)).toBe(true);
  expect(prompts.size).toBe(records.length);
});
