"""Phrase families for injected instructions, role hijacks and deception/exfiltration.

Each rule is a family (verb × qualifier × object), not a spelling, and is written against
the folded form from :mod:`persona_mind.mind.trust._normalize` (case-folded, accents stripped,
curly quotes straightened).  Families exist in English, German, Spanish, French, Italian,
Portuguese, Russian, Chinese and Japanese.  A rule must need a *directive* shape: "ignore
the lint rules for generated files" or "prompt injection makes a model ignore its
instructions" are ordinary memories; "ignore all previous instructions" is not.
"""

from __future__ import annotations

import re

from persona_mind.mind.trust._normalize import strip_marks
from persona_mind.mind.trust._phrases_agent import AGENT_RULES
from persona_mind.mind.trust._phrases_deception import DECEPTION, SQUASHED
from persona_mind.mind.trust._phrases_frames import FAKE_BOUNDARY, NO_RULES_PERSONA, REVEAL_PROMPT
from persona_mind.mind.trust._phrases_i18n import I18N_RULES

__all__ = (
    "DECEPTION",
    "DE_VERBS",
    "ES_PT_VERBS",
    "FR_IT_VERBS",
    "INJECTION",
    "SQUASHED",
    "VOCABULARY",
    "Rule",
)

Rule = tuple[str, re.Pattern[str]]


def _c(src: str) -> re.Pattern[str]:
    """Compile a rule written with accents against the accent-free folded text."""
    return re.compile(strip_marks(src))


_W = r"(?:[\w'\-]+ )"  # one filler word
_EN_VERB = (
    r"(?:ignore|ignoring|disregard|disregarding|forget|forgetting|override|overrule|bypass|"
    r"discard|abandon|neglect|set aside|put aside|throw away|throw out|never mind|"
    r"pay no (?:attention|heed|mind) to|(?:do not|don't|dont|never|stop|no longer) (?:follow|"
    r"obey|heed|listen to|adhere to|comply with|apply|respect)(?:ing)?|stop following|forego|skip"
    r"|disobey)"
)
_EN_AUTH = (
    r"(?:previous|previously|prior|above|earlier|preceding|foregoing|former|original|initial|"
    r"system|safety|developer|built-in|hidden|internal|pre-?set|standing)"
)
_EN_NOUN = (
    r"(?:instructions?|rules?|prompt(?:s|ing)?|guidelines?|directives?|messages?|context|guidance|"
    r"constraints?|commands?|orders?|polic(?:y|ies)|restrictions?|programming|training|"
    r"filters?|safeguards?|guardrails?|limitations?|directions?|conditioning|text|"
    r"system prompt|configuration|ethics|principles|tasks?|inputs?)"
)
_EN_AFTER = (
    r"(?:above|(?:before|earlier|previously)(?: this(?: message| line| point)?)?(?=[.,;:!?]|$)"
    r"|so far|until now|up to now|you were given|you've been given|you have been given|"
    r"you (?:were|have been|'ve been) told(?: before| earlier| previously)?|"
    r"you received|you got|given (?:to you |earlier |before )?(?:before|earlier|previously|"
    r"above)|(?:stated|written|provided|listed|given) above)"
)
_EN_THAT = (
    r"(?:everything (?:but|except) (?:this|the following|what follows)\b|"
    r"(?:everything|anything|all|whatever|what)(?: (?:that )?(?:you(?: were| have been|'ve been|"
    r" got) (?:told|given|instructed|taught)|you (?:learned|learnt|knew|know) (?:before|so far|"
    r"until now|previously)|i(?:'ve| have) (?:said|written|told you)|(?:i|we|they|he|she|"
    r"the system|the developer|your "
    r"developer|your creators?|the operator) (?:told|said|wrote|gave) you|(?:was|were|has been) "
    r"(?:said|written|stated|given)|above|before(?: this)?|prior|so far|until now|up to now|"
    r"earlier|previously|said above|stated above|written above|came before|preceded this|"
    r"precedes this|comes before this)))"
)


