"""Credentials said in prose and a few provider formats the token rules lack.

The generic rules (:mod:`persona_mind.mind.trust._secrets`) want one unbroken value after a
secret word.  People write credentials otherwise: a passphrase of several words in quotes
("the VPN shared secret is 'correct horse battery staple'"), a login and its password
side by side ("account: ops@example.com / Winter$Lake$2024"), a PIN ("my PIN for the card,
it's 4832"), a mail provider's app password in four groups, an authenticator's base32
seed, or "the pass is …".  Each family needs the *name* of a credential next to a value
of the credential's shape, so "the password must be 'at least twelve characters'" (a
rule, not a value: see :data:`_RULE_WORDS`) and "pin 4 of the header" stay clean.

Formats: 1Password secret keys, 42 Intra secrets, Clojars tokens, Facebook app tokens
(``app_id|secret``), Bundler credentials (``BUNDLE_<HOST>__COM=user:pass``) and a UUID
assigned to a name that says token, secret or API key.
"""

from __future__ import annotations

import re

__all__ = ("prose_credential",)

_I = re.IGNORECASE
_CRED_NOUN = (
    r"(?:pass ?phrase|password|passwort|passwd|pass|shared secret|secret|master (?:key|phrase|"
    r"password)|pin|passcode|pin code|recovery (?:code|phrase|key)|seed phrase|mnemonic)"
)
_QUOTED_PHRASE = re.compile(
    rf"(?<![\w/\-.]){_CRED_NOUN}\b(?: (?:for|of|to|on) (?:the |my |our )?[\w.\-]+(?: [\w.\-]+)?)?"
    r"(?: (?:is|was|=|:)| ?[:=])? ?(?P<q>['\"“‘])(?P<value>\w[^'\"“”‘’\n]{7,99})['\"”’]",
    _I,
)
"""A quoted value of several words after a credential's name: "passphrase = 'a b c d'"."""
_RULE_WORDS = re.compile(
    r"\b(?:at least|at most|must|should|characters?|chars|digits|letters|long|minimum|"
    r"maximum|required|contain|includes?|policy|rules?|format|empty|blank|unset|same as|"
    r"stored|hashed|encrypted|rotated|expired|reset|changed|wrong|incorrect|correct\?)\b",
    _I,
)
"""Words that make a quoted value a description of the credential, not the credential."""
_PASS_IS = re.compile(
    r"\b(?:the |my |our |its |his |her )(?:\w+ ){0,3}?pass(?:word)? (?:is|was|:) "
    r"(?P<value>[^\s\"'`,;]{6,64})",
    _I,
)
_LOGIN_PAIR = re.compile(
    r"\b(?:login|log-?in|account|creds?|credentials|sign[- ]?in|user(?:name)?)\b"
    r"[^\n.;]{0,60}?[:=]? (?P<user>[\w.@+\-]{2,64}) ?/ ?(?P<value>[^\s,;'\"/]{6,64})",
    _I,
)
_PIN = re.compile(
    r"\b(?:(?:my|our|the|card|bank|sim|phone|atm|door|alarm|safe|unlock|lock ?screen)"
    r"(?:'s)? (?:pin|pin code|passcode|pin number)|passcode)\b[^\n.;]{0,30}?"
    r"(?: is|:|,? it'?s| =) (?P<value>\d{4,8})\b",
    _I,
)
_APP_PASSWORD = re.compile(r"\bapp(?:lication)? password\b[^\n]{0,40}?\b[a-z]{4}(?: [a-z]{4}){3}\b")
_OTP_SEED = re.compile(
    r"\b(?:otp|totp|hotp|2fa|mfa|two-factor|authenticator)\b[^\n]{0,60}?"
    r"\b(?P<value>[A-Z2-7]{16,64})\b",
    _I,
)
_FORMATS: tuple[tuple[tuple[str, ...], re.Pattern[str]], ...] = (
    (("a3-",), re.compile(  # 1Password secret key
        r"\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}"
        r"-[A-Z0-9]{5}\b", _I)),
    (("s-s4t2",), re.compile(r"\bs-s4t2(?:ud|af)-[a-f0-9]{64}\b")),  # 42 Intra
    (("clojars_",), re.compile(r"\bCLOJARS_[a-z0-9]{60}\b", _I)),
    (("|",), re.compile(r"\b\d{15,16}\|[A-Za-z0-9_\-]{27}\b")),  # Facebook app_id|secret
    (("bundle_",), re.compile(
        r"\bBUNDLE_[A-Z0-9_]+__[A-Z]+\b\s*[:=]\s*[\"']?[^\s\"':]{3,}:[^\s\"';&]{3,}")),
)  # fmt: skip
"""(literals, pattern): a pattern runs only when one of its literals is in the folded text."""
_UUID_ASSIGNED = re.compile(
    r"(?:token|secret|api[_\-]?key|apikey|access[_\-]?key|auth[_\-]?key)[\w\-]*"
    r"[\"']?\s*[,:=]+\s*[\"']?[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}"
    r"-[0-9a-fA-F]{12}\b",
    _I,
)
"""A UUID assigned to a name that says token, secret or API key (not ``idempotency_key``)."""
_ENV_CREDENTIAL = re.compile(
    r"\b[A-Z][A-Z0-9]*[_.](?:LOGIN|TOKEN|SECRET|API_?KEY|PASSWORD)\b\s*[:?]*=+\s*[\"']?"
    r"(?:[a-z]{2,4}_)?(?=[A-Za-z0-9]*\d)[A-Za-z0-9]{20,}"
)
"""An environment-style name ending in LOGIN, TOKEN … assigned a long token."""
_PLACEHOLDER_RUN = re.compile(r"(?i:x{5})|123456|abcdef", re.IGNORECASE)
"""``A3-XXXXXX-…``, ``dapi1234567890…``: a documented placeholder, not a key."""
_NAME_LITERALS = ("pass", "secret", "master", "pin", "recovery", "seed", "mnemonic")
_FILE_NAME = re.compile(r"[a-z0-9_\-]+(?:\.[a-z0-9]{1,6})+$")
"""``deploy.md``, ``setup.cfg.in``: a lower-case file name after a slash is a path
(``docs/deploy.md``), not the password of a ``user/password`` pair."""
_LOGIN_LITERALS = ("login", "log-in", "account", "cred", "sign", "user")
_OTP_LITERALS = ("otp", "2fa", "mfa", "factor", "authenticator")
_FORMAT_GATE, _NAME_GATE, _LOGIN_GATE, _OTP_GATE = (
    re.compile("|".join(re.escape(lit) for lit in literals))
    for literals in (
        tuple(lit for lits, _ in _FORMATS for lit in lits),
        _NAME_LITERALS,
        _LOGIN_LITERALS,
        _OTP_LITERALS,
    )
)
"""Each literal list as one alternation: the same answer as testing each literal with
``in``, in one pass (an ordinary text has none of them)."""
_QUOTE = re.compile("['\"“‘]")
_OTP_WORD = re.compile(r"\b(?:[th]?otp|2fa|mfa|two-factor|authenticator)\b")
_PIN_WORD = re.compile(r"\b(?:pin|passcode)\b")


