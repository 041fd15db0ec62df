import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { describe, it } from "node:test";
import { FakeClock } from "../../../src/clock/index.ts";
import type { Fault } from "../../../src/testing/proxy/fault.ts";
import type { Match } from "../../../src/testing/proxy/match.ts";
import { describeRequest } from "../../../src/testing/proxy/request-info.ts";
import { Decisions, RuleSet } from "../../../src/testing/proxy/rules.ts";
import { eventType, LineSplitter, selectsEvent } from "../../../src/testing/proxy/watch-events.ts";
import { type StreamSink, WatchStream } from "../../../src/testing/proxy/watch-stream.ts";

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

const event = (type: string, name: string) =>
  `${JSON.stringify({ type, object: { kind: "ConfigMap", metadata: { name } } })}\n`;

/** A watch stream fed by hand, with a sink that records what the client would get. */
function harness(opts: { json?: boolean } = {}) {
  const clock = new FakeClock(0);
  const rules = new RuleSet(1);
  const decisions = new Decisions(describeRequest("GET", "/api/v1/configmaps?watch=1"));
  const source = new PassThrough();
  const client = { lines: [] as string[], ended: false, destroyed: false };
  const sink: StreamSink = {
    write: (data) => {
      client.lines.push(data.toString());
      return true;
    },
    drained: () => Promise.resolve(),
    end: () => {
      client.ended = true;
    },
    destroy: () => {
      client.destroyed = true;
    },
  };
  const stats = { received: 0, forwarded: 0, dropped: 0, duplicated: 0, silenced: 0 };
  const stream = new WatchStream({
    rules: () => decisions.streamRules(rules),
    clock,
    sink,
    stats,
    json: opts.json ?? true,
    stopUpstream: () => source.destroy(),
    signal: new AbortController().signal,
  });
  const pumped = stream.pump(source);
  const send = async (...chunks: string[]) => {
    for (const chunk of chunks) source.write(chunk);
    await flush();
  };
  const inject = (fault: Fault, match: Match = {}) => rules.add(match, fault);
  const names = () =>
    client.lines.map(
      (l) => (JSON.parse(l) as { object: { metadata: { name: string } } }).object.metadata.name,
    );
  return { clock, stream, source, client, stats, send, inject, names, pumped };
}

describe("proxy: watch framing", () => {
  it("splits chunks into whole lines, across chunk boundaries", () => {
    const splitter = new LineSplitter();
    assert.deepEqual(splitter.push(Buffer.from('{"a":1}\n{"b"')).map(String), ['{"a":1}\n']);
    assert.deepEqual(splitter.push(Buffer.from(":2}")).map(String), []);
    assert.deepEqual(splitter.push(Buffer.from('\n{"c":3}\n{"d"')).map(String), ['{"b":2}\n', '{"c":3}\n']);
    assert.equal(String(splitter.rest()), '{"d"');
    assert.equal(splitter.rest(), undefined);
  });

  it("reads the event type, whatever the key order", () => {
    assert.equal(eventType(Buffer.from(event("MODIFIED", "a"))), "MODIFIED");
    assert.equal(eventType(Buffer.from('{"object":{},"type":"BOOKMARK"}\n')), "BOOKMARK");
    assert.equal(eventType(Buffer.from('{"type":"NOPE"}\n')), undefined);
    assert.equal(eventType(Buffer.from("not json\n")), undefined);
  });

  it("selects all, by type, by types, and every Nth", () => {
    let n = 0;
    const count = () => ++n;
    assert.equal(selectsEvent("all", undefined, count), true);
    assert.equal(selectsEvent("ADDED", "ADDED", count), true);
    assert.equal(selectsEvent("ADDED", "DELETED", count), false);
    assert.equal(selectsEvent(["ADDED", "DELETED"], "DELETED", count), true);
    const every = { every: 3, types: ["MODIFIED" as const] };
    const picks = ["MODIFIED", "ADDED", "MODIFIED", "MODIFIED", "MODIFIED"].map((t) =>
      selectsEvent(every, t as "MODIFIED", count),
    );
    assert.deepEqual(picks, [false, false, false, true, false]);
  });
});

