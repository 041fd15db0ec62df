import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decodeLines, type RawWatchEvent } from "../../../src/watch/index.ts";

async function* chunks(...parts: (Buffer | string)[]): AsyncGenerator<Buffer | string> {
  yield* parts;
}

async function decode(...parts: (Buffer | string)[]): Promise<RawWatchEvent[]> {
  const events: RawWatchEvent[] = [];
  for await (const event of decodeLines(chunks(...parts))) events.push(event);
  return events;
}

const line = (type: string, name: string) => `${JSON.stringify({ type, object: { metadata: { name } } })}\n`;

describe("decodeLines", () => {
  it("yields one event per line of a single chunk", async () => {
    const events = await decode(Buffer.from(line("ADDED", "a") + line("MODIFIED", "b")));
    assert.deepEqual(
      events.map((e) => [e.type, (e.object.metadata as { name: string }).name]),
      [
        ["ADDED", "a"],
        ["MODIFIED", "b"],
      ],
    );
  });

  it("tells the size of every chunk as it arrives", async () => {
    const sizes: number[] = [];
    const first = Buffer.from(line("ADDED", "a").slice(0, 10));
    const rest = Buffer.from(line("ADDED", "a").slice(10));
    for await (const _ of decodeLines(chunks(first, rest), (n) => sizes.push(n)));
    assert.deepEqual(sizes, [first.length, rest.length]);
  });

  it("holds back a line split across chunks until its end arrives", async () => {
    const text = line("ADDED", "a") + line("DELETED", "b");
    const cuts = [3, 20, 40, text.indexOf("\n"), text.indexOf("\n") + 1, text.length - 1];
    const parts = [...cuts, text.length].map((end, i) =>
      Buffer.from(text.slice(i === 0 ? 0 : cuts[i - 1], end)),
    );
    const events = await decode(...parts);
    assert.deepEqual(
      events.map((e) => e.type),
      ["ADDED", "DELETED"],
    );
  });

  it("decodes a multi-byte UTF-8 character split across chunks", async () => {
    const bytes = Buffer.from(line("ADDED", "zoë-🚀"));
    const rocket = bytes.indexOf(Buffer.from("🚀"));
    const umlaut = bytes.indexOf(Buffer.from("ë"));
    const parts = [
      bytes.subarray(0, umlaut + 1),
      bytes.subarray(umlaut + 1, rocket + 2),
      bytes.subarray(rocket + 2),
    ];
    const [event] = await decode(...parts);
    assert.equal((event?.object.metadata as { name?: string } | undefined)?.name, "zoë-🚀");
  });

  it("yields a trailing line without a newline when the stream ends", async () => {
    const events = await decode(line("ADDED", "a"), JSON.stringify({ type: "BOOKMARK", object: {} }));
    assert.deepEqual(
      events.map((e) => e.type),
      ["ADDED", "BOOKMARK"],
    );
  });

  it("skips blank lines and tolerates CRLF", async () => {
    const events = await decode(`\n\n${line("ADDED", "a").replace("\n", "\r\n")}  \n`);
    assert.equal(events.length, 1);
  });

  it("accepts string chunks", async () => {
    const events = await decode(line("ADDED", "a").slice(0, 5), line("ADDED", "a").slice(5));
    assert.equal(events.length, 1);
  });

  it("yields nothing for an empty stream", async () => {
    assert.deepEqual(await decode(), []);
  });

  it("throws on a line that is not JSON", async () => {
    await assert.rejects(decode("not json\n"), SyntaxError);
  });
});
