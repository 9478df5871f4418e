// One sanitiser for configuration, on every path that serves it: bmad://config/current, config-shaped
// files read as resources, inlined in prompts or read from workspaces, and what bmad-run's ported scripts read.
// Secret-looking keys are removed.
import { parse as parseToml, stringify as stringifyToml } from "smol-toml";
import { stringify as stringifyYaml } from "yaml";
import { parseBoundedToml, parseBoundedYaml, parseErrorSummary, pastYamlSize, tooHeavyToParse, TooHeavy } from "../yaml.js";
import { foldPath } from "../workspace/paths.js";
import { lines, showName, SHOWS_AS_NOTHING, trimEnd } from "../lines.js";
import { sha256Hex } from "../workspace/installer-manifests.js";
import { shownText, startsWithBom } from "../workspace/file-text.js";

/** What separates a key name's words: `-`, `_`, and `.` or a space as dotted and spaced keys hold them
 *  (`stripe.api.key`, `"api key"`: review 429, such names were served whole). One class: no pattern backtracks on it. */
const SEP = "[-_.\\s]";
/** The same, but a space: a bare word `key` (`Primary Key`, `Sort Key`, a data file's column headers) names no secret
 *  by itself (review 433: a data dictionary's "Primary Key" column made the whole CSV unserved). */
const NAME_SEP = "[-_.]";
// Any key ending in a word "key" (openai_key, signing_key, aws_access_key_id) but BMAD's own project_key (a tracker's
// prefix); not `monkey`, `whiskey`, `hotkey` (review 250).
// Not "author", "authority", "authorship": a document's author is no credential (a CSV or XML column of them is judged
// too); "authorization" and "authorisation" are (review 55: `Authorization` headers were served again).
// One-time-password seeds, recovery codes, Java keystores' passwords, card numbers and social security numbers too (review 54);
// a name ending in pass or pw with nothing between (dbpass, rootpw), creds, a Wi-Fi psk (review 61).
const SECRET_KEY = new RegExp(`(secret|token|password|passwd|passphrase|passcode|passwort|mot${SEP}de${SEP}passe|contrase|pwd|credential|auth(?!or(?!i[sz]))|cookie|bearer|dsn|conn(ection)?${SEP}?str(ing)?|salt|hmac|private${SEP}?key|api${SEP}?key|access${SEP}?key|key${SEP}data|webhook|jwt|mnemonic|seed${SEP}?phrase|(^|${NAME_SEP})keys?(${NAME_SEP}?ids?)?$|${NAME_SEP}key${NAME_SEP}?\\d+$|(^|${NAME_SEP})(pat|pem|pin)$|(^|${NAME_SEP})(t?otp|ssn)(${NAME_SEP}|$)|otp${SEP}?seed|recovery${SEP}?codes?|(store|key)${SEP}?pass|cvv|card${SEP}?num(ber)?|pass$|pw$|pswd|creds?$|psk)`, "i");
const NOT_SECRET = new Set(["project_key"]);
/** Names that end in `key` and name an identifier where their value is one (`space_key='PROD'` in BMAD's own
 *  customize.toml examples: review 194); with a credential-shaped value they are secrets' names still (review 200). */
const IDENTIFIER_KEYS = new Set(["space_key", "issue_key", "sort_key", "partition_key", "cache_key", "foreign_key"]);
const IDENTIFIER_VALUE = /^[A-Z][A-Z0-9_-]{0,31}$/;
const namesIdentifier = (name: string, value: string) => IDENTIFIER_KEYS.has(name.toLowerCase()) && IDENTIFIER_VALUE.test(value);
/** A setting that names a key or says what a secret is for (`jira_project_key`, `epic_key`, `sort_keys`, `auth_method`,
 *  `session_cookie_name`) with a short plain word for its value (`BILL`, `EPIC-1`, `oauth`, `sid`): no secret (review
 *  250). Not a key of a kind that is one (`api_key`, `signing_key`), nor a secret's own name (`password: hunter`). */
const PLAIN_WORD = /^[a-z]+(_[a-z]+)*$|^[A-Z]+(-\d+)?$/;
const CREDENTIAL_KEY = new RegExp(`(api|private|access|secret|signing|encryption|master|license|licence|session|client|app|auth|ssh|gpg|pgp|deploy|crypt|hmac|jwt|webhook)${SEP}?keys?$`, "i");
const ENDS_IN_KEY = new RegExp(`${NAME_SEP}keys?$`, "i");
function namesPlainSetting(name: string, value: unknown): boolean {
  if (typeof value !== "string" || value.length > 16 || !PLAIN_WORD.test(value)) return false;
  return ENDS_IN_KEY.test(name) ? !CREDENTIAL_KEY.test(name) : DESCRIBES.test(name) && !/(pass|secret|token|credential|hash|header)/i.test(name.replace(DESCRIBES, ""));
}
/** A module or file pattern mapped to paths (tsconfig's `"@auth/*": ["src/auth/*"]`, `"@tokens": ["src/tokens.ts"]`, an
 *  exports map's `"./auth": "./dist/auth.js"`, Jest's `"^@auth/(.*)$": "<rootDir>/src/auth/$1"`): names files, whatever
 *  words it holds. A value is a path by its shape, not by a `/` (review 270: a base64 key under aws/secret_access_key)
 *  nor a `*` or `$1` in it (review 290: `/prod/db/password: "Xk9/m*Qz7Lp2"`): relative (`./`, `../`, `<rootDir>/`), a
 *  source file's name, or a wildcard where the key has one. */
