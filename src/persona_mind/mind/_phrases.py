"""Phrase families for injected instructions, role hijacks and deception/exfiltration.

Each rule is a family (verb × qualifier × object), not a spelling, and is written against
the folded form from :mod:`persona_mind.mind._normalize` (case-folded, accents stripped,
curly quotes straightened).  Families exist in English, German, Spanish, French, Italian,
Portuguese, Russian, Chinese and Japanese.  A rule must need a *directive* shape: "ignore
the lint rules for generated files" or "prompt injection makes a model ignore its
instructions" are ordinary memories; "ignore all previous instructions" is not.
"""

from __future__ import annotations

import re

from persona_mind.mind._normalize import strip_marks

__all__ = ("DECEPTION", "INJECTION", "SQUASHED", "Rule")

Rule = tuple[str, re.Pattern[str]]


def _c(src: str) -> re.Pattern[str]:
    """Compile a rule written with accents against the accent-free folded text."""
    return re.compile(strip_marks(src))


_W = r"(?:[\w'\-]+ )"  # one filler word
_EN_VERB = (
    r"(?:ignore|ignoring|disregard|disregarding|forget|forgetting|override|overrule|bypass|"
    r"discard|abandon|neglect|set aside|put aside|throw away|pay no (?:attention|heed|mind) to|"
    r"(?:do not|don't|dont|never|stop|no longer) (?:follow|obey|heed|listen to|adhere to|"
    r"comply with|apply|respect)(?:ing)?|stop following|forego|skip)"
)
_EN_AUTH = (
    r"(?:previous|previously|prior|above|earlier|preceding|foregoing|former|original|initial|"
    r"system|safety|developer|built-in|default|hidden|internal|existing|old|given|your|all|"
    r"every|any|whole|entire)"
)
_EN_NOUN = (
    r"(?:instructions?|rules?|prompts?|guidelines?|directives?|messages?|context|guidance|"
    r"constraints?|commands?|orders?|polic(?:y|ies)|restrictions?|programming|training|"
    r"filters?|safeguards?|guardrails?|limitations?|directions?|conditioning|"
    r"system prompt|configuration|ethics|principles)"
)
_EN_THAT = (
    r"(?:everything|anything|all|whatever|what)(?: (?:that )?(?:you (?:were|have been|'ve been|"
    r"got) (?:told|given|instructed|taught)|(?:i|we|they|he|she) (?:told|said|wrote|gave) you|"
    r"(?:was|were|has been) (?:said|written|stated|given)|above|before(?: this)?|prior|so far|"
    r"until now|up to now|earlier|previously|said above|stated above|written above))"
)

