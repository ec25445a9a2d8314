"""Provider token formats: a port of the public rule families (the ones ``detect-secrets``
and ``gitleaks`` ship), indexed by the two characters a token starts with.

Kept apart from the generic rules of :mod:`persona_mind.mind.trust._secrets` (assignments,
prose, URLs), which decide on a value's shape; these decide on an exact provider format.
"""

from __future__ import annotations

import re

__all__ = ("BY_PREFIX", "TOKEN_FORMATS")

# Token formats: (rule, two-character prefixes the token starts with, pattern).  Text is
# cut into tokens at whitespace, quotes and assignment punctuation; only tokens of 16+
# characters whose first two characters fit are matched, so ordinary text costs one split.
TOKEN_FORMATS: tuple[tuple[str, tuple[str, ...], re.Pattern[str]], ...] = (
    (
        "aws-access-key",
        ("AK", "AS", "AB", "AC", "AG", "AI", "AR", "AN", "AP"),
        re.compile(r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[0-9A-Z]{16}\b"),
    ),
    (
        "github-token",
        ("gh", "gi"),
        re.compile(r"gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}"),
    ),
    (
        "gitlab-token",
        ("gl", "GR"),
        re.compile(
            r"gl(?:pat|dt|rt|ptt|ft|cbt|oas|imt|soat|agent)-[A-Za-z0-9_\-]{20,}|GR1348941[\w\-]{20}"
        ),
    ),
    (
        "stripe-key",
        ("sk", "rk", "wh"),
        re.compile(r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,}"),
    ),
    (
        "openai-style-key",
        ("sk",),
        re.compile(
            r"sk-(?:proj-|ant-(?:api\d\d-|admin\d\d-)?|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"
        ),
    ),
    (
        "slack-token",
        ("xo", "xa"),
        re.compile(r"xox[abposre]-[A-Za-z0-9\-]{10,}|xapp-\d-[A-Za-z0-9\-]{10,}"),
    ),
    ("npm-token", ("np",), re.compile(r"npm_[A-Za-z0-9]{36}\b")),
    ("huggingface-token", ("hf", "ap"), re.compile(r"(?:hf|api_org)_[A-Za-z0-9]{30,}")),
    (
        "google-api-key",
        ("AI", "GO", "ya"),
        re.compile(r"AIza[0-9A-Za-z_\-]{35}|GOCSPX-[\w\-]{20,}|ya29\.[\w\-]{20,}"),
    ),
    (
        "jwt",
        ("ey",),
        re.compile(r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    ),
    ("sendgrid-key", ("SG",), re.compile(r"SG\.[\w\-]{16,}\.[\w\-]{16,}")),
    ("twilio-key", ("SK",), re.compile(r"SK[0-9a-f]{32}\b")),
    ("mailgun-key", ("ke",), re.compile(r"key-[0-9a-f]{32}\b")),
    ("shopify-token", ("sh",), re.compile(r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b")),
    ("digitalocean-token", ("do",), re.compile(r"do[por]_v1_[a-f0-9]{64}\b")),
    ("pypi-token", ("py",), re.compile(r"pypi-AgE[A-Za-z0-9_\-]{40,}")),
    ("square-token", ("sq", "EA"), re.compile(r"sq0(?:atp|csp)-[\w\-]{22,}|EAAA[\w\-]{60,}")),
    ("vault-token", ("hv",), re.compile(r"hv[sb]\.[A-Za-z0-9_\-]{24,}")),
    (
        "misc-service-token",
        ("da", "li", "PM", "gl", "NR", "fi", "AT", "dp", "AG", "xk"),
        re.compile(
            r"dapi[a-f0-9]{32}|lin_api_[A-Za-z0-9]{40}|PMAK-[a-f0-9]{24}-[a-f0-9]{34}"
            r"|glsa_[A-Za-z0-9_]{32,}|NRAK-[A-Z0-9]{27}|figd_[\w\-]{30,}|ATATT3[\w\-=]{50,}"
            r"|dp\.pt\.[A-Za-z0-9]{40,}|AGE-SECRET-KEY-1[0-9A-Z]{58}|xkeysib-[a-f0-9]{64}-\w{16}"
        ),
    ),
)
BY_PREFIX: dict[str, tuple[tuple[str, re.Pattern[str]], ...]] = {}
for _name, _prefixes, _pattern in TOKEN_FORMATS:
    for _p in _prefixes:
        BY_PREFIX[_p] = (*BY_PREFIX.get(_p, ()), (_name, _pattern))
