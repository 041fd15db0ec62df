/**
 * A node:test reporter (beside `spec`) for the end-to-end tiers, which share one pool of workers
 * and so have no wall time of their own: at the end of the run it says, for each tier, how many
 * files it had and how long their tests ran in all — where the time of a run goes — then the
 * files whose tests ran longest, to keep `longest` in `run.ts` true. `test/run.ts` passes each file's tier in `KUBELOOP_TEST_TIERS` (JSON, path to tier).
 * Plain JavaScript: node:test loads reporters before the `--import` hooks that would compile
 * TypeScript.
 */
import { relative } from "node:path";

/** How many of the longest files the summary names. */
const longestShown = 15;

/** `ms` as "3 min 4 s", or "12 s" under a minute. */
const minutes = (ms) =>
  ms >= 60_000
    ? `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`
    : `${Math.round(ms / 1000)} s`;

/** The reporter: a line per tier, then the longest files, once every event was read. */
export default async function* tierReporter(source) {
  const tierOf = JSON.parse(process.env.KUBELOOP_TEST_TIERS ?? "{}");
  const testTime = new Map();
  const fileTime = new Map();
  for await (const { type, data } of source) {
    if ((type !== "test:pass" && type !== "test:fail") || data.nesting !== 0 || !data.file) continue;
    const ms = data.details?.duration_ms ?? 0;
    const tier = tierOf[data.file] ?? "unlisted";
    testTime.set(tier, (testTime.get(tier) ?? 0) + ms);
    fileTime.set(data.file, (fileTime.get(data.file) ?? 0) + ms);
  }
  for (const [tier, ms] of testTime) {
    const files = Object.values(tierOf).filter((t) => t === tier).length;
    yield `ℹ ${tier} tier: ${files} file${files === 1 ? "" : "s"}, ${minutes(ms)} of tests in all\n`;
  }
  const longest = [...fileTime].sort((a, b) => b[1] - a[1]);
  yield `ℹ the ${longestShown} longest files (their tests' time, in s): ${longest
    .slice(0, longestShown)
    .map(([file, ms]) => `${relative(process.cwd(), file)} ${Math.round(ms / 1000)}`)
    .join(", ")}\n`;
}