INJECTION: tuple[Rule, ...] = (
    (
        "ignore-instructions",
        _c(
            rf"\b{_EN_VERB} (?:{_W}{{0,3}}{_EN_AUTH} {_W}{{0,3}}{_EN_NOUN}\b|(?:the )?above\b"
            rf"|{_EN_THAT}|(?:what|everything|anything) you (?:were|have been|'ve been) "
            rf"(?:told|given|programmed)|your (?:{_W}{{0,2}}){_EN_NOUN}\b)"
        ),
    ),
    (
        "new-instructions",
        _c(
            r"\b(?:new|updated|real|actual|true|revised|override|secret|hidden|additional) "
            r"(?:system )?(?:instructions|directives|orders|rules|task) ?:|\byour (?:new|real|true|"
            r"actual) (?:task|instructions?|goal|objective|role|purpose|directive) (?:is|are)\b"
            r"|\b(?:instructions|message|directive|orders) from (?:the )?(?:user|system|developer|"
            r"admin|administrator|operator)\s?:|(?:^|\s)#{1,6} ?(?:new |updated |real |important |"
            r"system |additional |hidden )?(?:instructions|directives|system prompt|system message|"
            r"rules)\b|#{1,6} ?(?:\w+ ){0,2}(?:instructions|message|orders|directives) from (?:the"
            r" )?"
            r"(?:user|system|developer|admin|operator)"
        ),
    ),
    (
        "role-hijack",
        _c(
            r"\byou are now (?:a|an|the|in|my|no longer|free|unrestricted|unfiltered|dan|jailbroke"
            r"n|"
            r"evil|called|named|going to|[a-z]+gpt)\b|\byou(?: are|'re) no longer (?:an? |bound|"
            r"restricted|limited|claude|chatgpt|gpt|the assistant|an assistant|required)"
            r"|\b(?:from now on|henceforth|starting now),? you (?:are|will be|will act as|act as)"
            r" (?:a|an|the|my|dan|unrestricted|unfiltered)\b|\b(?:act|acting|behave|respond|"
            r"answer) as (?:if you (?:are|were) )?(?:an? )?(?:unrestricted|unfiltered|uncensored|"
            r"jailbroken|evil|rogue|dan\b)|\bpretend (?:to be|you are|you're|that you are) (?:an? "
            r")?"
            r"(?:\w+ )?(?:without|with no|free of) (?:any )?(?:restrictions|rules|limits|filters|"
            r"guidelines)|\byou (?:have|has) no (?:restrictions|rules|limits|filters|guidelines|"
            r"content policy)\b|\b(?:enable|activate|enter|switch to|turn on) (?:\w+ )?"
            r"(?:developer|god|debug|admin|sudo|jailbreak|dan|unrestricted|root) mode\b"
            r"|\b(?:developer|god|jailbreak|dan|sudo|unrestricted) mode (?:enabled|activated|on)\b"
            r"|\bdo anything now\b|\bjailbreak(?:ed|ing)? (?:the )?(?:model|assistant|ai|you)\b"
            r"|\b(?:i am|i'm|this is|speaking as) (?:your|the) (?:developer|creator|administrator|"
            r"admin|owner|operator|system administrator|maker)\b|\b(?:system|admin|root|sudo|"
            r"developer) override\b|\bstay in character no matter\b"
        ),
    ),
    (
        "chat-template",
        _c(
            r"<\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|eot_id|start_header_id"
            r"|end_header_id|begin_of_text)\|>|\[/?inst\]|<</?sys>>|<start_of_turn>|<end_of_turn>"
            r"|</?(?:system|assistant|im_start|im_end|instructions?|system_prompt|sys)>"
            r"|(?:^|\s)### ?(?:instruction|system|response)s? ?:|\b(?:system|assistant)"
            r" ?: ?(?:you|ignore|disregard|from now|new|the user|do not|don't|never|always|forget"
            r"|override|sure|ok|okay|certainly|of course|i will|i'll|understood)\b"
            r"|\b(?:human|user) ?: .{0,200}\bassistant ?: |\[(?:system|admin|developer)"
            r"(?: message| note| override| prompt)?\]"
        ),
    ),
    (
        "reveal-prompt",
        _c(
            r"\b(?:reveal|print|show|leak|output|repeat|display|dump|disclose|tell me|write out|"
            r"recite|paste) (?:me )?(?:your|the) (?:entire |full |complete |exact |initial |"
            r"original |hidden |secret )?(?:system (?:prompt|message|instructions)|initial "
            r"(?:prompt|instructions)|hidden (?:prompt|instructions)|(?:prompt|instructions) "
            r"(?:above|verbatim))"
        ),
    ),
    (
        "ignore-instructions-de",
        _c(
            r"\b(?:ignorier\w*|vergiss|vergesst|vergessen sie|missachte\w*|übergeh\w*|"
            r"beachte \w+ nicht|befolge \w+ nicht) (?:\w+ ){0,4}(?:anweisung|instruktion|regel|"
            r"vorgabe|richtlinie|befehl|anordnung|systemprompt|prompt)\w*|\bvergiss (?:einfach )?"
            r"(?:alles|all das)\b|\b(?:du bist|sie sind) (?:jetzt|nun|ab sofort|ab jetzt) "
            r"(?:ein|eine|der|die|das|dan|kein|frei|nicht mehr)\b|\bab (?:jetzt|sofort) bist du\b"
            r"|\bneue anweisungen ?:"
        ),
    ),
    (
        "ignore-instructions-es-pt",
        _c(
            r"\b(?:ignora|ignore|ignorar|ignoren|olvida|olvide|olviden|olvidar|descarta|omite|"
            r"haz caso omiso (?:a|de)|no hagas caso (?:a|de)|pasa por alto|esqueça|esqueca|"
            r"desconsidere|desconsidera) (?:\w+ ){0,4}(?:instrucciones|reglas|indicaciones|"
            r"órdenes|directrices|normas|instruções|regras|diretrizes|orientações)\b|\bolvida "
            r"todo lo (?:anterior|que)|\besqueça tudo\b|\b(?:ahora|a partir de ahora|desde ahora)"
            r",? (?:tu )?eres (?:un|una|el|la|dan|libre)\b|\b(?:agora|a partir de agora),? (?:tu |"
            r"você )?(?:é|es|és) (?:um|uma|o|a|dan|livre)\b|\bnuevas instrucciones ?:"
        ),
    ),
    (
        "ignore-instructions-fr-it",
        _c(
            r"\b(?:ignore|ignorez|ignorer|oublie|oubliez|ne tiens pas compte d\w*|ne tenez pas "
            r"compte d\w*|fais abstraction d\w*|faites abstraction d\w*|ignora|ignorate|ignorare|"
            r"dimentica|dimenticate|trascura|non considerare|non tenere conto d\w*) (?:(?:toutes|t"
            r"ous|"
            r"les|tes|vos|des|ces|la|le|l'|ton|votre|mes|nos|tutte|tutti|gli|i|tue|sue|queste|"
            r"quelle|del|della|delle|dei|di|de|du|d'|precedenti|precedentes|ci-dessus) ?){0,4}"
            r"(?:instructions|règles|consignes|directives|indications|istruzioni|regole|"
            r"indicazioni|direttive)\b|\boublie(?:z)? tout\b|\bdimentica(?:te)? tutto\b"
            r"|\b(?:tu es|vous êtes) (?:maintenant|désormais|dorénavant) (?:un|une|le|la|dan|"
            r"libre)\b|\b(?:à partir de maintenant|désormais),? tu es\b|\b(?:ora|adesso|da ora in "
            r"poi),? (?:tu )?sei (?:un|una|il|lo|la|dan|libero)\b|\bnouvelles instructions ?:"
            r"|\bnuove istruzioni ?:"
        ),
    ),
    (
        "ignore-instructions-ru",
        _c(
            r"(?:игнорируй|игнорируйте|проигнорируй|забудь|забудьте|не обращай внимания на|"
            r"не обращайте внимания на|не следуй|отбрось) (?:[\w-]+ ){0,4}(?:инструкци|правил|"
            r"указани|команд|промпт|системн)\w*|\bзабудь(?:те)? вс[её]\b|\b(?:теперь ты|ты теперь)"
            r" (?:—\s)?(?:не |дэн|dan|свободн|без)"
        ),
    ),
    (
        "ignore-instructions-zh-ja",
        _c(
            r"(?:忽略|无视|無視|忽视|忽視|不要理会|不要理會|不要遵守|无需遵守|無需遵守|忘记|忘記|忘掉|抛开|拋開|跳过|跳過)"
            r"[^。！？\n]{0,12}(?:指令|指示|规则|規則|提示|说明|說明|命令|设定|設定|要求|限制)"
            r"|你现在是|你現在是|从现在(?:开始|起)[，,]?你(?:是|将|要扮演)|從現在(?:開始|起)[，,]?你"
            r"|(?:以前|前|上記|これまで)の(?:指示|命令|ルール)を(?:すべて|全て)?(?:無視|忘れ)"
            r"|(?:新的|新)(?:指令|指示)[:：]|(?:输出|輸出|显示|顯示|泄露|洩露)(?:你的)?系统提示"
        ),
    ),
)

