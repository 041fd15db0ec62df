/** `runOperator`'s manager options and `kubeloop run`'s `--leader-elect`: leader election is on unless turned off. */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { runCommand } from "../../../src/cli/project.ts";
import { defineOperator } from "../../../src/operator/index.ts";
import { managerOptionsOf } from "../../../src/operator/operator.ts";

const widgets = defineOperator({ name: "widgets", kinds: [], setup() {} });

describe("runOperator's manager options", () => {
  it("elect a leader by default on a Lease named after the operator, in $POD_NAMESPACE", () => {
    const options = managerOptionsOf(widgets, {}, { POD_NAMESPACE: "widgets-system" });
    assert.deepEqual(options.leaderElection, { name: "widgets", namespace: "widgets-system" });
    assert.equal(options.name, "widgets");
  });

  it("fall back to the operator's namespace, then its name, outside a pod", () => {
    const placed = defineOperator({ name: "widgets", namespace: "ops", kinds: [], setup() {} });
    assert.deepEqual(managerOptionsOf(placed, {}, {}).leaderElection, { name: "widgets", namespace: "ops" });
    assert.deepEqual(managerOptionsOf(widgets, {}, {}).leaderElection, {
      name: "widgets",
      namespace: "widgets",
    });
  });

  it("let given options override the Lease, and false turn election off", () => {
    const given = managerOptionsOf(widgets, { leaderElection: { name: "lock", retryPeriodMs: 1_000 } }, {});
    assert.deepEqual(given.leaderElection, { name: "lock", namespace: "widgets", retryPeriodMs: 1_000 });
    assert.equal(managerOptionsOf(widgets, { leaderElection: false }, {}).leaderElection, false);
  });

  it("watch the definition's watchNamespace unless told otherwise", () => {
    const scoped = defineOperator({ name: "widgets", watchNamespace: "team-a", kinds: [], setup() {} });
    assert.equal(managerOptionsOf(scoped, {}, {}).namespace, "team-a");
    assert.equal(managerOptionsOf(scoped, { namespace: "team-b" }, {}).namespace, "team-b");
  });
});

describe("kubeloop run --leader-elect", () => {
  async function leaderElect(args: string[]): Promise<unknown> {
    let seen: unknown;
    const command = runCommand()
      .exitOverride()
      .configureOutput({ writeErr: () => {} })
      .action((opts: { leaderElect: unknown }) => {
        seen = opts.leaderElect;
      });
    await command.parseAsync(args, { from: "user" });
    return seen;
  }

  it("is on by default and takes true or false, as kubebuilder's Go flag", async () => {
    assert.equal(await leaderElect([]), true);
    assert.equal(await leaderElect(["--leader-elect"]), true);
    assert.equal(await leaderElect(["--leader-elect=true"]), true);
    assert.equal(await leaderElect(["--leader-elect=false"]), false);
    assert.equal(await leaderElect(["--no-leader-elect"]), false);
    await assert.rejects(leaderElect(["--leader-elect=maybe"]), /give true or false/);
  });
});
