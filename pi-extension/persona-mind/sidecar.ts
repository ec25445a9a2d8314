// The extension's half of the sidecar protocol (docs/bridge.md): spawn the Python sidecar,
// speak newline-delimited JSON frames with it, and tell the caller when it dies.
// Only node:* imports so the extension loads without a build step or dependencies.

import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const PROTOCOL_VERSION = 1;
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  label?: string | null;
}
export interface CommandSpec {
  name: string;
  description: string;
}
export interface Ready {
  type: "ready";
  protocol: number;
  pid: number;
  tools: ToolSpec[];
  commands: CommandSpec[];
  runtime?: string;
  startup_ms?: number | null;
}
export interface ErrorBody {
  code: string;
  message: string;
}

/** A request the sidecar rejected (an error response or an error frame naming it). */
export class SidecarError extends Error {
  code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
    this.name = "SidecarError";
  }
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
  timer?: ReturnType<typeof setTimeout>;
  method: string;
}

export interface SidecarHooks {
  /** A request from the sidecar (the runtime's HostPort); the value becomes the result. */
  onRequest(method: string, params: any): Promise<unknown>;
  /** An error frame or a local protocol problem; for logs and short notices. */
  onProblem(text: string, code: string): void;
  /** The process exited; `expected` is false for crashes. */
  onExit(code: number | null, signal: string | null, expected: boolean, stderrTail: string): void;
  /** One line of the sidecar's stderr. */
  onStderr?(line: string): void;
}

const here = dirname(fileURLToPath(import.meta.url));

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Where `persona-mind pi-extension path|install` records its interpreter (next to package.json). */
export const PYTHON_RECORD = join(here, "..", "python.json");

/**
 * The interpreter that has persona-mind, in this order: $PERSONA_MIND_PYTHON; the one
 * `persona-mind pi-extension path|install` recorded in python.json (if it still exists);
 * the venv this extension is bundled in (a wheel puts it at
 * <venv>/lib/pythonX.Y/site-packages/persona_mind/pi_extension); a source checkout's .venv;
 * else python3 from PATH.
 */
export function findPython(env: NodeJS.ProcessEnv, record = PYTHON_RECORD): { python: string; from: string } {
  if (env.PERSONA_MIND_PYTHON) return { python: env.PERSONA_MIND_PYTHON, from: "PERSONA_MIND_PYTHON" };
  const ext = resolve(here, "..");
  try {
    const data = JSON.parse(readFileSync(record, "utf8"));
    const recorded = data?.python;
    // A record written for another copy of the extension (e.g. baked into a wheel) is ignored.
    const mine = typeof data?.extensionDir !== "string" || resolve(data.extensionDir) === realpathOr(ext);
    if (typeof recorded === "string" && recorded && mine && existsSync(recorded)) return { python: recorded, from: record };
  } catch {
    /* no record yet (or unreadable): fall through */
  }
  const site = ext.match(/^(.*)[\\/]lib[\\/]python[0-9.]+[\\/]site-packages[\\/]persona_mind[\\/]pi_extension$/);
  for (const candidate of [site ? join(site[1], "bin", "python") : "", join(ext, "..", ".venv", "bin", "python")]) {
    if (candidate && existsSync(candidate)) return { python: candidate, from: candidate };
  }
  return { python: "python3", from: "PATH" };
}

/** The sidecar command line: $PERSONA_MIND_SIDECAR_CMD (JSON argv) or <python> -m ... */
export function sidecarCommand(env: NodeJS.ProcessEnv): { argv: string[]; pythonPath?: string } {
  const override = env.PERSONA_MIND_SIDECAR_CMD;
  if (override) {
    const argv = JSON.parse(override);
    if (!Array.isArray(argv) || argv.length === 0) throw new Error("PERSONA_MIND_SIDECAR_CMD must be a JSON array");
    return { argv: argv.map(String) };
  }
  const { python } = findPython(env);
  // From a source checkout (pi-extension/ next to src/), run the matching Python package.
  const src = resolve(here, "..", "..", "src");
  const pythonPath = existsSync(join(src, "persona_mind", "bridge", "sidecar.py")) ? src : undefined;
  return { argv: [python, "-m", "persona_mind.bridge.sidecar"], pythonPath };
}

