// argparse.HelpFormatter (Python 3.11) for the parsers in argparse.ts: usage lines wrapped the
// same way, help sections laid out at the same columns.
import type { Action, Parser } from "./argparse.js";
import { fill, wrap } from "./textwrap.js";
import { isSpace } from "./py-str.js";

interface Width {
  /** Terminal columns (argparse uses COLUMNS or 80, minus 2). */
  width: number;
}

function formatArgs(a: Action): string {
  if (a.kind === "parsers") return `${metavar(a)} ...`;
  if (a.oneOrMore) return `${metavar(a)} [${metavar(a)} ...]`;
  return metavar(a);
}

function metavar(a: Action): string {
  if (a.metavar !== undefined) return a.metavar;
  if (a.choices) return `{${[...a.choices.keys()].join(",")}}`;
  return a.flags.length ? a.dest.toUpperCase() : a.dest;
}

function actionsUsage(actions: Action[], parser: Parser): string {
  const grouped = new Set<Action>();
  const inserts = new Map<number, string>();
  for (const g of parser.groups) {
    const start = actions.indexOf(g.actions[0]!);
    if (start < 0) continue;
    const end = start + g.actions.length;
    if (!g.actions.every((a, i) => actions[start + i] === a)) continue;
    for (const a of g.actions) grouped.add(a);
    const [open, close] = !g.required ? ["[", "]"] : g.actions.length > 1 ? ["(", ")"] : [undefined, undefined];
    if (open && close) {
      inserts.set(start, inserts.has(start) ? `${inserts.get(start)} ${open}` : open);
      inserts.set(end, inserts.has(end) ? `${inserts.get(end)}${close}` : close);
    }
    for (let i = start + 1; i < end; i++) inserts.set(i, "|");
  }
  const parts: string[] = actions.map((a) => {
    if (!a.flags.length) return formatArgs(a);
    const part = a.kind === "help" || a.kind === "store_true" ? a.flags[0]! : `${a.flags[0]} ${formatArgs(a)}`;
    return !a.required && !grouped.has(a) ? `[${part}]` : part;
  });
  for (const i of [...inserts.keys()].sort((x, y) => y - x)) parts.splice(i, 0, inserts.get(i)!);
  return parts
    .join(" ")
    .replace(/([[(]) /g, "$1")
    .replace(/ ([\])])/g, "$1")
    .replace(/[[(] *[\])]/g, "")
    .trim();
}

/** format_usage(): "usage: ...\n", wrapped like argparse. */
export function formatUsage(parser: Parser, env: Width): string {
  return `${usageText(parser, env.width - 2, 0)}\n`;
}

function usageText(parser: Parser, width: number, indentLevel: number): string {
  const prefix = "usage: ";
  const prog = parser.prog;
  const optionals = parser.actions.filter((a) => a.flags.length);
  const positionals = parser.actions.filter((a) => !a.flags.length);
  const actionUsage = actionsUsage([...optionals, ...positionals], parser);
  let usage = [prog, actionUsage].filter(Boolean).join(" ");
  const textWidth = width - indentLevel;
  if (prefix.length + usage.length > textWidth) {
    const optParts = usageParts(actionsUsage(optionals, parser));
    const posParts = usageParts(actionsUsage(positionals, parser));
    const getLines = (parts: string[], indent: string, withPrefix?: string): string[] => {
      const lines: string[] = [];
      let line: string[] = [];
      let lineLen = (withPrefix ?? indent).length - 1;
      for (const part of parts) {
        if (lineLen + 1 + part.length > textWidth && line.length) {
          lines.push(indent + line.join(" "));
          line = [];
          lineLen = indent.length - 1;
        }
        line.push(part);
        lineLen += part.length + 1;
      }
      if (line.length) lines.push(indent + line.join(" "));
      if (withPrefix !== undefined) lines[0] = lines[0]!.slice(indent.length);
      return lines;
    };
    let lines: string[];
    if (prefix.length + prog.length <= 0.75 * textWidth) {
      const indent = " ".repeat(prefix.length + prog.length + 1);
      if (optParts.length) lines = [...getLines([prog, ...optParts], indent, prefix), ...getLines(posParts, indent)];
      else if (posParts.length) lines = getLines([prog, ...posParts], indent, prefix);
      else lines = [prog];
    } else {
      const indent = " ".repeat(prefix.length);
      lines = getLines([...optParts, ...posParts], indent);
      if (lines.length > 1) lines = [...getLines(optParts, indent), ...getLines(posParts, indent)];
      lines = [prog, ...lines];
    }
    usage = lines.join("\n");
  }
  return `${prefix}${usage}`;
}

