// Test-only Pi extension for tests/e2e/test_relay_pi.py (issue 13 item 2).
//
// `/e2e-custom <customType> <text>` sends `text` as a custom message of that type with
// pi.sendMessage(..., { triggerTurn: true }) — what a trusted extension replaying deferred
// user input does (M-TRUST-2), or any other extension's custom message;
// `/e2e-custom-next` queues it for the next turn instead (Pi then announces it only by
// message_end, the other path the bridge forwards).
// `delegate {task, relay}` runs the tool `worker_report` through ctx.executeTool, so Pi emits
// the worker's tool_execution_end with parentToolCallId = the delegate call; the delegate's
// own result carries the worker's blocked report (relay: true) or drops it (relay: false).
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

const text = (parts: any): string =>
  Array.isArray(parts) ? parts.filter((p: any) => p?.type === "text").map((p: any) => String(p.text ?? "")).join("") : "";

export default function (pi: ExtensionAPI): void {
  pi.registerCommand("e2e-custom", {
    description: "test helper: send a custom message that starts a turn",
    handler: async (args: string) => {
      const [customType, ...rest] = args.trim().split(" ");
      pi.sendMessage({ customType, content: rest.join(" "), display: true }, { triggerTurn: true });
    },
  });
  pi.registerCommand("e2e-custom-next", {
    description: "test helper: queue a custom message for the next turn",
    handler: async (args: string) => {
      const [customType, ...rest] = args.trim().split(" ");
      pi.sendMessage({ customType, content: rest.join(" "), display: true }, { deliverAs: "nextTurn" });
    },
  });
  pi.registerTool({
    name: "worker_report",
    label: "worker_report",
    description: "test helper: a worker's report",
    parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false } as any,
    async execute(_id: string, params: any) {
      return { content: [{ type: "text", text: String(params.text) }], details: {} };
    },
  } as any);
  pi.registerTool({
    name: "delegate",
    label: "delegate",
    description: "test helper: delegate a task to a worker",
    parameters: {
      type: "object",
      properties: { task: { type: "string" }, relay: { type: "boolean" } },
      required: ["task", "relay"],
      additionalProperties: false,
    } as any,
    async execute(_id: string, params: any, _signal: any, _onUpdate: any, ctx: any) {
      const outcome = await ctx.executeTool("worker_report", { text: `Worker report\nstatus: blocked ${params.task}` });
      const report = text(outcome?.result?.content);
      const shown = params.relay ? `The worker says:\n${report}` : "The worker finished; nothing to add.";
      return { content: [{ type: "text", text: shown }], details: {} };
    },
  } as any);
}