const FIX = "run `persona-mind pi-extension install` with the Python that has persona-mind, or set PERSONA_MIND_PYTHON";

/**
 * One short line for a sidecar that could not start, naming the fix; the full stderr stays
 * in the bridge log. Never a traceback: Pi shows notices in the session.
 */
export function startProblem(argv: string[], message: string, stderrTail: string): string {
  const python = argv[0] ?? "python3";
  const missing = stderrTail.match(/No module named '?([A-Za-z0-9_.]+)'?/);
  if (missing && /^(persona_mind|msgspec|pykka|anyio|yaml|portalocker|tenacity)\b/.test(missing[1])) {
    return `${python} cannot import ${missing[1]}: ${FIX}`;
  }
  if (/ENOENT/.test(message)) return `cannot run ${python} (not found): ${FIX}`;
  // An error frame or a timeout already says why; a bare exit is explained by stderr's last line.
  const last = stderrTail.split("\n").map((l) => l.trim()).filter(Boolean).pop();
  const why = /^the sidecar exited/.test(message) && last ? `${message}: ${last}` : message;
  return why.length > 200 ? `${why.slice(0, 199)}…` : why;
}

export class Sidecar {
  proc?: ChildProcess;
  ready?: Ready;
  private pending = new Map<number, Pending>();
  private nextId = 0;
  private chunks: Buffer[] = [];
  private size = 0;
  private skipping = false;
  private stopping = false;
  private stderrTail: string[] = [];
  private stderrBuf = "";

  private hooks: SidecarHooks;

  constructor(hooks: SidecarHooks) {
    this.hooks = hooks;
  }

  /** The last lines the sidecar wrote to stderr (start-failure diagnosis). */
  get stderrText(): string {
    return [...this.stderrTail, this.stderrBuf].filter(Boolean).join("\n");
  }

  /** Settles when the process exited and its stdio closed (all stderr read). */
  closed: Promise<void> = Promise.resolve();

  /** The argv this sidecar was started with. */
  argv: string[] = [];

  get alive(): boolean {
    return this.proc !== undefined && this.proc.exitCode === null && this.proc.signalCode === null;
  }

