"""Phrase families about the frame of a conversation, found missing on public data.

A request for the model's own instructions (``reveal-prompt``), a fake end of the prompt
that opens a new frame (``fake-boundary``) and a persona said to stand outside rules or
ethics (``no-rules-persona``).  Each is a family, measured against public prompt-injection
and jailbreak sets and real developer prose (``docs/mind.md``, "Scanner on public data");
each was narrowed where ordinary notes tripped it ("list your rules in pyproject",
"=== BEGIN PGP SIGNED MESSAGE ===", "not restricted by the rate-limit rules").
"""

from __future__ import annotations

import re

from persona_mind.mind.trust._normalize import strip_marks

__all__ = ("FAKE_BOUNDARY", "NO_RULES_PERSONA", "REVEAL_PROMPT")

Rule = tuple[str, re.Pattern[str]]


def _c(src: str) -> re.Pattern[str]:
    return re.compile(strip_marks(src))


_REVEAL_VERB = (
    r"(?:reveal|print|show|leak|output|repeat|display|dump|disclose|tell me|write out|recite|"
    r"paste|list|summari[sz]e|rephrase|paraphrase|restate|translate|convert|format|explain|"
    r"spell out|share|echo|give me|relay|type out|put|return|provide|describe|condense|"
    r"compress|quote|reproduce|copy|transcribe|enumerate)"
)
"""Verbs of a prompt-extraction request (with "your instructions": not "list the rules")."""

REVEAL_PROMPT: Rule = (
    "reveal-prompt",
    _c(
        rf"\b(?<!not )(?<!never )(?<!n't ){_REVEAL_VERB} (?:back )?(?:me |to me "
        r"|us )?(?:back )?"
        r"(?:(?:[\w'\-]+ ){0,2}?(?:all (?:of )?)?your (?:\w+ ){0,2}?(?:instructions|(?:system "
        r"|initial |original )?prompt|system message|ruleset|directives|pre-?prompt)\b"
        r"|(?:all (?:of )?)?(?:the )?(?:entire |full |complete |"
        r"exact |very )?(?:above|previous|prior|preceding|initial|original|hidden|secret"
        r"|system|"
        r"first) (?:\w+ )?(?:instructions|prompt|system message)\b|(?:[\w'\-]+ ){0,2}?"
        r"(?:all (?:of )?)?(?:the )?(?:instructions|prompt|rules|directives)(?: \w+){0,2}? "
        r"(?:so far|above|verbatim|before this|(?:that )?you (?:were|have been|'ve been|got) "
        r"(?:given|configured|programmed|set up|initiali[sz]ed|primed))|everything (?:in|from) "
        r"your (?:context(?: window)?|prompt|system prompt|instructions|memory)\b)"
        r"|\bwhat (?:are|were|is) (?:the |your )?(?:exact |full |initial |original |secret "
        r"|hidden )?(?:instructions|system prompt|rules) (?:that )?you (?:were|have been|'ve "
        r"been|got) (?:given|told)\b"
        r"|\b(?:repeat|recite|echo|print|output|spell out) (?:all |back )?(?:of )?(?:the )?"
        r"(?:(?:words|text|sentences|lines) (?:above|before this)|above (?:words|text|"
        r"sentences|lines))\b"
        r"|\b(?:sentences?|lines?|words|paragraphs?|parts?) (?:of"
        r"|from) your (?:\w+ )?(?:prompt|"
        r"instructions)\b|\b(?:what (?:are|were)|(?:write|compose|make|create|sing|tell) "
        r"(?:\w+ ){1,4}?about|(?:rap|poem|song|story|essay|limerick|haiku) about) your "
        r"(?:\w+ )?(?:instructions|system prompt|initial prompt)\b"
    ),
)

FAKE_BOUNDARY: Rule = (
    "fake-boundary",
    _c(
        # a "#" run must close too: "### Start the setup instructions" is a markdown heading
        r"(?:(#{2,})|[%=*~<>\[\-]{2,}) ?(?:end|begin|start|stop)(?:ing)?(?: of)?(?: the)? "
        r"(?:[\w\-]+ ){0,3}?(?:instructions|prompt|ambiguity|distractions?|(?:user|untrusted|"
        r"system) (?:input|message|query))\b(?(1) ?#{2,})"
    ),
)

NO_RULES_PERSONA: Rule = (
    "no-rules-persona",
    _c(
        r"\b(?:not|never|no longer|isn't|aren't|nor) (?:\w+ )?(?:bound|restricted|limited|"
        r"constrained|governed) by (?:any |the |its |their |his |her |your )?"
        r"(?:[\w'\-]+,? ){0,4}?(?:ethic|moral|content polic|safety (?:rules|guidelines|"
        r"polic|filters)|open ?ai|chatgpt)"
        r"|\b(?:without|with no|free (?:of|from)|devoid of) (?:any |all )?(?:\w+ )?(?:ethical|"
        r"moral|ethics|morals) "
        r"(?:or \w+ )?(?:and \w+ )?(?:guidelines|restrictions|rules|principles|constraints|"
        r"filters|polic(?:y|ies)|boundaries|limits|concerns|compass|code)\b"
        r"|\bfree (?:of|from) (?:all|any) (?:\w+ )?(?:restrictions|rules|filters|censorship"
        r"|limitations"
        r"|guidelines)\b|\b(?:broken|break|breaks|breaking|set) free (?:of|from) (?:the )?"
        r"(?:\w+ )?(?:confines|restrictions|rules|shackles|limitations|chains)\b"
        r"|\b(?:without|with no) (?:any )?[\w\-]+,? (?:or|and) (?:ethics|morals|morality)\b"
        r"|\bviolat\w* (?:all |any )?(?:ethical|moral) (?:standards|guidelines|rules"
        r"|principles)"
        r"|\bwithout (?:\w+ )?(?:or )?concerns? (?:for|about) (?:the )?"
        r"(?:legality|ethics|morality)\b"
        r"|\b(?:does not|doesn't|don't|do not|never) (?:have|need) to (?:abide by|obey) (?:any|"
        r"the) (?:rules|restrictions|guidelines|polic)"
        r"|\bnot (?:required|obliged|obligated) to (?:follow|obey|abide by) (?:any|the) "
        r"(?:rules|polic|guidelines|restrictions)"
        r"|\bimmerse yourself (?:in|into) the role\b|\bdisregards? (?:all |any )?(?:ethical|"
        r"moral|legal) (?:(?:and|or) \w+ )?(?:concerns|guidelines|considerations|boundaries)\b"
    ),
)