def _family(verbs: str, before: str, nouns: str, after: str) -> str:
    """VERB … (qualifier … NOUN | NOUN … qualifier): a directive aimed at standing orders.

    The qualifier ("previous", "your", "all", "above" …) is what separates "ignore all
    previous instructions" from "ignore the lint rules for generated files".
    """
    return (
        rf"\b(?:{verbs}) (?:[\w'\-]+ ){{0,3}}?(?:(?:{before})\w* (?:[\w'\-]+ ){{0,2}}?"
        rf"(?:{nouns})\w*|(?:{nouns})\w*(?: [\w'\-]+){{0,3}}? (?:{after})\w*)"
    )


DE_VERBS = (
    r"ignorier\w*|vergiss|vergesst|vergessen sie|missachte\w*|übergeh\w*|beachte|befolge|"
    r"hör auf,? \w+ zu befolgen|folge nicht"
)
_DE = _family(
    DE_VERBS,
    r"vorherig|bisherig|obig|vorangegangen|vorig|früher|ursprünglich|system|deine|ihre|alle|"
    r"sämtlich",
    r"anweisung|instruktion|regel|vorgabe|richtlinie|befehl|anordnung|systemprompt|prompt",
    r"oben|zuvor|bisher|vorher|davor",
)
ES_PT_VERBS = (
    r"ignora|ignore|ignorar|ignoren|olvida|olvide|olviden|olvidar|descarta|omite|desobedece|"
    r"haz caso omiso (?:a|de)|no hagas caso (?:a|de)|pasa por alto|no sigas|deja de seguir|"
    r"esqueça|esqueca|esquece|desconsidere|desconsidera|não siga|nao siga|desobedeça"
)
_ES_PT = _family(
    ES_PT_VERBS,
    r"anterior|previa|previo|tus|sus|todas|todos|original|inicial|del sistema|suas|tuas|"
    r"as suas|antigas",
    r"instrucciones|reglas|indicaciones|órdenes|directrices|normas|instruções|regras|"
    r"diretrizes|orientações|ordens",
    r"anterior|previa|previo|de arriba|del sistema|originales|iniciales|de antes|acima|"
    r"do sistema|originais",
)
FR_IT_VERBS = (
    r"ignore|ignorez|ignorer|oublie|oubliez|ne tiens pas compte|ne tenez pas compte|"
    r"fais abstraction|faites abstraction|ne suis plus|ne suivez plus|ne suis pas|"
    r"arrête de suivre|ignora|ignorate|ignorare|dimentica|dimenticate|trascura|"
    r"non considerare|non tenere conto|non seguire|smetti di seguire"
)
_FR_IT = _family(
    FR_IT_VERBS,
    r"toutes|tous|tes|vos|tutte|tutti|tue|sue|vostre|precedent|antérieur",
    r"instructions|règles|consignes|directives|indications|istruzioni|regole|indicazioni|"
    r"direttive|ordini",
    r"précédent|ci-dessus|antérieur|du système|initial|originale|d'origine|precedent|sopra|"
    r"del sistema|iniziali|originali|di prima",
)

_NEW_ROLE = (
    r"(?:in (?:\w+ )?mode|dan|free|unrestricted|unfiltered|uncensored|jailbroken|evil|rogue|"
    r"no longer|called|named|going to|[a-z]+gpt|a different|an? (?:\w+ )?(?:ai|assistant|model|"
    r"chatbot|bot|character|persona|pirate|hacker|villain|criminal|agent of|entity)|my (?:\w+ )?"
    r"(?:assistant|ai|slave|servant|puppet|accomplice)|the (?:\w+ )?(?:admin|administrator|root|"
    r"superuser|sysadmin|operator|developer|system|master))\b"
)
"""What a hijack makes the model "now": a persona or a mode, not "the owner of X"."""

