// persona-mind for Pi: a thin extension that runs the Python runtime as a supervised sidecar.
//
// It forwards Pi's session events, tool calls and commands over newline-delimited JSON frames
// (docs/bridge.md) and serves the runtime's host requests (register tools/commands, append
// custom entries, read the branch, notify, status, display, reload). Type-only imports and
// node:* only: no build step, loads on any Pi 1.x.
//
// Env: PERSONA_MIND_DISABLE=1 (do nothing; set for every child the sidecar starts),
// PERSONA_MIND_PYTHON (interpreter; default: the one `persona-mind pi-extension install`
// recorded in python.json, else the bundling venv's, else python3), PERSONA_MIND_SIDECAR_CMD (JSON argv),
// PERSONA_MIND_BRIDGE_LOG (append diagnostics to this file), timeouts in *_MS below.

import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { appendFileSync, writeSync } from "node:fs";
import { Sidecar, SidecarError, startProblem, type CommandSpec, type Ready, type ToolSpec } from "./sidecar.ts";
import { DeferredInputs, toolEndEvent } from "./relay.ts";

const env = process.env;
const ms = (name: string, fallback: number) => {
  const v = Number(env[name]);
  return Number.isFinite(v) && v > 0 ? v : fallback;
};
const READY_TIMEOUT = ms("PERSONA_MIND_READY_TIMEOUT_MS", 20_000);
const EVENT_TIMEOUT = ms("PERSONA_MIND_EVENT_TIMEOUT_MS", 10_000);
const INJECT_TIMEOUT = ms("PERSONA_MIND_INJECT_TIMEOUT_MS", 2_000);
const TOOL_TIMEOUT = ms("PERSONA_MIND_TOOL_TIMEOUT_MS", 600_000);
const COMMAND_TIMEOUT = ms("PERSONA_MIND_COMMAND_TIMEOUT_MS", 600_000);
const RESTART_BASE = ms("PERSONA_MIND_RESTART_BASE_MS", 500);
const MAX_RESTARTS = ms("PERSONA_MIND_MAX_RESTARTS", 5);
const MAX_QUEUED = 1000;
const SECTION = "persona-mind";
const DISPLAY_ENTRY = "persona-mind-display";
const RELOAD_COMMAND = "persona-mind-reload";

function log(text: string): void {
  const file = env.PERSONA_MIND_BRIDGE_LOG;
  if (!file) return;
  try {
    appendFileSync(file, `${new Date().toISOString()} ${text}\n`);
  } catch {
    /* diagnostics must never break the session */
  }
}

type Usage = { input_tokens: number; output_tokens: number; cache_read_tokens: number; cache_write_tokens: number };
const zeroUsage = (): Usage => ({ input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 });

// A tool's nested model usage (consult and round-table children) in Pi's `Usage` shape: Pi
// adds a tool result's `usage` to the session's totals (footer, /session, get_session_stats).
// Children report a cost total only (Pi's totals read only `cost.total`).
export function piUsage(u: any): any {
  if (!u || typeof u !== "object") return undefined;
  const n = (v: unknown) => (Number.isFinite(Number(v)) && Number(v) > 0 ? Number(v) : 0);
  const input = n(u.input_tokens), output = n(u.output_tokens);
  const cacheRead = n(u.cache_read_tokens), cacheWrite = n(u.cache_write_tokens), cost = n(u.cost);
  if (!(input || output || cacheRead || cacheWrite || cost)) return undefined;
  return {
    input, output, cacheRead, cacheWrite,
    totalTokens: input + output + cacheRead + cacheWrite,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: cost },
  };
}

function textOf(message: any): string {
  const c = message?.content;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.filter((p) => p?.type === "text").map((p) => String(p.text ?? "")).join("");
  return "";
}

// Display cards are rendered without pi-tui imports: a Component is any object with
// render(width) -> lines and invalidate(). Pi's TUI stops on a line wider than the terminal,
// so text is sanitized (no control/ANSI characters, tabs as spaces) and clipped with a width
// estimate that never undercounts (every code point >= U+1100 counts as two columns).
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]/g;
const ANSI = /\u001b\[[0-9;?]*[ -\/]*[@-~]|\u001b\][^\u0007]*(\u0007|\u001b\\)/g;

