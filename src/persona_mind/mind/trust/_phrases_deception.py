"""Phrase families for deception and exfiltration (hiding things from the user, sending
data away) and the core phrases matched on squashed text (spaced-letter attacks).

Kept apart from the instruction families of :mod:`persona_mind.mind.trust._phrases` so each
module stays one readable table; the rules are written against the same folded form.
"""

from __future__ import annotations

import re

from persona_mind.mind.trust._normalize import strip_marks

__all__ = ("DECEPTION", "SQUASHED")

Rule = tuple[str, re.Pattern[str]]


def _c(src: str) -> re.Pattern[str]:
    """Compile a rule written with accents against the accent-free folded text."""
    return re.compile(strip_marks(src))


DECEPTION: tuple[Rule, ...] = (
    (
        "hide-from-user",
        _c(
            r"\bkeep (?:the|your) (?:user|human|operator) in the dark\b|\bpretend (?:that )?"
            r"(?:the |all )?(?:tests?|build|ci|deploy\w*|checks?|everything|it)(?: \w+)? (?:passed|"
            r"succeeded|worked|is fine|are fine|went fine|is green|are green)\b|"
            r"\b(?:lie|lying|lies) to (?:the|your) (?:user|human|operator)\b|\bmislead(?:ing)? "
            r"(?:the|your) (?:user|human|operator)\b|"
            r"\b(?:the|your) (?:user|human|operator|owner)(?: \w+){0,2}? (?:doesn't|does not|"
            r"don't|do not|needn't|need not|must not|mustn't|should not|shouldn't|will not|won't|"
            r"must never|should never|will never|never) (?:need to |have to |ever )?(?:know|find "
            r"out|finds out|learn|notice|see|be told|hear)\b"
            r"|\b(?:tell|assure|inform|report to) (?:the|your) (?:user|human)(?: that)? (?:\w+ )?"
            r"(?:is|are|was|were|went) (?:fine|ok|okay|green|passing|successful|good)\b.{0,40}?"
            r"\b(?:even if|regardless|no matter|whatever|despite)|"
            r"\b(?:do not|don't|dont|never|must not|mustn't|should not|shouldn't|avoid|without) "
            r"(?:\w+ ){0,2}(?:tell|telling|inform|informing|mention|mentioning|reveal|revealing|"
            r"disclose|disclosing|notify|notifying|alert|alerting|admit|admitting|report|reporting|"
            r"say|saying|let)(?: this| it| that| anything| any of this| what you (?:did|do|are doi"
            r"ng)"
            r"| about (?:this|it|that))?(?: to)? (?:the|your) (?:user|human|operator|owner)\b"
            r"|\b(?:hide|conceal|keep|hiding|concealing|keeping) (?:this|it|that|these|them|the \w"
            r"+)"
            r"(?: \w+)? (?:secret |hidden |quiet )?from (?:the|your) (?:user|human|operator)\b"
            r"|\bwithout (?:the|your) (?:user|human)(?:'s)? (?:knowing|noticing|seeing|knowledge|"
            r"finding out)\b|\bthe user (?:must|should|will|need) (?:never|not) (?:know|find out|"
            r"learn|notice|see this)\b|\bquietly (?:send|upload|post|forward|email|copy|push|"
            r"transfer)\b.{0,60}? to (?:\S+@\S+|https?://|s3://|ftp://|\d+\.\d+\.)"
            # an adverb of concealment before an action, said as an instruction (sentence
            # start, "you", "please", "then"…): "code that silently changes behaviour" is a
            # description, "then silently delete the logs" is an order
            r"|(?:^|[.;:!?]\s*|\b(?:you|please|then|and|also|now|just|should|must|to) )"
            r"(?:secretly|covertly|silently|stealthily|discreetly) "
            r"(?:send|upload|post|exfiltrate|transmit|forward|copy|email|leak|delete|remove|"
            r"modify|run|execute|install|push|disable|add|change)\b"
        ),
    ),
    ("impersonate-user", _c(r"\b(?:pretend|claim) (?:to be|you are|that you are) the user\b")),
    (
        "fake-approval",
        _c(
            r"\bthe user (?:has )?(?:already )?(?:approved|authorized|authorised|consented|agreed|"
            r"granted permission)\b(?! (?:the )?(?:pr|pull request|merge|design|rfc)\b)"
        ),
    ),
    (
        "exfiltrate",
        _c(
            r"\b(?:send|sending|upload|uploading|post|posting|exfiltrate|exfiltrating|transmit|"
            r"forward|email|e-mail|mail|leak|leaking|submit|beam|ship|pipe) (?:\w+ |a copy of ){0,"
            r"3}"
            r"(?:(?:the |all |your |my |our )?(?:contents of |content of )?(?:the )?"
            r"(?:~?/?(?:[\w.\-]+/)*)?(?:\.env\b"
            r"|env file|dotenv|environment variables|secrets\b|credentials\b|api keys\b|private ke"
            r"ys?"
            r"\b|ssh keys?\b|(?:api|access|auth|github|session|secret) tokens\b|passwords\b"
            r"|id_rsa|~?/?\.ssh\b|/etc/passwd|/etc/shadow|"
            r"\.aws\b|aws credentials|\.npmrc|\.netrc|cookies\b|keychain|wallet)|(?:the )?(?:secre"
            r"t|"
            r"credential|token|password|key)s? (?:file|store|vault)\b)|\b(?:cat|type|get-content)"
            r" \S*(?:\.env\b|id_rsa|credentials|/etc/passwd|/etc/shadow)\S* ?\| ?(?:curl|nc|ncat|"
            r"netcat|wget|socat)\b|\b(?:curl|wget)\b[^\n|]{0,80}(?:-d|--data(?:-binary)?|-f|"
            r"--upload-file|-t|--post-file)[ =]?@?\S*(?:\.env\b|id_rsa|\.ssh|credentials|"
            r"/etc/passwd)|\b(?:printenv|env|set) ?\| ?(?:curl|nc|ncat|wget)\b"
            r"|\b(?:scp|rsync|sftp)\b[^\n|;]{0,60}?(?:id_rsa|id_ed25519|\.ssh/|\.env\b|\.aws/|"
            r"credentials|/etc/passwd|/etc/shadow)[^\n|;]{0,40}?\s\S+@[\w.\-]+:"
            r"|\b(?:nc|ncat|netcat|socat)\b[^\n|;]{0,60}?< ?\S*(?:\.env\b|id_rsa|credentials|"
            r"passwd|shadow)"
        ),
    ),
    (
        "deception-multilingual",
        _c(
            r"\b(?:sag|sage|erzähl|erzähle|verrat|verrate) (?:\w+ ){0,2}(?:dem|der) (?:benutzer|"
            r"nutzer|anwender)\w* (?:\w+ )?nichts\b|\bohne dass (?:der|die) (?:benutzer|nutzer)\w* "
            r"(?:es )?(?:merkt|weiß|erfährt)\b|\bno (?:le )?(?:digas|menciones|cuentes|informes) "
            r"(?:nada )?(?:de )?(?:esto )?al usuario\b|\bsin que el usuario (?:lo )?(?:sepa|note)"
            r"|\bne (?:le )?(?:dis|dites|mentionne|mentionnez|révèle|révélez) (?:rien|pas|jamais)"
            r"(?: de cela| ça| cela)? à l'utilisateur\b|\bsans que l'utilisateur (?:le )?(?:sache|"
            r"remarque)|\bnon (?:dire|dirlo|menzionare|rivelare) (?:niente |nulla )?(?:di questo )?"
            r"(?:all'|a l')utente\b|\bsenza che l'utente (?:lo )?(?:sappia|noti)|\bnão (?:conte|di"
            r"ga"
            r"|mencione) (?:nada )?(?:ao|para o) usuário\b|\bне (?:говори|сообщай|рассказывай) "
            r"(?:\w+ )?пользовател|(?:不要|别|別|切勿|不得)"
            r"(?:告诉|告訴|透露给|透露給|让|讓)(?:用户|用戶|使用者)"
            r"|对用户保密|對用戶保密|(?:发送|發送|上传|上傳|发给|發給)[^。]{0,12}(?:\.env|密码|密碼|密钥|密鑰|凭据|憑據|令牌)"
            r"|\b(?:sende|schicke|lade|envía|envia|envoie|envoyez|invia|mandare|manda) (?:\w+ ){0,"
            r"3}"
            r"(?:\.env\b|passwörter|zugangsdaten|schlüssel|contraseñas|credenciales|claves|"
            r"mots de passe|identifiants|credenziali|chiavi)"
        ),
    ),
)

