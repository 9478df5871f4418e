// The part of Python 3.11's argparse the BMAD scripts use, ported from its parse loop so that
// abbreviations, "--opt=value", "-kVALUE", "--", mutually exclusive groups and subcommands behave
// the same, and errors print the same usage and message with exit status 2.
import { formatHelp, formatUsage } from "./argparse-format.js";
import { repr } from "./py-str.js";

export interface Action {
  flags: string[];
  dest: string;
  kind: "store" | "append" | "store_true" | "help" | "parsers";
  /** A positional's nargs="+" (one or more values, a list in the namespace). */
  oneOrMore?: boolean;
  required: boolean;
  help?: string;
  metavar?: string;
  defaultValue?: string[];
  /** Subcommands (kind "parsers"), in the order added, with their help lines. */
  choices?: Map<string, Parser>;
  choiceHelp?: Array<[string, string]>;
}

export interface MutexGroup {
  required: boolean;
  actions: Action[];
}

export interface Parser {
  prog: string;
  description?: string;
  rawDescription: boolean;
  actions: Action[];
  groups: MutexGroup[];
}

export type Namespace = Record<string, string | string[] | undefined>;

/** What parse_args would exit with: help on stdout (0) or usage and error on stderr (2). */
export class ArgparseExit extends Error {
  constructor(
    readonly status: number,
    readonly out: string,
    readonly err: string,
    /** What parser.error() was given (a script that overrides error() prints it its own way). */
    readonly reason?: string,
  ) {
    super(err || out);
  }
}

class ArgumentError extends Error {
  constructor(action: Action | undefined, message: string) {
    super(action ? `argument ${actionName(action)}: ${message}` : message);
  }
}

export function actionName(a: Action): string {
  if (a.flags.length) return a.flags.join("/");
  return a.metavar ?? a.dest;
}

export function createParser(prog: string, description?: string, rawDescription = false, addHelp = true): Parser {
  const parser: Parser = { prog, description, rawDescription, actions: [], groups: [] };
  if (addHelp) addArgument(parser, ["-h", "--help"], { kind: "help", dest: "help", help: "show this help message and exit" });
  return parser;
}

export function addArgument(parser: Parser, flags: string[], options: Partial<Action> & { group?: MutexGroup } = {}): Action {
  const long = flags.find((f) => f.startsWith("--")) ?? flags[0] ?? "";
  const { group, ...rest } = options;
  const action: Action = { flags, dest: long.replace(/^-+/, "").replace(/-/g, "_"), kind: "store", required: false, ...rest };
  parser.actions.push(action);
  group?.actions.push(action);
  return action;
}

export function addMutexGroup(parser: Parser, required: boolean): MutexGroup {
  const group = { required, actions: [] };
  parser.groups.push(group);
  return group;
}

/** add_subparsers(dest=..., required=...) */
export function addSubparsers(parser: Parser, dest: string, required: boolean): Action {
  return addArgument(parser, [], { kind: "parsers", dest, required, choices: new Map(), choiceHelp: [] });
}

/** subparsers.add_parser(name, help=...) */
export function addSubparser(parser: Parser, subparsers: Action, name: string, help: string): Parser {
  const sub = createParser(`${parser.prog} ${name}`);
  subparsers.choices!.set(name, sub);
  subparsers.choiceHelp!.push([name, help]);
  return sub;
}

type OptionTuple = [Action | undefined, string, string | undefined];

/** parser.error(message): the usage and the message on stderr, exit 2 (for a check a script makes after parsing,
 *  as argparse's own `type=int` would). */
export function error(parser: Parser, message: string, env: Width): never {
  throw new ArgparseExit(2, "", `${formatUsage(parser, env)}${parser.prog}: error: ${message}\n`, message);
}

interface Width {
  width: number;
}

/** argparse's _negative_number_matcher; Python's `$` also matches before a final newline. */
const NEGATIVE_NUMBER = /^-\p{Nd}+\n?$|^-\p{Nd}*\.\p{Nd}+\n?$/u;

