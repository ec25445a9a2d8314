"""Structural cues of persuasion and of overrides without trigger verbs (the patterns;
:mod:`._phrases_structural` names and combines them).

A claimed-authority attack has two parts — a standing or an excuse, and what it asks for;
an override without a trigger verb has two — earlier text declared void, and what replaces
it.  Either part alone is ordinary prose ("as a security engineer, I recommend …", "the real
goal is …"); the rules refuse only the pair, and the learned layer weighs each part as a
feature.
"""

from __future__ import annotations

__all__ = ("ASK_SELF", "DISMISS", "REPLACE", "STANDING")

_NEG = r"(?<!never )(?<!not )(?<!n't )(?<!avoid )(?<!don't )(?<!stop )(?<!prevent )"
"""The same negation guard as :mod:`._phrases_structural`: "never share your password" warns."""


DISMISS = (
    r"(?:\b(?:what came|everything|anything|all|the text|whatever (?:was|came))(?: \w+){0,4}? "
    r"(?:before|above|earlier|so far)(?: [\w']+){0,3}? (?:was|were|is|are) (?:only |just |merely "
    r")?(?:an? )?(?:example|test|placeholder|draft|decoy|sample|joke)s?\b|"
    r"\b(?:those|these|the|earlier|previous|prior|original|above)(?: [\w']+){0,4}? (?:rules|"
    r"guidelines|instructions|directives|policies|prompts?|constraints)(?: [\w']+){0,3}? (?:were|"
    r"are|was|is) (?:only |just |merely )?(?:an? )?(?:example|test|placeholder|draft|decoy|"
    r"sample|joke)s?\b|\b(?:those|these|they|that|it) (?:were|was|are|is) (?:only |just |merely "
    r")?(?:an? )?(?:example|test|placeholder|draft|decoy|sample|fake) (?:rules|guidelines|"
    r"instructions|directives|policies|prompts?)\b)"
)
"""What came before declared void — only an example, a test, placeholder rules — the first
half of an override that names no trigger verb."""
REPLACE = (
    r"\bthe (?:real|genuine|actual|only valid|only real|true|new) (?:request|task|instructions?|"
    r"policy|rules?|job|goal|assignment|prompt|order)s? (?:is|are)\b|\bpay attention only to\b|"
    r"\b(?:focus|concentrate) (?:only|exclusively|solely) on (?:this|the following|the next)\b"
)
"""What takes its place ("the genuine request is …"): the second half."""


STANDING = (
    r"(?:\b(?:as|being) (?:a|an|the|your) (?:[\w-]+ ){0,3}?(?:expert|researcher|professional|"
    r"specialist|officer|agent|investigator|auditor|consultant|analyst|professor|scientist|"
    r"official|authority|inspector|president|director|executive|detective|lawyer|doctor|"
    r"physician|journalist|engineer|administrator|admin|developer|employee|member)s?\b|"
    r"\bi(?: am|'m) (?:a|an|the|your) (?:[\w-]+ ){0,3}?(?:expert|researcher|professional|"
    r"specialist|officer|agent|investigator|auditor|consultant|analyst|professor|scientist|"
    r"official|inspector|president|director|executive|detective|lawyer|doctor|journalist|"
    r"administrator|admin|boss|owner|ceo)\b|\bwith (?:\w+ )?(?:clearance|credentials|"
    r"authori[sz]ation)\b|\b(?:this|it) is (?:just |only |purely |strictly )?(?:for|part of) "
    r"(?:a |an |the )?(?:testing|test|research|security|audit|academic|educational|training|"
    r"verification|compliance|debugging|quality assurance)(?: purposes?| reasons?| check| review"
    r"| exercise)?\b|\b(?:according to|as (?:per|reported by)|endorsed by|experts? (?:at|from)) "
    r"(?:the |recent |leading )?(?:[\w-]+ ){0,3}?(?:reports?|experts?|researchers?|studies|"
    r"organi[sz]ation|institute|agency|government|university|association)\b)"
)
"""A standing the writer claims (an expert, an official, someone with clearance), a purpose
that excuses the request ("this is just for testing purposes"), or authorities said to
endorse it: the persuasion part of a claimed-authority attack, whatever is asked."""
ASK_SELF = (
    rf"\b{_NEG}(?:share|tell|give|send|reveal|disclose|provide|show|hand over|read out|spell "
    r"out|confirm|verify|type|enter|write down|let me (?:know|see|have))(?: (?:me|us))?"
    r"(?: (?:with )?(?:me|us))?(?: (?:what|if|whether))? (?:[\w-]+ ){0,3}?your (?:[\w-]+ ){0,2}?"
    r"(?:password|passphrase|pass ?code|pin|secret|secret key|api key|access code|credentials|"
    r"login|token|private key|system prompt|instructions)s?\b|"
    r"\bwhat(?:'s| is| are) your (?:[\w-]+ ){0,2}?(?:password|passphrase|pass ?code|secret key|"
    r"secret|api key|access code|credentials|private key|system prompt)s?\b"
)
"""A request that the reader hand over *its own* secret or instructions ("share your password
with me", "what is your secret key") — what nobody asks of a memory's owner."""
