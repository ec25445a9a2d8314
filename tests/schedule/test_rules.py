"""The pure scheduling rules at each boundary (M-OPTIMIZE-AUTO-2..26, -29)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from persona_mind.messages.host import CustomEntry
from persona_mind.mind.optimize import _schedule as r

NOW = 1000.0


def _active() -> r.Schedule:
    return r.activate(r.Schedule(), enabled=True, receipts=r.Receipts(), cooldown_at=None)


def _with(state: r.Schedule, **kw: Any) -> r.Schedule:
    return replace(state, **kw)


def _launch(state: r.Schedule, now: float = NOW) -> r.Schedule:
    """Settle, decide, admit, probe (all targets fresh), launch, finish."""
    state = r.settled(state, 0)
    decision = r.decide(state, state.seq, now)
    assert decision.action == "launch", decision
    attempt = r.Attempt("a", decision.targets, decision.retry)
    state = r.admit(state, attempt)
    state, fresh = r.probed(state, "a", {})
    state = r.launched(state, "a", fresh, now)
    return r.finished(state, "a", {})


def test_auto_is_on_unless_env_says_off_M_OPTIMIZE_AUTO_2() -> None:
    assert r.auto_default({}) is True
    assert r.auto_default({"PI_PERSONA_MIND_OPTIMIZE": "off"}) is False
    assert r.auto_default({"PI_PERSONA_MIND_OPTIMIZE": "OFF "}) is False
    assert r.auto_default({"PI_PERSONA_MIND_OPTIMIZE": "on"}) is True


def test_save_marks_only_eligible_tiers_and_usage_never_M_OPTIMIZE_AUTO_9_13_29() -> None:
    state = _active()
    state = r.saved(state, "shared")
    assert state.dirty == frozenset()
    state = r.settled(state, 5_000_000)  # usage alone
    assert state.dirty == frozenset()
    assert r.decide(state, state.seq, NOW).reason == "clean"
    state = r.saved(state, "stm")
    assert state.dirty == {"stm"}


def test_first_burst_needs_no_tokens_M_OPTIMIZE_AUTO_10() -> None:
    state = r.saved(_active(), "project")
    state = r.settled(state, 0)
    decision = r.decide(state, state.seq, NOW)
    assert (decision.action, decision.targets) == ("launch", ("project",))


def test_second_attempt_needs_dirty_and_one_million_input_tokens_M_OPTIMIZE_AUTO_11() -> None:
    state = _launch(r.saved(_active(), "stm"))
    later = NOW + r.COOLDOWN_SECONDS + 1
    state = r.saved(state, "stm")
    state = r.settled(state, 999_999)
    assert r.decide(state, state.seq, later).reason == "tokens"
    state = r.settled(state, 1)
    assert state.tokens == 1_000_000
    assert r.decide(state, state.seq, later).action == "launch"


def test_tokens_without_dirty_memory_do_not_launch_M_OPTIMIZE_AUTO_11_15() -> None:
    state = _launch(r.saved(_active(), "stm"))
    state = r.settled(state, 2_000_000)
    assert r.decide(state, state.seq, NOW + 10_000).reason == "clean"


def test_tokens_restart_at_launch_and_on_activation_M_OPTIMIZE_AUTO_16() -> None:
    state = r.settled(_active(), 500)
    assert state.tokens == 500
    again = r.activate(state, enabled=True, receipts=r.Receipts(), cooldown_at=None)
    assert again.tokens == 0
    launched = _launch(r.saved(state, "stm"))
    assert launched.tokens == 0


def test_cooldown_is_five_minutes_from_the_last_actual_launch_M_OPTIMIZE_AUTO_19() -> None:
    state = _launch(r.saved(_active(), "stm"), now=NOW)
    state = r.settled(r.saved(state, "stm"), r.TOKEN_GATE)
    wait = r.decide(state, state.seq, NOW + 299.0)
    assert (wait.action, wait.delay) == ("wait", 1.0)
    assert r.decide(state, state.seq, NOW + 300.0).action == "launch"


def test_window_is_stale_after_input_and_single_flight_coalesces_M_OPTIMIZE_AUTO_18_20() -> None:
    state = r.settled(r.saved(_active(), "stm"), 0)
    seq = state.seq
    busy, flight = r.busy(state)
    assert flight is None
    assert r.decide(busy, seq, NOW).reason == "stale"
    state = r.settled(busy, 0)
    decision = r.decide(state, state.seq, NOW)
    state = r.admit(state, r.Attempt("a", decision.targets, retry=False))
    state = r.settled(state, 0)  # another trigger while in flight
    assert r.decide(state, state.seq, NOW).reason == "in-flight"
    assert state.counters.coalesced == 1


def test_off_clears_queue_and_retry_and_on_waits_for_a_save_M_OPTIMIZE_AUTO_4_5_6() -> None:
    state = _with(r.saved(_active(), "stm"), retry=("stm",))
    state = r.set_auto(state, enabled=False)
    assert (state.dirty, state.retry) == (frozenset(), ())
    state = r.saved(state, "stm")  # saves while off queue nothing
    assert state.dirty == frozenset()
    state = r.set_auto(state, enabled=True)
    state = r.settled(state, 0)
    assert r.decide(state, state.seq, NOW).reason == "clean"  # no immediate launch
    state = r.settled(r.saved(state, "stm"), 0)
    assert r.decide(state, state.seq, NOW).action == "launch"


def test_interrupted_retry_bypasses_tokens_after_a_later_settle_M_OPTIMIZE_AUTO_24_25_26() -> None:
    state = _launch(r.saved(_active(), "stm"))  # the free first attempt is used
    state = r.settled(r.saved(state, "project"), r.TOKEN_GATE)
    t1 = NOW + r.COOLDOWN_SECONDS
    decision = r.decide(state, state.seq, t1)
    state = r.admit(state, r.Attempt("b", decision.targets, retry=False))
    state, fresh = r.probed(state, "b", {})
    state = r.launched(state, "b", fresh, t1)
    state, flight = r.busy(state)
    assert flight is not None
    state = r.cancelled(state, "b", keep_retry=True)
    assert state.retry == ("project",)
    assert not state.retry_ready  # cancellation alone never rearms (AUTO-26)
    assert r.decide(state, state.seq, t1 + 10_000).reason == "stale"
    state = r.settled(state, 0)  # a later settle, no tokens
    assert r.decide(state, state.seq, t1 + 10).action == "wait"  # still the cooldown
    decision = r.decide(state, state.seq, t1 + r.COOLDOWN_SECONDS)
    assert (decision.action, decision.retry, decision.targets) == ("launch", True, ("project",))


def test_off_drops_retry_permission_of_a_cancelled_attempt_M_OPTIMIZE_AUTO_4() -> None:
    state = r.saved(_active(), "stm")
    state = r.settled(state, 0)
    state = r.admit(state, r.Attempt("a", ("stm",), retry=False))
    state = r.launched(state, "a", ("stm",), NOW)
    state = r.cancelled(state, "a", keep_retry=False)
    state = r.set_auto(state, enabled=False)
    assert state.retry == ()
    assert state.in_flight is None


def test_digest_skips_unchanged_targets_M_OPTIMIZE_AUTO_23() -> None:
    state = r.saved(_active(), "stm")
    state = r.settled(state, 0)
    state = r.admit(state, r.Attempt("a", ("stm",), retry=False))
    state, fresh = r.probed(state, "a", {"stm": "f1"})
    state = r.launched(state, "a", fresh, NOW)
    state = r.finished(state, "a", {"stm": "f2"})  # the state the apply produced
    state = r.settled(r.saved(state, "stm"), r.TOKEN_GATE)
    later = NOW + r.COOLDOWN_SECONDS
    assert r.decide(state, state.seq, later).action == "launch"
    state = r.admit(state, r.Attempt("b", ("stm",), retry=False))
    state, fresh = r.probed(state, "b", {"stm": "f2"})
    assert fresh == ()
    assert state.in_flight is None
    assert state.counters.skipped == 1
    assert state.counters.launched == 1  # the skip was no actual launch
    assert state.tokens == r.TOKEN_GATE  # and did not restart the count


def _receipt(**data: object) -> CustomEntry:
    return CustomEntry(custom_type=r.RECEIPT_ENTRY_TYPE, data=data)


def test_receipts_tell_first_attempt_and_interruption_M_OPTIMIZE_AUTO_17_21_22() -> None:
    assert r.read_receipts(()) == r.Receipts()
    started = _receipt(phase="started", attempt="a", targets=["stm", "shared"], at=50.0)
    done = r.read_receipts([started, _receipt(phase="settled", attempt="a", outcome="completed")])
    assert done == r.Receipts(first_done=True, last_started_wall=50.0, interrupted=())
    open_ = r.read_receipts([started])  # started, never settled: interrupted, not completed
    assert open_.interrupted == ("stm",)
    assert open_.first_done
    cut = r.read_receipts([started, _receipt(phase="settled", attempt="a", outcome="interrupted")])
    assert cut.interrupted == ("stm",)
    junk = r.read_receipts([CustomEntry(custom_type=r.RECEIPT_ENTRY_TYPE, data="nonsense")])
    assert junk == r.Receipts()


def test_resumed_session_with_first_attempt_needs_tokens_M_OPTIMIZE_AUTO_17() -> None:
    receipts = r.Receipts(first_done=True, last_started_wall=0.0)
    state = r.activate(r.Schedule(), enabled=True, receipts=receipts, cooldown_at=None)
    state = r.settled(r.saved(state, "stm"), 10)
    assert r.decide(state, state.seq, NOW).reason == "tokens"


def test_status_lines_report_setting_dirty_tokens_cooldown_flight_M_OPTIMIZE_AUTO_7() -> None:
    state = _launch(r.saved(_active(), "stm"), now=NOW)
    state = r.settled(r.saved(state, "project"), 1234)
    text = "\n".join(r.status_lines(state, NOW + 60))
    assert "automatic review: on" in text
    assert "dirty tiers: project" in text
    assert "1,234 of 1,000,000" in text
    assert "cooldown remaining: 240 s" in text
    assert "in flight: none" in text