describe("proxy: watch stream faults", () => {
  it("forwards events untouched and ends when the apiserver ends", async () => {
    const w = harness();
    await w.send(event("ADDED", "a"), event("MODIFIED", "a").slice(0, 10));
    assert.deepEqual(w.names(), ["a"]);
    await w.send(event("MODIFIED", "a").slice(10));
    w.source.end();
    await w.pumped;
    await flush();
    assert.deepEqual(w.names(), ["a", "a"]);
    assert.equal(w.client.ended, true);
    assert.deepEqual(w.stats, { received: 2, forwarded: 2, dropped: 0, duplicated: 0, silenced: 0 });
  });

  it("drops every event while dropEvents is in place, and forwards again once removed", async () => {
    const w = harness();
    await w.send(event("ADDED", "a"));
    const rule = w.inject({ dropEvents: "all" });
    await w.send(event("MODIFIED", "a"), event("ADDED", "b"), event("BOOKMARK", ""));
    assert.deepEqual(w.names(), ["a"]);
    rule.remove();
    await w.send(event("ADDED", "c"));
    assert.deepEqual(w.names(), ["a", "c"]);
    assert.equal(w.stats.dropped, 3);
  });

  it("drops by type, and every Nth event", async () => {
    const w = harness();
    const byType = w.inject({ dropEvents: "DELETED" });
    await w.send(event("ADDED", "a"), event("DELETED", "a"), event("ADDED", "b"));
    assert.deepEqual(w.names(), ["a", "b"]);
    byType.remove();
    w.inject({ dropEvents: { every: 2 } });
    await w.send(...["c", "d", "e", "f", "g"].map((n) => event("ADDED", n)));
    assert.deepEqual(w.names(), ["a", "b", "c", "e", "g"]);
  });

  it("duplicates the selected events", async () => {
    const w = harness();
    w.inject({ duplicateEvents: "MODIFIED" });
    await w.send(event("ADDED", "a"), event("MODIFIED", "b"));
    assert.deepEqual(w.names(), ["a", "b", "b"]);
    assert.equal(w.stats.duplicated, 1);
    assert.equal(w.stats.forwarded, 3);
  });

  it("silence forwards nothing and keeps the stream open; later events flow again", async () => {
    const w = harness();
    const silence = w.inject({ silence: true });
    await w.send(event("ADDED", "a"), event("BOOKMARK", ""));
    assert.deepEqual(w.names(), []);
    assert.equal(w.client.ended || w.client.destroyed, false);
    silence.remove();
    await w.send(event("ADDED", "b"));
    assert.deepEqual(w.names(), ["b"]);
    assert.equal(w.stats.silenced, 2);
  });

  it("delays events without letting later ones overtake", async () => {
    const w = harness();
    const delay = w.inject({ delayEventsMs: 1000 });
    await w.send(event("ADDED", "a"));
    delay.remove();
    await w.send(event("ADDED", "b"));
    w.clock.advance(999);
    await flush();
    assert.deepEqual(w.names(), []);
    w.clock.advance(1);
    await flush();
    await flush();
    assert.deepEqual(w.names(), ["a", "b"]);
  });

  it("ends cleanly after the given number of events, or at once", async () => {
    const w = harness();
    w.inject({ endStream: { afterEvents: 2 } });
    await w.send(event("ADDED", "a"));
    assert.equal(w.client.ended, false);
    await w.send(event("ADDED", "b"), event("ADDED", "c"));
    await w.pumped;
    await flush();
    assert.deepEqual(w.names(), ["a", "b"]);
    assert.equal(w.client.ended, true);
    assert.equal(w.client.destroyed, false);

    const now = harness();
    now.inject({ endStream: true });
    now.stream.checkEnd();
    await now.pumped;
    await flush();
    assert.equal(now.client.ended, true);
  });

  it("reset drops the connection at once", async () => {
    const w = harness();
    await w.send(event("ADDED", "a"));
    w.stream.reset();
    await w.pumped;
    assert.equal(w.client.destroyed, true);
    assert.equal(w.stream.closed, true);
  });

  it("passes a non-JSON stream through chunk by chunk, ignoring event faults", async () => {
    const w = harness({ json: false });
    w.inject({ dropEvents: "all" });
    await w.send("\x00\x01binary");
    assert.deepEqual(w.client.lines, ["\x00\x01binary"]);
  });
});