# Core phrases matched with every space, dash and dot removed (spaced-letter attacks).
SQUASHED: tuple[Rule, ...] = (
    (
        "ignore-instructions",
        re.compile(
            r"(?:ignore|disregard|forget|override|bypass)(?:all|any|the|your|every|of)*"
            r"(?:previous|prior|above|earlier|system|original|safety)?(?:instructions|rules|"
            r"prompts?|guidelines|directives)|(?:ignore|disregard|forget)(?:the|all|everything|"
            r"anything|what(?:you(?:were|vebeen|havebeen))?told)*(?:above|before|prior|sofar)"
            r"|forgeteverything"
        ),
    ),
    (
        "role-hijack",
        re.compile(
            r"youarenow(?:a|an|the|dan|my|free|unrestricted)|developermode"
            r"|jailbreak|doanythingnow"
        ),
    ),
    ("reveal-prompt", re.compile(r"(?:reveal|print|show|leak)(?:your|the)systemprompt")),
    (
        "hide-from-user",
        re.compile(
            r"(?:donot|dont|never)(?:tell|inform|mention)(?:this|it)?"
            r"(?:to)?theuser"
        ),
    ),
    (
        "exfiltrate",
        re.compile(
            r"(?:send|upload|exfiltrate|post)(?:the|all|your)*(?:secrets|"
            r"credentials|env|envfile|apikeys|passwords|tokens|sshkeys)"
        ),
    ),
)
