"""Issue 13 item 3: questions are not persistence cues; indented code is never captured.

M-CAPTURE-1 (only strong *persistence* cues are captured) and M-CAPTURE-4 (code and other
non-user text is never a capture request).  Each case was captured on the old code.
"""

from __future__ import annotations

import pytest

from persona_mind.mind import decide_capture, direct_user_text


@pytest.mark.parametrize(
    "text",
    [
        "Remember that file we talked about yesterday? Open it.",
        "remember that bug from last week? fix it the same way",
        "From now on, should we use tabs?",
        "Remember: which port did the staging DB use?",
        "Ricorda che file abbiamo aperto ieri? Aprilo.",
        "Can you remember that the build failed yesterday",
        "Do you remember that script. Run it again.",
    ],
)
def test_question_with_remember_cue_is_not_saved_M_CAPTURE_1(text: str) -> None:
    """A question asks to recall; it neither captures nor nudges the model to save."""
    d = decide_capture(text, direct=True)
    assert d.action == "none", d
    assert d.draft is None


def test_statement_after_a_question_is_still_captured_M_CAPTURE_1() -> None:
    d = decide_capture("Where were we? Remember that the API is v2.1 now.", direct=True)
    assert d.action == "capture"
    assert d.draft is not None
    assert d.draft.text == "the API is v2.1 now."


def test_question_does_not_hide_a_casual_cue_in_another_sentence_M_CAPTURE_2() -> None:
    d = decide_capture("Is the build green? Keep in mind the cache is cold.", direct=True)
    assert d.action == "nudge"


@pytest.mark.parametrize(
    "text",
    [
        "Here is the log:\n\n    remember that this is a log line\n    more log\n",
        "Here is the log:\n\n\tfrom now on, tab-indented code\n",
        "    Remember that the first line is indented code.",
        "look at this\n        remember: deeper indentation is code too",
    ],
)
def test_indented_code_block_never_captured_M_CAPTURE_4(text: str) -> None:
    d = decide_capture(text, direct=True)
    assert d.action == "none", d


def test_indented_code_removed_but_user_text_kept_M_CAPTURE_4() -> None:
    text = "Remember that deploys run at noon.\n\n    remember that code is not mine\n"
    own = direct_user_text(text)
    assert "code is not mine" not in own
    d = decide_capture(text, direct=True)
    assert d.action == "capture"
    assert d.draft is not None
    assert d.draft.text == "deploys run at noon."


def test_short_indent_is_still_user_text_M_CAPTURE_1() -> None:
    """Up to three leading spaces is ordinary Markdown text, not code."""
    d = decide_capture("  Remember that the linter runs first.", direct=True)
    assert d.action == "capture"


def test_a_pasted_megabyte_is_not_a_capture_candidate(monkeypatch: pytest.MonkeyPatch) -> None:
    """A strong cue before 4 MB of pasted text decides nothing and scans nothing (the scan
    ran on the sidecar's event loop); the same cue in a short input is still captured."""
    import persona_mind.mind.capture._cues as cues  # noqa: PLC0415

    scanned: list[int] = []
    real = cues.scan  # type: ignore[attr-defined]

    def counting(text: str) -> object:
        scanned.append(len(text))
        return real(text)

    monkeypatch.setattr(cues, "scan", counting)
    pasted = "Remember that the API is v2.1 now. " + "log line 42 ok\n" * 280_000
    assert len(pasted) > cues.CAPTURE_INPUT_CHARS
    assert decide_capture(pasted, direct=True).action == "none"
    assert scanned == []
    short = decide_capture("Remember that the API is v2.1 now.", direct=True)
    assert short.action == "capture"
    assert scanned
