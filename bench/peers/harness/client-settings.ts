/**
 * The one setting that says how every contender's client is configured, threaded from `npm run
 * bench` to each contender as `BENCH_CLIENT_SETTINGS`: `limits-off` (the default run: every
 * client-side rate limit turned off, so the frameworks are compared, not their throttles) or
 * `defaults` (`--defaults`: each framework's own default client settings, what a user gets). The
 * two runs keep apart: their own JSON and their own section of results.md.
 */

/** How the contenders' clients are configured in a run. */
export type ClientSettings = "limits-off" | "defaults";

/** Each mode as the JSON and results.md record it. */
export const clientSettingsText: Record<ClientSettings, string> = {
  "limits-off": "every contender's client-side rate limit off",
  defaults: "every contender at its defaults",
};

/** The mode of a run's settings; a run recorded before the mode existed had every limit off. */
export function clientSettingsOf(settings: Record<string, unknown>): ClientSettings {
  return settings.clientSettings === "defaults" ? "defaults" : "limits-off";
}

/** The raw results of a run in `mode`: compare.json, or compare-defaults.json. */
export function rawFileOf(mode: ClientSettings): string {
  return mode === "defaults" ? "compare-defaults.json" : "compare.json";
}

const begin = "<!-- defaults run: begin (npm run bench -- --defaults writes this section) -->";
const end = "<!-- defaults run: end -->";

/** The defaults run's section of a results.md, markers included; "" when it has none. */
export function defaultsSectionIn(markdown: string): string {
  const from = markdown.indexOf(begin);
  const to = markdown.indexOf(end, from);
  return from < 0 || to < 0 ? "" : markdown.slice(from, to + end.length);
}

/** `markdown` with its defaults section replaced by `section` (between the markers), or appended. */
export function withDefaultsSection(markdown: string, section: string): string {
  const marked = `${begin}\n${section.trim()}\n${end}`;
  const old = defaultsSectionIn(markdown);
  return old ? markdown.replace(old, () => marked) : `${markdown.trimEnd()}\n\n${marked}\n`;
}
