// Test-only Pi extension: `/e2e-goto <entryId>` moves the active branch (like /tree), so the
// end-to-end tests can check that persona-mind follows branch moves (session_tree).
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";

export default function (pi: ExtensionAPI): void {
  pi.registerCommand("e2e-goto", {
    description: "test helper: navigate the session tree to an entry id",
    handler: async (args: string, ctx: any) => {
      await ctx.waitForIdle();
      const result = await ctx.navigateTree(args.trim(), { summarize: false });
      ctx.ui.notify(`e2e-goto ${args.trim()} cancelled=${Boolean(result?.cancelled)}`, "info");
    },
  });
}
