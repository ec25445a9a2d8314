"""The ``memory`` and ``backlog`` tools: JSON Schemas, strict argument checks, result cards.

Host-neutral: :class:`MindTools` turns a :class:`ToolCall`'s arguments into service calls
and a :class:`ToolResult`.  Refusals (unknown action or field, wrong type, oversized or
unsafe text, unknown kind, foreign owner) come back as ``is_error`` results naming the rule,
and nothing partial is written — validation happens before the pure store step, and the
step itself raises before any row changes.

Session notes are the memory tool's ``tier: "session"`` (a session-scoped note or
objective, AMB-25): the save decision is synchronous in the ledger and the returned entry
is appended through the ``append`` callback with no await in between (M-SESSION-NOTES-17).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from persona_mind.errors import PersonaMindError, StaleGeneration
from persona_mind.messages.host import ToolResult
from persona_mind.messages.memory import Origin, origin_label
from persona_mind.mind._cards import Card, backlog_line, fact_line
from persona_mind.mind._errors import AccessRefused, InvalidArgument, MindRefusal
from persona_mind.mind._model import BacklogStatus, Tier
from persona_mind.mind._pending_rewrites import held_plan_card
from persona_mind.mind._service import FoundFact, MemoryService
from persona_mind.mind._text import identity_text
from persona_mind.mind._tool_specs import BACKLOG_TOOL, MEMORY_TOOL, check_args, tool_specs
from persona_mind.mind._write_gate import WriteGate
from persona_mind.mind.facts._updates import update_offer
from persona_mind.mind.facts._where import iso_time, where_saved
from persona_mind.mind.notes._ledger import NOTE_ENTRY_TYPE, NotesLedger
from persona_mind.mind.optimize._commands import inspection_card, plan_card, tracked
from persona_mind.mind.optimize._port import OptimizeBinding

__all__ = ("BACKLOG_TOOL", "MEMORY_TOOL", "AppendEntry", "MindTools", "tool_specs")

AppendEntry = Callable[[str, Any], Awaitable[None]]

LIST_LIMIT = 20  # memory list without a limit: a screen, not the whole store


def _need(args: Mapping[str, Any], name: str, action: str) -> Any:
    if name not in args:
        raise InvalidArgument("args.missing", f"action {action!r} needs {name!r}")
    return args[name]


def _refusal(exc: MindRefusal) -> ToolResult:
    card = Card(f"Refused ({exc.rule})", (str(exc),))
    return ToolResult(
        text=card.compact(), details=card.details() | {"rule": exc.rule}, is_error=True
    )


def _same_as_captured(captured: FoundFact | None, text: object) -> FoundFact | None:
    """The captured fact when ``text`` says the same (case, spacing, end punctuation aside)."""
    if captured is None or not isinstance(text, str):
        return None

    def key(value: str) -> str:
        return identity_text(value).rstrip(" .!")

    return captured if key(text) == key(captured.fact.text) else None


def _ok(card: Card) -> ToolResult:
    return ToolResult(text=card.full(), details=card.details())


class MindTools:
    """Executes the two tools for one scope (the Companion owns one per session scope)."""

    def __init__(
        self,
        service: MemoryService,
        *,
        ledger: NotesLedger | None = None,
        append: AppendEntry | None = None,
        leg: bool = False,
        optimize: OptimizeBinding | None = None,
        gate: WriteGate | None = None,
        captured: FoundFact | None = None,
        origin: Origin = "model",
    ) -> None:
        self.service = service
        self.gate = gate
        self.captured = captured
        self.origin: Origin = origin  # who is calling: the model in Pi, an MCP client
        self.ledger = ledger
        self.append = append
        self.leg = leg
        self.optimize = optimize

    async def call(self, name: str, args: Mapping[str, Any]) -> ToolResult:
        """Run one tool call; refusals are ``is_error`` results, never exceptions."""
        try:
            if self.leg:
                raise AccessRefused("leg.no_tools", "delegated legs have no memory/backlog tools")
            if name == "memory":
                return _ok(await self._memory(check_args(MEMORY_TOOL, args)))
            if name == "backlog":
                return _ok(await self._backlog(check_args(BACKLOG_TOOL, args)))
            raise InvalidArgument("tool.unknown", f"no tool {name!r}; use memory or backlog")
        except MindRefusal as exc:
            return _refusal(exc)
        except StaleGeneration as exc:
            return _refusal(MindRefusal("session.changed", f"{exc}; nothing was written"))
        except PersonaMindError as exc:  # storage trouble: say so, never crash the caller
            return _refusal(MindRefusal("store.error", f"{exc}"))

    # -- memory --------------------------------------------------------------------------

    async def _memory(self, a: dict[str, Any]) -> Card:
        act = a["action"]
        svc = self.service
        if act == "remember":
            if a.get("tier") == "session":
                return await self._save_note(a)
            tier: Tier | None = a.get("tier")
            kind, text = _need(a, "kind", act), _need(a, "text", act)
            if (same := _same_as_captured(self.captured, text)) is not None:
                # capture saved the user's words this turn: one fact, one row (its tier); the
                # user's own words need no confirmation, so the write policy is not asked
                kind, text, tier = same.fact.kind, same.fact.text, same.tier
                a = {**a, "tags": list(same.fact.tags)}
            elif self.gate is not None and (held := await self.gate.check(svc, a)) is not None:
                return held
            found, created = await svc.remember(
                kind,
                text,
                tags=a.get("tags", []),
                source=a.get("source"),
                tier=tier,
                origin=self.origin,
            )
            verb = "Saved" if created else "Updated"
            if same is not None:
                verb = "Already saved from the user's message; updated"
            f = found.fact
            hint = f'memory {{"action": "promote", "id": "{f.id}"}}'
            updates = await svc.updates_of(found) if created else []
            offers = tuple(
                update_offer(u.fact, f'memory {{"action": "supersede", "id": "{u.fact.id}"}}')
                for u in updates
            )
            return Card(
                f"{verb} {found.tier} {f.kind} {f.id} {where_saved(found.tier, f, hint)}",
                (f.text, *offers),
                data={
                    "id": f.id,
                    "tier": found.tier,
                    "expiresAt": iso_time(f.expiresAt),
                    "origin": f.origin,
                    "mayUpdate": [u.fact.id for u in updates],
                },
            )
        if act == "recall":
            hits = await svc.recall(a.get("query", ""), limit=a.get("limit", 10))
            lines = tuple(fact_line(h.tier, h.fact, f"  ({h.reason})") for h in hits)
            return Card(
                f"{len(hits)} memor{'y' if len(hits) == 1 else 'ies'} recalled",
                lines or ("(nothing matched)",),
                data={
                    "ids": [h.fact.id for h in hits],
                    "origins": [h.fact.origin for h in hits],
                },
            )
        if act == "list":
            return await self._list(a)
        if act in ("inspect", "stage"):  # consolidation (M-OPTIMIZE-MANUAL-1)
            return await self._optimize(act, a)
        fid = _need(a, "id", act)
        if act == "read":
            if fid.startswith("n_") and self.ledger is not None:
                note = self.ledger.read(fid)
                src = (f"source: {note.source}",) if note.source else ()
                return Card(
                    f"Session note {note.note_id} ({note.kind})",
                    (note.text, *src),
                    data={"id": note.note_id, "stored": False},
                )
            found = await svc.read(fid)
            f = found.fact
            extra = [f"tags: {', '.join(f.tags)}"] if f.tags else []
            extra += [f"source: {f.source}"] if f.source else []
            extra += [f"persona: {f.persona}"] if f.persona else []
            extra.append(f"origin: {origin_label(f.origin, confirmed=f.confirmed)}")
            if f.status != "active":
                extra.append(f"status: {f.status} (replaced by {f.supersededBy})")
            elif not f.live(svc.now()):
                extra.append("status: expired (kept until cleanup; not injected)")
            return Card(
                f"{found.tier} {f.kind} {f.id}",
                (f.text, *extra),
                data={"id": f.id, "origin": f.origin, "confirmed": f.confirmed},
            )
        if act == "forget":
            if fid.startswith("n_") and self.ledger is not None:
                return await self._forget_note(fid)
            found = await svc.forget(fid)
            return Card(f"Forgot {found.tier} {found.fact.id}", (found.fact.text,))
        if act == "promote":
            found = await svc.promote(fid, to=a.get("to", "project"))
            return Card(
                f"Promoted to {found.tier} {found.fact.id}",
                (found.fact.text,),
                data={"id": found.fact.id, "tier": found.tier},
            )
        if self.gate is not None and (held := await self.gate.check_supersede(svc, a)) is not None:
            return held
        old, new = await svc.supersede(
            fid, _need(a, "text", act), kind=a.get("kind"), tags=a.get("tags"), origin=self.origin
        )
        return Card(
            f"Superseded {old.fact.id} → {new.fact.id}",
            (new.fact.text,),
            data={"id": new.fact.id, "retired": old.fact.id},
        )

    async def _list(self, a: dict[str, Any]) -> Card:
        """Live facts newest first, at most ``limit`` (bounded output; the total is given)."""
        svc = self.service
        tier = a.get("tier")
        if tier == "session":
            raise InvalidArgument("list.tier", "session notes are read by id; list a stored tier")
        tiers: list[Tier] = [tier] if tier is not None else list(svc.scope.tiers())
        found = [(t, f) for t in tiers for f in await svc.list_facts(t)]
        found.sort(key=lambda tf: (-tf[1].lastSeenAt, tf[1].id))
        limit = a.get("limit", LIST_LIMIT)
        shown = found[:limit]
        more = len(found) - len(shown)
        lines = tuple(fact_line(t, f) for t, f in shown)
        return Card(
            f"{len(found)} live fact{'' if len(found) == 1 else 's'}"
            + (f" in {tier}" if tier else "")
            + (f"; newest {len(shown)} shown (raise limit, up to 50)" if more else ""),
            lines or ("(no live facts)",),
            data={
                "ids": [f.id for _, f in shown],
                "tiers": [t for t, _ in shown],
                "total": len(found),
            },
        )

    async def _optimize(self, act: str, a: dict[str, Any]) -> Card:
        binding = self.optimize
        if binding is None:
            raise AccessRefused("optimize.unavailable", "consolidation needs a live session")
        tier = a.get("tier") or binding.default_tier()
        if tier == "session":
            raise InvalidArgument("optimize.target", "session notes are not consolidated")
        if act == "inspect":
            page = await tracked(
                binding,
                "inspect",
                tier,
                binding.port.inspect(
                    binding.scope,
                    tier,
                    offset=a.get("offset", 0),
                    limit=a.get("limit"),
                    fingerprint=a.get("fingerprint"),
                ),
            )
            return inspection_card(page)
        ops = _need(a, "operations", act)
        held = self.gate.check_stage(ops) if self.gate is not None else ()
        stage = binding.port.stage(binding.owner, binding.scope, tier, ops)
        card = plan_card(await tracked(binding, "stage", tier, stage))
        return held_plan_card(card, held) if held else card

    def _require_ledger(self) -> tuple[NotesLedger, AppendEntry]:
        if self.ledger is None or self.append is None:
            raise AccessRefused("notes.unavailable", "session notes need a live host session")
        return self.ledger, self.append

    async def _save_note(self, a: dict[str, Any]) -> Card:
        ledger, append = self._require_ledger()
        kind = "objective" if a.get("kind") == "objective" else "note"
        note, data = ledger.decide_save(
            _need(a, "text", "remember"),
            source=a.get("source"),
            kind=kind,
            now=self.service.now(),
        )
        try:
            await append(NOTE_ENTRY_TYPE, data)
        except BaseException:
            ledger.rollback(data)
            raise
        where = "session file" if ledger.persisted else "this in-memory session only"
        return Card(
            f"Saved session {note.kind} {note.note_id}",
            (note.text, f"stored in {where}"),
            data={"id": note.note_id, "persisted": ledger.persisted},
        )

    async def _forget_note(self, note_id: str) -> Card:
        ledger, append = self._require_ledger()
        note, data = ledger.decide_forget(note_id, now=self.service.now())
        try:
            await append(NOTE_ENTRY_TYPE, data)
        except BaseException:
            ledger.rollback(data, note)
            raise
        return Card(f"Forgot session note {note_id}", (note.text,))

    # -- backlog -------------------------------------------------------------------------

    async def _backlog(self, a: dict[str, Any]) -> Card:
        act = a["action"]
        svc = self.service
        if act == "add":
            minutes = a.get("remind_in_minutes")
            item, outcome = await svc.backlog_add(
                _need(a, "text", act),
                tags=a.get("tags", []),
                remind_in=None if minutes is None else float(minutes) * 60,
            )
            title = {
                "added": f"Added {item.id}",
                "existing": f"Already tracked as {item.id}",
                "completed": f"Already {item.status} ({item.id}); not reopened",
            }[outcome]
            return Card(title, (item.text,), data={"id": item.id, "outcome": outcome})
        if act == "list":
            items = await svc.backlog_list(include_closed=bool(a.get("include_closed")))
            return Card(
                f"{len(items)} backlog item{'s' if len(items) != 1 else ''}",
                tuple(backlog_line(b) for b in items) or ("(empty)",),
                data={"ids": [b.id for b in items]},
            )
        iid = _need(a, "id", act)
        if act == "remind":
            item = await svc.backlog_remind(iid, float(_need(a, "remind_in_minutes", act)) * 60)
            return Card(f"Reminder set on {item.id}", (item.text,), data={"id": item.id})
        to: BacklogStatus = {"take": "taken", "done": "done", "drop": "dropped"}[act]  # type: ignore[assignment]
        item, changed = await svc.backlog_move(iid, to)
        title = f"{item.id} is {item.status}" + ("" if changed else " (unchanged)")
        return Card(title, (item.text,), data={"id": item.id, "changed": changed})
