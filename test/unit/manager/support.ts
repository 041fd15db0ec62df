import { pino } from "pino";
import { Client } from "../../../src/client/index.ts";
import { FakeClock } from "../../../src/clock/index.ts";
import { Manager, type ManagerOptions } from "../../../src/manager/index.ts";
import { fakeConnection } from "../client/support.ts";

/** A manager on a fake connection (nothing is sent) and a FakeClock; no endpoints. */
export async function fakeManager(options: Partial<ManagerOptions> = {}) {
  const clock = new FakeClock();
  const manager = await Manager.create({
    name: "widgets",
    client: new Client(fakeConnection(), { clock }),
    logger: pino({ level: "silent" }),
    metrics: false,
    health: false,
    clock,
    ...options,
  });
  return { manager, clock };
}
