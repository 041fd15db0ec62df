/**
 * `runOperator`'s manager options and `kubeloop run`'s `--leader-elect`: leader election is on
 * unless turned off; `--install-crds` and `kubeloop install`'s flags.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Command } from "commander";
import { Secret } from "../../../src/api/index.ts";
import { installCommand, runCommand } from "../../../src/cli/project.ts";
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

  it("pass the operator's permissions, so the manager knows what else it declared", () => {
    const permissions = [{ type: Secret, verbs: ["get"] }];
    const permitted = defineOperator({ ...widgets.definition, permissions });
    assert.equal(managerOptionsOf(permitted, {}, {}).permissions, permissions);
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

  it("is on by default in a cluster, off outside one, and takes true or false, as kubebuilder's Go flag", async (t) => {
    const host = process.env.KUBERNETES_SERVICE_HOST;
    t.after(() => {
      if (host === undefined) delete process.env.KUBERNETES_SERVICE_HOST;
      else process.env.KUBERNETES_SERVICE_HOST = host;
    });
    delete process.env.KUBERNETES_SERVICE_HOST;
    assert.equal(await leaderElect([]), false, "outside a cluster (kubebuilder's make run)");
    process.env.KUBERNETES_SERVICE_HOST = "10.96.0.1";
    assert.equal(await leaderElect([]), true, "in a cluster");
    assert.equal(await leaderElect(["--leader-elect"]), true);
    assert.equal(await leaderElect(["--leader-elect=true"]), true);
    assert.equal(await leaderElect(["--leader-elect=false"]), false);
    assert.equal(await leaderElect(["--no-leader-elect"]), false);
    await assert.rejects(leaderElect(["--leader-elect=maybe"]), /give true or false/);
  });
});

describe("kubeloop run --install-crds and kubeloop install", () => {
  async function parsed(command: Command, args: string[]): Promise<Record<string, unknown>> {
    let seen: Record<string, unknown> = {};
    await command
      .exitOverride()
      .configureOutput({ writeErr: () => {} })
      .action((opts: Record<string, unknown>) => {
        seen = opts;
      })
      .parseAsync(args, { from: "user" });
    return seen;
  }

  it("run installs the CRDs first only when asked", async () => {
    assert.equal((await parsed(runCommand(), [])).installCrds, undefined);
    assert.equal((await parsed(runCommand(), ["--install-crds"])).installCrds, true);
  });

  it("install takes the operator module and where to connect", async () => {
    const opts = await parsed(installCommand(), ["--kubeconfig", "k.yaml", "--context", "dev"]);
    assert.deepEqual(opts, { operator: "src/operator.ts", kubeconfig: "k.yaml", context: "dev" });
  });
});
