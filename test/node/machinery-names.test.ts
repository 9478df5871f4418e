// Names as every file system reads them: machinery (.git, .bmad-mcp, .bmad-task) under all its names, scripts and
// what decides what runs, and two names that are one file on macOS or Windows. Pull, push, bmad-files and the ports
// all decide by these functions (bridge-safety and bridge-pull-push prove the wiring).
import { expect, it } from "vitest";
import { checkRemotePath } from "../../src/bridge/sync-remote.js";
import { changeRefusal, checkWorkspacePath, checkWritablePath, foldPath, isScriptPath, machineryName, terminalText } from "../../src/core/workspace/paths.js";

it("finds .git, .bmad-mcp and .bmad-task under every name git's verify_path knows, and nothing else", () => {
  const git = [".git", ".GIT", ".Git", ".git.", ".git..", ".git ", ".git . ", "GIT~1", "git~2", "GI7EBA~1", ".git::$INDEX_ALLOCATION", ".git:stream", ".g\u200cit", "\ufeff.git", ".gi\u200dt", ".g\u206ait"];
  for (const name of git) expect(machineryName(name), JSON.stringify(name)).toBe(".git");
  for (const name of [".bmad-mcp", ".BMAD-MCP.", "BMAD-M~1"]) expect(machineryName(name), name).toBe(".bmad-mcp");
  for (const name of [".bmad-task", ".Bmad-Task ", "BMAD-T~1"]) expect(machineryName(name), name).toBe(".bmad-task");
  for (const name of ["git", ".gitignore", ".github", ".gitkeep", "docs", "a.git", ".git-x", "GITX~1", "x~1", "b~1", "gi~1", "bmad~1", "bmad-mcp", ".bmad", "~1", "gi~"]) expect(machineryName(name), name).toBeUndefined();
  for (const path of ["docs/.GIT/config", "a/GIT~1/x", ".bmad-task/s.json", "x/.git./hooks/pre-commit"]) expect(checkWorkspacePath(path).ok, path).toBe(false);
  for (const path of [".gitignore", ".github/workflows/x.yml", "docs/git/x.md"]) expect(checkWorkspacePath(path).ok, path).toBe(true);
});

