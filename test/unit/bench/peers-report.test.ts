/** The peers bench's report: a defaults run and a run with every limit off never overwrite each other. */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { defaultsSectionIn, withDefaultsSection } from "../../../bench/peers/harness/client-settings.ts";
import type { MachineDescription } from "../../../bench/peers/harness/machine.ts";
import { type Report, writeReport } from "../../../bench/peers/harness/report.ts";
import type { RunResult } from "../../../bench/peers/harness/sequence.ts";

const machine: MachineDescription = {
  cpu: "test",
  cores: 2,
  memoryGiB: 1,
  kernel: "test",
  loadAverageAtStart: 0,
  node: "v0",
  go: "go0",
  cluster: "none",
  contenders: {},
};

/** A report of one converge run of kubeloop at N = 10 taking `seconds`, in the given client mode. */
function reportOf(clientSettings: string, seconds: number): Report {
  const run = {
    contender: "kubeloop",
    n: 10,
    converge: { seconds, cpuSeconds: 0.1, requests: { total: 20, byVerb: {}, byResource: {}, writes: 20 } },
    rep: 1,
  } as unknown as RunResult & { rep: number };
  return {
    benchmark: "compare",
    date: "2026-01-01T00:00:00.000Z",
    machine,
    settings: { clientSettings },
    runs: [run],
    wallSeconds: 1,
  };
}

describe("peers bench report", () => {
  it("writes a defaults run into its own section and JSON, and a limits-off run keeps that section", () => {
    const dir = mkdtempSync(join(tmpdir(), "peers-report-"));
    writeReport(reportOf("limits-off", 1.5), dir);
    writeReport(reportOf("defaults", 7.25), dir);
    const both = readFileSync(join(dir, "results.md"), "utf8");
    const section = defaultsSectionIn(both);
    assert.match(section, /## Every contender at its defaults/);
    assert.match(section, /Client settings: every contender at its defaults\./);
    assert.match(section, /\| 7\.25 \|/);
    assert.doesNotMatch(section, /\| 1\.50 \|/);
    const outside = both.replace(section, "");
    assert.match(outside, /Client settings: every contender's client-side rate limit off\./);
    assert.match(outside, /\| 1\.50 \|/);
    assert.doesNotMatch(outside, /7\.25/);
    assert.equal(
      JSON.parse(readFileSync(join(dir, "compare.json"), "utf8")).settings.clientSettings,
      "limits-off",
    );
    assert.equal(
      JSON.parse(readFileSync(join(dir, "compare-defaults.json"), "utf8")).settings.clientSettings,
      "defaults",
    );

    writeReport(reportOf("limits-off", 2.5), dir);
    const rewritten = readFileSync(join(dir, "results.md"), "utf8");
    assert.equal(defaultsSectionIn(rewritten), section);
    assert.match(rewritten.replace(section, ""), /\| 2\.50 \|/);
  });

  it("replaces the defaults section in place, or appends one", () => {
    const marked = withDefaultsSection("# results\n\nbefore\n", "first");
    const markdown = `${marked}\nafter\n`;
    const replaced = withDefaultsSection(markdown, "second $& $1");
    assert.equal(
      replaced,
      markdown.replace(defaultsSectionIn(markdown), () => defaultsSectionIn(replaced)),
    );
    assert.match(defaultsSectionIn(replaced), /\nsecond \$& \$1\n/);
    assert.ok(replaced.endsWith("\nafter\n"));
    assert.equal(defaultsSectionIn("# no section\n"), "");
  });

  it("reads a run recorded before the mode existed as every limit off", () => {
    const dir = mkdtempSync(join(tmpdir(), "peers-report-"));
    const md = writeReport(reportOf("", 1), dir);
    assert.match(md, /Client settings: every contender's client-side rate limit off\./);
  });
});
