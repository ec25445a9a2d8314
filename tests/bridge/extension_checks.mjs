// Unit checks of the extension's pure parts, run with Node 22 (type stripping, no build):
//   node tests/bridge/extension_checks.mjs <repo>/pi-extension/persona-mind
// Exercised by tests/bridge/test_extension_ts.py; prints "OK <n>" on success.
import assert from "node:assert/strict";

const dir = process.argv[2];
const { clip, sanitize, resultDisplay } = await import(`${dir}/index.ts`);
const { Sidecar, MAX_FRAME_BYTES, PROTOCOL_VERSION } = await import(`${dir}/sidecar.ts`);
let checks = 0;
const check = (fn) => { fn(); checks += 1; };

// clip: widths at n-1, n, n+1; wide characters count two columns; never wider than asked.
check(() => assert.equal(clip("abcd", 5), "abcd"));
check(() => assert.equal(clip("abcde", 5), "abcde"));
check(() => assert.equal(clip("abcdef", 5), "abc…")); // "…" is budgeted two columns
check(() => assert.equal(clip("記憶記憶", 8), "記憶記憶"));
check(() => assert.equal(clip("記憶記憶", 7), "記憶…"));
check(() => assert.equal(clip("abc", 1), ""));
check(() => assert.equal(clip("", 3), ""));
const cols = (t) => [...t].reduce((n, ch) => n + (ch.codePointAt(0) >= 0x1100 ? 2 : 1), 0);
for (let w = 0; w < 12; w++) check(() => assert.ok(cols(clip("a記b憶c🙂d" + "x".repeat(20), w)) <= w));

// resultDisplay: a final result shows details.display (no instruction for the model);
// partial updates and results without it show the content text.
{
  const result = { content: [{ type: "text", text: "Done.\nPresent it.\n\nS" }], details: { display: "Done.\n\nS" } };
  check(() => assert.equal(resultDisplay(result, false), "Done.\n\nS"));
  check(() => assert.equal(resultDisplay(result, true), "Done.\nPresent it.\n\nS"));
  check(() => assert.equal(resultDisplay({ content: [{ type: "text", text: "x" }] }, false), "x"));
}

// sanitize: ANSI, control, bidi and zero-width characters go; tabs become spaces; LF stays.
check(() => assert.equal(sanitize("a\u001b[31mred\u001b[0m"), "ared"));
check(() => assert.equal(sanitize("a\tb"), "a  b"));
check(() => assert.equal(sanitize("x\u0000\u0007\u202e\u200by\r\nz"), "xy\nz"));
check(() => assert.equal(sanitize("\u001b]0;title\u0007ok"), "ok"));

// Frame reading: LF only, U+2028 is data, oversized lines skipped once, bad frames reported.
function harness() {
  const seen = { problems: [], requests: [] };
  const side = new Sidecar({
    onRequest: async (method, params) => { seen.requests.push([method, params]); return null; },
    onProblem: (text, code) => seen.problems.push(code),
    onExit: () => {},
  });
  return { side, seen };
}
{
  const { side, seen } = harness();
  const frame = JSON.stringify({ type: "request", id: 1, method: "notify", params: { text: "a\u2028b" } });
  side.onData(Buffer.from(frame.slice(0, 10)));
  side.onData(Buffer.from(frame.slice(10) + "\n"));
  check(() => assert.deepEqual(seen.requests, [["notify", { text: "a\u2028b" }]]));
  side.onData(Buffer.from("not json\n[1]\n{\"type\":\"telepathy\"}\n{\"type\":\"notify\",\"method\":\"x\"}\n"));
  check(() => assert.deepEqual(seen.problems, ["malformed", "malformed", "unknown_type", "unknown_method"]));
  side.onData(Buffer.from("{\"type\":\"request\",\"id\":\"x\",\"method\":\"m\"}\n"));
  check(() => assert.equal(seen.problems.at(-1), "malformed"));
}
for (const [extra, ok] of [[-1, true], [0, true], [1, false]]) {
  const { side, seen } = harness();
  const base = JSON.stringify({ type: "request", id: 2, method: "m", params: "" });
  const line = JSON.stringify({ type: "request", id: 2, method: "m", params: "y".repeat(MAX_FRAME_BYTES + extra - base.length) });
  check(() => assert.equal(Buffer.byteLength(line), MAX_FRAME_BYTES + extra));
  side.onData(Buffer.from(line.slice(0, 1000)));
  side.onData(Buffer.from(line.slice(1000) + "\nafter\n"));
  check(() => assert.equal(seen.requests.length, ok ? 1 : 0));
  check(() => assert.deepEqual(seen.problems, ok ? ["malformed"] : ["oversized", "malformed"]));
}
check(() => assert.equal(PROTOCOL_VERSION, 1));
console.log(`OK ${checks}`);