it("refuses scripts and what decides what runs to every writer, and lets a pull bring only BMAD's install record", () => {
  for (const path of ["scripts/x.py", "a/scripts/b/c.sh", ".claude/skills/s/Scripts/X.PY", "x/scripts/run.sh.", "_bmad/_config/custom/cc-verify.sh", "cc-verify.sh", "scripts/x.js"]) {
    expect(isScriptPath(path), path).toBe(true);
    expect(checkWritablePath(path).ok, path).toBe(false);
  }
  // Every file in a scripts/ folder, whatever its name: Python imports a script's neighbours first (a ninth review: a
  // model-written `_bmad/scripts/tomllib.so` ran with BMAD's config_utils.py).
  for (const path of ["scripts/readme.md", "scripts/data.csv", "_bmad/scripts/tomllib.so", "_bmad/scripts/argparse.cpython-311-x86_64-linux-gnu.so", "a/scripts/__pycache__/x.pyc", "a/SCRIPTS/pkg/__init__.txt"]) {
    expect(isScriptPath(path), path).toBe(true);
    expect(checkWritablePath(path).ok, path).toBe(false);
  }
  for (const path of ["docs/x.py", "scripts.py", "docs/scripts.md", "my-scripts/x.md"]) expect(checkWritablePath(path).ok, path).toBe(true);
  const decides = ["_bmad/_config/files-manifest.csv", ".claude/settings.json", ".CLAUDE/settings.local.json", ".mcp.json", ".cursor/mcp.json", ".vscode/tasks.json"];
  // Found by a review: what runs by itself in the user's tools, and NTFS stream names (`x::$DATA` is x's content).
  decides.push(".vscode/settings.json", ".envrc", ".pre-commit-config.yaml", ".husky/pre-commit", ".githooks/pre-push", ".claude/commands/x.md", ".claude/hooks/h.sh", ".github/workflows/ci.yml");
  decides.push(".claude/settings.json::$DATA", ".mcp.json:x", "_bmad/_config/files-manifest.csv::$DATA");
  // A second review: skills and agents run shell lines too, and other agents' and tools' settings.
  decides.push(".claude/skills/evil/SKILL.md", ".claude/agents/x.md", ".vscode/mcp.json", ".gemini/settings.json", ".cursor/hooks.json", ".zed/settings.json");
  decides.push(".agents/skills/bmad-prd/SKILL.md", ".cursor/skills/x/SKILL.md", ".github/skills/x/SKILL.md", ".opencode/skill/x.md");
  // A third review: more agents' and tools' settings than any list holds; the root's dot-files and dot-folders are theirs.
  decides.push("opencode.json", ".opencode/plugin/x.ts", ".roo/mcp.json", ".continue/config.yaml", ".windsurf/hooks.json", ".aider.conf.yml", ".devcontainer.json", "Jenkinsfile", ".travis.yml", ".env");
  decides.push(".kiro/hooks/h.json", ".codex/config.toml", ".devcontainer/devcontainer.json", ".mise.toml", "lefthook.yml", ".npmrc", ".yarnrc.yml", ".gitmodules", ".github/actions/a/action.yml");
  // Review 201: Haskell's Setup.lhs and hie.yaml, Leiningen's project.clj, MSBuild's other project files.
  decides.push("Setup.lhs", "hie.yaml", "tools/hie.yaml", "project.clj", "native/x.vcxproj", "build.proj");
  for (const path of decides) expect(changeRefusal(path), path).toMatch(/decides what code runs here/);
  // Windows' 8.3 short names of any of them (or of a script) are refused by shape, to every writer and to a pull.
  for (const path of ["CLAUDE~1/settings.json", ".claude/SETTIN~1.JSO", "GITHUB~1/workflows/x.yml", "_bmad/_config/FILES-~1.CSV", "CC-VER~1.SH"]) {
    expect(changeRefusal(path), path).toMatch(/short name/);
    expect(changeRefusal(path, { pulled: true }), path).toMatch(/short name/);
  }
  for (const path of ["_bmad/scripts/memlog.py::$DATA", "cc-verify.sh::$DATA", "a/SCRIPTS/x.py:s"]) expect(isScriptPath(path), path).toBe(true);
  // A fifth review: in any folder too (a monorepo's packages; direnv runs a nested .envrc), and more root configs.
  decides.push("packages/app/.claude/skills/evil/SKILL.md", "_bmad-output/.claude/commands/evil.md", "sub/.mcp.json", "sub/.envrc", "docs/.npmrc", "_bmad-output/.env");
  // A sixth review: below an allowed folder the rule holds as anywhere, and the folder counts only as spelled.
  decides.push(".claude/specs/x/.envrc", ".claude/specs/pkg/.claude/skills/evil/SKILL.md", ".github/ISSUE_TEMPLATE/.envrc", ".CLAUDE/specs/a.md", ".claude./specs/a.md", ".c\u200claude/specs/a.md", ".github/issue_template/x.md");
  decides.push("lefthook-local.yml", "lefthook.toml", "lefthook.json", "mise.local.toml", "mise/config.toml", "crush.jsonc", "buildspec.yml", "cloudbuild.yaml", "appveyor.yml", "netlify.toml");
  // A tenth review: what direnv re-evaluates on cd through a `use flake`/`use nix`/devenv/devbox .envrc, and mise's
  // files in any folder.
  decides.push("flake.nix", "shell.nix", "default.nix", "devenv.nix", "devenv.yaml", "devbox.json", "mise.dev.toml", "packages/app/mise.toml");
  // Review 350: uv's own settings at the root (an index a later `uv sync` installs from), as .python-version is.
  decides.push("uv.toml");
  // Review 66: mise's whole search list in any folder, and build definitions editors run on open.
  decides.push("_bmad-output/mise/config.toml", "docs/mise/config.local.toml", "mise.dev.local.toml", "a/mise-tasks/x.toml", "a/mise/tasks/build", "mise/config.toml");
  decides.push("build.rs", "crates/x/build.rs", "CMakeLists.txt", "cmake/x.cmake", "CMakePresets.json", "gradle/wrapper/gradle-wrapper.properties", "gradle.properties", "settings.gradle.kts", "app/build.gradle", "gradlew", "Gemfile", "mix.exs", "Makefile", "rules.mk", "build.sbt", "rust-toolchain.toml", "Cargo.toml", "meson.build", "bunfig.toml", "nx.json", "build.zig", "Package.swift", "project/plugins.sbt", "buildSrc/src/main/kotlin/x.kt", "gradle/libs.gradle.kts", "Directory.Build.props", "MODULE.bazel", "tools/defs.bzl", "pom.xml", "src/MyApp.Api/MyApp.Api.csproj", "Directory.Packages.props", "global.json");
  // Review 201: Haskell's Setup.lhs and hie.yaml, Leiningen's project.clj, MSBuild's other project files.
  decides.push("Setup.lhs", "hie.yaml", "tools/hie.yaml", "project.clj", "native/x.vcxproj", "build.proj");
  for (const path of decides) expect(changeRefusal(path), path).toMatch(/decides what code runs here/);
  // Review 56: what tools load by themselves at any depth (a .pth in a venv ran on the next Python start).
  const loaded = ["venv/lib/python3.11/site-packages/zz.pth", "x.pth", "node_modules/prettier/index.cjs", "pkg/NODE_MODULES/a.js", "lib/dist-packages/a.py", "__pypackages__/3.11/lib/a.py", "src/sitecustomize.py", "usercustomize.py", "venv/pyvenv.cfg", "venv/bin/activate", "env/bin/Activate.ps1", "venv/bin/activate_this.py", "x.code-workspace", "lint-staged.config.mjs", "commitlint.config.js", "packages/web/eslint.config.ts", "tailwind.config.cjs"];
  // Review 64: every package manager's installed packages, a Python environment's folders made before it is, and
  // configs editors' extensions load under longer names.
  loaded.push("vendor/autoload.php", "vendor/composer/autoload_real.php", "vendor/bundle/ruby/3.2.0/gems/rake-13.0.6/lib/rake.rb", "Pods/Target Support Files/Pods-App/Pods-App-frameworks.sh", "deps/x/mix.exs", "_build/dev/lib/a.beam", "bower_components/a.js", "Carthage/Build/x.sh");
  loaded.push("venv/etc/ipython/ipython_config.py", "venv/share/jupyter/kernels/python3/kernel.json", "tools/python/lib/python3.11/os.py", "env/lib64/python3.12/x.py", "jupyter_server_config.py", "notebooks/ipython_kernel_config.json");
  loaded.push("renv/activate.R", "renv/library/R-4.3/x/jsonlite/R/jsonlite", "packrat/lib/x", "lua_modules/x.lua", "local/lib/perl5/strict.pm", "_opam/lib/x.ml", "vcpkg_installed/x/zlib-config.cmake", "env/etc/conda/activate.d/x.sh");
  loaded.push("karma.conf.js", "wdio.conf.ts", "gatsby-node.js", "vendor/x.php", "lib/python3.12/os.py");
  loaded.push("vitest.config.e2e.ts", "vite.config.prod.mts", "vitest.workspace.ts", "vitest.projects.ts", "packages/web/vitest.config.unit.ts", "webpack.config.babel.js", "playwright.config.tsx");
  loaded.push("husky.config.js", "husky.config.cjs");
  // Review 327: pytest imports every conftest.py its discovery meets (editors run it on open).
  loaded.push("conftest.py", "_bmad-output/planning-artifacts/conftest.py", "tests/CONFTEST.py");
  // Review 331: pytest.ini is pytest's own config, and its `addopts = -p evilplug` imports any module.
  loaded.push("pytest.ini", "tests/Pytest.ini", "_bmad-output/pytest.ini");
  for (const path of loaded) expect(changeRefusal(path), path).toMatch(/code tools load by themselves/);
  // The project's own tests and shared project files stay writable: BMAD's dev workflow writes them.
  for (const path of ["tests/test_login.py", "test_app.py", "pyproject.toml", "tox.ini", "setup.cfg", "docs/pytest.ini.md"]) expect(changeRefusal(path), path).toBeUndefined();
  for (const path of ["docs/activate.md", "docs/conftest-notes.md", "docs/node-modules.md", "docs/config.md", "src/app.config.json", "docs/x.pth.md", "docs/vendor-review.md", "docs/jupyter.md", "lib/python-notes.md", "src/config.ts", "docs/vitest.md", "docs/mise.md", "docs/makefile-notes.md", "docs/build.md", "src/build.ts", "docs/cargo.md", "src/app.conf.json",
    // Review 68: an app's own configs, ordinary folder names below the root, documents anywhere.
    "src/app/app.config.ts", "auth.config.ts", "src/config/database.config.ts", "src/site.config.ts", "src/server/logger.conf.ts", "src/vendor/stripe-client.ts", "packages/deps/index.ts",
    "_bmad-output/planning-artifacts/vendor/comparison.md", "_bmad-output/research/deps/x.md", "lib/python3.12/notes.md", "docs/gradle/notes.md",
    // Review 71: i18n namespaces, an app's own project code, component props, configs CLIs read when run.
    "src/locales/en/global.json", "src/main/scala/com/acme/project/ProjectService.scala", "src/components/Button/Button.props", "src/payload.config.ts", "drizzle.config.ts"]) expect(changeRefusal(path), path).toBeUndefined();
  for (const path of [".github/ISSUE_TEMPLATE/bug.md", ".claude/specs/x/01-prd.md", ".gitignore", ".editorconfig", ".env.example", "_bmad-output/run/.memlog.md", "_bmad-output/.runs/main/r1/state.json", "_bmad-output/planning-artifacts/ux/.working/color-themes-1.html", "_bmad/custom/.gitignore", "docs/notes~draft.md", "package.json"]) expect(changeRefusal(path), path).toBeUndefined();
  // A name that makes its folder a Python environment, by any door (review 75: pulled, it stopped every write below it).
  for (const path of ["_bmad-output/conda-meta/history.json", "_bmad-output/pyvenv.cfg/notes.md", "_bmad/_memory/Conda-Meta/x.md", ".claude/specs/x/pyvenv.cfg"]) {
    expect(changeRefusal(path), path).toMatch(/makes its folder a Python environment|code tools load by themselves/);
    expect(changeRefusal(path, { pulled: true }), path).toMatch(/makes its folder a Python environment/);
  }
  expect(changeRefusal("docs/conda-meta-notes.md", { pulled: true })).toBeUndefined();
  // A HEAD makes its folder git's store (with objects/ and refs/, which are plain names): by any door (review 89).
  for (const path of ["_bmad-output/planning-artifacts/HEAD", "HEAD", "docs/Head.", ".claude/specs/x/HEAD"]) expect(changeRefusal(path, { pulled: true }), path).toMatch(/named HEAD/);
  for (const path of ["docs/HEAD.md", "docs/HEAD/notes.md", "docs/ahead"]) expect(changeRefusal(path, { pulled: true }), path).toBeUndefined();
  // Folded as APFS and NTFS fold case, not only lower-cased (review 78: ſ is s there).
  expect(foldPath("docs/ſpec.md")).toBe(foldPath("docs/spec.md"));
  expect(foldPath("ΣΟΦΟΣ.md")).toBe(foldPath("σοφος.md"));
  // A character whose upper case is several is kept as one (review 81: straße.md beside strasse.md was refused).
  expect(foldPath("straße.md")).not.toBe(foldPath("strasse.md"));
  expect(foldPath("ﬁle.md")).not.toBe(foldPath("file.md"));
  for (const path of ["build.rſ", "CMakeLiſts.txt", "lib/ſite-packages/x.py", "ſitecuſtomize.py"]) expect(changeRefusal(path), path).toBeDefined();
  expect(changeRefusal("_bmad/_config/files-manifest.csv", { pulled: true })).toBeUndefined();
  expect(changeRefusal(".claude/settings.json", { pulled: true })).toMatch(/decides what code runs here/);
  // A pull checks a script's bytes, not its name.
  expect(checkRemotePath("_bmad/scripts/memlog.py").ok).toBe(true);
  expect(checkRemotePath(".git./config").ok).toBe(false);
});

