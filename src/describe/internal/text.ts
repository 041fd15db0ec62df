/**
 * Text primitives of the rendering: a style (ANSI colours, status symbols, or neither) and tables
 * whose columns are padded on the visible text, so colour never shifts them.
 */

/** The colours the rendering uses. */
export type Color = "green" | "yellow" | "red" | "gray" | "bold";

const ansi: Record<Color, string> = { green: "32", yellow: "33", red: "31", gray: "90", bold: "1" };

/** How text is decorated: colours (a terminal without `NO_COLOR`), symbols (a terminal), or neither (piped). */
export interface Style {
  readonly color: boolean;
  readonly symbols: boolean;
}

/** A table cell: text, coloured when the style allows. */
export type Cell = string | { readonly text: string; readonly color?: Color };

/** Control characters: C0, DEL and C1. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds.
const controls = /[\u0000-\u001f\u007f-\u009f]/g;

/** How kubectl shows the two it escapes (cli-runtime `printers.EscapeTerminal`), then newline and tab. */
const named: Readonly<Record<string, string>> = { "\u001b": "^[", "\r": "\\r", "\n": "\\n", "\t": "\\t" };

/**
 * `text` from the cluster (names, reasons, messages, Event notes) made safe to print on a
 * terminal: ESC as `^[` and CR as `\r`, as `kubectl describe` shows them (cli-runtime's
 * `printers.EscapeTerminal`, against escape-sequence attacks, kubernetes#101695), so a colour,
 * a cleared screen or a rewritten title cannot come from an object's text. The other control
 * characters, which kubectl leaves, are escaped too (`\n`, `\t`, else `\xNN`): a backspace or a
 * C1 CSI (U+009B) rewrites what is shown as well, and a newline or tab would break the tables.
 */
export function escapeTerminal(text: string): string {
  return text.replace(controls, (c) => named[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

/** `text` in `color`, when the style has colours. */
export function paint(style: Style, text: string, color: Color | undefined): string {
  return style.color && color && text ? `\u001b[${ansi[color]}m${text}\u001b[0m` : text;
}

/** Rows with columns padded to their widest cell, two spaces apart, trailing blanks dropped. */
export function table(style: Style, rows: readonly (readonly Cell[])[], indent = "  "): string[] {
  const texts = rows.map((row) => row.map(textOf));
  // A row's last cell is not padded, so it widens no column (a row may have fewer cells than others).
  const widths: number[] = [];
  for (const row of texts)
    for (const [i, text] of row.slice(0, -1).entries()) widths[i] = Math.max(widths[i] ?? 0, text.length);
  return rows.map((row, r) => {
    const cells = row.map((cell, i) => {
      const text = texts[r]?.[i] ?? "";
      const padded = i === row.length - 1 ? text : text.padEnd(widths[i] ?? 0);
      return paint(style, text, colorOf(cell)) + padded.slice(text.length);
    });
    return `${indent}${cells.join("  ")}`.trimEnd();
  });
}

function textOf(cell: Cell): string {
  return escapeTerminal(typeof cell === "string" ? cell : cell.text);
}

function colorOf(cell: Cell): Color | undefined {
  return typeof cell === "string" ? undefined : cell.color;
}