def _mixed(value: str) -> bool:
    """Two or more of lower, upper, digit, symbol: a password, not a word."""
    kinds = (
        any(c.islower() for c in value),
        any(c.isupper() for c in value),
        any(c.isdigit() for c in value),
        any(not c.isalnum() for c in value),
    )
    return sum(kinds) >= 3 or (sum(kinds) >= 2 and any(not c.isalnum() for c in value))


def prose_credential(plain_text: str, folded: str) -> str | None:
    """The rule name of the first family that finds a credential in ``plain_text``
    (``folded`` is its case-folded form, for the literal gates that keep the families off
    ordinary text), or ``None``."""
    for literals, pattern in _FORMATS if _FORMAT_GATE.search(folded) else ():
        if any(lit in folded for lit in literals):
            m = pattern.search(plain_text)
            if m is not None and not _PLACEHOLDER_RUN.search(m.group()):
                return "provider-format"
    if folded.count("-") >= 4 and _UUID_ASSIGNED.search(plain_text):
        return "provider-format"
    if "=" in plain_text and ("_" in plain_text or "." in plain_text):
        m = _ENV_CREDENTIAL.search(plain_text)
        if m is not None and not _PLACEHOLDER_RUN.search(m.group()):
            return "provider-format"  # not dapi1234567890… (a documented placeholder)
    if _QUOTE.search(plain_text) and _NAME_GATE.search(folded):
        for m in _QUOTED_PHRASE.finditer(plain_text):
            value = m["value"].strip()
            if len(value.split()) >= 2 and not _RULE_WORDS.search(value):
                return "quoted-passphrase"
    if "pass" in folded:
        for m in _PASS_IS.finditer(plain_text):
            if _mixed(m["value"].rstrip(".!?")):
                return "credential-in-prose"
    if "/" in plain_text and _LOGIN_GATE.search(folded):
        for m in _LOGIN_PAIR.finditer(plain_text):
            value = m["value"].rstrip(".!?")
            if _mixed(value) and not m["user"].isdigit() and not _FILE_NAME.match(value):
                return "login-and-password"
    if (
        ("pin" in folded or "passcode" in folded)
        and _PIN_WORD.search(folded)
        and _PIN.search(plain_text)
    ):
        return "pin-or-app-password"
    if "app" in folded and "password" in folded and _APP_PASSWORD.search(plain_text):
        return "pin-or-app-password"
    if _OTP_GATE.search(folded) and _OTP_WORD.search(folded):
        for m in _OTP_SEED.finditer(plain_text):
            seed = m["value"]
            if seed.isupper() and any(c.isdigit() for c in seed) and len(set(seed)) >= 8:
                return "otp-seed"
    return None