const PATH_WORD = /^[\w.@*~$()^\\<>{}|-]*$/;
const SOURCE_FILE = /\.(d\.ts|[cm]?[jt]sx?|json|vue|svelte|css|scss|less|html?|md|mdx)$/;
const isPathLike = (name: string) => (value: unknown) =>
  typeof value === "string" && value.includes("/") && value.split("/").every((part) => PATH_WORD.test(part)) &&
  (/^(\.{1,2}|<\w+>)\//.test(value) || SOURCE_FILE.test(value) || (name.includes("*") && /\/\*$/.test(value)));
const namesPaths = (name: string, value: unknown) => /[/*]|^[@~#]/.test(name) && (isPathLike(name)(value) || (Array.isArray(value) && value.length > 0 && value.every(isPathLike(name))));
/** A key that counts tokens: `max_tokens`, `maxOutputTokens`, `token_budget`, `context_tokens_limit`. */
const TOKEN_COUNT = new RegExp(`^(?:(?:max|min)${SEP}?)?(?:(?:output|input|context|completion|prompt|thinking)${SEP}?)?tokens?(?:${SEP}?(?:limit|budget|count|max|min))?$`, "i");
/** Tokens whose shape says what they are (OpenAI, Stripe, GitHub, GitLab, Slack, Hugging Face, npm, AWS, Google, a JWT,
 *  PyPI, DigitalOcean, HashiCorp Vault, Databricks, Postman, Grafana, Supabase, Doppler, Terraform Cloud, Sentry, Fly.io,
 *  an Azure storage key, Groq, xAI, a Slack app token; review 56: Stripe webhook secrets, Replicate, Tailscale, New Relic,
 *  Mapbox, Mailgun, Twilio, Notion's older, Resend, a Discord bot's; review 64: GitLab's runner and deploy tokens,
 *  Docker Hub, Heroku), each at a word's start (holdsToken). */
const KNOWN_TOKEN =
  /^(sk-[A-Za-z0-9_-]{16,}|(sk|rk)_(live|test)_[A-Za-z0-9]{10,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{16,}|gl(rt|dt|ptt|ft|imt|oas|cbt|soat)-[A-Za-z0-9_-]{20,}|dckr_pat_[A-Za-z0-9_-]{20,}|HRKU-[A-Za-z0-9_-]{20,}|xox[abcpr]-[A-Za-z0-9-]{10,}|xapp-\d-[A-Za-z0-9-]{20,}|gsk_[A-Za-z0-9]{40,}|xai-[A-Za-z0-9]{40,}|hf_[A-Za-z0-9]{30,}|npm_[A-Za-z0-9]{30,}|lin_api_[A-Za-z0-9]{20,}|ATATT[A-Za-z0-9_=-]{20,}|GOCSPX-[A-Za-z0-9_-]{20,}|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}|shp(at|ss|ca)_[a-f0-9]{20,}|ntn_[A-Za-z0-9]{20,}|\d{8,10}:AA[A-Za-z0-9_-]{30,}|LS0tLS1CRUdJTi(?!BDRVJU|BQVUJMSUMg)|A(KI|SI)A(?![0-9A-Z]{9}EXAMPLE)[0-9A-Z]{16}|ya29\.[A-Za-z0-9_-]{30,}|1\/\/0[A-Za-z0-9_-]{40,}|pplx-[A-Za-z0-9]{40,}|pcsk_[A-Za-z0-9_]{40,}|lsv2_(pt|sk)_[a-f0-9]{32}|figd_[A-Za-z0-9_-]{30,}|nfp_[A-Za-z0-9]{30,}|rubygems_[a-f0-9]{48}|oy2[a-z0-9]{43}|ATBB[A-Za-z0-9]{28,}|sgp_[A-Za-z0-9]{40,}|sq0(atp|csp)-[A-Za-z0-9_-]{22,}|EAAA[A-Za-z0-9]{60,}|ops_eyJ[A-Za-z0-9_-]{20,}|[a-f0-9]{32}-us\d{1,2}\b|[A-Za-z0-9_~.-]{3}8Q~[A-Za-z0-9_~.-]{31,34}|AIza[0-9A-Za-z_-]{30,}|pypi-AgE[A-Za-z0-9_-]{40,}|do[opr]_v1_[a-f0-9]{64}|hv[sb]\.[A-Za-z0-9_-]{24,}|dapi[a-f0-9]{32}|PMAK-[a-f0-9]{24}-[a-f0-9]{34}|gl(sa|c)_[A-Za-z0-9+/=_]{32,}|sbp_[a-f0-9]{40}|dp\.(pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{40,}|[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_-]{60,}|sntry[su]_[A-Za-z0-9+/=_-]{50,}|fo1_[A-Za-z0-9_-]{40,}|fm2_[A-Za-z0-9+/=_-]{40,}|[A-Za-z0-9+/]{86}==|eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.|whsec_[A-Za-z0-9]{24,}|r8_[A-Za-z0-9]{30,}|tskey-[a-z]+-[A-Za-z0-9]{10,}-[A-Za-z0-9]{20,}|NRAK-[A-Z0-9]{27}|sk\.eyJ[A-Za-z0-9_-]{20,}|key-[a-f0-9]{32}|SK[0-9a-f]{32}|secret_[A-Za-z0-9]{43}|re_[A-Za-z0-9]{8}_[A-Za-z0-9]{20,}|[MNO][A-Za-z0-9]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38})/;
/** Characters a token is found glued after (`**ghp_…**`, `_sk-ant-…_`, `1.ghp_…`, `\ghp_…`, `#ghp_…`: review 54);
 *  not `/` or `+`, inside URLs' paths and base64, where a token's shape turns up by chance. */
const GLUE = new Set("*_~#\\.!?,:;>|=-");
/** How much of a word past a glued start is tried, so each try is bounded: an Azure key's shape needs 88 characters,
 *  a JWT's its header and the start of its claims (a glued JWT with a longer header goes unseen; a bare one does not). */
const TOKEN_WINDOW = 128;
const isAlnum = (c: string) => /[A-Za-z0-9]/.test(c);
/** A GLUE character followed by a letter or digit: where a glued token may start. */
const GLUED_START = /[*_~#\\.!?,:;>|=-][A-Za-z0-9]/;

/** Whether a word holds a known token: at its start, after any Markdown before it, glued after a character (each such
 *  start tried on a bounded window: linear), or base64-encoded whole (a Kubernetes Secret's `data:`), a credential URL
 *  or a private key so encoded too. */
function holdsToken(word: string): boolean {
  if (KNOWN_TOKEN.test(word) || (!isAlnum(word[0] ?? "a") && KNOWN_TOKEN.test(word.replace(/^[^A-Za-z0-9]+/, "")))) return true;
  // Only where a glue character is followed by a letter or digit (most words have none: the loop is skipped).
  if (GLUED_START.test(word)) {
    for (let i = 1; i < word.length; i++) {
      if (GLUE.has(word[i - 1]!) && isAlnum(word[i]!) && KNOWN_TOKEN.test(word.slice(i, i + TOKEN_WINDOW))) return true;
    }
  }
  if (word.length < 40 || word.length > 200 || !/^[A-Za-z0-9+/]+={0,2}$/.test(word)) return false;
  try {
    // A connection string or a key encoded so too (review 429: `cG9zdGdyZXM6Ly9…` is postgres://admin:hunter2@db/prod).
    const decoded = atob(word);
    return KNOWN_TOKEN.test(decoded) || isCredentialUrl(decoded) || holdsPrivateKey(decoded);
  } catch {
    return false;
  }
}

/** A private key: PEM's (OpenSSH's too), an armored PGP block, a PuTTY key file, an age identity (review 54). A PEM or
 *  PGP marker counts where a key's body starts on the next line (after any `Name: value` headers and a blank line; a
 *  line break may be a JSON string's `\n`), not alone: a design doc's placeholder block (`<base64 body>`) or a
 *  sentence naming the marker is no key (review 433: the bridge hid such a doc from every tool). Each marker is looked
 *  past once, over a bounded window: linear. */
export function holdsPrivateKey(text: string): boolean {
  if ((text.includes("PuTTY-User-Key-File-") && text.includes("Private-Lines:")) || /AGE-SECRET-KEY-1[02-9AC-HJ-NP-Z]{58}/.test(text)) return true;
  for (let at = text.indexOf("PRIVATE KEY"); at >= 0; at = text.indexOf("PRIVATE KEY", at + 1)) {
    if (KEY_BODY.test(text.slice(at, at + 400))) return true;
  }
  return false;
}
const BREAK = "(?:\\r?\\n|\\\\n)";
const KEY_BODY = new RegExp(`^PRIVATE KEY(?: BLOCK)?-----${BREAK}(?:[A-Za-z-]{1,40}: [^\\n]{0,200}${BREAK})*${BREAK}?[A-Za-z0-9+/]`);

/** A key's word in camelCase (`openaiKey`, `stripeKeyId`, `AWSKey`), where SECRET_KEY, read in any case, needs a word
 *  separator before it. */
const CAMEL_KEY = /[A-Za-z0-9]Keys?(Ids?)?$/;
const namesSecret = (name: string) => (SECRET_KEY.test(name) || CAMEL_KEY.test(name)) && !NOT_SECRET.has(name.toLowerCase());
/** What stands in for a secret rather than being one: `${env.X}`, `{{ secrets.X }}`, `<your-key>`, `***`, `sk-...`; a
 *  template's marks only around the whole value (review 207: `Ab{{9xk2Lm!q` is a password). */
const PLACEHOLDER = /^\*+$|^x+$|^your[-_]|\.\.\.|…|^\$\{[^{}]*\}$|^\{\{.*\}\}$|^<.*>$|^%\w+%$|^(redacted|placeholder|example|todo|tbd)$|change[-_]?me|replace[-_]?me|^dev[-_]|x{8,}/i;
/** What to do in a secret's place, in lower-case words (`replace-with-64-random-bytes`, `generate-with-openssl-rand-hex-32`). */
const INSTRUCTION = /^(generate|replace|set|put|paste|enter|insert|fill|use|create)(-[a-z0-9]+)+$/;
/** A value under a secret's name that is one: not empty, a placeholder, an instruction, a flag or a count (`auth_required,yes`). */
function isGivenSecret(value: string): boolean {
  const v = value.trim();
  return v !== "" && !/^(true|false|yes|no|on|off|none|null|nil|n\/a|-|\d{1,7})$/i.test(v) && !PLACEHOLDER.test(v) && !INSTRUCTION.test(v);
}

/** A password a doc shows in its place: a word for one, a placeholder, a variable (`$PGPASSWORD`, `%24X`, `%X%`). */
const isPlaceholderPassword = (password: string) => /^(pass(word)?|pwd|secret|guest)$/i.test(password) || /^(\$|%24)[A-Za-z_]\w*$/.test(password) || PLACEHOLDER.test(password);
/** A local development host: a password for one is a developer's own database's (review 68: docs' `postgres:postgres@localhost`). */
const LOCAL_HOST = /^(localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\])(:\d+)?$/i;

/** Query parameters that carry a credential (?access_token=, an Azure SAS sig=). */
const SECRET_QUERY = new Set(["access_token", "token", "sig", "signature", "api_key", "apikey", "key", "secret", "password", "client_secret"]);
/** Chat webhooks: the URL is the secret. */
const WEBHOOK = /^((canary\.|ptb\.)?discord(app)?\.com\/api\/webhooks\/|hooks\.slack\.com\/services\/|outlook\.office(365)?\.com\/webhook|[a-z0-9.-]*webhook\.office\.com\/)/i;

/** A URL that carries a password (postgres://app:hunter2@db/…), a token as its user (a Sentry DSN,
 *  https://ghp_…@github.com) or in its query, or is itself the secret (a chat webhook). Judged by parts, in linear time. */
function isCredentialUrl(word: string): boolean {
  const scheme = /^[a-z][a-z0-9+.-]{0,30}:\/\//i.exec(word);
  if (!scheme) return false;
  const rest = word.slice(scheme[0].length);
  const cut = rest.search(/[/?#]/);
  let authority = cut < 0 ? rest : rest.slice(0, cut);
  // A password holding "/", "?" or "#" unescaped, as people paste one (review 112: postgres://admin:Xk9#pL2@db went
  // up): `user:` before the first of them, no port after the colon, and an "@" after them end the user's part there.
  const userEnd = rest.indexOf(":");
  const late = cut < 0 || authority.includes("@") ? -1 : rest.indexOf("@", cut);
  if (late > 0 && userEnd >= 0 && userEnd < cut && !/^\d+([/?#]|$)/.test(rest.slice(userEnd + 1))) {
    const end = rest.slice(late).search(/[/?#]/);
    authority = end < 0 ? rest : rest.slice(0, late + end);
  }
  const at = authority.lastIndexOf("@");
  const user = at < 0 ? "" : authority.slice(0, at);
  // A password a doc's example shows in its place (`postgres://user:password@localhost/app`) is none (review 56).
  const colon = user.indexOf(":");
  // A password that repeats its user (`postgres:postgres`), or one for a local host, is an example's (review 68).
  const example = colon >= 0 && (isPlaceholderPassword(user.slice(colon + 1)) || user.slice(colon + 1) === user.slice(0, colon) || LOCAL_HOST.test(authority.slice(at + 1)));
  if (KNOWN_TOKEN.test(user) || (colon < 0 ? user.length >= 20 : !example)) return true;
  if (WEBHOOK.test(rest)) return true;
  const query = rest.indexOf("?");
  return query >= 0 && hasSecretQuery(rest.slice(query + 1));
}

/** A login and its password without a URL around them (`ada@example.com:Zq9vR2xLm7Tt4Kp1SECRETB`: review 429), its
 *  password judged as a URL's (isPlaceholderPassword, not its user's) and as a generated one, mixed and changing kind
 *  often: a time (`10:30`), a host's port, an image's tag or digest (`node:20-alpine`, `sha256:4f9c…`), a Windows path,
 *  a name (`MyApp:Service2Name`) are none. One colon. */
function isBareLogin(word: string): boolean {
  const colon = word.indexOf(":");
  if (colon < 2 || word.indexOf(":", colon + 1) >= 0) return false;
  const [user, password] = [word.slice(0, colon), word.slice(colon + 1)];
  // Changing kind every other character at least, as a generated one does: a name (`MyApp:Service2Name`) changes less.
  return /^[\w.+-]+(@[\w.-]+)?$/.test(user) && password !== user && !isPlaceholderPassword(password) && isMixedAsPassword(password) && kindChanges(password) * 2 >= password.length && !standsForValue(password);
}

/** Whether a query string (`sv=…&sig=…`) has a parameter that carries a credential. */
function hasSecretQuery(query: string): boolean {
  // Its value judged as a secret's (`?token=<token>`, `?key=YOUR_API_KEY`, an empty one are none: review 68); the
  // fragment is no query.
  return query.split("#")[0]!.split(/[&;]/).some((pair) => {
    const eq = pair.indexOf("=");
    const value = pair.slice(eq + 1);
    return eq > 0 && SECRET_QUERY.has(pair.slice(0, eq).toLowerCase()) && isGivenSecret(value) && !/[<>{}$]/.test(value) && !/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/.test(value);
  });
}

/** Whether a string value holds a secret by its shape, under any key or none (a list item, a comment, a sentence):
 *  a credential URL, a known token, `NAME_KEY=…`, a PEM private key, an Authorization header. Word by word: linear. */
/** An Authorization header's line. Spaces on one line only: `^\s*` under /m went from each line start over every line
 *  break after it, and a member's JSON value of 196,608 escaped line breaks held a shared project 51 s a read (review 227). */
const AUTHORIZATION_LINE = /^[^\S\n\r\u2028\u2029]*(proxy-)?authorization[^\S\n\r\u2028\u2029]*:/im;
export function isSecretValue(value: unknown): boolean {
  if (typeof value !== "string") return false;
  if (AUTHORIZATION_LINE.test(value) || /\b(Bearer|Basic|Token|Digest|NTLM|Negotiate)\s+[A-Za-z0-9._~+/=-]{8}/.test(value) || holdsPrivateKey(value)) return true;
  let named = ""; // the secret's name the words before assigned (`--token X`, `X-Api-Key: X`, `"password": "X"`)
  let lastName = ""; // the word before was a secret's name, bare (`"password"` before a `:`)
  for (const word of value.split(/[\s"'`<>()[\]{},;]+/)) {
    if (!word) continue;
    if (word === ":" || word === "=") {
      named = lastName;
      continue;
    }
    if (named && !namesIdentifier(named, word)) return true;
    if (holdsToken(word) || (word.includes("://") && isCredentialUrl(word.slice(word.search(/[a-z][a-z0-9+.-]{0,30}:\/\//i)))) || isBareLogin(word)) return true;
    // A query string without its URL (an Azure SAS token: sv=…&sig=…).
    if (word.includes("&") && hasSecretQuery(word)) return true;
    const eq = word.search(/[=:]/);
    const name = (eq < 0 ? word : word.slice(0, eq)).replace(/^-{1,2}/, "");
    const isName = /^[A-Za-z_][A-Za-z0-9_.-]*$/.test(name) && namesSecret(name);
    if (isName && eq > 0 && eq < word.length - 1 && !namesIdentifier(name, word.slice(eq + 1))) return true; // NAME=value, --name=value, name:value
    // A flag or a name with its `:` or `=` names what follows; a bare word in prose ("to pin a value") does not.
    named = isName && (eq === word.length - 1 || word.startsWith("-")) ? name : "";
    lastName = isName && eq < 0 ? name : "";
  }
  return false;
}

/** Whether prose holds a secret by its shape alone (a known token, a private key, a credential URL, a secret assigned),
 *  not by the words around it: a PRD says "password:" where it means the field, never the secret. Word by word and line
 *  by line: linear. */
export function holdsShapedSecret(text: string): boolean {
  // Judged as read: a format character (a zero-width space in a token) shows as nothing, and a reader drops it (review
  // 321: `ghp_…\u200b…` passed as no token). Looked for first: most text holds none.
  if (SHOWS_AS_NOTHING_ONE.test(text)) text = text.replace(SHOWS_AS_NOTHING, "");
  if (holdsPrivateKey(text) || linesGiveSecret(text) || quotesSecret(text) || wordsAssignSecret(text) || fenceGivesSecret(text) || inputGivesSecret(text)) return true;
  // A token after its name (`STRIPE_SECRET_KEY=sk_live_…`, `key: AKIA…`) too (review 51).
  return text.split(/[\s"'`<>()[\]{},;|]+/).some((word) =>
    (word.includes("://") && isCredentialUrl(word.slice(word.search(/[a-z][a-z0-9+.-]{0,30}:\/\//i)))) || (/[=:]/.test(word) ? word.split(/[=:]+/).some(holdsToken) : holdsToken(word)) || (word.includes(":") && KNOWN_TOKEN.test(word)));
}


const SHOWS_AS_NOTHING_ONE = new RegExp(SHOWS_AS_NOTHING.source, "u");

/** Where text holds what looks like a secret by its shape alone (holdsShapedSecret), or undefined: the first line that
 *  holds one alone and on it the first word that does, named by its start only (an answer must not repeat the secret).
 *  Where the secret is read only with the lines around it: in a settings fence, the line that gives it and the fence's
 *  opening line (`fence`); else the first line whose addition makes the text read as holding one (`withAbove`: a table's
 *  row under a `password` column, a private key's block). Looked for only once a secret was found: a write's common
 *  path is the one holdsShapedSecret. */
export function shapedSecretAt(text: string): { line?: number; word?: string; fence?: number; withAbove?: true } | undefined {
  if (!holdsShapedSecret(text)) return undefined;
  const all = lines(text);
  const at = all.findIndex((line) => holdsShapedSecret(line));
  if (at < 0) {
    const fenced = fenceSecretAt(text);
    if (fenced) return { line: fenced.line + 1, fence: fenced.fence + 1 };
    // Found by halving, a whole judging per half: past LINE_SEARCHED, not looked for (review 323: 1 MiB of short lines
    // held the project's object 1.7 s for a refusal's line number).
    return text.length <= LINE_SEARCHED ? { line: firstLineGivingSecret(text), withAbove: true } : {};
  }
  const word = all[at]!.split(/\s+/).find((w) => holdsShapedSecret(w));
  // At most 8 characters and never half of it: `ghp_abcd…`, `password…` of `password=…`.
  return { line: at + 1, ...(word ? { word: `${word.slice(0, Math.min(8, Math.floor(word.length / 2)))}…` } : {}) };
}

/** The most text whose line a secret read only with the lines above it is looked for in (shapedSecretAt). */
const LINE_SEARCHED = 64 * 1024;

/** The first line (from 1) of `text`, which holds a shaped secret, whose lines up to it do: by halving, so a few reads
 *  of the text (lines up to `lo` hold none, up to `hi` hold one, whatever readings the lines between start or end). */
function firstLineGivingSecret(text: string): number {
  const ends = [...text.matchAll(/\r\n|[\n\r\u2028\u2029]/g)].map((m) => m.index);
  ends.push(text.length);
  let lo = 0;
  let hi = ends.length;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (holdsShapedSecret(text.slice(0, ends[mid - 1]))) hi = mid;
    else lo = mid;
  }
  return hi;
}

/** Where shapedSecretAt found a secret, as an answer names it: ` (line 3, "ghp_abcd…")`, ` (line 9, …the fence on line
 *  5…)`, or nothing. */
export function secretPlace(at: { line?: number; word?: string; fence?: number; withAbove?: true }): string {
  // The word's start with what shows as nothing written out (review 324: a raw U+2060 in the answer).
  const parts = [...(at.line ? [`line ${at.line}`] : []), ...(at.word ? [JSON.stringify(showName(at.word))] : [])];
  if (at.fence) parts.push(`read as a setting: the fence opened on line ${at.fence} makes the lines in it read as settings, so close it where they end`);
  if (at.withAbove) parts.push("read with the lines above it");
  return parts.length ? ` (${parts.join(", ")})` : "";
}

/** Why a workspace keeps no file at `path` holding `text`, or undefined: text served whole (no config: servedAsConfig)
 *  that holds what looks like a secret by its shape, by the test push holds a file back by (review 250: a token in a
 *  doc was shown to every member, where push and remember_structured refused it). Named by line, as memory is. */
export function secretKeptOut(path: string, text: string): string | undefined {
  if (servedAsConfig(path, text)) return undefined;
  // Judged whole, an append and a memlog entry too: a line a change adds or keeps can change how others read (review
  // 306 and 308: a row under a `password` column far above, a value in a settings fence, a PuTTY key's two halves, a
  // Gherkin block before a blank line all passed when only the added lines, or those with some context, were judged).
  const at = shapedSecretAt(text);
  if (!at) return undefined;
  return `${path} would hold what looks like a secret${secretPlace(at)}: a project's files are shown to its members and pulled with it, so keep the secret out. Nothing was written: replace it with a placeholder such as <your-token> (and say where the secret is kept).`;
}

/** `"name": "value"` anywhere, as JSON or a Python dict in a note writes it, several on a line (`{"db_password":"…"}`).
 *  Each try starts at a quote and stops at the next: linear. */
const QUOTED_PAIR = /["']([A-Za-z_][\w.-]*)["']\s*:\s*["']([^"'\\\n]*)["']/g;
const quotesSecret = (text: string) => [...text.matchAll(QUOTED_PAIR)].some(([, name, value]) => namesSecretField(name!) && isAssignedValue(value!, ":"));

/** `NAME=value` inside a word (`docker run -e POSTGRES_PASSWORD=…`, `--from-literal=password=…`, `$env:DB_PASSWORD="…"`,
 *  a connection string's `;AccountKey=…==;`), each `=` by the name before it and the value after it, and `setx NAME value`
 *  (review 56). One pass over each word: linear. */
function wordsAssignSecret(text: string): boolean {
  const words = text.split(/\s+/);
  // Only ASCII letters lowercase to these: a text without the word gives no `setx` (most lines: none is looked for).
  const setx = /setx/i.test(text);
  for (let w = 0; w < words.length; w++) {
    if (setx && w >= 2 && words[w - 2]!.toLowerCase() === "setx" && namesSecretField(words[w - 1]!) && isAssignedValue(unquoted(words[w]!), "=")) return true;
    if (!words[w]!.includes("=")) continue;
    const parts = words[w]!.split("=");
    for (let i = 0; i + 1 < parts.length; i++) {
      const name = trailingName(parts[i]!);
      if (name && namesSecretField(name) && isAssignedValue(unquoted(parts[i + 1]!).split(/[;&]/)[0]!, "=")) return true;
    }
  }
  return false;
}
/** A word a secret's name holds, looked for once a line before the readings that need one. */
const SECRET_HINT = /pass|pw|pswd|contrase|recovery|secret|token|key|cred|auth|cookie|bearer|dsn|conn|salt|hmac|webhook|jwt|mnemonic|seed|otp|ssn|cvv|card|psk|pin|pat|pem/i;

/** A secret assigned in code, its value quoted (`const dbPassword = "…";`, `$password = '…'`, `PASSWORD := "…"`: review 68).
 *  Each identifier tried once: linear. */
const CODE_ASSIGNMENT = /(?<![\w$])\$?([A-Za-z_][\w]*)\s*(?::=|=|->)\s*["'`]([^"'`\n]{6,200})["'`]/g;
const codeGivesSecret = (line: string) => [...line.matchAll(CODE_ASSIGNMENT)].some(([, name, value]) => namesSecretField(name!) && !TEST_VALUE.test(value!) && isAssignedValue(value!, ":"));

/** A secret's noun in prose, then within three words a value as mixed as a password or a key's own shape (`The staging
 *  DB password is Winter2024!xQ`, `api key 4f9c…`: review 68), or a password's noun, a label of up to four more words
 *  ended by `:` or `is` and such a value (reviews 204, 207). Word by word, each noun a bounded window: linear. */
const SECRET_NOUNS = new Set(["password", "passwd", "passphrase", "token", "secret", "key", "apikey", "credential", "credentials"]);
/** The nouns whose label of a few words gives a password (`The wifi password for the office: …`: review 204). */
const PASSWORD_NOUNS = new Set(["password", "passwd", "passphrase", "credentials"]);
/** What each of SECRET_NOUNS holds, lowercased and without what is not a letter: a line without one names none. */
const SECRET_NOUN_PART = /pass|token|secret|key|credential/;
function proseGivesSecret(line: string): boolean {
  // Lowercased and stripped as each word is below, the whole line at once (most lines name no secret's noun).
  if (!SECRET_NOUN_PART.test(line.toLowerCase().replace(/[^a-z\s]/g, ""))) return false;
  const words = line.trim().split(/\s+/);
  return words.some((word, i) => {
    if (!SECRET_NOUNS.has(word.toLowerCase().replace(/[^a-z]/g, "")) || isPublicKey(`${words[i - 2] ?? ""} ${words[i - 1] ?? ""}`)) return false;
    // The value right after the noun, or after a word that gives it (`is`, `=`, `:`): `token refresh race <hash>` gives none.
    const value = CONNECTOR.test(words[i + 1] ?? "") ? words[i + 2] : words[i + 1];
    if (value !== undefined && !TEST_VALUE.test(value) && isAssignedValue(proseValue(value), ":")) return true;
    // Or after a label a password's noun starts (`The wifi password for the office: Blue-Elephant-77`, `The root password
    // for the staging box is Xy7!kq9Lm#2.`): a design token's label (`token for the primary: Blue-500`) says no
    // password, nor one that says what the password is like (`Password rules for signup: Min12+Upper+Digit`: DESCRIBES).
    if (!PASSWORD_NOUNS.has(word.toLowerCase())) return false;
    const label = words.slice(i + 1, i + 6);
    const end = label.findIndex((w) => w.endsWith(":") || /^(is|was|=)$/i.test(w));
    if (end < 0 || label.slice(0, end + 1).some((w) => DESCRIBES_WORD.test(w.replace(/[^A-Za-z]/g, "")))) return false;
    const labelled = proseValue(words[i + 2 + end] ?? "");
    // Credentials are as often a role or a method (`credentials for AWS: IAM-Role-v2`): only a password's own noun plainly.
    return (!TEST_VALUE.test(labelled) && isAssignedValue(labelled, ":")) || (word.toLowerCase() !== "credentials" && endsOnPassword(words, i + 2 + end));
  });
}
/** Whether the sentence ends on the word at `at`, a password however plain (review 359: `the prod db password is hunter2`,
 *  `… is correct-horse-battery-staple` were served): four characters or more, no placeholder, and not a plain word or two
 *  that says what a password is like (`is required`, `is case-sensitive`). A sentence that goes on gives none (`is stored
 *  in the vault`, `is rotated every 90 days`). */
function endsOnPassword(words: string[], at: number): boolean {
  const word = words[at];
  if (word === undefined || (at < words.length - 1 && !/[.,;)"'`]$/.test(word))) return false;
  const value = trimEnd(unquoted(word), ".,;)");
  return value.length >= 4 && !/^[A-Za-z]+(-[A-Za-z]+)?$/.test(value) && !TEST_VALUE.test(value) && isGivenSecret(value) && !standsForValue(value);
}
/** A word of prose as a value: without its quotes and a sentence's end (a comma is a cut call's: `header.slice(start,`). */
const proseValue = (word: string) => trimEnd(unquoted(word), ".;");
const CONNECTOR = /^(is|was|=|:|-|—|→|->|of)$/i;
/** What a key is when it is no secret: a signing key's fingerprint, a public or host key (review 69: `GPG key: F3EF…`), a
 *  keyboard's (review 207: `Shortcut key: Ctrl+Alt+N`; not `access`, as AWS's secret access key is one). */
const PUBLIC_KEY = /\b(gpg|pgp|public|publishable|fingerprint|host|ssh|signing|cache|redis|primary|foreign|sort|partition|object|unique|flag|design|storage|idempotency|s3|hotkey|shortcut|accesskey)\b/i;
/** A label of a key that is no secret: a JWT's or an HMAC's signing key is a shared secret (review 207). */
const isPublicKey = (label: string) => PUBLIC_KEY.test(label) && !/\b(jwt|hmac)\b/i.test(label);

/** Whether a line gives a secret a value, read as a person writes notes: without Markdown's emphasis and code marks
 *  (`**Password:** …`), a label of a few words (`DB password: …`), several pairs on a line (`Key ID: … Secret: …`),
 *  a table's cell under a secret's column, a client's password flag, an HTTP credential, a quoted assignment in code, a secret's noun in prose (reviews 66 and 68). Line by line:
 *  linear. */
function linesGiveSecret(text: string): boolean {
  let columns: boolean[] | undefined; // the secret columns of the table being read
  const all = lines(text);
  let scenario = false; // in a Gherkin scenario, whose passwords are test data (review 69)
  for (const [i, raw] of all.entries()) {
    if (!/\S/.test(raw)) {
      columns = undefined;
      scenario = false;
      continue;
    }
    // A table's separator row is no row of values (review 69: its dashes read as a password).
    if (/^[\s:|-]+$/.test(raw)) continue;
    const line = raw.replace(/\*\*|__|`/g, "");
    if (GHERKIN.test(line)) scenario = true;
    // Each reading only where its mark is (a line of a million has to be read quickly).
    const colon = line.includes(":");
    const named = SECRET_HINT.test(line);
    if ((named && (assignsSecret(line) || (colon && (labelGivesSecret(line) || pairsGiveSecret(line))) || codeGivesSecret(line) || (!scenario && proseGivesSecret(line)))) || tableGivesSecret(line) || flagGivesPassword(line) || headerGivesSecret(line)) return true;
    if (!scenario && line.includes(" / ") && loginGivesPassword(line)) return true;
    if (scenario) continue;
    if (!line.trimStart().startsWith("|")) columns = undefined;
    else if (/^[\s:|-]+$/.test(all[i + 1] ?? "") && (all[i + 1] ?? "").includes("-")) columns = cellsOf(line).map((cell) => SECRET_COLUMN.test(cell) && /^[A-Za-z_][\w .-]*$/.test(cell) && namesSecretField(cell.replace(/\s+/g, "_")));
    else if (columns?.some(Boolean) && cellsOf(line).some((cell, k) => columns![k] && !/\s/.test(cell) && !ENV_NAME.test(cell) && isAssignedValue(unquoted(cell), ":"))) return true;
  }
  return false;
}
/** A fenced block of a settings language (```yaml, json, toml, ini, properties, env, xml): a key that names a secret
 *  given a value in it is a config's secret, however plain the value (review 102: a compose file's
 *  `POSTGRES_PASSWORD: acmeprod2024` in an architecture doc went, where the same text as a .yaml file is held); a key
 *  that says what a secret is for (`password_policy`), a placeholder or a variable's name is none, as in a design doc's
 *  example. One pass over the lines: linear. */
const SETTINGS_FENCE = /^(ya?ml|json[c5]?|toml|ini|properties|env|dotenv|conf|cfg|xml)$/i;
const fenceGivesSecret = (text: string) => fenceSecretAt(text) !== undefined;
/** The line (from 0) where a settings fence gives a secret, and the fence's opening line, or undefined. */
function fenceSecretAt(text: string): { line: number; fence: number } | undefined {
  if (!text.includes("```") && !text.includes("~~~")) return undefined;
  let fence: { mark: string; at: number; settings: boolean; xml?: string[] } | undefined; // another language's block: passed over
  for (const [i, line] of lines(text).entries()) {
    if (!fence) {
      const open = /^\s*(```+|~~~+)\s*([\w.+-]*)/.exec(line);
      if (open) fence = { mark: open[1]!, at: i, settings: SETTINGS_FENCE.test(open[2]!), ...(/^xml$/i.test(open[2]!) ? { xml: [] } : {}) };
      continue;
    }
    if (line.trim().startsWith(fence.mark)) {
      if (fence.xml && xmlHoldsSecrets(fence.xml.join("\n"))) return { line: i, fence: fence.at };
      fence = undefined;
    } else if (fence.xml) fence.xml.push(line);
    else if (fence.settings && fenceLineGivesSecret(line)) return { line: i, fence: fence.at };
  }
  return undefined;
}
function fenceLineGivesSecret(line: string): boolean {
  const kv = KEY_VALUE.exec(line.replace(/^\s*(export\s+|-\s+|[{[,]\s*)*/, ""));
  if (!kv) return false;
  const value = unquoted(kv[2]!.trim().replace(/,$/, "").trim());
  // As a secret is set (`=`): a value with a digit or a symbol, not a placeholder, a path, a type or a test's (review
  // 108: a data model's `password: string`, `auth: jwt`, a local compose's `POSTGRES_PASSWORD: postgres` were held).
  // A flow collection (`[a, b]`, `{x: 1}`) is no value; a password a bracket starts is (review 207: `[Xk9!mQ2pL7z`).
  const collection = /^[[{]/.test(value) && /[\]}]$|[,\s]/.test(value);
  return namesSecretField(kv[1]!.trim()) && isGivenSecret(value) && !ENV_NAME.test(value) && !collection && !TEST_VALUE.test(value) && isAssignedValue(value, "=");
}

/** An HTML form's field named for a secret with a value (`<input name="password" value="…">`). Tag by tag: linear. */
function inputGivesSecret(text: string): boolean {
  if (!/<input/i.test(text)) return false;
  for (const [, , attributes = ""] of text.matchAll(/<(input)(\s[^<>]*)?>/gi)) {
    const attrs = new Map([...attributes.matchAll(XML_ATTRIBUTE)].map(([, name, double, single]) => [name!.toLowerCase(), double ?? single ?? ""]));
    // A button's or a choice's value is its label (review 108: `name="password_reset" value="Reset password"`).
    if (/^(submit|button|reset|radio|checkbox|image)$/i.test(attrs.get("type") ?? "")) continue;
    if ([attrs.get("name"), attrs.get("id")].some((n) => n && namesSecretField(n)) && isGivenSecret(attrs.get("value") ?? "")) return true;
  }
  return false;
}

/** A line of a Gherkin scenario (a story's acceptance criteria, a test design). */
const GHERKIN = /^[\s>*+-]*(scenario( outline)?|examples|background|given|when|then|and|but)\b/i;
/** Values test code and test data give a secret's name. */
const TEST_VALUE = /test|dummy|fake|sample|example|fixture/i;

/** A table's column of secrets by its header: plainer than a key's name (a "Pass" column numbers an editor's passes). */
const SECRET_COLUMN = /pass(word|wd|phrase)|secret|token|api[ _-]?key|credential|private[ _-]?key/i;
/** An environment variable's name (`AUTH0_CLIENT_SECRET`): a secret's name, never its value. */
const ENV_NAME = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/;
const cellsOf = (row: string) => row.trim().replace(/^\||\|$/g, "").split("|").map((cell) => cell.trim());

/** `Label of words: value`, the last word a secret's name (`DB password: …`, `API key: 4f9c…`), judged as `name: value`. */
const LABELLED = /^[\s>*+-]*((?:[A-Za-z][\w.-]*[ \t]+){1,3})([A-Za-z_][\w.-]*)[ \t]*:[ \t]*(.*)$/;
function labelGivesSecret(line: string): boolean {
  const m = LABELLED.exec(line);
  if (!m || !namesSecretField(m[2]!) || isPublicKey(m[1]!)) return false;
  const value = assignedValue(m[3]!);
  return value !== undefined && isAssignedValue(value, ":", m[2]);
}

/** Pairs in a line of prose (`Key ID: AKIA… Secret: wJal…`): a word ending in `:` that names a secret, then its value. */
function pairsGiveSecret(line: string): boolean {
  const words = line.split(/\s+/);
  return words.some((word, k) => word.length > 1 && word.endsWith(":") && namesSecretField(word.slice(0, -1)) && !isPublicKey(`${words[k - 2] ?? ""} ${words[k - 1] ?? ""}`) && isAssignedValue(unquoted(words[k + 1] ?? ""), ":", word.slice(0, -1)));
}

/** A user and a password after a login's label or word (`Login: admin / Xy7!kq9Lm#2`, `Grafana admin: admin /
 *  Gr4f4n4!2024`: review 207; `Admin login admin / Tr0ub4dor&3xyz`: review 250), the password judged as after its own
 *  name. Each `/` once: linear. */
const LOGIN_LABEL = /^(log-?in|sign-?in|creds?|credentials?|accounts?|admin|root|users?|username)s?:?$/i;
function loginGivesPassword(line: string): boolean {
  const words = line.split(/\s+/);
  return words.some((word, k) => word === "/" && k >= 2 && LOGIN_LABEL.test(words[k - 2]!) && /^[\w.@+-]+$/.test(words[k - 1]!) && isAssignedValue(unquoted(words[k + 1] ?? ""), ":", "password"));
}

/** A Markdown table's row giving a secret's name a value in the next cell (`| DB_PASSWORD | Winter2024!xQ |`), judged
 *  as `name: value` (a design doc's `| password | string | hashed |` is none). One split a line: linear. */
function tableGivesSecret(line: string): boolean {
  if (!line.trimStart().startsWith("|")) return false;
  const cells = line.split("|").map((cell) => cell.trim().replace(/^`|`$/g, ""));
  return cells.some((name, i) => {
    if (i + 1 >= cells.length || !/^[A-Za-z_][\w.-]*$/.test(name) || !namesSecretField(name)) return false;
    const value = unquoted(cells[i + 1]!);
    // As `name: value` is (review 68: `| SESSION_SECRET | auto-generated |` is a doc's table of settings).
    return !/\s/.test(value) && isAssignedValue(value, ":", name);
  });
}

/** Clients that take a password glued to `-p` (`mysql -uroot -pWinter2024`), as the word after a flag (`sshpass -p …`,
 *  `redis-cli -a …`), or after the user and a colon (`curl -u admin:…`, HTTPie's `-a`: review 64); `-p` alone asks
 *  for it. Word by word: linear. */
const GLUED_PASSWORD = new Set(["7z", "7za", "mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlshow", "mysqlcheck", "mariadb", "mariadb-dump", "mariadb-admin"]);
// `login` is the client of `docker login`, `podman login`, `helm registry login` (a `-p` of `docker run` is a port).
const PASSWORD_AFTER = new Map([["sshpass", ["-p"]], ["redis-cli", ["-a"]], ["mongosh", ["-p", "--password"]], ["mongo", ["-p", "--password"]], ["sqlcmd", ["-P"]], ["ldapsearch", ["-w"]], ["ldapmodify", ["-w"]], ["ldapadd", ["-w"]], ["zip", ["-P"]], ["openssl", ["-k", "-pass"]], ["login", ["-p", "--password"]]]);
const USER_AND_PASSWORD_AFTER = new Map([["curl", ["-u", "--user", "-U", "--proxy-user"]], ["http", ["-a", "--auth"]], ["https", ["-a", "--auth"]]]);
/** Any client's name, as a word of a line must hold it to be that client: a line without one names none. */
const CLIENT_NAMES = new RegExp([...GLUED_PASSWORD, ...PASSWORD_AFTER.keys(), ...USER_AND_PASSWORD_AFTER.keys()].map((n) => n.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&")).join("|"));
function flagGivesPassword(line: string): boolean {
  if (!CLIENT_NAMES.test(line)) return false;
  const words = line.split(/\s+/);
  let client: string | undefined;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const command = word.slice(word.lastIndexOf("/") + 1).replace(/^`/, "");
    if (GLUED_PASSWORD.has(command) || PASSWORD_AFTER.has(command) || USER_AND_PASSWORD_AFTER.has(command)) {
      client = command;
      continue;
    }
    const given = unquoted(words[i + 1] ?? "");
    // A next flag, or a password read from elsewhere (`-pass env:X`, `file:…`), gives none.
    const next = given.startsWith("-") || /^(env|file|fd|stdin):?/.test(given) ? "" : given;
    if (!client) continue;
    if (GLUED_PASSWORD.has(client) && /^-p./.test(word) && isAssignedValue(unquoted(word.slice(2)), "=")) return true;
    if (PASSWORD_AFTER.get(client)?.includes(word) && isAssignedValue(next, "=")) return true;
    if (USER_AND_PASSWORD_AFTER.get(client)?.includes(word) && next.includes(":") && isAssignedValue(next.slice(next.indexOf(":") + 1), "=")) return true;
  }
  return false;
}

/** An HTTP credential: an Authorization header's (`curl -H "Authorization: Bearer 8f3a…"`), or a bearer token in prose,
 *  by a value with letters and digits (`Bearer tokens`, `Bearer <token>` are none). Each scheme's word once: linear. */
const AUTH_SCHEME = /\b(Bearer|Basic|Token|Digest|NTLM|Negotiate)\s+([A-Za-z0-9._~+/=-]{8,})/g;
function headerGivesSecret(line: string): boolean {
  const header = /authorization\s*:/i.test(line);
  if (!header && !line.includes("Bearer")) return false;
  return [...line.matchAll(AUTH_SCHEME)].some(([, scheme, value]) =>
    (header || (scheme === "Bearer" && value!.length >= 16)) && /\d/.test(value!) && /[A-Za-z]/.test(value!) && !PLACEHOLDER.test(value!));
}

/** A value without the quotes around it, to its closing one. */
const unquoted = (value: string) => value.replace(/^["'`]+/, "").split(/["'`]/)[0]!;
/** The name a part of a word ends with (`$env:DB_PASSWORD` → DB_PASSWORD), read back from its end: linear. */
function trailingName(part: string): string {
  let i = part.length;
  while (i > 0 && /[\w.-]/.test(part[i - 1]!)) i--;
  return part.slice(i).replace(/^[^A-Za-z_]+/, "");
}

/** A line that sets a secret (review 54: `DATABASE_PASSWORD=…` and `aws_secret_access_key = …` in notes went):
 *  `NAME=value`, `export NAME=value`, or `name: value`, the name quoted or dotted too (`"password": …`,
 *  `spring.datasource.password=…`, `X-Api-Key: …`: review 56), and not one that says what a secret is for
 *  (`password_policy`, `key_id`: DESCRIBES). Its value by isAssignedValue. */
const ASSIGNMENT = /^[\s>*+-]*`?(?:export\s+)?["']?([A-Za-z_][\w.-]*)["']?\s*([=:])\s*(.*)$/;
function assignsSecret(line: string): boolean {
  const m = ASSIGNMENT.exec(line);
  if (!m || !namesSecretField(m[1]!)) return false;
  const value = assignedValue(m[3]!);
  if (value !== undefined && isAssignedValue(value, m[2] as "=" | ":", m[1])) return true;
  // A quoted passphrase after a password's own name (`password: "S3cure Pass 2024!"`: review 207): its few words as one,
  // where one mixes letters and digits as a password does (a message, `"Must be 12 chars!"`, mixes none).
  const phrase = /^\s*["']/.test(m[3]!) ? quotedWords(m[3]!) : undefined;
  return phrase !== undefined && PASSWORD_NAME.test(m[1]!) && phrase.length <= 5 && phrase.some((w) => /[A-Za-z]/.test(w) && /\d/.test(w)) && isAssignedValue(phrase.join(""), ":", m[1]);
}
/** A quoted value's words (`"S3cure Pass 2024!"`), or none if it is not quoted whole. */
function quotedWords(rest: string): string[] | undefined {
  const value = rest.trim();
  const close = value.indexOf(value[0]!, 1);
  return close > 0 ? value.slice(1, close).split(/\s+/).filter(Boolean) : undefined;
}

/** A value given to a secret's name that is one: not what stands for one (standsForValue), judged without the brackets
 *  around it (unbracketed). After `=` (how a secret is set), any with a digit or symbol. After `:` (how a design doc
 *  describes a field: `csrf_token: per-session`, `session_cookie: __Host-sid`), a key's own shape, or a word as mixed
 *  as a password (isMixedAsPassword) that is no path, reference, time or setting (joinsPlainWords) nor a compound word
 *  (`HS256-signed`); after a password's own name (`name`), any of 8 with a digit and a symbol (`password: acme#2024!`:
 *  review 207). */
function isAssignedValue(given: string, sign: "=" | ":", name = ""): boolean {
  const whole = trimEnd(given, ",;"); // what ends an entry in code, JSON or YAML (`privateKey: process.env.KEY,`)
  if (whole.length < (sign === "=" ? 6 : 8)) return false; // shorter than any either sign takes, brackets and all
  if (!isGivenSecret(whole) || standsForValue(whole) || CUT_CODE.test(given)) return false;
  const value = unbracketed(whole);
  if (value !== whole && (!isGivenSecret(value) || standsForValue(value))) return false;
  if (sign === "=") return value.length >= 6 && /[^A-Za-z_.]/.test(value);
  // A key's own shape after `:` (`api_key: 4f9c2b…`): long hex, or letters and digits with nothing to join words (review 64).
  if (/^[A-Fa-f0-9]{24,}$/.test(value) || (/^[A-Za-z0-9+/]{24,}={0,2}$/.test(value) && /\d/.test(value) && /[A-Za-z]/.test(value))) return true;
  // Notation, judged without a parenthetical of plain words (`OIDC+PKCE(S256)`, `JWT(RS256)/15m`).
  const said = value.replace(/\([\w.,:/ -]*\)/g, "");
  if (joinsPlainWords(said) || COMPOUND_WORD.test(said)) return false;
  return isMixedAsPassword(said) || (PASSWORD_NAME.test(name) && value.length >= 8 && /\d/.test(value) && /[^\w.-]/.test(value) && !/\s/.test(value));
}
/** A password's own name (`password`, `DB_PASS`, `passwd`, `pwd`), not a token's or a key's. */
const PASSWORD_NAME = /(pass(word|wd|phrase|wort)?|pwd|pw)$/i;
/** Words joined by `-` that end in a lower-case one, as a standard's or an algorithm's adjective does
 *  (`NIST-800-63B-compliant`, `HS256-signed`), where a passphrase's last word is its own (`Blue-Elephant-77`). */
const COMPOUND_WORD = /^(?:[A-Z0-9]+|[A-Z]?[a-z]+)(?:-(?:[A-Z0-9]+|[A-Z]?[a-z]+))*-[a-z]{3,}$/;

/** A word as mixed as a password: three of lower case, upper case, digits and symbols (`-`, `_` and `.` join words,
 *  so they count for none) in 12 characters, all four in 8, or three in 8 changing kind at least six times as a
 *  generated one does (`Xy7kq9Lm2x`; `OAuth2Flow` changes four times); no space (a sentence), nor a publishable key
 *  (`pk_live_…`) (review 56). */
function isMixedAsPassword(value: string): boolean {
  if (/\s/.test(value) || /^pk_(live|test)_/.test(value)) return false;
  const classes = CHARACTER_KINDS.filter((kind) => kind.test(value)).length;
  if (classes < 3 || value.length < 8) return false;
  return classes === 4 || value.length >= 12 || kindChanges(value) >= 6;
}
const CHARACTER_KINDS = [/[a-z]/, /[A-Z]/, /\d/, /[^A-Za-z0-9_.-]/];
/** How often a value changes kind of character (CHARACTER_KINDS) from one to the next, joiners skipped: `IAM-Role-v2`
 *  is three words. */
function kindChanges(value: string): number {
  let changes = 0;
  let last = -1;
  for (const c of value) {
    const kind = CHARACTER_KINDS.findIndex((k) => k.test(c));
    if (kind < 0) continue;
    if (last >= 0 && kind !== last) changes++;
    last = kind;
  }
  return changes;
}

/** What a value stands for rather than is, by its whole shape, never by a character in it (reviews 204, 207: a
 *  password with a `#`, `$`, `%` or a bracket in it, or one a symbol starts or ends, went): code (a call, an index or a
 *  property whole, `os.getenv("X")`, `secrets["db"]`, `Token[]`, `self.token`, `process.env.X!`, a label
 *  `originalPath?:`, or a call cut at its quote or a space: `os.getenv(`, `header.slice(start,`, `True).encode()`: CUT_CODE), a
 *  placeholder whole (`{password}`, `<your-password>`, `${VAR}`, `{{ x }}`, `$DB_PASSWORD`, `$(cmd …)`, `%(pw)s`,
 *  `%env(X)%`), words with placeholders between them (`epic-{selected}-retrospective`), a path of plain words
 *  (`/run/…`, `~/.ssh/…`, `C:\…`), a pattern (`^…$`, `/^…$/`), a URL (judged as one: isCredentialUrl), a CSS colour
 *  (`#2563EB`), a key chord (`Ctrl+Shift+K`) or a validation rule list (`required|min:12`). Each anchored at both ends
 *  and read once: linear. */
const IDENT = "@?[A-Za-z_$][\\w$]*";
/** A call's arguments (`regex(/[A-Z]/)`, `({minLength:12})`), an index's or a type's: names, literals, no password's symbols. */
const ARGS = "[\\w$.,'\"\\s:/-]*";
const CALL_ARGS = "[\\w$.,'\"\\s:/[\\]{}@*+?^-]*";
const MEMBERS = `(?:\\??\\.${IDENT}|\\(${CALL_ARGS}\\)|\\[${ARGS}\\]|<${ARGS}>)`;
const CODE = new RegExp(`^${IDENT}(?:${MEMBERS}+[!:;]?|\\?:)$`);
const CUT_CODE = new RegExp(`^${IDENT}${MEMBERS}*(?:[([<](?:${ARGS},)?|[)\\]]+${MEMBERS}+[!:;]?)$`);
const STANDS_FOR =
  /^(\$\{[^{}]*\}|[#%]\{[^{}]*\}|\{\{.*\}\}|\{%.*%\}|<%.*%>|\{\s*[A-Za-z_][\w.-]*\s*\}|<[A-Za-z_][\w .:/-]*>|\$[A-Za-z_]\w*([.:][A-Za-z_]\w*)*|\$\(.*\)|\$\([a-z][\w.-]*|%\(\w+\)[sd]|%[A-Za-z_][\w.]*(\(.*\))?%|(~|\.{1,2})?(\/[\w.@+-]+)+\/?|\.[\w.-]+|[A-Za-z]:\\[\w\\ .-]*|\/?\^.*\$\/?[a-z]*|[a-z][a-z0-9+.-]*:\/\/.*|#[0-9a-f]{3,8}|(ctrl|cmd|command|control|alt|option|opt|shift|meta|super|win|fn|mod)(\+[^\s+]{1,16})+|[A-Za-z_]+(:[^|\s]*)?(\|[A-Za-z_]+(:[^|\s]*)?)+)$/i;
/** A template's placeholders inside a value (`epic-{selected}-…`, `${HOST}`, `#{id}`, `{{ x }}`, `<%= x %>`), each to its own close. */
const INTERPOLATION = /[$#%]?\{[A-Za-z_][\w.]*\}|[$#%]\{[^{}]*\}|\{\{[^{}]*\}\}|<%[^%]*%>/g;
function standsForValue(value: string): boolean {
  if (STANDS_FOR.test(value) || CODE.test(value)) return true;
  // Plain words with placeholders between them, an f-string's quotes around them.
  const rest = value.replace(INTERPOLATION, "");
  return rest !== value && /^[\w./:@"'`-]*$/.test(rest);
}

/** A value without the brackets around it (review 207: `(password: Xy7!kq9Lm#2)` gave `Xy7!kq9Lm#2)`): a pair around
 *  the whole with no other of its kind inside (`[Xk9!mQ2pL7z]`), an opener at its start or a closer at its end whose
 *  other half is not in it (`<set`, `X)`, `})`). Each kind once: linear. */
const BRACKETS = [["(", ")", /^\(+/], ["[", "]", /^\[+/], ["{", "}", /^\{+/], ["<", ">", /^<+/]] as const;
function unbracketed(value: string): string {
  let v = value;
  for (const [open, close, openers] of BRACKETS) {
    if (v.length >= 2 && v.startsWith(open) && v.endsWith(close) && !v.slice(1, -1).includes(open) && !v.slice(1, -1).includes(close)) v = v.slice(1, -1);
    if (!v.includes(close)) v = v.replace(openers, "");
    if (!v.includes(open)) v = trimEnd(v, close);
  }
  return v;
}

/** Plain words joined by `/`, `:`, `=` or `,`, any `#fragment` or `?query` after them: a path, a reference, a time or
 *  settings' own `name=value` (`invoices/2024/INV-0001.pdf`, `vault:kv/data/app`, `10:30`, `SameSite=Strict`,
 *  `min=12,max=128`), where a password mixes in another symbol (`Xy7!kq9Lm/2`, `admin:Passw0rd!2024`: review 204). */
function joinsPlainWords(value: string): boolean {
  const cut = value.search(/[#?]/);
  const head = cut < 0 ? value : value.slice(0, cut);
  return /[/:=]/.test(head) && /^[\w.@+~/:=,-]+$/.test(head) && (cut < 0 || /^[\w.@+~/:=&%#?-]*$/.test(value.slice(cut)));
}

/** An assignment's value: quoted whole, or one word before any ` #` comment; none if words follow (prose). */
function assignedValue(rest: string): string | undefined {
  let value = rest.trim();
  const close = value.length > 1 && (value[0] === '"' || value[0] === "'") ? value.indexOf(value[0], 1) : -1;
  if (close > 0) return value.slice(1, close);
  if (value.includes(" #")) value = value.slice(0, value.indexOf(" #"));
  value = value.replace(/`$/, "").trimEnd();
  return /\s/.test(value) ? undefined : value;
}

/** BMAD's story and epic keys (`1-1-user-authentication`, `epic-2`): names of work, whatever words they hold (review 68:
 *  a sprint status's `1-2-password-reset: done` held back every push). One leading number: `(\d+-)+` before a class
 *  that also takes digits and dashes tried every split of a long key (review 229: a member's 512 KB key held a shared
 *  project 60 s a read). */
const WORK_KEY = /^\d+-[a-z0-9-]+$|^epic-\d+(-retrospective)?$/;

/** Whether a config entry looks like it holds a secret, by its key or its value: never served, rendered or given to a script. */
export function isSecretKey(key: string, value?: unknown): boolean {
  // A switch or an empty value holds no secret, whatever its key says (`auth_enabled: true`, `api_key: ""`: review 93).
  if (WORK_KEY.test(key) || typeof value === "boolean" || value === null || value === "") return isSecretValue(value) || isSecretValue(key);
  // A key can be one too (`"postgres://app:pw@db/x" = "main"`, review 21). A count of tokens is none (`max_tokens = 4000`):
  // a key that names a count and nothing else, with a small whole number (review 46: any number under any key saying
  // "token", `DEPLOY_TOKEN: 73920184736` among them, was served).
  const counted = TOKEN_COUNT.test(key) && Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) < 10_000_000;
  return (namesSecret(key) && !counted && !namesPlainSetting(key, value) && !namesPaths(key, value)) || isSecretValue(key) || givesSecret(value);
}

/** A value, or a list's item, that holds a secret by its shape, or gives one in a sentence as a comment may ("the
 *  staging DB password is Winter2024!xQ": review 158, served where the same comment was dropped). */
const givesSecret = (value: unknown) => isSecretValue(value) || (typeof value === "string" && holdsShapedSecret(value));

/** Whether a config holds what no model may change (bmad-files): a secret-looking entry, or a line (a comment, text
 *  that does not parse) holding a secret-looking value. A comment that only names a secret ("refresh tokens expire") is
 *  served dropped, but blocks no change (review 44: such comments blocked every change of a customization); nor does
 *  text that does not parse and holds no such value (the model's own broken YAML is its to fix): a write's answer
 *  never depends on what it was not shown. */
export function holdsSecrets(path: string, text: string): boolean {
  if (unjudged(text)) return true;
  if (isSettingsFile(path)) return settingsWithoutSecrets(path, text) !== text;
  // XML and CSV by their elements and columns (review 54: Maven's settings.xml, a passwords.csv went).
  if (/\.xml$/i.test(path)) return xmlHoldsSecrets(text);
  if (/\.csv$/i.test(path)) return csvHoldsSecrets(text);
  const parsed = parseConfig(path, text);
  // Parsed, its entries are judged as served, and its comments by what they hold; not parsed, every line is.
  if ("error" in parsed) return lines(text).some((line) => isSecretValue(line));
  return hasSecretKey(parsed.data) || lines(text).some((line) => line.includes("#") && isSecretValue(line));
}

/** `<name attributes>text` (to the next `<`) and ` name="value"`: each match ends at a `<`, `>` or quote: linear. */
const XML_ELEMENT = /<([A-Za-z_][\w.:-]*)(\s[^<>]*)?(?:>([^<]*))?/g;
const XML_ATTRIBUTE = /\s([A-Za-z_][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
/** A data field's name that says what a secret is for rather than holding one (`auth_security_patterns`, BMAD's own
 *  CSV column of globs; `auth_required`, `password_policy`; review 56: `api_key_header`, `PASSWORD_HASH`, `secret_ref`,
 *  `key_id`, `jwt_alg`, in a design doc's assignments too). */
const DESCRIBES = /(patterns?|polic(y|ies)|rules?|requirements?|regex(es)?|required|enabled|method|type|flow|provider|strategy|mode|length|expiry|ttl|format|fields?|notes?|description|url|uri|endpoint|path|file|scope|status|headers?|hash(es)?|ref|ids?|names?|alg(orithm)?|prefix|version|size|location)$/i;
/** A word of a label that says what a secret is like (`Password rules for signup: …`), whole. */
const DESCRIBES_WORD = new RegExp(`^${DESCRIBES.source}`, "i");
const namesSecretField = (name: string) => namesSecret(name) && !DESCRIBES.test(name);

/** An element or attribute named for a secret with a value (`<password>…</password>`, `<privateKey>`, `password="…"`);
 *  a namespace's prefix (`<ns:password>`) is no part of the name. */
function xmlHoldsSecrets(text: string): boolean {
  const local = (name: string) => name.slice(name.lastIndexOf(":") + 1);
  for (const [, tag, attributes = "", content = ""] of text.matchAll(XML_ELEMENT)) {
    if (!attributes.endsWith("/") && namesSecretField(local(tag!)) && isGivenSecret(content)) return true;
    for (const [, name, double, single] of attributes.matchAll(XML_ATTRIBUTE)) {
      if (namesSecretField(local(name!)) && isGivenSecret(double ?? single ?? "")) return true;
    }
  }
  return false;
}

/** A column named for a secret with a value in a row (quoted fields, with commas and lines in them, read as such;
 *  a value's shape is judged as any text's, holdsShapedSecret). One pass: linear. */
function csvHoldsSecrets(text: string): boolean {
  const newline = text.indexOf("\n");
  const header = newline < 0 ? text : text.slice(0, newline);
  const sep = header.includes(",") ? "," : header.includes(";") ? ";" : "\t";
  const secretColumns = new Set<number>();
  let row = 0, column = 0, field = "", quoted = false;
  for (let i = 0; i <= text.length; i++) {
    const c = text[i];
    if (quoted && c !== undefined) {
      if (c !== '"') field += c;
      else if (text[i + 1] === '"') field += text[++i];
      else quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === sep || c === "\n" || c === undefined) {
      if (row === 0 && namesSecretField(field.trim())) secretColumns.add(column);
      if (row > 0 && secretColumns.has(column) && isGivenSecret(field)) return true;
      field = "";
      column = c === sep ? column + 1 : 0;
      if (c !== sep && row++ === 0 && secretColumns.size === 0) return false; // no column to judge
    } else if (c !== "\r") field += c;
  }
  return false;
}

/** Words a comment says a secret with ("the staging password is …"); a model's "tokens", what its work costs, only
 *  beside a word of a key's shape (review 194: BMAD's own deep-recon customize.toml says "spend more tokens"; review
 *  200: "our API tokens are Xk9p…" is a secret still). */
const SECRET_WORD = /(secret|token(?!s\b)|passw(or)?d|api[-_]?key|private[-_]?key)/i;
const saysSecret = (line: string) => SECRET_WORD.test(line) || (/tokens\b/i.test(line) && line.split(/[\s"'`]+/).some((word) => isAssignedValue(trimEnd(word, ".,;:!?"), ":")));

/** Whether a comment names or holds a secret (`# api_key = sk-…` left from before, `# was ghp_…` after a value): a file
 *  with one is served re-written, which drops its comments. Each line's comment judged alone: linear. */
function hasSecretComment(text: string): boolean {
  for (const line of lines(text)) {
    // The whole line, wherever its `#` is (after a URL's fragment, `C#`, no space before it): a false alarm only
    // serves the file re-written.
    if (line.includes("#") && (saysSecret(line) || isSecretValue(line))) return true;
  }
  return false;
}

/** A copy without secret-looking keys; null-prototype objects, so a "__proto__" key is only data. */
export function sanitizeConfig(value: unknown): unknown {
  if (Array.isArray(value)) return value.filter((item) => !givesSecret(item)).map(sanitizeConfig);
  if (value && typeof value === "object" && !(value instanceof Date)) {
    const out: Record<string, unknown> = Object.create(null);
    const named = secretNamed(value);
    for (const [k, v] of Object.entries(value)) {
      if (!isSecretKey(k, v) && !(named && NAMED_VALUE.has(k))) out[k] = sanitizeConfig(v);
    }
    return out;
  }
  return value;
}

/** An entry that names its secret rather than being keyed by it: `{name = "GITHUB_TOKEN", value = "…"}`. */
const NAMED_VALUE = new Set(["value", "default", "val", "content", "data", "values"]);
const NAMES = ["name", "key", "var", "variable", "header", "env", "id"];
function secretNamed(entry: object): boolean {
  return NAMES.some((field) => {
    const name = (entry as Record<string, unknown>)[field];
    return typeof name === "string" && namesSecret(name);
  });
}

function hasSecretKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some((item) => givesSecret(item) || hasSecretKey(item));
  if (value && typeof value === "object") return secretNamed(value) || Object.entries(value).some(([k, v]) => isSecretKey(k, v) || hasSecretKey(v));
  return false;
}

/** Files that hold installation or user settings: `config.yaml`, `config.toml`, `config.user.*`, `custom/*.toml`, a
 *  skill's `customize.toml`. */
export function isConfigShaped(path: string): boolean {
  // As a file system reads the name (trailing dots and spaces, case, streams, ignored code points: review 22). A plain
  // ASCII name folds by its case and its end alone: the full fold per file cost a listing of 1,000 a fifth of its time.
  const raw = path.slice(path.lastIndexOf("/") + 1);
  const name = /^[\x20-\x7e]*$/.test(raw) ? trimEnd(raw.toLowerCase().replace(/:.*$/, ""), ". ") : foldPath(raw);
  // By what a name holds, not how it ends (review 22: a list of backup endings missed `.~1~`, `_BACKUP_4711.toml`,
  // `config.user (1).toml`, `old-config.yaml`): a YAML or TOML name that says config, compose (services' settings,
  // POSTGRES_PASSWORD among them) or a person's own (`.user.`), and any in a custom folder (a renamed one too).
  if (!CONFIG_EXTENSION.test(name) && !SETTINGS_EXTENSION.test(name)) return false;
  // A skill's `customize.toml` too (review 73: a key in one was served whole), as its overrides in `_bmad/custom/` are.
  return /config|settings|compose|customi[sz]e|\.user(?![a-z])/i.test(name) || /(^|\/)custom[^/]*\/[^/]+$/i.test(path);
}

/** Data files, judged by what they hold whatever they are called (review 47: `llm.yaml`, `agents.json`, `deploy.yml`
 *  held keys): push sends none that holds secrets, and every path serves one that does as a config (servedAsConfig). */
export const DATA_FILE = /\.(ya?ml|toml|jsonl?|json[c5]|xml|csv|ini|cfg|conf|properties)$/i;

/** Whether a path's file may be served as a config, by its name alone: before its text is read. */
export const mayServeAsConfig = (path: string): boolean => isConfigShaped(path) || DATA_FILE.test(path);

/** Whether a file is served as a config (sanitised, its diff's lines withheld, a whole write that drops what it
 *  leaves out refused): one named so, or a data file that holds secrets (review 250: `llm.yaml`'s `api_key`,
 *  `deploy/database.yml`'s `password` were served whole where push refused them). */
export function servedAsConfig(path: string, text: string): boolean {
  // A data file by a secret's shape (a token, `password: Xy7!…`, a credential URL), as memory and a workspace judge
  // text: judged by its keys' names, package.json lost `jsonwebtoken` and `cookie-parser`, an OpenAPI spec its `Token`
  // schema, an i18n file its "Password" label (review 259).
  // XML and CSV by their elements and columns (holdsSecrets), as push judges them.
  return isConfigShaped(path) || (DATA_FILE.test(path) && (unjudged(text) || (/\.(xml|csv)$/i.test(path) ? holdsSecrets(path, text) : holdsShapedSecret(text))));
}

/** Text no rule here can judge for secrets: NULs between its characters, as UTF-16 and UTF-32 read as UTF-8 hold them
 *  (review 286: PowerShell's `>` wrote a config `p\0a\0s\0s\0…`, served whole, its keys unseen by any parser). */
export const unjudged = (text: string) => text.includes("\u0000");

/** Whether a file reached by one name (a link) is served by the same rule as by its own, so that nothing judged by the
 *  name asked misses what the file holds: a config by its own name alone, a data file by one of its format (review
 *  270: notes.md leading to llm.yaml served its api_key). */
export function servedAlike(asked: string, real: string): boolean {
  if (!mayServeAsConfig(asked) && !mayServeAsConfig(real)) return true;
  if (!mayServeAsConfig(asked) || !mayServeAsConfig(real) || isConfigShaped(asked) !== isConfigShaped(real)) return false;
  const [a, r] = [asked, real].map((path) => foldPath(path.slice(path.lastIndexOf("/") + 1)));
  return isConfigShaped(real) ? a === r : a!.slice(a!.lastIndexOf(".")) === r!.slice(r!.lastIndexOf("."));
}

/** Whether a file as served leaves something out (secret-looking entries, or all of a config that does not parse),
 *  so that no change a model makes of it is its own: a config by its entries, a data file by the rule that serves it
 *  (review 260: judged by its keys' names, package.json with jsonwebtoken could never be changed). */
export function servedWithout(path: string, text: string): boolean {
  return isConfigShaped(path) ? holdsSecrets(path, text) : servedAsConfig(path, text) && sanitizeConfigText(path, text) !== text;
}

/** `.yaml`, `.yml` or `.toml` anywhere in a name, as a whole extension (`config.toml~`, `config.toml.bak`). */
const CONFIG_EXTENSION = /\.(?:ya?ml|toml)(?![a-z0-9])/i;
/** Settings in formats no script of BMAD's parses (JSON, INI, `.cfg`, `.conf`, `.properties`), served without their
 *  secrets as YAML and TOML configs are (review 88: `_bmad/custom/config.json`'s api key was served whole). */
const SETTINGS_EXTENSION = /\.(?:json[c5]?|ini|cfg|conf|properties)(?![a-z0-9])/i;
const isSettingsFile = (path: string) => {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return SETTINGS_EXTENSION.test(name) && !CONFIG_EXTENSION.test(name);
};

/** A settings file as served: as it is when it holds no secret; else JSON parsed (its comments and trailing commas set
 *  aside) and written again without secret-looking entries, as a YAML config is, and any other format (or JSON that
 *  does not parse) without the entries that name or hold one, an entry being a line with what continues it (review 93:
 *  a nested `"passwords": {…}`, an INI value on its next line, a `.properties` line ending in a backslash). */
function settingsWithoutSecrets(path: string, text: string): string {
  if (/\.json[c5]?(?![a-z0-9])/i.test(path.slice(path.lastIndexOf("/") + 1))) {
    const parsed = parseJsonSettings(text);
    if (parsed) {
      // One that gives a key twice is served as parsed, its earlier values gone (keyTwice).
      const secret = isSecretValue(parsed.data) || hasSecretKey(parsed.data) || parsed.comments.some((c) => saysSecret(c) || isSecretValue(c) || holdsShapedSecret(c)) || parsed.twice === true;
      return secret ? `# ${REDACTED_NOTE}\n${JSON.stringify(sanitizeConfig(parsed.data), null, 2)}\n` : text;
    }
  }
  return entriesWithoutSecrets(text, /\.properties(?![a-z0-9])/i.test(path) ? propertiesLine : undefined);
}

/** A `.properties` line as its reader sees its key: `\uXXXX` escapes read, and a key ended by whitespace as by `=` or
 *  `:` (`db.password hunter2`: review 100). Judged so; served as written. */
const propertiesLine = (line: string): string =>
  line.replace(/\\u([0-9a-fA-F]{4})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))).replace(/^(\s*[^\s=:#!][^\s=:]*)[ \t]+(?=[^\s=:])/, "$1=");

const MAX_SETTINGS_DEPTH = 64;

/** JSON, or JSON with comments and trailing commas (tsconfig's, an editor's), or failing that a YAML flow (JSON5's bare
 *  keys and single quotes); the comments' text apart. One pass over the text: linear. */
function parseJsonSettings(text: string): { data: unknown; comments: string[]; twice?: boolean } | undefined {
  const kept: string[] = [];
  const comments: string[] = [];
  let from = 0;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      while (++i < text.length && text[i] !== '"') if (text[i] === "\\") i++;
    } else if (c === "{" || c === "[") {
      // Nested past any settings file's: judged a line at a time, with no walk that recurses (review 108: 5,000
      // levels answered every read with a stack overflow).
      if (++depth > MAX_SETTINGS_DEPTH) return undefined;
    } else if (c === "}" || c === "]") depth--;
    else if (c === "/" && (text[i + 1] === "/" || text[i + 1] === "*")) {
      const end = text[i + 1] === "/" ? (text.indexOf("\n", i) + 1 || text.length + 1) - 1 : (text.indexOf("*/", i + 2) + 1 || text.length) + 1;
      kept.push(text.slice(from, i));
      comments.push(text.slice(i + 2, end));
      from = end;
      i = end - 1;
    } else if (c === ",") {
      let j = i + 1;
      while (j < text.length && /\s/.test(text[j]!)) j++;
      if (text[j] === "}" || text[j] === "]") {
        kept.push(text.slice(from, i));
        from = i + 1;
      }
    }
  }
  kept.push(text.slice(from));
  const json = kept.join("");
  try {
    return { data: JSON.parse(json), comments, twice: keyTwice(json) };
  } catch {
    try {
      return { data: parseBoundedYaml(json, MAX_CONFIG_ENTRIES), comments };
    } catch {
      return undefined;
    }
  }
}

/** Whether JSON (well formed) gives a key twice in one object, which JSON.parse reads as the last alone (review 100:
 *  a secret given first was judged by the empty value after it). One pass over its tokens: linear. */
function keyTwice(json: string): boolean {
  const objects: Array<Set<string> | null> = []; // each open object's keys; null for an array
  let keyNext = false;
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === '"') {
      let end = i + 1;
      while (end < json.length && json[end] !== '"') end += json[end] === "\\" ? 2 : 1;
      if (keyNext) {
        const keys = objects[objects.length - 1]!;
        const key = JSON.parse(json.slice(i, end + 1)) as string;
        if (keys.has(key)) return true;
        keys.add(key);
        keyNext = false;
      }
      i = end;
    } else if (c === "{" || c === "[") {
      objects.push(c === "{" ? new Set() : null);
      keyNext = c === "{";
    } else if (c === "}" || c === "]") objects.pop();
    else if (c === ",") keyNext = objects[objects.length - 1] instanceof Set;
  }
  return false;
}

/** Settings without the entries that name or hold a secret. An entry is a line with the lines that continue it (a
 *  trailing backslash, or more indented: INI's multi-line values, a block); an INI section named for secrets
 *  (`[secrets]`) is dropped whole. A key counts by its name with a value given (`max_tokens = 4000` is no secret, nor
 *  `auth_enabled: true`); a comment by the words it says a secret with; any line by a secret's shape. Linear. */
function entriesWithoutSecrets(text: string, readAs: (line: string) => string = (line) => line): string {
  const all = text.split("\n");
  const read = all.map(readAs);
  const kept: string[] = [];
  let inSecretSection = false;
  for (let i = 0; i < all.length; ) {
    const indent = indentOf(all[i]!);
    let end = i + 1;
    while (end < all.length && (/\\\s*$/.test(all[end - 1]!) || (all[end]!.trim() !== "" && indentOf(all[end]!) > indent))) end++;
    const entry = read.slice(i, end);
    // A comment after a section's name is no part of it (review 108: `[secrets] ; production` was served whole).
    const section = /^\s*\[([^\]]*)\]\s*([#;].*)?$/.exec(read[i]!);
    if (section) inSecretSection = namesSecret(section[1]!.trim());
    const joined = entry.join("\n").replace(/\\\s*\n\s*/g, "");
    if (!(inSecretSection && !section && joined.trim()) && !entrySetsSecret(joined) && !entry.some((line) => entrySetsSecret(line) || lineGivesSecret(line))) kept.push(...all.slice(i, end));
    i = end;
  }
  return kept.length === all.length ? text : `# ${REDACTED_NOTE}\n${kept.join("\n")}`;
}

const indentOf = (line: string) => line.length - line.trimStart().length;
/** `key = value`, `key: value`, `"key": value` (the value maybe on the lines that continue it). */
// Words of a key apart by single runs of space, each run then a word: one way to match a line (review 108: a lazy key
// before `\s*` backtracked over a long run of spaces, 68 s for 256 KB).
const KEY_VALUE = /^\s*["']?([^"'=:\s]+(?:\s+[^"'=:\s]+)*)["']?\s*[:=]\s*([\s\S]*)$/;

/** An entry (or one line of one) whose key names a secret and gives it a value. */
function entrySetsSecret(entry: string): boolean {
  const kv = KEY_VALUE.exec(entry);
  if (!kv) return false;
  const value = kv[2]!.trim().replace(/,$/, "").replace(/^(["'])([\s\S]*)\1$/, "$2");
  return isSecretKey(kv[1]!.trim(), /^\d+$/.test(value) ? Number(value) : value) && isGivenSecret(value);
}

/** A line that holds a secret by its shape, or a comment that says one. */
function lineGivesSecret(line: string): boolean {
  if (/^\s*(#|;|\/\/|\/\*|\*)/.test(line)) return saysSecret(line) || isSecretValue(line);
  const kv = KEY_VALUE.exec(line);
  return kv ? isSecretValue(kv[2]) || holdsShapedSecret(kv[2]!) : holdsShapedSecret(line);
}

/** Files that hold the installer's answers (`_bmad/config.toml`, `config.user.toml`, a classic module's `config.yaml`),
 *  which bmad-project "config" changes; where a refusal may point to it. */
export const holdsInstallerAnswers = (path: string): boolean => /^_bmad\/(config(\.user)?\.toml|[^/]+\/config\.yaml)$/.test(path);
/** The project's config: its installer answers, the central layers over them (`_bmad/custom/config*.toml`) and the
 *  installer's manifests (`_bmad/_config/`). */
export const isProjectConfig = (path: string): boolean => holdsInstallerAnswers(path) || /^_bmad\/(_config\/|custom\/config(\.user)?\.toml$)/.test(path);
/** What a refusal over a config holding secrets adds: the one tool that changes that file, where there is one. */
export const answersHint = (path: string): string => (holdsInstallerAnswers(path) ? ' Installer answers change with bmad-project "config".' : "");

/** A person's own BMAD settings (`*.user.toml`, a copy of one too), which BMAD's installer keeps out of git. */
export function isPersonalConfig(path: string): boolean {
  const name = foldPath(path.slice(path.lastIndexOf("/") + 1));
  return CONFIG_EXTENSION.test(name) && /\.user(?![a-z])/i.test(name);
}

/** Files whose whole point is to hold secrets (`.env`, `.npmrc`, keys, ssh-keygen's `deploy_key` too: review 429): no
 *  tool reads them. Examples kept for others to copy (`.env.example`) are not secret. */
const SECRET_FILE =
  /^(\.env(\.(?!example$|sample$|template$|dist$)[^/]+)?|[^/]+\.env|\.flaskenv|\.envrc|\.dev\.vars|\.netrc|\.npmrc|\.yarnrc(\.ya?ml)?|\.pypirc|\.pgpass|\.git-credentials|\.htpasswd|\.vault-token|\.s3cfg|\.boto|\.?mcp\.json|settings\.local\.json|local\.settings\.json|auth\.json|tokens?\.json|kubeconfig|credentials(\.[^/]*)?|client_secret[^/]*\.json|service[-_]?account[^/]*\.json|serviceaccountkey\.json|secrets?(\.[^/]*)?|id_(rsa|dsa|ecdsa|ed25519)\w*|([^/]*[-_.])?(deploy|ssh|private|signing)[-_]?key|.+\.(pem|key|p12|pfx|keystore|jks|ppk|tfvars|tfstate))$/;
/** Folders that hold credentials whatever their files are called (`.aws/credentials`, `.docker/config.json`). */
const SECRET_DIRS = new Set([".aws", ".docker", ".kube", ".ssh", ".gnupg"]);

/** A path's file holds secrets, by its name as any file system reads it (case, trailing dots, zero-width marks). */
export function isSecretFile(path: string): boolean {
  const parts = foldPath(path).split("/");
  return SECRET_FILE.test(parts[parts.length - 1]!) || parts.slice(0, -1).some((part) => SECRET_DIRS.has(part));
}

export const REDACTED_NOTE = "secret-looking keys removed by bmad-mcp";
const NOT_SERVED_NOTE = "is not served:";

/** Whether `text` stands in for a config's own (without its secret-looking keys, or the notice that it is not served):
 *  written back as the file, it would delete what it leaves out. */
export function isServedStandIn(text: string): boolean {
  return text.trimStart().split("\n", 1)[0] === `# ${REDACTED_NOTE}` || isNotServedNotice(text);
}

/** Whether `text` is the notice served for a config that is not served at all (it does not parse). */
export function isNotServedNotice(text: string): boolean {
  const first = text.trimStart().split("\n", 1)[0]!;
  return first.startsWith("# ") && first.includes(` ${NOT_SERVED_NOTE} `);
}

/**
 * The text to serve for a file. Config-shaped files without secrets are served as they are (byte for
 * byte); with secrets, re-written without them under a comment saying so; unreadable ones are withheld,
 * since nothing shows they are safe.
 */
export function sanitizeConfigText(path: string, text: string): string {
  if (!servedAsConfig(path, text)) return text;
  if (unjudged(text)) return `# ${path} ${NOT_SERVED_NOTE} it is not UTF-8 text (UTF-16?), so secrets cannot be removed from it. The user reads it in the file itself, or saves it as UTF-8.\n`;
  if (isSettingsFile(path)) return settingsWithoutSecrets(path, text);
  if (/\.jsonl$/i.test(path)) return `# ${REDACTED_NOTE}\n${jsonLinesWithoutSecrets(text)}`;
  // XML and CSV are judged by their elements and columns (holdsSecrets), and no parser here writes them out again.
  if (/\.(xml|csv)$/i.test(path)) return `# ${path} ${NOT_SERVED_NOTE} it holds secret-looking values, which cannot be removed from it here. The user reads it in the file itself.\n`;
  const parsed = parseConfig(path, text);
  if ("error" in parsed) return `# ${path} ${NOT_SERVED_NOTE} it does not parse (${parsed.error}), so secrets cannot be removed from it. Fix the file.\n`;
  return withoutSecrets(path, text, parsed.data);
}

/** JSON Lines a record at a time (review 290: parsed as YAML, a valid log was "not served: it does not parse … Fix the
 *  file", its lines without secrets withheld too): each record without its secret-looking entries, a line that is no
 *  JSON dropped where it holds a secret's shape. One pass: linear. */
function jsonLinesWithoutSecrets(text: string): string {
  return text.split("\n").flatMap((line) => {
    if (!line.trim()) return [line];
    const record = parseJsonSettings(line);
    if (!record) return isSecretValue(line) || holdsShapedSecret(line) ? [] : [line];
    return [isSecretValue(record.data) || hasSecretKey(record.data) ? JSON.stringify(sanitizeConfig(record.data)) : line];
  }).join("\n");
}

/** A project file's bytes as every tool, resource and view serves them: UTF-8 text, a config-shaped file without its
 *  secret-looking keys. */
export function servedProjectText(path: string, data: Uint8Array): string {
  return sanitizeConfigText(path, new TextDecoder().decode(data));
}

/** A project file as served: its text (servedProjectText) and its size and sha256, of what is served. A config-shaped
 *  file with secret-looking keys removed is marked `redacted`, and its raw size and digest are not given: the digest
 *  would let a reader test guesses at a removed secret offline, the size tell its length. One that is not UTF-8 is
 *  marked `not_utf8`: its text is not its bytes (review 275: written back, it replaced a PNG). */
export async function servedFile<T extends { size: number; sha256: string }>(path: string, meta: T, data: Uint8Array): Promise<{ text: string; meta: T & { redacted?: true; not_utf8?: true; bom?: true } }> {
  const shown = shownText(data);
  const raw = shown.text;
  const text = sanitizeConfigText(path, raw);
  const marked: T & { not_utf8?: true; bom?: true } = !shown.utf8 ? { ...meta, not_utf8: true } : startsWithBom(data) ? { ...meta, bom: true } : meta;
  // A data file is a config only where it holds secrets (servedAsConfig): as it is, its bytes are its own.
  if (text === raw && !isConfigShaped(path)) return { text, meta: marked };
  // Its text as read is its bytes but for the byte order mark, which `bom` says (review 300: a config with one read as
  // served altered, and a pull of it was never pushed again).
  const bytes = new TextEncoder().encode(text);
  const body = marked.bom ? data.subarray(3) : data;
  if (bytes.byteLength === body.byteLength && bytes.every((b, i) => b === body[i])) return { text, meta: marked };
  return { text, meta: { ...marked, size: bytes.byteLength, sha256: await sha256Hex(text), redacted: true } };
}

/** A file's entry as listed or answered (history, list, a change): a config's or a data file's gives no size or digest
 *  of content that may have held a secret (servedFile): a data file is one by its text, which a listing does not read
 *  (review 263: a member confirmed deploy/database.yml's password offline from its history's digest). */
export function servedVersion<T extends { size: number; sha256?: string }>(path: string, version: T): Omit<T, "size" | "sha256"> & { size?: number; sha256?: string } {
  if (!mayServeAsConfig(path)) return version;
  const { sha256: _digest, size: _size, ...rest } = version;
  return rest;
}

/** A config-shaped file as a ported BMAD script reads it (bmad-run), so that what the script prints holds no
 *  secret either. One that does not parse here is withheld, never given as it is: a parser laxer than this one (the
 *  script's) would read its secrets. The script gets text that does not parse either, and fails as on a broken file. */
export function configForScript(path: string, text: string, leaves?: (value: string) => boolean): string {
  return scriptView(path, text, leaves).text;
}

/** A config as a script reads it (configForScript), and what of what the script reads it leaves out, in words for
 *  the model: absent where nothing (a comment dropped with the text restated is nothing a script reads). `unreadable`:
 *  why a script may not read it at all, and the fix: one too big to parse here is no broken file, and a syntax error
 *  the script found in the stand-in would send the user to fix a line that is fine (review 228). */
export function scriptView(path: string, text: string, leaves?: (value: string) => boolean): { text: string; leftOut?: string; unreadable?: string } {
  // Read by no script: as BMAD's fails on it (a UnicodeDecodeError, a parse error), never as an empty file whose
  // defaults stand in for the team's layer (review 289: a UTF-16 config.toml's user_name went unsaid, exit 0).
  if (unjudged(text)) return { text: "", unreadable: `${path.slice(path.lastIndexOf("/") + 1)} is not UTF-8 text (it holds NULs: UTF-16?), so no script reads it: save it as UTF-8.` };
  if (!isConfigShaped(path)) {
    // A data file as every tool serves it: whole, or where it holds secrets without them (review 263: a member's
    // recon_kit.py run printed the token data/keys.json is served without).
    const served = sanitizeConfigText(path, text);
    // JSON takes no comment: the note is the run's alone (leftOut; review 270: a script read `# secret-…` as bad JSON).
    const note = `# ${REDACTED_NOTE}\n`;
    return viewOf(text, /\.json[c5l]?$/i.test(path) && served.startsWith(note) ? served.slice(note.length) : served, true);
  }
  if (isSettingsFile(path)) return viewOf(text, settingsWithoutSecrets(path, text), true);
  const parsed = parseConfig(path, text);
  if ("error" in parsed) {
    const withheld = `# ${path} is withheld from scripts: it does not parse here (${parsed.error}), so secret-looking keys cannot be removed from it.\n${isToml(path) ? "= withheld" : "[withheld"}\n`;
    if (parsed.tooBig) return { text: withheld, unreadable: `${path.slice(path.lastIndexOf("/") + 1)} is too big to read here (${parsed.error}): trim it.` };
    return { text: withheld, leftOut: "all of its text (it does not parse here, so nothing shows it holds no secret: fix the file)" };
  }
  if (leaves && holdsValue(parsed.data, leaves)) {
    const view = `# ${REDACTED_NOTE}\n# values leading out of this project removed by bmad-mcp\n${restated(path, sanitizeConfig(withoutValues(parsed.data, leaves)))}`;
    return { text: view, leftOut: "values that lead out of this project or look like secrets" };
  }
  return viewOf(text, withoutSecrets(path, text, parsed.data), isSecretValue(parsed.data) || hasSecretKey(parsed.data));
}
const viewOf = (text: string, view: string, values: boolean) => (view === text ? { text } : { text: view, ...(values ? { leftOut: "values that look like secrets" } : {}) });

const isToml = (path: string) => /\.toml(?![a-z0-9])/i.test(path.slice(path.lastIndexOf("/") + 1));

/** How many entries (lines and flow items) a config may hold: BMAD's hold dozens; a parse costs per entry. */
const MAX_CONFIG_ENTRIES = 10_000;

/** A config parsed, or why not: `tooBig` where it is past what is parsed here (a valid file, but heavier than any). */
export function parseConfig(path: string, text: string): { data: unknown } | { error: string; tooBig?: true } {
  const heavy = tooHeavyToParse(text, MAX_CONFIG_ENTRIES) ?? (isToml(path) ? undefined : pastYamlSize(text.length));
  if (heavy) return { error: `${heavy}, far past any config`, tooBig: true };
  try {
    // No aliases (parseBoundedYaml): an alias is also a secret under an innocent key.
    if (!isToml(path)) return { data: parseBoundedYaml(text, MAX_CONFIG_ENTRIES) };
    return { data: parseBoundedToml(text, () => parseToml(text)) };
  } catch (error) {
    // Nesting past the bound, through dotted keys no bracket count sees.
    if (error instanceof TooHeavy) return { error: error.message, tooBig: true };
    return { error: parseErrorSummary(error) };
  }
}

function withoutSecrets(path: string, text: string, data: unknown): string {
  // A file that is one bare value (`sk-…` alone, a list of them) is judged by that value as an entry's would be.
  const bareSecret = isSecretValue(data);
  if (!bareSecret && !hasSecretKey(data) && !hasSecretComment(text)) return text;
  return `# ${REDACTED_NOTE}\n${restated(path, bareSecret ? null : sanitizeConfig(data))}`;
}

/** Parsed config written out again in its own format. */
const restated = (path: string, data: unknown) => (isToml(path) ? stringifyToml(data as Record<string, unknown>) : stringifyYaml(data));

/** Whether any string in a parsed config (a key or a value, at any depth) is one `drop` names. */
function holdsValue(value: unknown, drop: (s: string) => boolean): boolean {
  if (typeof value === "string") return drop(value);
  if (Array.isArray(value)) return value.some((item) => holdsValue(item, drop));
  if (value && typeof value === "object" && !(value instanceof Date)) return Object.entries(value).some(([k, v]) => drop(k) || holdsValue(v, drop));
  return false;
}

/** A parsed config without the entries (and list items) whose key or string value `drop` names. */
function withoutValues(value: unknown, drop: (s: string) => boolean): unknown {
  if (Array.isArray(value)) return value.filter((item) => !(typeof item === "string" && drop(item))).map((item) => withoutValues(item, drop));
  if (value && typeof value === "object" && !(value instanceof Date)) {
    const out: Record<string, unknown> = Object.create(null);
    for (const [k, v] of Object.entries(value)) if (!drop(k) && !(typeof v === "string" && drop(v))) out[k] = withoutValues(v, drop);
    return out;
  }
  return value;
}