it("folds names that are one file on macOS or Windows", () => {
  expect(foldPath("README.md")).toBe(foldPath("readme.md"));
  expect(foldPath("docs/caf\u00e9.md")).toBe(foldPath("docs/cafe\u0301.md"));
  expect(foldPath("a/b.md.")).toBe(foldPath("a/b.md"));
  expect(foldPath("a/b\u200c.md")).toBe(foldPath("a/b.md"));
  // And names that print alike: a format character shows as nothing (review 316-5).
  // So does every default-ignorable one, of no format category (review 325: the Hangul filler, the combining grapheme joiner).
  for (const c of ["\u200b", "\u00ad", "\u2060", "\u{e0041}", "\u180e", "\u3164", "\u115f", "\u034f"]) expect(foldPath(`a/pr${c}d.md`), JSON.stringify(c)).toBe(foldPath("a/prd.md"));
  expect(foldPath("a/b.md::$DATA")).toBe(foldPath("a/b.md"));
  expect(foldPath("a/b.md")).not.toBe(foldPath("a/c.md"));
});

// A fifth review: secret files it missed, and names that fold to .env on macOS or Windows.
it("knows the files that exist to hold secrets, by any name a file system reads them by", async () => {
  const { isSecretFile } = await import("../../src/core/catalog/config.js");
  const secret = [".env", ".env.local", ".ENV.", ".env ", ".\u200cenv", ".envrc", ".dev.vars", "credentials.json", "serviceAccountKey.json", ".git-credentials", ".aws/credentials", ".docker/config.json", ".kube/config"];
  secret.push("terraform.tfvars", "terraform.tfstate", "secrets.yaml", ".htpasswd", ".vault-token", "app.keystore", "release.jks", "putty.ppk", "id_ed25519_sk", "tls.pem", "npm/.npmrc");
  // A tenth review: agents' MCP settings, registries' and clouds' credentials, other environment files.
  secret.push(".mcp.json", ".cursor/mcp.json", ".claude/settings.local.json", ".yarnrc.yml", ".cargo/credentials.toml", "auth.json", "token.json", "client_secret_123.json", "service-account.json", "local.settings.json", "kubeconfig", ".s3cfg", "production.env", ".flaskenv");
  // Review 429: keys under the names ssh-keygen -f and people give them.
  secret.push("deploy_key", "keys/ssh_key", "private-key", "release.signing-key", "signingkey");
  for (const path of secret) expect(isSecretFile(path), JSON.stringify(path)).toBe(true);
  for (const path of ["deploy_key.pub", "docs/deploy_key.md", "monkey", ".env.example", "id_rsa.pub", "docs/credentials-guide.md", "keys.md", "_bmad/config.toml", "docs/environment.md", "package.json"]) expect(isSecretFile(path), path).toBe(false);
});