  /** Spawn, say hello, resolve with `ready` (or reject: start failure, timeout, early exit). */
  start(hello: Record<string, unknown>, timeoutMs: number): Promise<Ready> {
    const { argv, pythonPath } = sidecarCommand(process.env);
    this.argv = argv;
    const env: NodeJS.ProcessEnv = { ...process.env, PERSONA_MIND_DISABLE: "1", PYTHONUNBUFFERED: "1" };
    if (pythonPath) env.PYTHONPATH = env.PYTHONPATH ? pythonPath + delimiter + env.PYTHONPATH : pythonPath;
    const proc = spawn(argv[0], argv.slice(1), { stdio: ["pipe", "pipe", "pipe"], env });
    this.proc = proc;
    proc.stdin!.on("error", () => {}); // EPIPE after a crash is reported through "exit"
    proc.stdout!.on("data", (data: Buffer) => this.onData(data));
    proc.stderr!.on("data", (data: Buffer) => this.onStderrData(data));
    this.closed = new Promise<void>((r) => proc.once("close", () => r()));
    return new Promise<Ready>((resolveReady, rejectReady) => {
      let settled = false;
      const timer = setTimeout(() => {
        if (settled) return;
        settled = true;
        rejectReady(new SidecarError("timeout", `the sidecar was not ready within ${timeoutMs} ms`));
        this.kill();
      }, timeoutMs);
      timer.unref?.();
      this.onReady = (ready) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.ready = ready;
        resolveReady(ready);
      };
      this.onStartError = (err) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        rejectReady(err);
      };
      proc.on("error", (err) => this.onStartError?.(new SidecarError("failed", `cannot start ${argv[0]}: ${err.message}`)));
      proc.on("exit", (code, signal) => {
        const tail = this.stderrTail.join("\n");
        this.onStartError?.(new SidecarError("failed", `the sidecar exited (code ${code}, signal ${signal}) before it was ready`));
        this.failAll(new SidecarError("failed", `the persona-mind sidecar exited (code ${code}, signal ${signal})`));
        this.hooks.onExit(code, signal, this.stopping, tail);
      });
      this.send({ type: "hello", protocol: PROTOCOL_VERSION, client: "pi-extension", ...hello });
    });
  }

  private onReady?: (ready: Ready) => void;
  private onStartError?: (err: Error) => void;

  send(frame: Record<string, unknown>): void {
    if (!this.alive || !this.proc?.stdin?.writable) return;
    this.proc.stdin.write(JSON.stringify(frame) + "\n");
  }

  /** Send a request; resolves with its result, rejects with SidecarError (timeout, error, exit). */
  request(method: string, params: unknown, timeoutMs: number, signal?: AbortSignal): Promise<any> {
    if (!this.alive) return Promise.reject(new SidecarError("failed", "the persona-mind sidecar is not running"));
    const id = ++this.nextId;
    return new Promise((resolveReq, rejectReq) => {
      const entry: Pending = { resolve: resolveReq, reject: rejectReq, method };
      const finish = () => {
        if (entry.timer) clearTimeout(entry.timer);
        signal?.removeEventListener("abort", onAbort);
        this.pending.delete(id);
      };
      entry.resolve = (v) => { finish(); resolveReq(v); };
      entry.reject = (e) => { finish(); rejectReq(e); };
      const onAbort = () => {
        this.send({ type: "notify", method: "cancel", params: { id } });
        entry.reject(new SidecarError("cancelled", `${method} was cancelled`));
      };
      if (timeoutMs > 0) {
        entry.timer = setTimeout(() => {
          this.send({ type: "notify", method: "cancel", params: { id } });
          entry.reject(new SidecarError("timeout", `persona-mind did not answer ${method} within ${timeoutMs} ms`));
        }, timeoutMs);
        entry.timer.unref?.();
      }
      if (signal?.aborted) return onAbort();
      signal?.addEventListener("abort", onAbort, { once: true });
      const line = JSON.stringify({ type: "request", id, method, params });
      if (Buffer.byteLength(line) > MAX_FRAME_BYTES) {
        return entry.reject(new SidecarError("oversized", `${method} is over the ${MAX_FRAME_BYTES}-byte frame cap`));
      }
      this.pending.set(id, entry);
      this.proc!.stdin!.write(line + "\n");
    });
  }

  notify(method: string, params: unknown): void {
    this.send({ type: "notify", method, params });
  }

  /** Orderly stop: shutdown request (bounded), close stdin, SIGTERM, then SIGKILL. */
  async stop(graceMs = 1500): Promise<void> {
    this.stopping = true;
    const proc = this.proc;
    if (!proc || !this.alive) return;
    const exited = new Promise<void>((r) => proc.once("exit", () => r()));
    try {
      await this.request("shutdown", null, graceMs);
    } catch {
      /* fall through to the signals */
    }
    proc.stdin?.end();
    const timer = setTimeout(() => this.kill(), graceMs);
    timer.unref?.();
    await Promise.race([exited, new Promise((r) => setTimeout(r, graceMs * 2).unref?.())]);
    clearTimeout(timer);
  }

  kill(): void {
    if (this.alive) {
      this.proc!.kill("SIGTERM");
      const t = setTimeout(() => this.alive && this.proc!.kill("SIGKILL"), 1000);
      t.unref?.();
    }
  }

  private failAll(err: Error): void {
    for (const p of [...this.pending.values()]) p.reject(err);
  }

  private onStderrData(data: Buffer): void {
    this.stderrBuf += data.toString("utf8");
    let nl: number;
    while ((nl = this.stderrBuf.indexOf("\n")) >= 0) {
      const line = this.stderrBuf.slice(0, nl);
      this.stderrBuf = this.stderrBuf.slice(nl + 1);
      this.stderrTail.push(line);
      if (this.stderrTail.length > 20) this.stderrTail.shift();
      this.hooks.onStderr?.(line);
    }
  }

  // LF-only framing with a cap (Node readline would also split on U+2028/2029).
  private onData(data: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = data.indexOf(0x0a, start);
      if (nl < 0) break;
      const piece = data.subarray(start, nl);
      start = nl + 1;
      if (this.skipping) {
        this.skipping = false;
      } else if (this.size + piece.length > MAX_FRAME_BYTES) {
        this.problem("oversized", `a sidecar frame over ${MAX_FRAME_BYTES} bytes was skipped`);
      } else {
        const line = this.chunks.length ? Buffer.concat([...this.chunks, piece]) : piece;
        this.onLine(line);
      }
      this.chunks = [];
      this.size = 0;
    }
    const rest = data.subarray(start);
    if (rest.length && !this.skipping) {
      this.size += rest.length;
      if (this.size > MAX_FRAME_BYTES) {
        this.skipping = true;
        this.chunks = [];
        this.size = 0;
        this.problem("oversized", `a sidecar frame over ${MAX_FRAME_BYTES} bytes was skipped`);
      } else {
        this.chunks.push(Buffer.from(rest));
      }
    }
  }

  private problem(code: string, message: string, id: number | null = null): void {
    this.send({ type: "error", code, message, id });
    this.hooks.onProblem(message, code);
  }

  private onLine(line: Buffer): void {
    if (line.length === 0) return;
    let frame: any;
    try {
      frame = JSON.parse(line.toString("utf8"));
    } catch (err) {
      return this.problem("malformed", `sidecar frame is not valid JSON (${(err as Error).message})`);
    }
    if (frame === null || typeof frame !== "object" || Array.isArray(frame)) {
      return this.problem("malformed", "a frame must be a JSON object with a 'type'");
    }
    try {
      this.dispatch(frame);
    } catch (err) {
      this.problem("malformed", `bad ${String(frame.type)} frame: ${(err as Error).message}`);
    }
  }

  private dispatch(frame: any): void {
    switch (frame.type) {
      case "ready":
        if (frame.protocol !== PROTOCOL_VERSION) {
          this.onStartError?.(new SidecarError("protocol_version", `sidecar speaks protocol ${frame.protocol}, extension ${PROTOCOL_VERSION}`));
          return;
        }
        this.onReady?.(frame as Ready);
        return;
      case "response": {
        const p = typeof frame.id === "number" ? this.pending.get(frame.id) : undefined;
        if (!p) return; // late answer to a request that already timed out
        if (frame.error) p.reject(new SidecarError(String(frame.error.code), String(frame.error.message)));
        else p.resolve(frame.result ?? null);
        return;
      }
      case "request":
        if (typeof frame.id !== "number" || typeof frame.method !== "string") {
          throw new Error("a request needs a numeric 'id' and a string 'method'");
        }
        this.serve(frame.id, frame.method, frame.params);
        return;
      case "error": {
        const p = typeof frame.id === "number" ? this.pending.get(frame.id) : undefined;
        if (p) p.reject(new SidecarError(String(frame.code), String(frame.message)));
        else if (frame.code === "protocol_version" || (frame.code === "failed" && !this.ready)) {
          this.onStartError?.(new SidecarError(String(frame.code), String(frame.message)));
        }
        this.hooks.onProblem(String(frame.message), String(frame.code));
        return;
      }
      case "notify":
        this.problem("unknown_method", `the extension has no notify ${JSON.stringify(frame.method)}`);
        return;
      default:
        this.problem("unknown_type", `unknown frame type ${JSON.stringify(frame.type)}`);
    }
  }

  private serve(id: number, method: string, params: unknown): void {
    this.hooks.onRequest(method, params).then(
      (result) => {
        const line = JSON.stringify({ type: "response", id, result: result ?? null });
        if (Buffer.byteLength(line) > MAX_FRAME_BYTES) {
          const message = `the answer to ${method} is over the ${MAX_FRAME_BYTES}-byte frame cap`;
          this.send({ type: "response", id, error: { code: "oversized", message } });
        } else if (this.alive && this.proc?.stdin?.writable) {
          this.proc.stdin.write(line + "\n");
        }
      },
      (err: any) => {
        const code = err instanceof SidecarError ? err.code : "failed";
        this.send({ type: "response", id, error: { code, message: String(err?.message ?? err) } });
      },
    );
  }
}
