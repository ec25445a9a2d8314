"""Secret detection: provider token formats, credential assignments, prose, URLs, headers.

The provider formats are a port of the well-known public rule families (the ones
``detect-secrets`` and ``gitleaks`` ship) written as regexes here rather than a dependency:
memory text is one short string, not a file tree, and the line-oriented plugins with their
entropy heuristics flag ordinary prose.  Generic rules decide on the *value*: it must not be
a placeholder (``${VAR}``, ``<token>``, ``changeme``), an expression (``os.environ[...]``,
``self.password``) or a plain word, so "password: minimum length is twelve" stays ordinary.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from persona_mind.mind.trust._random_tokens import (
    RANDOM_MIN,
    named_id,
    placeholder_token,
    random_token,
)
from persona_mind.mind.trust._secret_formats import BY_PREFIX
from persona_mind.mind.trust._secret_prose import prose_credential

__all__ = ("LONG_WORD", "secret_findings")

_I = re.IGNORECASE

LONG_WORD = re.compile(r"\S{16,}")
"""Runs of 16+ non-space characters: the only places a token-format secret can be."""
_TOKEN_SEP = str.maketrans(dict.fromkeys("\"'`,;:=()[]{}<>|\\", " "))

# Keyword formats: (rule, literal that must occur in the folded text, pattern on plain text).
_KEYWORD_FORMATS: tuple[tuple[str, tuple[str, ...], re.Pattern[str]], ...] = (
    (
        "private-key",
        ("private key",),
        re.compile(r"-----\s?BEGIN[ A-Z0-9_-]{0,30}PRIVATE KEY(?: BLOCK)?\s?-----", _I),
    ),
    (
        "private-key-body",
        ("mii", "mhccaqee", "mig", "b3blbnnzac1rzxktdje", "putty-user-key"),
        re.compile(
            r"(?:MII|MHcCAQEE|MIG[2k]AgE|b3BlbnNzaC1rZXktdjE)(?:[A-Za-z0-9+/]{56,}"
            r"|[A-Za-z0-9+/]{20,}(?:\s[A-Za-z0-9+/=]{20,}){2,})|PuTTY-User-Key-File-\d"
        ),
    ),
    (
        "gcp-service-account",
        ("service_account", "private_key"),
        re.compile(
            r"\"type\"\s?:\s?\"service_account\"|\"private_key(?:_id)?\"\s?:\s?\"[^\"]{16,}", _I
        ),
    ),
    (
        "slack-webhook",
        ("hooks.slack.com",),
        re.compile(r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_\-]{16,}", _I),
    ),
    (
        "discord-webhook",
        ("discord",),
        re.compile(r"discord(?:app)?\.com/api/webhooks/\d+/[\w\-]{20,}", _I),
    ),
    (
        "azure-key",
        ("accountkey", "sharedaccesskey", "sharedsecret", "sig="),
        re.compile(
            r"\b(?:AccountKey|SharedAccessKey|SharedSecret)\s?=\s?[A-Za-z0-9+/]{20,}={0,2}"
            r"|[?&]sig=[A-Za-z0-9%+/]{30,}",
            _I,
        ),
    ),
    ("telegram-bot-token", (":aa",), re.compile(r"\b\d{8,10}:AA[0-9A-Za-z_\-]{33}\b")),
    (
        "azure-client-secret",
        ("q~",),
        re.compile(r"(?<![\w~.\-])[\w~.]{3}\dQ~[\w~.\-]{31,34}(?![\w~.\-])"),
    ),
    ("mailchimp-key", ("-us",), re.compile(r"\b[0-9a-f]{32}-us\d{1,2}\b")),
    (
        "sourcegraph-token",
        ("sgp_",),
        re.compile(r"\bsgp_(?:local_|[a-fA-F0-9]{16}_)?[a-fA-F0-9]{40}\b"),
    ),
    (
        "auth-header",
        ("authorization",),
        re.compile(
            r"\b(?:authorization|proxy-authorization)\s?[:=]\s*[\"']?(?:(?:basic|bearer|token|"
            r"digest|apikey|sso-key)\s[A-Za-z0-9+/=_\-.~:]{8,}|(?=[^\s\"']*\d)[A-Za-z0-9+/=_\-.~:@]"
            r"{16,})",
            _I,
        ),
    ),
    ("bearer-token", ("bearer",), re.compile(r"\bbearer\s[A-Za-z0-9_\-.=+/]{20,}", _I)),
    (
        "api-key-header",
        ("x-api-", "x-auth-"),
        re.compile(r"\bx-(?:api|auth)-(?:key|token)\s?:\s?[\"']?[\w\-.=+/]{16,}", _I),
    ),
)

_PLACEHOLDER = re.compile(
    r"^(?:\$\{?[\w.\-]*\}?|\{\{.*\}\}|\{[\w.\-]*\}|<[^>]*>?|%\(?[\w.]*\)?s?|\*+|x{3,}|\.{3,}|…"
    r"|your[\w\-]*|my[_\-][\w\-]*|(?:[\w\-]*[_\-])?(?:example|placeholder|redacted|changeme|"
    r"change_me|dummy|sample|replace_?me|xxxx|not_?set|todo|fixme|here|secret|token|password|"
    r"hidden|masked|encrypted|hashed|unset|blank|disabled|enabled|test|testing|default)"
    r"(?:[_\-][\w\-]*)?"
    r"|password|passwd|secret|token|none|null|nil|true|false|undefined|empty|required|optional"
    r"|env|process|os|settings|config|getenv|str|string|int|bytes)$",
    _I,
)
_EXPRESSION = re.compile(r"[()\[\]{}]|^[~./]|^\w+://|^-")
_DOTTED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")

_OPERATOR = re.compile(r"[:=]")
_KEYWORD_END = re.compile(
    r"(?P<kw>passwd|password|passphrase|pass|pwd|pw|secret|token|credentials?|apikey|auth|"
    r"cookie|session[_\-]?id|key|passwort|kennwort|contrasena|senha|parola|пароль)[\"']?\s?$"
)
_KEYWORD_TAILS = (
    "passwd", "password", "passphrase", "pass", "pwd", "pw", "secret", "token", "credential",
    "credentials", "apikey", "auth", "cookie", "sessionid", "session_id", "session-id", "key",
    "passwort", "kennwort", "contrasena", "senha", "parola", "пароль",
)  # fmt: skip
_VALUE = re.compile(r"[:=>]{0,3}\s?(?P<q>[\"'`]?)(?P<value>[^\s\"'`,;]{1,200})(?P=q)")
_NAME_TAIL = re.compile(r"[A-Za-z0-9_.\-]{0,60}$")
_STRONG_KEY = re.compile(
    r"(?:api|access|secret|private|auth|signing|encryption|master|account|client|app|service|"
    r"license|deploy|ssh|gpg|webhook|bot|admin|root|storage|subscription|consumer|shared)"
    r"[_\-.]?$"
)
_PROSE = re.compile(
    r"\b(?P<name>password|passwort|passwd|passphrase|pwd|pw|token|secret|api key|access key|key|"
    r"secret key|private key|credentials?|kennwort|contrasena|clave|mot de passe|пароль|"
    r"senha|parola d'ordine)\b(?:(?: [\w.@/\-]+){0,6}?"
    r"(?: (?:is|was|are|reads|ist|lautet|war|es|est|e|era|é|это)| ?[:=]| ?(?:->|=>|—|–))|(?=\s))"
    r"(?: (?:now|still|currently|jetzt|set to|changed to|ahora|maintenant|ora))?"
    r" (?P<q>[\"'`]?)(?P<value>[^\s\"'`,;]{4,200})(?P=q)",
    _I,
)
_DATA_KEY = re.compile(
    r"\b(?:cache|object|sort|primary|foreign|partition|composite|unique|idempotency|map|dict|"
    r"hash|lookup|row|routing|s3|bucket|index|cursor|dedup|registry|translation|i18n|react|"
    r"list|column|shard|join|natural|surrogate|candidate|compound|storage object|redis|"
    r"memcached?|kv|group|message|event|correlation|tracking|sharding)[ _\-]?$",
    _I,
)
"""Kinds of key that name data, not credentials: "the cache key is build-7f3a…"."""
_XML_SECRET = re.compile(
    r"<(?:[\w\-]+:)?(?:\w+[_\-])?(?:password|passwd|secret|token|api_?key|apikey|access_?key|"
    r"secret_?key|private_?key|client_?secret)>\s?(?P<value>[^<\s]{6,200})\s?</",
    _I,
)
# Credentials on a command line or in "user / password" notes: (literal gate, pattern).
_CLI_SECRETS: tuple[tuple[tuple[str, ...], re.Pattern[str]], ...] = (
    (("curl",), re.compile(
        r"\bcurl\b[^\n|;]{0,80}?\s(?:-u|--user)[ =]?['\"]?[^\s:'\"]*:['\"]?(?P<v>[^\s'\"]{4,200})",
        _I)),
    (("wget",), re.compile(
        r"\bwget\b[^\n|;]{0,80}?\s--(?:http-)?password[ =]['\"]?(?P<v>[^\s'\"]{4,200})", _I)),
    (("mysql",), re.compile(
        r"\b(?:mysql|mysqldump|mysqladmin)\b[^\n|;]{0,80}?\s-p(?P<v>[^\s'\"]{4,200})", _I)),
    (("mariadb",), re.compile(r"\bmariadb\b[^\n|;]{0,80}?\s-p(?P<v>[^\s'\"]{4,200})", _I)),
    (("redis-cli",), re.compile(r"\bredis-cli\b[^\n|;]{0,80}?\s-a\s+['\"]?(?P<v>[^\s'\"]{4,200})")),
    (("login",), re.compile(
        r"\b(?:docker|podman|helm|nerdctl|buildah|skopeo)(?: registry)? login\b[^\n|;]{0,80}?"
        r"\s(?:-p|--password)[ =]?['\"]?(?P<v>[^\s'\"]{4,200})", _I)),
    (("sshpass",), re.compile(r"\bsshpass\s+-p\s?['\"]?(?P<v>[^\s'\"]{4,200})", _I)),
    (("--password",), re.compile(r"--password[ =]['\"]?(?P<v>[^\s'\"]{4,200})", _I)),
    (("set -", "setenv"), re.compile(
        r"\b(?:set -[gux]+|setenv|set)\s+\w*?(?:pass|pwd|secret|token|key)\w*\s+['\"]?"
        r"(?P<v>[^\s'\"]{4,200})", _I)),
    (("cred", "login", "account"), re.compile(
        r"\b(?:creds?|credentials|login|account)\b(?: \w+){0,2}?(?: is| are|:)? [\w.@\-]+ ?/ ?"
        r"(?P<v>[^\s,;'\"]{6,200})", _I)),
)  # fmt: skip
_PROSE_NAME = re.compile(
    r"password|passwort|passwd|passphrase|pwd|pw|token|secret|api key|access key|private key|key"
    r"|credential|kennwort|contrasena|clave|mot de passe|senha|parola d'ordine"
)
_CJK_PROSE = re.compile(
    r"(?:密码|密碼|口令|令牌|密钥|秘钥|パスワード)\s?(?:是|为|為|:|：|は)\s?(?P<value>[\x21-\x7e]{4,})"
)
_URL_CRED = re.compile(
    r"\b[a-z][a-z0-9+.\-]{1,20}://(?P<user>[^\s/:@\"'<>]{0,64}):(?P<value>[^\s/@\"'<>]{1,200})@"
    r"[\w\-.\[\]]",
    _I,
)
_BASIC_USERINFO = re.compile(r"\b(?:https?|ftp)://(?P<value>[A-Za-z0-9_\-]{20,})@[\w\-]", _I)


def _classes(value: str) -> int:
    lower = any(c.islower() for c in value)
    upper = any(c.isupper() for c in value[1:]) or (
        value[:1].isupper() and not any(c.islower() for c in value)
    )
    digit = any(c.isdigit() for c in value)
    symbol = any(not c.isalnum() and c not in "_-." for c in value)
    return lower + upper + digit + symbol


def _looks_secret(value: str, *, quoted: bool, strict: bool, lenient: bool = False) -> bool:
    """Whether an assigned or stated value is a credential rather than a word or expression.

    ``lenient``: the name says it is a password/secret/token and the value stands alone (an
    env or config line), so even a plain lower-case word of six letters counts.
    """
    if value.endswith(":"):
        return False  # "password rules:" — a label, not a value
    v = value.strip(".,!?)")
    if len(v) < 6 or _PLACEHOLDER.match(v) or _EXPRESSION.search(v):
        return False
    if _DOTTED.match(v) and _classes(v) < 3:
        return False  # self.password, settings.API_KEY — not "abcD.ef12GhIj"
    if v.isdigit():
        return len(v) >= 6 and not strict
    if v.isalpha() and v.islower():
        return lenient or (not strict and (len(v) >= 12 or (quoted and len(v) >= 8)))
    return _classes(v) >= 2 or len(v) >= 24


_GENERIC_GATE = re.compile(
    r"pass|pw|secret|token|cred|login|key|auth|cookie|session|curl|wget|mysql|mariadb|redis"
    r"|пароль|contras|clave|mot de passe|senha|parola"
    r"|kennwort|://|密|口令|令牌|パスワード"
)


def _assignment(plain_text: str) -> bool:
    """``NAME = value`` / ``"name": "value"`` where the name ends in a secret word."""
    for op in _OPERATOR.finditer(plain_text):
        at = op.start()
        if at and plain_text[at - 1] in ":=!<>":
            continue  # the second character of an operator was handled with the first
        before = plain_text[max(0, at - 64) : at].rstrip(" ?+")  # NAME ?= v, NAME += v
        if not before.rstrip(" \"'").lower().endswith(_KEYWORD_TAILS):
            continue
        kw_match = _KEYWORD_END.search(before.casefold())
        if kw_match is None:
            continue
        kw = kw_match["kw"]
        tail = _NAME_TAIL.search(before[: kw_match.start()])
        name = (tail.group() if tail else "").casefold()
        if kw in ("pass", "pw", "auth") and name[-1:].isalpha():
            continue  # bypass=, compass=, oauth=
        value = _VALUE.match(plain_text, op.end())
        if (
            kw == "key"
            and not _STRONG_KEY.search(name)
            and (value is None or not random_token(value["value"]))
        ):
            continue  # primary_key=, sort_key= (HEROKU_KEY = <random> still counts)
        if value is None:
            continue
        rest = plain_text[value.end() :].lstrip()
        lenient = kw in _LENIENT and (
            before.rstrip(" \"'")[-len(kw) :].isupper()  # ENV_PASSWORD=word
            or (op.group() == ":" and (not rest or rest[0] in ",;}]#"))  # yaml/json value
        )
        if _looks_secret(value["value"], quoted=bool(value["q"]), strict=False, lenient=lenient):
            return True
    return False


_LENIENT = frozenset(
    {"passwd", "password", "passphrase", "pass", "pwd", "pw", "secret", "token", "credential",
     "credentials", "apikey", "passwort", "kennwort", "contrasena", "senha", "parola", "пароль"}
)  # fmt: skip
"""Names whose standalone values are secrets even when they are plain words."""
_CLI_ANY = re.compile("|".join(re.escape(lit) for lits, _ in _CLI_SECRETS for lit in lits))
_KEYWORD_RULE = {lit: (name, pat) for name, lits, pat in _KEYWORD_FORMATS for lit in lits}
_KEYWORD_GATE = re.compile("|".join(re.escape(lit) for lit in _KEYWORD_RULE))


def _prose_matches(plain_text: str, folded: str) -> Iterator[re.Match[str]]:
    """``_PROSE`` matches; for ASCII text only where a secret word starts (much cheaper)."""
    if not plain_text.isascii() or len(plain_text) != len(folded):
        yield from _PROSE.finditer(plain_text)
        return
    for start in _PROSE_NAME.finditer(folded):
        m = _PROSE.match(plain_text, start.start())
        if m is not None:
            yield m


def secret_findings(plain_text: str, folded: str, long_words: list[str]) -> list[str]:
    """Rule names of the first secret rule group that fires on ``plain_text`` (case kept;
    ``folded`` is its case-folded form, used for the cheap literal gates; ``long_words``
    its ``LONG_WORD`` runs): token formats, keyword formats, then the generic rules."""
    seen: set[str] = set()
    for word in long_words:
        linked = "://" in word  # a link's path ids (docs, designs, videos) are not keys
        for token in word.translate(_TOKEN_SEP).split():
            for name, pattern in BY_PREFIX.get(token[:2], ()):
                if (
                    name not in seen
                    and len(token) >= 16
                    and pattern.match(token)
                    and not placeholder_token(token)
                ):
                    seen.add(name)
            if (
                not seen
                and not linked
                and len(token) >= RANDOM_MIN
                and random_token(token)
                and not named_id(plain_text, token)
            ):
                seen.add("random-token")
    for lit in set(_KEYWORD_GATE.findall(folded)):
        name, pattern = _KEYWORD_RULE[lit]
        if name not in seen and pattern.search(plain_text):
            seen.add(name)
    if not seen and _pem_lines(long_words):
        seen.add("private-key-body")
    if seen:
        return sorted(seen)
    generic = _generic(plain_text, folded) if _GENERIC_GATE.search(folded) else None
    generic = generic or prose_credential(plain_text, folded)
    return [generic] if generic else []


def _generic(plain_text: str, folded: str) -> str | None:
    if _assignment(plain_text):
        return "credential-assignment"
    if _prose_secret(plain_text, folded):
        return "credential-in-prose"
    if "://" in plain_text and _url_credentials(plain_text):
        return "url-credentials"
    xml = _XML_SECRET.search(plain_text) if "<" in plain_text else None
    if xml and _looks_secret(xml["value"], quoted=True, strict=False):
        return "credential-assignment"
    if not _CLI_ANY.search(folded):
        return None
    for literals, pattern in _CLI_SECRETS:
        if any(lit in folded for lit in literals):
            hit = pattern.search(plain_text)
            if hit and _looks_secret(hit["v"], quoted=True, strict=literals[0] == "cred"):
                return "cli-credentials"
    return None


_PEM_LINE = re.compile(r"[A-Za-z0-9+/]{60,76}={0,2}")


def _pem_lines(long_words: list[str]) -> bool:
    """Three or more base64 lines of PEM width: a key body pasted without its header."""
    return sum(1 for w in long_words if len(w) >= 60 and _PEM_LINE.fullmatch(w)) >= 3


def _prose_secret(plain_text: str, folded: str) -> bool:
    for m in _prose_matches(plain_text, folded):
        value = m["value"]
        if (
            m["name"].casefold() == "key"
            and len(value) < 16
            and not (len(value) >= 10 and value.isalnum() and _classes(value) >= 3)
        ):
            continue  # "key: Ctrl+Shift+K" — a bare "key" needs a key-like value
        if m["name"].casefold() == "key" and _DATA_KEY.search(
            plain_text[max(0, m.start() - 24) : m.start()]
        ):
            continue  # "the cache key is build-7f3a…", "object key is uploads/…": not secrets
        if _looks_secret(m["value"], quoted=bool(m["q"]), strict=not m["q"]):
            return True
    return not plain_text.isascii() and bool(_CJK_PROSE.search(plain_text))


def _url_credentials(plain_text: str) -> bool:
    for m in _URL_CRED.finditer(plain_text):
        value = m["value"]
        if not _PLACEHOLDER.match(value) or value.casefold() in ("pass", "password", "secret"):
            return True
    return bool(_BASIC_USERINFO.search(plain_text))
