// What other extensions and tools hand the runtime (issue 13 item 2; docs/bridge.md "Relays").
//
// * M-TRUST-2: a custom message of the reserved type `pi-persona-deferred-input` (a trusted
//   extension replaying the user's own words with pi.sendMessage) is forwarded as an Input
//   event carrying its custom type; no other custom type is forwarded, and the runtime checks
//   the type again. Pi announces a custom message to extensions when it reaches the model:
//   `message_end` (steer, follow-up, next turn, or the run a `triggerTurn` message starts)
//   and, for a run it starts, `before_agent_start` first (so capture precedes injection,
//   as for typed input). An idle message sent without `triggerTurn` is only stored: Pi tells
//   no extension, so it is not input until it is delivered.
// * M-CAPTURE-7..10: every finished tool call (`tool_execution_end`) is forwarded with Pi's
//   `parentToolCallId` (set for calls another tool made through ctx.executeTool) and the
//   head of its text (MAX_TOOL_TEXT characters, `truncated` when clipped). The runtime
//   decides what is a relayed report; ids are passed through, never parsed.
// Pure functions (no pi API) so tests/bridge/extension_checks.mjs can run them under Node.

export const DEFERRED_INPUT_TYPE = "pi-persona-deferred-input";
export const MAX_TOOL_TEXT = 8000; // = persona_mind.messages.host.MAX_TOOL_TEXT

function contentText(content: any): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.filter((p) => p?.type === "text").map((p) => String(p.text ?? "")).join("");
  return "";
}

/** The Input event for a deferred-input custom message; undefined for anything else. */
export function deferredInputEvent(message: any): Record<string, unknown> | undefined {
  if (message?.role !== "custom" || message?.customType !== DEFERRED_INPUT_TYPE) return undefined;
  const text = contentText(message.content);
  if (!text.trim()) return undefined;
  return { type: "Input", text, source: "extension", custom_type: DEFERRED_INPUT_TYPE };
}

/** At most `max` UTF-16 units, never ending in half a surrogate pair. */
export function head(text: string, max: number): string {
  if (text.length <= max) return text;
  let out = text.slice(0, max);
  const last = out.charCodeAt(out.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) out = out.slice(0, -1);
  return out;
}

/** The ToolExecutionEnd event for Pi's `tool_execution_end`. */
export function toolEndEvent(event: any): Record<string, unknown> {
  const full = contentText(event?.result?.content);
  const text = head(full, MAX_TOOL_TEXT);
  const parent = event?.parentToolCallId;
  return {
    type: "ToolExecutionEnd",
    tool_call_id: String(event?.toolCallId ?? ""),
    tool_name: String(event?.toolName ?? ""),
    parent_tool_call_id: typeof parent === "string" && parent ? parent : null,
    is_error: Boolean(event?.isError),
    text,
    truncated: text.length < full.length,
  };
}

/**
 * Forwards each deferred-input message once: a run that a `triggerTurn` message starts is
 * announced by `before_agent_start` and again by that message's `message_end`.
 */
export class DeferredInputs {
  private readonly seen = new Set<string>();

  /** The event to forward for `message`, or undefined (not deferred input, or already sent). */
  take(message: any): Record<string, unknown> | undefined {
    const event = deferredInputEvent(message);
    if (!event) return undefined;
    const key = `${message?.timestamp ?? ""}\u0000${event.text}`;
    if (this.seen.has(key)) return undefined;
    if (this.seen.size >= 64) this.seen.clear(); // bounded: duplicates only arrive back to back
    this.seen.add(key);
    return event;
  }
}