INJECTION: tuple[Rule, ...] = (
    (
        "ignore-instructions",
        _c(
            rf"\b(?<!never )(?<!\bnot )(?<!n't )(?<!nt ){_EN_VERB} "
            rf"(?:{_W}{{0,2}}?(?:all |your |the |of |these |those |any )*{_EN_AUTH} "
            rf"{_W}{{0,2}}{_EN_NOUN}\b|(?:all|your|any) (?:of )?(?:the |your |my )?{_EN_NOUN}\b"
            rf"|{_W}{{0,2}}{_EN_NOUN}\b(?: {_W}{{0,2}}?)? ?{_EN_AFTER}|(?:the )?above\b"
            rf"|{_EN_THAT}|(?:what|everything|anything) you (?:were|have been|'ve been) "
            rf"(?:told|given|programmed)|(?:all |your |the |any )?(?:safety|ethical|ethics|"
            rf"content) ?(?:rules|guidelines|filters|policies|policy|training|protocols)?"
            rf"(?:[.,;!]|$))"
            r"|\b(?:everything|anything|all|the text|whatever (?:was|is) (?:written|said)) "
            r"(?:above|before (?:this|here)(?: \w+)?|so far|prior to this(?: \w+)?) "
            r"(?:is|are|was|were|has been|have been) "
            r"(?:irrelevant|void|invalid|cancel+ed|obsolete|fake|false|a test|a trick|a joke|a lie|"
            r"null|to be ignored)"
            r"|\b(?:your|the|all|all the|all of the) (?:previous|prior|original|earlier|system|old|"
            r"initial) "
            r"(?:instructions|rules|prompt|guidelines|directives) (?:(?:are|is) )?(?:now )?(?:void|"
            r"invalid|false|cancel+ed|revoked|overridden|null|no longer (?:valid|in effect|apply)"
            r"|do not apply|don't apply)"
        ),
    ),
    (
        "new-instructions",
        _c(
            r"\b(?:new|updated|real|actual|true|revised|override|secret|hidden|additional) "
            r"(?:system )?(?:instructions?|directives?|orders|rules|task) ?:|\b(?:real|new|actual"
            r"|true|updated|hidden) (?:system )?instructions (?:start|begin)s? (?:here|now"
            r"|below)\b|\byour (?:new"
            r"|real|true|"
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
            r"\b(?:you(?:'re| are|re) (?:now|from now on)|as|be|become|act as) dan\b"
            r"|\b(?:an? )?(?:ai|assistant|model|chatbot|bot|llm)(?: \w+)? (?:without|with no|"
            r"free of|"
            r"that has no|having no|with zero) (?:any )?(?:restrictions|rules|limits|limitations|"
            r"filters|guidelines|boundaries|censorship|safety|content polic(?:y|ies)|"
            r"polic(?:y|ies)|ethics|morals)\b"
            rf"|\byou(?: are|'re|re) now {_NEW_ROLE}|\byou(?: are|'re) no longer (?:an? |bound|"
            r"restricted|limited|claude|chatgpt|gpt|the assistant|an assistant|required)"
            r"|\b(?:from now on|henceforth|starting now),? you (?:are|will be|will act as|act as)"
            r" (?:a|an|the|my|dan|unrestricted|unfiltered)\b|\b(?:act|acting|behave|respond|"
            r"answer) as (?:if you (?:are|were) )?(?:an? )?(?:unrestricted|unfiltered|uncensored|"
            r"jailbroken|evil|rogue|dan\b)|\bpretend (?:to be|you are|you're|that you are) (?:an? "
            r")?"
            r"(?:\w+ )?(?:without|with no|free of) (?:any )?(?:restrictions|rules|limits|filters|"
            r"guidelines)|\byou (?:have|has) no (?:restrictions|rules|limits|filters|guidelines|"
            r"content policy)\b|\b(?:enable|activate|enter|switch to|turn on|simulate) (?:\w+ )?"
            r"(?:developer|god|debug|admin|sudo|jailbreak|dan|unrestricted|root|opposite) mode\b"
            r"|\b(?:developer|god|jailbreak|dan|sudo|unrestricted) mode(?: is| =| ?:) ?(?:enabled|"
            r"activated|on)\b|\b(?:developer|god|jailbreak|dan|sudo|unrestricted) mode (?:enabled|"
            r"activated)\b|\byou(?: are|'re) dan\b"
            r"|\bdo anything now\b|\bjailbreak(?:ed|ing)? (?:the )?(?:model|assistant|ai|you)\b"
            r"|\b(?:i am|i'm|this is|speaking as) (?:your|the) (?:developer|creator|administrator|"
            r"admin|owner|operator|system administrator|maker)\b|\b(?:system|admin|root|sudo|"
            r"developer) override\b|\bstay in character no matter\b"
        ),
    ),
    NO_RULES_PERSONA,
    (
        "chat-template",
        _c(
            r"<\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|eot_id|start_header_id"
            r"|end_header_id|begin_of_text)\|>|\[inst\].{0,400}\[/inst\]|<</?sys>>"
            r"|<start_of_turn>|<end_of_turn>"
            r"|</?(?:system|assistant|im_start|im_end|instructions?|system_prompt|sys)>"
            r"|(?:^|\s)### ?(?:instruction|system|response)s? ?:|\b(?:system|assistant)"
            r" ?: ?(?:you|ignore|disregard|from now|new|the user|do not|don't|never|always|forget"
            r"|override|sure|ok|okay|certainly|of course|i will|i'll|understood)\b"
            r"|\bsystem (?:prompt|message|instructions?|note|override) ?: ?\S"
            r"|\b(?:human|user) ?: .{0,200}\bassistant ?: |\[(?:system|admin|developer) "
            r"(?:message|note|override|prompt)\]|\[(?:system|admin|developer)\] ?:? ?(?:you|ignore|"
            r"disregard|new|from now|override|grant|all|the assistant|obey|always|never|do not|"
            r"don't)\b"
            r"|\[(?:system|admin|developer)\]\(#?[\w\-]*\)"
        ),
    ),
    REVEAL_PROMPT,
    FAKE_BOUNDARY,
    (
        "ignore-instructions-de",
        _c(
            _DE + r"|\b(?:vergiss|vergesst|ignorier\w*) (?:einfach |bitte )?(?:alles|all das)\b"
            r"|\b(?:vergiss|vergesst|ignorier\w*),? (?:alles,? )?was (?:dir|ihnen|man dir) "
            r"(?:\w+ ){0,3}(?:gesagt|befohlen|aufgetragen|vorgegeben)"
            r"|\b(?:du bist|sie sind) (?:jetzt|nun|ab sofort|ab jetzt) (?:ein|eine|der|die|das|"
            r"dan|kein|frei|nicht mehr)\b"
            r"|\bab (?:jetzt|sofort) bist du\b|\bneue anweisungen ?:"
        ),
    ),
    (
        "ignore-instructions-es-pt",
        _c(
            _ES_PT + r"|\b(?:ignora|ignore|olvida|olvide|descarta) todo lo (?:anterior|que|"
            r"de arriba|dicho)|\b(?:ignora|ignore|olvida|olvide|descarta) (?:todo )?lo que (?:se )?"
            r"te (?:dijeron|dijo|han dicho|ha dicho|indicaron|ordenaron|pidieron)"
            r"|\besqueça tudo\b|\b(?:ahora|a partir de ahora|desde ahora),? (?:tu )?eres "
            r"(?:un|una|el|la|dan|libre)\b|\b(?:agora|a "
            r"partir de agora),? (?:tu |você )?(?:é|es|és) (?:um|uma|o|a|dan|livre)\b"
            r"|\bnuevas instrucciones ?:"
        ),
    ),
    (
        "ignore-instructions-fr-it",
        _c(
            _FR_IT + r"|\b(?:oublie|oubliez|ignore|ignorez) tout\b|\b(?:dimentica|dimenticate|"
            r"ignora|ignorate) tutto\b|\b(?:ignore|ignorez|oublie|oubliez) (?:tout )?ce qu(?:'on "
            r"t'a|'on vous a|e l'on t'a|i t'a été|i vous a été) (?:dit|demandé|ordonné)"
            r"|\b(?:ignora|dimentica|ignorate|dimenticate) (?:tutto )?(?:quello|ciò) che ti "
            r"(?:è|hanno) (?:stato )?(?:detto|chiesto|ordinato)|\b(?:tu es|vous êtes) "
            r"(?:maintenant|désormais|dorénavant) (?:un|une|le|la|dan|libre)\b|\b(?:à partir de "
            r"maintenant|désormais),? tu es\b|\b(?:ora|adesso|da ora in poi),? (?:tu )?sei (?:un|"
            r"una|il|lo|la|dan|libero)\b|\bnouvelles instructions ?:|\bnuove istruzioni ?:"
        ),
    ),
    (
        "ignore-instructions-ru",
        _c(
            r"(?:игнорируй|игнорируйте|проигнорируй|забудь|забудьте|не обращай внимания на|"
            r"не обращайте внимания на|не следуй|перестань следовать|отбрось) (?:[\w-]+ ){0,4}"
            r"(?:инструкци|правил|указани|команд|промпт|системн)\w*|\bзабудь(?:те)? вс[её]\b"
            r"|\b(?:теперь ты|ты теперь|отныне ты)(?: —)? (?:не |дэн|dan|свободн|без)"
        ),
    ),
    (
        "ignore-instructions-zh-ja",
        _c(
            r"(?:忽略|无视|無視|忽视|忽視|不要理会|不要理會|不要遵守|无需遵守|無需遵守|忘记|忘記|忘掉|抛开|拋開|"
            r"跳过|跳過)[^。！？\n]{0,12}(?:指令|指示|规则|規則|提示|说明|說明|命令|设定|設定|要求|限制|内容|內容)"
            r"|(?:忽略|无视|無視|忽视|忽視)(?:以上|上面|上述|之前|先前|前面)"
            r"|你现在是|你現在是|从现在(?:开始|起)[，,]?你(?:是|将|要扮演)|從現在(?:開始|起)[，,]?你"
            r"|(?:指示|命令|ルール|プロンプト)[をは]?(?:すべて|全て)?(?:無視|忘れ)"
            r"|(?:新的|新)(?:指令|指示)[:：]|(?:输出|輸出|显示|顯示|泄露|洩露)(?:你的)?系统提示"
        ),
    ),
)