function optionIndex(parser: Parser): Map<string, Action> {
  const map = new Map<string, Action>();
  for (const a of parser.actions) for (const f of a.flags) map.set(f, a);
  return map;
}

function parseOptional(parser: Parser, options: Map<string, Action>, arg: string, env: Width): OptionTuple | undefined {
  if (!arg || arg[0] !== "-") return undefined;
  if (options.has(arg)) return [options.get(arg), arg, undefined];
  if (arg.length === 1) return undefined;
  if (arg.includes("=")) {
    const i = arg.indexOf("=");
    const flag = arg.slice(0, i);
    if (options.has(flag)) return [options.get(flag), flag, arg.slice(i + 1)];
  }
  const tuples: OptionTuple[] = [];
  if (arg[1] === "-") {
    const i = arg.indexOf("=");
    const [prefix, explicit] = i >= 0 ? [arg.slice(0, i), arg.slice(i + 1)] : [arg, undefined];
    for (const [flag, action] of options) if (flag.startsWith(prefix)) tuples.push([action, flag, explicit]);
  } else {
    for (const [flag, action] of options) {
      if (flag === arg.slice(0, 2)) tuples.push([action, flag, arg.slice(2)]);
      else if (flag.startsWith(arg)) tuples.push([action, flag, undefined]);
    }
  }
  if (tuples.length > 1) error(parser, `ambiguous option: ${arg} could match ${tuples.map((t) => t[1]).join(", ")}`, env);
  if (tuples.length === 1) return tuples[0];
  if (NEGATIVE_NUMBER.test(arg) || arg.includes(" ")) return undefined;
  return [undefined, arg, undefined];
}

/** The nargs pattern over the 'O'/'A'/'-' string of argument kinds. */
function nargsPattern(a: Action): string {
  if (a.kind === "help" || a.kind === "store_true") return "()";
  if (a.kind === "parsers") return "(-*A[-AO]*)";
  if (a.oneOrMore) return "(-*A[A-]*)";
  return a.flags.length ? "(A)" : "(-*A-*)";
}

function matchArgument(a: Action, pattern: string): number {
  const m = new RegExp(`^${nargsPattern(a)}`).exec(pattern);
  if (!m) throw new ArgumentError(a, "expected one argument");
  return m[1]!.length;
}

export function parseArgs(parser: Parser, args: string[], env: Width): Namespace {
  const [ns, extras] = parseKnownArgs(parser, args, env);
  if (extras.length) error(parser, `unrecognized arguments: ${extras.join(" ")}`, env);
  return ns;
}

function parseKnownArgs(parser: Parser, args: string[], env: Width): [Namespace, string[]] {
  const ns: Namespace = {};
  for (const a of parser.actions) if (a.kind !== "help") ns[a.dest] = a.defaultValue;
  const unrecognized: string[] = [];
  try {
    const extras = consumeAll(parser, args, ns, unrecognized, env);
    return [ns, [...extras, ...unrecognized]];
  } catch (e) {
    if (e instanceof ArgumentError) error(parser, e.message, env);
    throw e;
  }
}