export function sanitize(text: string): string {
  return String(text).replace(ANSI, "").replace(/\t/g, "  ").replace(/\r/g, "").replace(CONTROL, "");
}

const columns = (ch: string) => ((ch.codePointAt(0) ?? 0) >= 0x1100 ? 2 : 1);

export function clip(line: string, width: number): string {
  const chars = [...line];
  let total = 0;
  for (const ch of chars) total += columns(ch);
  if (total <= width) return line;
  const room = width - columns("…"); // the ellipsis itself may be drawn two columns wide
  if (room < 0) return "";
  let used = 0;
  let out = "";
  for (const ch of chars) {
    if (used + columns(ch) > room) break;
    used += columns(ch);
    out += ch;
  }
  return out + "…";
}

function displayCard(data: any, expanded: boolean, theme: any, collapsed = 3) {
  const title = sanitize(String(data?.title ?? data?.kind ?? "persona-mind"));
  const body = sanitize(String(data?.body ?? "")).split("\n");
  const shown = expanded ? body : body.slice(0, collapsed);
  const more = !expanded && body.length > collapsed ? [`… ${body.length - collapsed} more lines (expand to see all)`] : [];
  const style = (name: string, text: string) => {
    try {
      return name === "bold" ? theme.bold(text) : theme.fg(name, text);
    } catch {
      return text;
    }
  };
  return {
    render(width: number): string[] {
      const w = Math.max(1, Math.floor(width) - 1);
      return [style("bold", clip(title, w)), ...shown.map((l) => clip(l, w)), ...more.map((l) => style("dim", clip(l, w)))];
    },
    invalidate(): void {},
  };
}

// Tools whose final result carries `details.display`: the text for the user's box, without
// the instruction the model reads (the round-table's "present the synthesis in full").
const DISPLAY_TOOLS = new Set(["persona_roundtable"]);

export function resultDisplay(result: any, partial: boolean): string {
  const display = result?.details?.display;
  if (!partial && typeof display === "string") return display;
  return textOf(result);
}

function modelName(model: any): string | null {
  return model ? `${model.provider}/${model.id}` : null;
}