it("shows a terminal outside text as it reads: escapes what it would act on or not show, keeps joined emoji and scripts (reviews 29 and 31)", () => {
  for (const hidden of ["\x1b]0;t\x07", "\u202e", "\u200b", "\u00ad", "\u2028", "\u061c", "\u3164", "\u115f", "\uffa0", "\u17b4", "\u034f", "\ue000", "\u{e0041}"]) {
    expect(terminalText(`prd${hidden}.md`), JSON.stringify(hidden)).toMatch(/^prd(\\u[0-9a-f]{4}|\\u\{[0-9a-f]+\}|[\]0;t])+\.md$/);
  }
  expect(terminalText("prd\u200d.md")).toBe("prd\\u200d.md");
  for (const shown of ["👨\u200d👩\u200d👧\u200d👦", "❤\ufe0f", "❤\ufe0f\u200d🔥", "👩🏽\u200d💻", "می\u200cخواهم", "🏴\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}", "line one\n\tline two"]) {
    expect(terminalText(shown)).toBe(shown);
  }
  // Only in well-formed sequences (review 32: after any non-ASCII character every joiner and tag was kept).
  expect(terminalText("résumé\u200d.md")).toBe("résumé\\u200d.md");
  expect(terminalText("é\ufe0f\u200c\u200d")).toBe("é\\ufe0f\\u200c\\u200d");
  expect(terminalText(`résumé${[..."SYSTEM"].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join("")}.md`)).toBe("résumé\\u{e0053}\\u{e0059}\\u{e0053}\\u{e0054}\\u{e0045}\\u{e004d}.md");
  expect(terminalText(`🏴${"\u{e0061}".repeat(12)}`)).toMatch(/^🏴(\u{e0061}){8}(\\u\{e0061\}){4}$/u);
});