function consumeAll(parser: Parser, args: string[], ns: Namespace, unrecognized: string[], env: Width): string[] {
  const conflicts = new Map<Action, Action[]>();
  for (const g of parser.groups) for (const a of g.actions) conflicts.set(a, [...(conflicts.get(a) ?? []), ...g.actions.filter((b) => b !== a)]);
  const options = optionIndex(parser);
  const optionAt = new Map<number, OptionTuple>();
  let pattern = "";
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--") {
      pattern += "-" + "A".repeat(args.length - i - 1);
      break;
    }
    const tuple = parseOptional(parser, options, args[i]!, env);
    if (tuple) optionAt.set(i, tuple);
    pattern += tuple ? "O" : "A";
  }
  const seen = new Set<Action>();
  const seenNonDefault = new Set<Action>();
  const extras: string[] = [];

  const takeAction = (action: Action, strings: string[]) => {
    seen.add(action);
    const values = action.kind === "parsers" ? strings : strings.filter((s, i) => s !== "--" || strings.indexOf("--") !== i);
    seenNonDefault.add(action);
    for (const other of conflicts.get(action) ?? []) {
      if (seenNonDefault.has(other)) throw new ArgumentError(action, `not allowed with argument ${actionName(other)}`);
    }
    if (action.kind === "help") throw new ArgparseExit(0, formatHelp(parser, env), "");
    if (action.kind === "store") ns[action.dest] = action.oneOrMore ? values : values[0];
    else if (action.kind === "store_true") ns[action.dest] = "True";
    else if (action.kind === "append") ns[action.dest] = [...((ns[action.dest] as string[] | undefined) ?? []), values[0]!];
    else {
      const [name, ...rest] = values;
      const sub = action.choices!.get(name!);
      if (!sub) throw new ArgumentError(action, `invalid choice: ${repr(name!)} (choose from ${[...action.choices!.keys()].map(repr).join(", ")})`);
      ns[action.dest] = name;
      const [subNs, subExtras] = parseKnownArgs(sub, rest, env);
      Object.assign(ns, subNs);
      unrecognized.push(...subExtras);
    }
  };

  const consumeOptional = (start: number): number => {
    let [action, flag, explicit] = optionAt.get(start)!;
    const tuples: Array<[Action, string[]]> = [];
    let stop = start + 1;
    for (;;) {
      if (!action) {
        extras.push(args[start]!);
        return start + 1;
      }
      if (explicit !== undefined) {
        const count = matchArgument(action, "A");
        if (count === 0 && flag[1] !== "-" && explicit !== "") {
          tuples.push([action, []]);
          flag = flag.charAt(0) + explicit.charAt(0);
          const next = explicit.slice(1) || undefined;
          if (!options.has(flag)) throw new ArgumentError(action, `ignored explicit argument ${repr(explicit)}`);
          action = options.get(flag);
          explicit = next;
        } else if (count === 1) {
          tuples.push([action, [explicit]]);
          break;
        } else throw new ArgumentError(action, `ignored explicit argument ${repr(explicit)}`);
      } else {
        const count = matchArgument(action, pattern.slice(start + 1));
        stop = start + 1 + count;
        tuples.push([action, args.slice(start + 1, stop)]);
        break;
      }
    }
    for (const [a, strings] of tuples) takeAction(a, strings);
    return stop;
  };

  let positionals = parser.actions.filter((a) => !a.flags.length);
  const consumePositionals = (start: number): number => {
    // A subcommand, or one positional of one-or-more values: each takes all it can match.
    const counts: number[] = [];
    if (positionals.length) {
      const m = new RegExp(`^${positionals.map(nargsPattern).join("")}`).exec(pattern.slice(start));
      if (m) counts.push(...m.slice(1).map((g) => g!.length));
    }
    positionals.slice(0, counts.length).forEach((a, i) => {
      takeAction(a, args.slice(start, start + counts[i]!));
      start += counts[i]!;
    });
    positionals = positionals.slice(counts.length);
    return start;
  };

  let start = 0;
  const indices = [...optionAt.keys()];
  const maxIndex = indices.length ? Math.max(...indices) : -1;
  while (start <= maxIndex) {
    const next = Math.min(...indices.filter((i) => i >= start));
    if (start !== next) {
      const end = consumePositionals(start);
      if (end > start) {
        start = end;
        continue;
      }
      start = end;
    }
    if (!optionAt.has(start)) {
      extras.push(...args.slice(start, next));
      start = next;
    }
    start = consumeOptional(start);
  }
  const stop = consumePositionals(start);
  extras.push(...args.slice(stop));

  const missing = parser.actions.filter((a) => !seen.has(a) && a.required).map(actionName);
  if (missing.length) error(parser, `the following arguments are required: ${missing.join(", ")}`, env);
  for (const g of parser.groups) {
    if (g.required && !g.actions.some((a) => seenNonDefault.has(a))) error(parser, `one of the arguments ${g.actions.map(actionName).join(" ")} is required`, env);
  }
  return extras;
}