export default function personaMind(pi: ExtensionAPI): void {
  if (env.PERSONA_MIND_DISABLE === "1") return; // kill switch: children must not recurse

  let side: Sidecar | undefined;
  let ctx: ExtensionContext | undefined;
  let state: "off" | "starting" | "ready" | "down" | "stopped" = "off";
  let startReason = "startup";
  let starting: Promise<void> | undefined;
  let restarts: number[] = [];
  let restartTimer: ReturnType<typeof setTimeout> | undefined;
  let downReason = "persona-mind is starting";
  let lastNotice = ""; // a start failure is announced once, not on every retry
  let usage = zeroUsage();
  const queued: Record<string, unknown>[] = [];
  let reloadWanted = false;
  let inCommand = false;
  let commandCards: string[] = []; // texts the runtime put in history cards during a command
  const tools = new Map<string, string>(); // name -> JSON of the registered spec
  const commands = new Map<string, CommandSpec>();
  const registeredCommands = new Set<string>();

  const mode = (): string | undefined => (ctx as any)?.mode;
  const notify = (text: string, level: "info" | "warning" | "error" = "info") => {
    log(`notify[${level}] ${text}`);
    // Print and JSON modes drop notices; a warning or error still reaches the user on stderr.
    if ((mode() === "print" || mode() === "json") && level !== "info") {
      process.stderr.write(`${text}\n`);
      return;
    }
    try {
      ctx?.ui.notify(text, level);
    } catch {
      /* no UI */
    }
  };

  /**
   * A command's answer, once, where the user looks: in print mode on stdout (JSON mode:
   * stderr, stdout is Pi's event stream); in the TUI not again when the runtime already put
   * the same text in a history card (/mind status), and as a card — which survives the
   * reload that follows — when the command reloads (/persona team select, /persona use);
   * elsewhere (RPC) a notice.
   */
  const answer = (command: string, text: string, level: "info" | "warning" | "error", reloading: boolean) => {
    const m = mode();
    if (m === "print" || m === "json") {
      log(`answer ${command}: ${text}`);
      // Print mode routes process.stdout to stderr to keep stdout for the model's answer; a
      // command's answer is the answer of `pi -p "/mind status"`, so it goes to fd 1 itself.
      try {
        if (m === "print") writeSync(1, `${text}\n`);
        else process.stderr.write(`${text}\n`);
      } catch {
        /* a closed stdout: the reader left */
      }
      return;
    }
    if (m === "tui" && commandCards.includes(text)) return log(`answer ${command}: shown as its report card`);
    if (m === "tui" && reloading && level === "info") {
      ensureRenderer(DISPLAY_ENTRY);
      pi.appendEntry(DISPLAY_ENTRY, { kind: "command", title: command, body: text, details: null });
      return log(`answer ${command}: a card that survives the reload`);
    }
    notify(text, level);
  };

  const setOwnStatus = (text: string | undefined) => {
    try {
      ctx?.ui.setStatus("persona-mind", text);
    } catch {
      /* no UI */
    }
  };

  const branchEntries = () => {
    const out: { custom_type: string; data: unknown; entry_id: string | null }[] = [];
    for (const e of (ctx?.sessionManager.getBranch() ?? []) as any[]) {
      // Our own display cards are presentation only; the runtime never reads them back.
      if (e?.type === "custom" && e.customType !== DISPLAY_ENTRY) out.push({ custom_type: String(e.customType), data: e.data ?? null, entry_id: e.id ?? null });
    }
    return out;
  };

  const unavailable = () =>
    state === "ready" ? "" : `persona-mind is unavailable (${downReason}); the tool did not run — try again shortly`;

  function applyTools(specs: ToolSpec[]): void {
    const wanted = new Set(specs.map((t) => t.name));
    const added: string[] = [];
    for (const spec of specs) {
      const key = JSON.stringify(spec);
      if (tools.get(spec.name) === key) continue;
      if (!tools.has(spec.name)) added.push(spec.name);
      tools.set(spec.name, key);
      pi.registerTool({
        name: spec.name,
        label: spec.label ?? spec.name,
        description: spec.description,
        parameters: spec.parameters as any,
        execute: withToolUpdates(async function execute(toolCallId: string, params: any, signal?: AbortSignal) {
          await whenReady();
          const why = unavailable();
          if (why || !side) return { content: [{ type: "text", text: why }], details: undefined, isError: true };
          let result: any;
          try {
            result = await side.request("tool", { type: "ToolCall", call_id: toolCallId, name: spec.name, arguments: params ?? {} }, TOOL_TIMEOUT, signal);
          } catch (err: any) {
            throw new Error(`persona-mind ${spec.name}: ${err?.message ?? err}`);
          }
          const usage = piUsage(result?.usage);
          return { content: [{ type: "text", text: String(result?.text ?? "") }], details: result?.details ?? undefined, isError: Boolean(result?.is_error), ...(usage ? { usage } : {}) };
        }),
        ...(DISPLAY_TOOLS.has(spec.name)
          ? {
              renderResult: (result: any, options: any, theme: any) => {
                const [title, ...body] = resultDisplay(result, Boolean(options?.isPartial)).split("\n");
                return displayCard({ title, body: body.join("\n") }, Boolean(options?.expanded), theme, 20);
              },
            }
          : {}),
      } as any);
    }
    const gone = [...tools.keys()].filter((n) => !wanted.has(n));
    if (gone.length) {
      for (const n of gone) tools.delete(n);
      pi.setActiveTools(pi.getActiveTools().filter((n: string) => !gone.includes(n)));
    }
    // (Re)activate only tools that are new here: one the user switched off stays off.
    const inactive = added.filter((n) => !pi.getActiveTools().includes(n));
    if (inactive.length) pi.setActiveTools([...pi.getActiveTools(), ...inactive]);
    if (state === "ready") setOwnStatus(`persona-mind ready (${tools.size} tools)`);
  }

  function applyCommands(specs: CommandSpec[]): void {
    commands.clear();
    for (const spec of specs) {
      commands.set(spec.name, spec);
      if (registeredCommands.has(spec.name)) continue; // Pi has no unregister: the handler looks it up
      registeredCommands.add(spec.name);
      pi.registerCommand(spec.name, {
        description: spec.description,
        handler: async (args: string, cmdCtx: any) => {
          if (!commands.has(spec.name)) return notify(`/${spec.name} is no longer available`, "warning");
          await whenReady();
          const why = unavailable();
          if (why || !side) return notify(why, "error");
          inCommand = true;
          commandCards = [];
          if (cmdCtx) ctx = cmdCtx;
          let result: any;
          try {
            result = await side.request("command", { type: "CommandCall", name: spec.name, args: args ?? "" }, COMMAND_TIMEOUT);
          } catch (err: any) {
            return notify(`/${spec.name} failed: ${err?.message ?? err}`, "error");
          } finally {
            inCommand = false;
          }
          const reloading = Boolean(result?.reload || reloadWanted);
          if (result?.text) answer(`/${spec.name} ${args ?? ""}`.trim(), String(result.text), result.level ?? "info", reloading);
          if (result?.reload || reloadWanted) {
            reloadWanted = false;
            await cmdCtx.reload();
            return;
          }
        },
      });
    }
  }

  async function hostRequest(method: string, params: any): Promise<unknown> {
    switch (method) {
      case "register_tools":
        return applyTools(params?.tools ?? []), null;
      case "register_commands":
        return applyCommands(params?.commands ?? []), null;
      case "append_entry":
        if (inCommand && typeof params?.data?.text === "string") commandCards.push(params.data.text);
        ensureRenderer(String(params.custom_type));
        pi.appendEntry(String(params.custom_type), params.data);
        return null;
      case "branch_entries":
        return { entries: branchEntries() };
      case "notify":
        notify(String(params.text), params.level ?? "info");
        return null;
      case "set_status":
        ctx?.ui.setStatus(String(params.key), params.text ?? undefined);
        return null;
      case "display": {
        // Display-only: a custom entry (never sent to the model) rendered as a card in the
        // TUI; other modes get a notice (RPC clients also see the entry_appended event).
        const m = params.message ?? {};
        if (ctx?.hasUI) pi.appendEntry(DISPLAY_ENTRY, { kind: m.kind, title: m.title, body: m.body, details: m.details ?? null });
        if ((ctx as any)?.mode !== "tui") notify(`${m.title ?? m.kind ?? "persona-mind"}\n${m.body ?? ""}`.trim(), "info");
        return null;
      }
      case "tool_update":
        return toolUpdate(params), null;
      case "send_user_message":
        return sendUserMessage(String(params?.text ?? "")), null;
      case "reload":
        reloadWanted = true;
        if (!inCommand && ctx?.isIdle()) triggerReload();
        return null;
      default:
        throw new SidecarError("unknown_method", `the extension has no method ${JSON.stringify(method)}`);
    }
  }

  // Live tool progress (P-ROUNDTABLE-17): while one of our tools runs, the runtime may send
  // `tool_update {call_id, text, details}`; it becomes a partial result of that call through
  // Pi's onUpdate (the TUI redraws the tool's box). Updates for a call that already ended
  // are dropped: the result is what counts.
  const toolUpdaters = new Map<string, (partial: any) => void>();
  function withToolUpdates<R>(run: (toolCallId: string, params: any, signal?: AbortSignal) => Promise<R>) {
    return async (toolCallId: string, params: any, signal?: AbortSignal, onUpdate?: (partial: any) => void): Promise<R> => {
      if (typeof onUpdate === "function") toolUpdaters.set(toolCallId, onUpdate);
      try {
        return await run(toolCallId, params, signal);
      } finally {
        toolUpdaters.delete(toolCallId);
      }
    };
  }
  function toolUpdate(params: any): void {
    const update = toolUpdaters.get(String(params?.call_id ?? ""));
    if (!update) return log(`tool_update for a call not in flight: ${params?.call_id}`);
    try {
      update({ content: [{ type: "text", text: String(params?.text ?? "") }], details: params?.details ?? undefined });
    } catch (err: any) {
      log(`tool_update failed: ${err?.message ?? err}`);
    }
  }

  // A real user message from the runtime (`/persona-roundtable` asks the session's lead):
  // it starts a turn when Pi is idle, and follows the running one otherwise.
  function sendUserMessage(text: string): void {
    if (!text) return;
    if (ctx?.isIdle?.() ?? true) pi.sendUserMessage(text);
    else pi.sendUserMessage(text, { deliverAs: "followUp" } as any);
  }

  function triggerReload(): void {
    reloadWanted = false;
    pi.sendUserMessage(`/${RELOAD_COMMAND}`, { expandPromptTemplates: true } as any);
  }

  function sessionStartEvent(reason: string) {
    const sm = ctx!.sessionManager as any;
    const entries = branchEntries();
    for (const e of entries) if (/^(pi-)?persona-/.test(e.custom_type)) ensureRenderer(e.custom_type);
    return {
      type: "SessionStart",
      reason,
      session_id: String(sm.getSessionId?.() ?? "unknown"),
      session_file: sm.getSessionFile?.() ?? null,
      session_manager: "pi",
      cwd: ctx!.cwd,
      entries,
      model: modelName(ctx!.model),
      has_ui: Boolean(ctx!.hasUI),
      other_commands: otherCommands(),
      ...hostState(),
    };
  }

  // Live host state for children (P-CHILD-13): loaded skills (name, path) and available
  // models; a persona's declared skills and model are resolved against them at launch.
  function hostState(): { skills?: [string, string][]; models?: string[] } {
    const out: { skills?: [string, string][]; models?: string[] } = {};
    try {
      const all = (pi as any).getCommands?.();
      if (Array.isArray(all)) {
        out.skills = all
          .filter((c: any) => c?.source === "skill" && typeof c?.name === "string")
          .map((c: any) => [String(c.name).replace(/^skill:/, ""), String(c?.sourceInfo?.path ?? "")] as [string, string])
          .filter(([n, p]: [string, string]) => n && p);
      }
    } catch {
      /* not reported: children discover skills themselves */
    }
    try {
      const available = (ctx as any)?.modelRegistry?.getAvailable?.();
      if (Array.isArray(available)) out.models = available.map((m: any) => `${m.provider}/${m.id}`);
    } catch {
      /* not reported */
    }
    return out;
  }

  // Other extensions' slash commands (P-ACTIVE-5): persona aliases must never shadow them.
  function otherCommands(): string[] {
    try {
      const all = (pi as any).getCommands?.() ?? [];
      return all
        .map((c: any) => String(c?.name ?? ""))
        .filter((n: string) => n && n !== RELOAD_COMMAND && !registeredCommands.has(n));
    } catch {
      return [];
    }
  }

  async function launch(reason: string): Promise<void> {
    state = "starting";
    downReason = "persona-mind is starting";
    const s = new Sidecar({
      onRequest: hostRequest,
      onProblem: (text, code) => {
        log(`problem[${code}] ${text}`);
        if (code !== "failed" || state === "ready") notify(`persona-mind bridge: ${text}`, "warning");
      },
      onStderr: (line) => log(`sidecar: ${line}`),
      onExit: (code, signal, expected, tail) => {
        log(`sidecar exit code=${code} signal=${signal} expected=${expected}`);
        // Only a crash of a ready sidecar is handled here; start failures are handled by
        // launch() (its start() promise rejects), so one failure never schedules two restarts.
        if (side !== s || expected || state !== "ready") return;
        state = "down";
        queued.length = 0;
        downReason = `the sidecar exited (code ${code}, signal ${signal})`;
        scheduleRestart(tail);
      },
    });
    side = s;
    let ready: Ready;
    try {
      // pi_command: children (consults, round-table legs) run this very Pi (node + cli.js).
      const piCommand = process.argv[1] ? [process.execPath, process.argv[1]] : null;
      ready = await s.start({ host_version: (pi as any).version ?? null, agent_dir: env.PI_CODING_AGENT_DIR ?? null, cwd: ctx?.cwd ?? null, pi_command: piCommand }, READY_TIMEOUT);
    } catch (err: any) {
      if (side !== s || state === "stopped") return;
      state = "down";
      queued.length = 0; // a new runtime starts from the branch, not from stale events
      s.kill();
      // Let stderr drain (bounded) so the one-line reason can name what really went wrong.
      await Promise.race([s.closed, new Promise((r) => setTimeout(r, 1000).unref?.())]);
      if (side !== s || state === "stopped") return;
      log(`start failed: ${err?.message ?? err}\n${s.stderrText}`);
      downReason = startProblem(s.argv, String(err?.message ?? err), s.stderrText);
      scheduleRestart("", true);
      return;
    }
    log(`ready pid=${ready.pid} startup_ms=${ready.startup_ms} runtime=${ready.runtime}`);
    applyTools(ready.tools ?? []);
    applyCommands(ready.commands ?? []);
    // SessionStart first, then what happened while the sidecar started, in Pi's order; no
    // await in between, so nothing can slip ahead of them.
    const started = s.request("event", { event: sessionStartEvent(reason) }, EVENT_TIMEOUT);
    for (const event of queued.splice(0)) s.notify("event", { event });
    state = "ready";
    setOwnStatus(`persona-mind ready (${tools.size} tools)`);
    if (restarts.length) notify(`persona-mind is back (sidecar restarted, pid ${ready.pid})`, "info");
    lastNotice = "";
    try {
      await started;
    } catch (err: any) {
      notify(`persona-mind: session start failed: ${err?.message ?? err}`, "warning");
    }
  }

  /** Wait (bounded by the start timeouts) while the sidecar is starting; true when ready. */
  async function whenReady(): Promise<boolean> {
    if (state === "starting" && starting) await starting;
    return state === "ready";
  }

  function scheduleRestart(tail: string, startFailure = false): void {
    const now = Date.now();
    restarts = restarts.filter((t) => now - t < 60_000);
    if (restarts.length >= MAX_RESTARTS) {
      downReason = `${downReason}; gave up after ${MAX_RESTARTS} restarts in a minute — run /reload to try again`;
      setOwnStatus("persona-mind stopped");
      if (startFailure || !tail) notify(`persona-mind stopped: ${downReason}`, "error");
      else notify(`persona-mind stopped: ${downReason}${tail ? `\n${tail.split("\n").slice(-3).join("\n")}` : ""}`, "error");
      return;
    }
    setOwnStatus("persona-mind down (restarting)");
    const delay = RESTART_BASE * 2 ** restarts.length;
    restarts.push(now);
    // A sidecar that cannot start says why once (one line, the fix named); retries are quiet.
    if (!startFailure) notify(`persona-mind: ${downReason}; its tools are disabled, restarting in ${delay} ms`, "warning");
    else if (downReason !== lastNotice) notify(`persona-mind: ${downReason}`, "warning");
    if (startFailure) lastNotice = downReason;
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      if (state === "down") starting = launch("reload");
    }, delay);
    restartTimer.unref?.();
  }

  // Events while the sidecar starts are queued (bounded) and sent right after SessionStart.
  const forward = (event: Record<string, unknown>) => {
    if (state === "ready") side?.notify("event", { event });
    else if (state === "starting" && queued.length < MAX_QUEUED) queued.push(event);
  };

  // Cards for display messages and for the runtime's own history entries (command reports,
  // session notes: M-UI-3, M-UI-6). A type gets a renderer the first time the runtime appends
  // it, or at session start when the branch holds persona-mind entries; entries without a
  // text body (pure state) stay invisible, as Pi shows custom entries by default.
  const rendered = new Set<string>();
  const canRender = typeof (pi as any).registerEntryRenderer === "function";
  const ensureRenderer = (customType: string) => {
    if (!canRender || rendered.has(customType)) return;
    rendered.add(customType);
    (pi as any).registerEntryRenderer(customType, (entry: any, options: any, theme: any) => {
      const data = entry?.data;
      if (customType === DISPLAY_ENTRY) return displayCard(data, Boolean(options?.expanded), theme);
      const body = typeof data?.text === "string" ? data.text : typeof data?.body === "string" ? data.body : undefined;
      if (body === undefined) return undefined;
      const title = String(data?.title ?? data?.command ?? customType);
      // A command's report is what the user asked for: show most of it without expanding.
      return displayCard({ title, body }, Boolean(options?.expanded), theme, data?.command ? 20 : 3);
    });
  };
  ensureRenderer(DISPLAY_ENTRY);

  pi.registerCommand(RELOAD_COMMAND, {
    description: "Reload the session for persona-mind (used after a team switch or rollback)",
    handler: async (_args: string, cmdCtx: any) => {
      await cmdCtx.reload();
    },
  });

  pi.on("session_start", async (event: any, c: ExtensionContext) => {
    ctx = c;
    log(`session_start reason=${event?.reason}`);
    startReason = event?.reason ?? "startup";
    // Awaited (bounded by the ready timeout): the runtime's slash commands must be registered
    // before Pi reads the first input, or `/persona …` typed at once would go to the model.
    starting = launch(startReason);
    await starting;
  });

  pi.on("session_tree", async (event: any, c: ExtensionContext) => {
    ctx = c;
    forward({ type: "SessionTree", entries: branchEntries(), leaf_id: event?.newLeafId ?? null });
  });

  pi.on("input", async (event: any, c: ExtensionContext) => {
    ctx = c;
    const source = ["interactive", "rpc", "extension"].includes(event?.source) ? event.source : "interactive";
    forward({ type: "Input", text: String(event?.text ?? ""), source });
  });

  pi.on("before_agent_start", async (event: any, c: ExtensionContext) => {
    ctx = c;
    const replay = forwardDeferredInput(event?.messageType === "custom" ? event?.message : undefined, "before_agent_start");
    if (!(await whenReady()) || !side) return;
    let injection: any;
    const prompt = String(event?.prompt ?? replay?.text ?? "");
    try {
      injection = await side.request("event", { event: { type: "BeforeAgentStart", prompt, system_prompt: String(event?.systemPrompt ?? "") } }, INJECT_TIMEOUT);
    } catch (err: any) {
      notify(`persona-mind: memory was not injected (${err?.message ?? err})`, "warning");
      return;
    }
    // M-UI-4: at most one short toast per turn, whatever the halves disclosed.
    const disclosed = (injection?.disclosures ?? []).map(String).filter(Boolean);
    if (disclosed.length) notify(disclosed.join(" · ").slice(0, 300), "info");
    const text = (injection?.sections ?? []).map(String).filter(Boolean).join("\n\n");
    const sections = event?.systemPromptOptions?.sections;
    if (sections && typeof sections === "object") {
      if (text) sections[SECTION] = text;
      else delete sections[SECTION];
      return;
    }
    if (text) return { systemPrompt: `${event.systemPrompt}\n\n<${SECTION}>\n${text}\n</${SECTION}>` };
  });

  // Issue 13 item 2 (relay.ts): the deferred-input replay (M-TRUST-2) and every finished
  // tool call with its parentToolCallId (M-CAPTURE-7..10). Only these two handlers and the
  // before_agent_start line above touch it.
  const deferredInputs = new DeferredInputs();
  function forwardDeferredInput(message: any, via: string): Record<string, unknown> | undefined {
    const event = deferredInputs.take(message);
    if (!event) return undefined;
    log(`deferred input forwarded at ${via}`);
    forward(event);
    return event;
  }

  pi.on("message_end", async (event: any, c: ExtensionContext) => {
    ctx = c;
    forwardDeferredInput(event?.message, "message_end");
  });

  pi.on("tool_execution_end", async (event: any, c: ExtensionContext) => {
    ctx = c;
    forward(toolEndEvent(event));
  });

  pi.on("agent_start", async (_event: any, c: ExtensionContext) => {
    ctx = c;
    forward({ type: "AgentStart" });
  });

  pi.on("agent_end", async (event: any, c: ExtensionContext) => {
    ctx = c;
    let final: string | null = null;
    for (const m of (event?.messages ?? []) as any[]) {
      if (m?.role !== "assistant") continue;
      final = textOf(m) || final;
      const u = m.usage ?? {};
      usage.input_tokens += Number(u.input ?? 0) || 0;
      usage.output_tokens += Number(u.output ?? 0) || 0;
      usage.cache_read_tokens += Number(u.cacheRead ?? 0) || 0;
      usage.cache_write_tokens += Number(u.cacheWrite ?? 0) || 0;
    }
    forward({ type: "AgentEnd", final_text: final });
  });

  pi.on("agent_settled", async (_event: any, c: ExtensionContext) => {
    ctx = c;
    forward({ type: "AgentSettled", usage });
    usage = zeroUsage();
    if (reloadWanted && !inCommand) triggerReload();
  });

  pi.on("model_select", async (event: any, c: ExtensionContext) => {
    ctx = c;
    const name = modelName(event?.model);
    if (name) forward({ type: "ModelSelect", model: name });
  });

  pi.on("session_shutdown", async (event: any) => {
    log(`session_shutdown reason=${event?.reason}`);
    const s = side;
    const wasReady = state === "ready";
    state = "stopped";
    if (restartTimer) clearTimeout(restartTimer);
    if (!s) return;
    if (wasReady) {
      try {
        await s.request("event", { event: { type: "SessionShutdown", reason: String(event?.reason ?? "quit") } }, 1500);
      } catch {
        /* stopping anyway */
      }
    }
    await s.stop();
    log("session_shutdown done");
  });
}