/** Python's `\s`, and what its `.` does not cross. */
const isPySpace = (ch: string | undefined) => ch !== undefined && isSpace(ch);
const isLineEnd = (ch: string) => ch === "\n";

/** What argparse's part_regexp `\(.*?\)+(?=\s|$)|\[.*?\]+(?=\s|$)|\S+` finds (all matches), by hand in one pass
 *  each way: tried at every bracket, the regex scans to the end of the line from each, quadratic in open brackets. */
export function usageParts(text: string): string[] {
  // closeEnd[open][i]: scanning from i, the end of the first run of closing brackets followed by whitespace or the
  // end, before a line break; -1 if there is none.
  const closeEnd = (close: string): Int32Array => {
    const ends = new Int32Array(text.length + 1).fill(-1);
    let runEnd = text.length; // where the run of closing brackets at i ends
    for (let i = text.length - 1; i >= 0; i--) {
      const ch = text[i]!;
      if (ch !== close) runEnd = i;
      if (isLineEnd(ch)) continue;
      if (ch !== close) ends[i] = ends[i + 1]!;
      else ends[i] = runEnd === text.length || isPySpace(text[runEnd]) ? runEnd : ends[runEnd]!;
    }
    return ends;
  };
  const ends = { "(": closeEnd(")"), "[": closeEnd("]") };
  const parts: string[] = [];
  for (let i = 0; i < text.length; ) {
    const ch = text[i]!;
    if (isPySpace(ch)) {
      i++;
      continue;
    }
    const bracketEnd = ch === "(" || ch === "[" ? ends[ch][i + 1]! : -1;
    let end = bracketEnd;
    if (end < 0) for (end = i + 1; end < text.length && !isPySpace(text[end]); ) end++;
    parts.push(text.slice(i, end));
    i = end;
  }
  return parts;
}

function invocation(a: Action | { name: string }): string {
  if ("name" in a) return a.name;
  if (!a.flags.length) return metavar(a);
  if (a.kind === "help" || a.kind === "store_true") return a.flags.join(", ");
  return a.flags.map((f) => `${f} ${formatArgs(a)}`).join(", ");
}

/** format_help(): usage, description, "positional arguments", "options". */
export function formatHelp(parser: Parser, env: Width): string {
  const width = env.width - 2;
  const maxHelpPosition = Math.min(24, Math.max(width - 20, 4));
  const positionals = parser.actions.filter((a) => !a.flags.length);
  const optionals = parser.actions.filter((a) => a.flags.length);
  let maxLength = 0;
  for (const a of parser.actions) {
    maxLength = Math.max(maxLength, invocation(a).length + 2);
    for (const [name] of a.choiceHelp ?? []) maxLength = Math.max(maxLength, name.length + 4);
  }
  const helpPosition = Math.min(maxLength + 2, maxHelpPosition);
  const helpWidth = Math.max(width - helpPosition, 11);

  const formatAction = (header: string, help: string | undefined, indent: number): string => {
    const actionWidth = helpPosition - indent - 2;
    const pad = " ".repeat(indent);
    if (!help) return `${pad}${header}\n`;
    let out: string;
    let indentFirst = 0;
    if (header.length <= actionWidth) out = `${pad}${header.padEnd(actionWidth)}  `;
    else {
      out = `${pad}${header}\n`;
      indentFirst = helpPosition;
    }
    const text = help.replace(/[ \t\n\r\f\v]+/g, " ").trim();
    if (!text) return out.endsWith("\n") ? out : `${out}\n`;
    const lines = wrap(text, helpWidth);
    out += `${" ".repeat(indentFirst)}${lines[0]}\n`;
    for (const line of lines.slice(1)) out += `${" ".repeat(helpPosition)}${line}\n`;
    return out;
  };
  const section = (heading: string, actions: Action[]): string => {
    if (!actions.length) return "";
    let body = "";
    for (const a of actions) {
      body += formatAction(invocation(a), a.help, 2);
      for (const [name, help] of a.choiceHelp ?? []) body += formatAction(name, help, 4);
    }
    return `\n${heading}:\n${body}\n`;
  };

  let description = "";
  if (parser.description !== undefined) {
    description = parser.rawDescription ? parser.description : fill(parser.description.replace(/[ \t\n\r\f\v]+/g, " ").trim(), Math.max(width, 11));
    description += "\n\n";
  }
  const help = `${usageText(parser, width, 0)}\n\n${description}${section("positional arguments", positionals)}${section("options", optionals)}`;
  return `${help.replace(/\n\n\n+/g, "\n\n").replace(/^\n+|\n+$/g, "")}\n`;
}
