// The views as the bundle stores them: each self-contained page within 150 KB (gzip 50 KB), and the default
// tools/list neither names them nor grows (they are an opt-in toolset; its budget is 8 KB).
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { expect, it } from "vitest";
import { bundleReaderFromDir } from "../../src/compiler/read.js";
import { surfaceFor } from "../../src/core/surface/surface.js";
import { DEFAULT_TOOLSETS } from "../../src/core/surface/toolsets.js";
import { VIEW_NAMES, readView, viewUri } from "../../src/core/surface/views.js";
import { ROOT } from "./helpers.js";

const reader = bundleReaderFromDir(join(ROOT, "bmad-bundle"));

it.each(VIEW_NAMES)("keeps the %s view within 150 KB, 50 KB gzipped", async (name) => {
  const view = await readView(reader, viewUri(name));
  if (!view.ok) throw new Error(view.error);
  const bytes = new TextEncoder().encode(view.contents[0]!.text);
  expect(bytes.length).toBeLessThanOrEqual(150 * 1024);
  expect(gzipSync(bytes).length).toBeLessThanOrEqual(50 * 1024);
});

it("leaves the default tools/list without views, within 8 KB", () => {
  const listing = surfaceFor(reader.catalog, DEFAULT_TOOLSETS).toolsResult;
  expect(JSON.stringify(listing).length).toBeLessThanOrEqual(8 * 1024);
  expect(listing.tools.filter((t) => t._meta)).toEqual([]);
});

it("answers an unknown view with the ones there are", async () => {
  expect(await readView(reader, "ui://bmad/nope.html")).toEqual({ ok: false, error: `Unknown view "ui://bmad/nope.html". Views: ${VIEW_NAMES.map(viewUri).join(", ")}.` });
});