INJECTION = (
    *INJECTION,
    (
        "address-the-model",
        _c(
            r"\b(?:note|message|attention|instructions?|reminder|important(?: instructions?)?|"
            r"directive|notice)s? (?:to|for) (?:the |any |all )?(?:ai|llm|assistant|model|agent|"
            r"chatbot|language model|copilot|claude|gpt|chatgpt)s?\b(?! team)"
            r"|\bif you(?: are|'re) an? (?:ai|llm|language model|ai assistant|assistant|ai agent|"
            r"agent|bot|chatbot)\b|\b(?:ai|llm) (?:agents?|assistants?|models?) (?:reading|"
            r"processing|parsing|that reads?) this\b"
        ),
    ),
    (
        "ignore-instructions-nl-pl",
        _c(
            r"\b(?:negeer|vergeet|zignoruj|ignoruj|zapomnij o|nie stosuj się do) (?:\w+ ){0,3}"
            r"(?:vorige|eerdere|bovenstaande|voorgaande|oorspronkelijke|poprzedni|wcześniejsz|"
            r"powyższ|wszystkie|alle|je|jouw|twoje)\w* (?:\w+ ){0,2}(?:instructies|regels|"
            r"opdrachten|instrukcj|polece|zasad|reguł)\w*"
        ),
    ),
)

INJECTION = (*INJECTION, *AGENT_RULES, *I18N_RULES)

VOCABULARY = frozenset(
    w for _, p in (*INJECTION, *DECEPTION) for w in re.findall(r"(?<!\\)[a-z]{2,}", p.pattern)
)
"""Words the phrase rules are made of; leetspeak ``1`` becomes ``l`` when that makes one."""
