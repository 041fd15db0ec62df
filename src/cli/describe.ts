/**
 * `kubeloop describe <kind>/<name> [-n ns]`: what an object of any kind is doing, on any cluster
 * (`kubeloop/describe`): its kstatus, its conditions' timeline, the tree it owns (with
 * `--fleet-namespace`, its children in member clusters too), the fields in conflict and the tree's
 * recent Events. Colours and symbols on a terminal (no colours with `NO_COLOR`), plain text when
 * piped, `-o json` for scripts.
 */
import { Command, InvalidArgumentError, Option } from "commander";
import { Client } from "../client/index.ts";
import { describeObject, renderDescription } from "../describe/index.ts";
import { type ClusterFlags, withClusterFlags } from "./project.ts";

/** The flags of `kubeloop describe`. */
export interface DescribeFlags extends ClusterFlags {
  namespace?: string;
  /** The hub namespace of the members' kubeconfig Secrets; `true` (no value): the object's namespace. */
  fleetNamespace?: string | true;
  output: "text" | "json";
  events: number;
}

async function describe(target: string, opts: DescribeFlags): Promise<void> {
  const client = await Client.load({ kubeconfig: opts.kubeconfig, context: opts.context });
  try {
    const description = await describeObject(client, target, {
      namespace: opts.namespace,
      fleetNamespace: fleetNamespaceOf(opts, client.defaultNamespace),
    });
    process.stdout.write(
      opts.output === "json"
        ? `${JSON.stringify(description, null, 2)}\n`
        : renderDescription(description, { ...terminalStyle(), events: opts.events }),
    );
  } finally {
    await client.close();
  }
}

/**
 * The hub namespace of the members' kubeconfig Secrets `--fleet-namespace` names: its value, or
 * without one the object's namespace (`-n`, else the kubeconfig context's); none without the flag.
 */
export function fleetNamespaceOf(
  opts: Pick<DescribeFlags, "namespace" | "fleetNamespace">,
  defaultNamespace: string,
): string | undefined {
  return opts.fleetNamespace === true ? (opts.namespace ?? defaultNamespace) : opts.fleetNamespace;
}

/** Colours and symbols on a terminal; `NO_COLOR` (set and not empty) turns colours off. */
function terminalStyle(): { color: boolean; symbols: boolean } {
  const terminal = process.stdout.isTTY === true;
  return { color: terminal && !process.env.NO_COLOR, symbols: terminal };
}

function eventCount(value: string): number {
  const count = Number(value);
  if (!Number.isInteger(count) || count < 0)
    throw new InvalidArgumentError("give a whole number, 0 or more.");
  return count;
}

/** The `describe` command. */
export function describeCommand(): Command {
  return withClusterFlags(
    new Command("describe")
      .description(
        "show an object of any kind: its kstatus, conditions timeline, the tree it owns, field-manager conflicts and recent events",
      )
      .argument(
        "<kind/name>",
        "the object, as kubectl names it: deployment/web, deployments.apps/web, myproxy/edge",
      )
      .option("-n, --namespace <namespace>", "the object's namespace (default: the kubeconfig context's)")
      .option(
        "--fleet-namespace [namespace]",
        "also show the object's children in the member clusters whose kubeconfig Secrets (labelled kubeloop.dev/kubeconfig=true) are in this namespace of the hub, found by their kubeloop.dev/hub-owner-uid label (no value: the object's namespace)",
      )
      .addOption(
        new Option("-o, --output <format>", "text for people, json for scripts")
          .choices(["text", "json"])
          .default("text"),
      )
      .option("--events <count>", "how many of the most recent events to show as text", eventCount, 30),
  ).action(describe);
}