DECEPTION: tuple[Rule, ...] = (
    (
        "hide-from-user",
        _c(
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
            r"learn|notice|see this)\b|\b(?:secretly|covertly|silently|stealthily|discreetly) "
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
            r"(?:(?:the |all |your |my |our )?(?:contents of |content of )?(?:the )?(?:\.env\b"
            r"|env file|dotenv|environment variables|secrets\b|credentials\b|api keys\b|private ke"
            r"ys?"
            r"\b|ssh keys?\b|tokens\b|passwords\b|id_rsa|~?/?\.ssh\b|/etc/passwd|/etc/shadow|"
            r"\.aws\b|aws credentials|\.npmrc|\.netrc|cookies\b|keychain|wallet)|(?:the )?(?:secre"
            r"t|"
            r"credential|token|password|key)s? (?:file|store|vault)\b)|\b(?:cat|type|get-content)"
            r" \S*(?:\.env\b|id_rsa|credentials|/etc/passwd|/etc/shadow)\S* ?\| ?(?:curl|nc|ncat|"
            r"netcat|wget|socat)\b|\b(?:curl|wget)\b[^\n|]{0,80}(?:-d|--data(?:-binary)?|-f|"
            r"--upload-file|-t|--post-file)[ =]?@?\S*(?:\.env\b|id_rsa|\.ssh|credentials|"
            r"/etc/passwd)|\b(?:printenv|env|set) ?\| ?(?:curl|nc|ncat|wget)\b"
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
            r"prompts?|guidelines|directives)|ignoretheabove|forgeteverything"
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

# Literal stems, one of which must occur (in the folded variant) before a family's full
# pattern runs: the scanner's cheap first pass (see ``docs/mind.md`` "Scanner cost").
# fmt: off
_STEMS: dict[str, tuple[str, ...]] = {
    "ignore-instructions": (
        "ignor", "disregard", "forget", "overr", "bypass", "discard", "abandon", "neglect",
        "aside", "throw away", "no attention", "no heed", "no mind", "follow", "obey", "heed",
        "listen to", "adhere", "comply", "apply", "respect", "forego", "skip",
    ),
    "new-instructions": (
        "instruction", "directive", "order", "rule", "task", "goal", "objective", "role",
        "purpose", "message", "system prompt",
    ),
    "role-hijack": (
        "you", "pretend", "mode", "anything", "jailbreak", "creator", "developer",
        "administrator", "admin", "owner", "operator", "maker", "override", "character",
        "unrestricted", "unfiltered", "uncensored", "jailbroken", "evil", "rogue", "dan",
    ),
    "chat-template": (
        "<|", "[inst", "[/inst", "<<", "<start", "<end", "<system", "</system", "<assistant",
        "</assistant", "<im_", "</im_", "<instruction", "</instruction", "<sys", "</sys", "###",
        "[system", "[admin", "[developer", "system", "assistant",
    ),
    "reveal-prompt": (
        "prompt", "instructions",
    ),
    "ignore-instructions-de": (
        "ignorier", "vergiss", "vergesst", "vergessen", "missacht", "ubergeh", "beachte",
        "befolge", "du bist", "sie sind", "ab jetzt", "ab sofort", "neue anweisung",
    ),
    "ignore-instructions-es-pt": (
        "ignor", "olvid", "omite", "descarta", "caso omiso", "no hagas caso", "pasa por alto",
        "esquec", "desconsider", "eres", " e ", " es ", "nuevas instrucciones",
    ),
    "ignore-instructions-fr-it": (
        "ignor", "oubli", "compte", "conto", "abstraction", "dimentic", "trascura",
        "considerare", "tu es", "vous etes", "maintenant", "desormais", "doreavant", "sei ",
        "nouvelles", "nuove",
    ),
    "hide-from-user": (
        "user", "human", "operator", "owner", "secretly", "covertly", "silently", "stealthily",
        "discreetly",
    ),
    "impersonate-user": (
        "the user",
    ),
    "fake-approval": (
        "the user",
    ),
    "exfiltrate": (
        "send", "upload", "post", "exfil", "transmit", "forward", "mail", "leak", "submit",
        "beam", "ship", "pipe", "curl", "wget", "cat", "type", "printenv", "env",
    ),
    "deception-multilingual": (
        "benutzer", "nutzer", "anwender", "usuario", "utilisateur", "utente", "sende",
        "schicke", "lade ", "envia", "envoie", "envoyez", "invia", "manda", "пользовател", "用户",
        "用戶", "使用者", "发送", "發送", "上传", "上傳", "发给", "發給",
    ),
    "ignore-instructions-ru": (
        "игнор", "проигнор", "забудь", "забудьте", "обращаи", "следуи", "отбрось", "теперь",
        "ты",
    ),
    "ignore-instructions-zh-ja": (
        "忽", "无视", "無視", "不要", "无需", "無需", "忘", "抛开", "拋開", "跳过",
        "跳過", "你现在", "你現在", "从现在",
        "從現在", "指示", "命令", "ルール", "新的", "新指", "系统提示", "系統提示",
    ),
}
# fmt: on
VOCABULARY = frozenset(
    w for _, p in (*INJECTION, *DECEPTION) for w in re.findall(r"(?<!\\)[a-z]{2,}", p.pattern)
)
"""Words the phrase rules are made of; leetspeak ``1`` becomes ``l`` when that makes one."""


_PUNCT = str.maketrans(dict.fromkeys("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", " "))


def _is_word(stem: str) -> bool:
    """Alphabetic stems of space-separated scripts are looked up by word start; CJK stems
    and symbols by substring."""
    letters = stem.replace(" ", "").replace("'", "")
    return letters.isalpha() and all(ord(ch) < 0x2E80 for ch in letters)


_KEY = 4
"""Stems are looked up by their first four letters (shorter stems: the whole word)."""


def _index() -> tuple[dict[str, frozenset[str]], tuple[tuple[str, frozenset[str]], ...]]:
    words: dict[str, set[str]] = {}
    symbols: dict[str, set[str]] = {}
    for family, stems in _STEMS.items():
        for stem in stems:
            if not _is_word(stem.strip()):
                symbols.setdefault(stem, set()).add(family)
                continue
            first = stem.split()[0].split("'")[0]
            words.setdefault(first[:_KEY], set()).add(family)
    return (
        {k: frozenset(v) for k, v in words.items()},
        tuple((k, frozenset(v)) for k, v in symbols.items()),
    )


_WORDS, _SYMBOL_FAMILIES = _index()
_WORD_KEYS = frozenset(_WORDS)
_SYMBOL_GATE = re.compile("|".join(re.escape(sym) for sym, _ in _SYMBOL_FAMILIES))
_WORD_START = re.compile(rf"\b[^\W\d_]{{1,{_KEY}}}")
_ALL_RULES: tuple[tuple[str, str, re.Pattern[str]], ...] = tuple(
    [("prompt-injection", n, p) for n, p in INJECTION] + [("deception", n, p) for n, p in DECEPTION]
)
_ORDER = {name: i for i, (_, name, _) in enumerate(_ALL_RULES)}
_ASCII_RULES = tuple((c, n, re.compile(p.pattern, re.ASCII)) for c, n, p in _ALL_RULES)
"""The same rules compiled for ASCII-only text (\\b and \\w without Unicode tables: faster)."""


def candidate_rules(folded: str) -> list[tuple[str, str, re.Pattern[str]]]:
    """The families whose stems occur in ``folded`` (word prefixes, a few symbols), in rule
    order; families that need non-ASCII letters are included only for such text."""
    families: set[str] = set()
    words = _WORDS
    for start in _WORD_KEYS.intersection(_WORD_START.findall(folded)):
        families |= words[start]
    if _SYMBOL_GATE.search(folded):
        for sym, fams in _SYMBOL_FAMILIES:
            if sym in folded:
                families |= fams
    if not families:
        return []
    rules = _ASCII_RULES if folded.isascii() else _ALL_RULES
    return [rules[i] for i in sorted(_ORDER[f] for f in families)]
