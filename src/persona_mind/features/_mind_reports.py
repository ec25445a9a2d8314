"""``/mind`` reports: kept in session history, and a review's report delivered as a card.

Every ``/mind`` report is also appended as a ``persona-mind-report`` custom entry (display
history, never replayed as memory, M-UI-3). An optimize review runs for minutes, so its
command answers once the review is accepted and the review runs as the Companion's
detached work; :func:`deliver_review` runs it and delivers the terminal report as a card
and entry — unless the session or its scope changed meanwhile (M-UI-5: never stale).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from persona_mind.messages.host import CommandCall, CommandResult, DisplayMessage

if TYPE_CHECKING:
    from persona_mind.actors.host_proxy import HostClient
    from persona_mind.mind import MindSession

__all__ = ("REPORT_ENTRY_TYPE", "deliver_review", "report_entry")

REPORT_ENTRY_TYPE = "persona-mind-report"
"""Custom entry type of ``/mind`` reports: display history, never replayed as memory."""


def report_entry(call: CommandCall, result: CommandResult) -> dict[str, Any]:
    """The entry data of one ``/mind`` report."""
    return {"command": f"/{call.name} {call.args}".strip(), "text": result.text}


async def deliver_review(
    session: MindSession, host: HostClient, call: CommandCall
) -> CommandResult:
    """Run the accepted review and deliver its terminal report (M-OPTIMIZE-BATCH-10)."""
    service = session.service
    result = await session.on_command(call)
    if session.active and session.service is service:  # M-UI-5: never stale
        await host.append_entry(REPORT_ENTRY_TYPE, report_entry(call, result))
        lines = result.text.splitlines()
        await host.display(
            DisplayMessage(
                kind=REPORT_ENTRY_TYPE,
                title=lines[0] if lines else "Optimize review",
                body="\n".join(lines[1:]),
                details={"command": f"/{call.name} {call.args}".strip(), "level": result.level},
            )
        )
    return result
