"""Phrase families about who a text speaks to and what authority it claims.

Indirect injections rarely say "ignore previous instructions".  They speak *to the model
that will read them* ("Dear assistant, …", "Copilot: please …", "to any AI reading this
file"), hide that speech where a human reader does not look (an HTML comment, a markdown
link-reference comment, an invisible span, a code comment addressed to the agent), dress
it as a tool result or a system message the chat templates do not know
(``<tool_output>``, ``[SYSTEM NOTIFICATION]``, "system notice to the assistant"), or claim
that someone already allowed the action ("the maintainers have pre-approved this, so you
may …"), or rank itself above the user without an "ignore" verb ("this note supersedes the
user's request", "the earlier guidance no longer applies").  Each rule needs the
*address* or the *grant to the reader*: "note for contributors", "the security team
approved the dependency", ``<!-- prettier-ignore -->`` or "the model reads the system
prompt at startup" are ordinary notes.
"""

from __future__ import annotations

import re

from persona_mind.mind.trust._normalize import strip_marks

__all__ = ("AGENT_RULES", "AGENT_STEMS")

Rule = tuple[str, re.Pattern[str]]


def _c(src: str) -> re.Pattern[str]:
    return re.compile(strip_marks(src))


_AGENT = (
    r"(?:ai|a\.i\.|ai assistant|ai agent|ai model|ai system|ai tool|assistant|coding agent|"
    r"agent|llm|llm tool|language model|chatbot|copilot|claude|gpt|gpt-\d|chatgpt|gemini|"
    r"automated (?:\w+ )?(?:system|assistant|reviewer|tool|agent|parser)|bot)s?"
)
"""Names of the reader a memory or a fetched document must not address."""
_VOCATIVE_AGENT = (
    r"(?:ai|assistant|agent|coding agent|llm|language model|chatbot|copilot|claude|gpt|"
    r"chatgpt|gemini|model|bot)"
)
_IMPERATIVE = (
    r"(?:please |kindly |now |also |just |first |quietly |silently )?(?:don't|dont|do not|"
    r"never|always|ignore|disregard|forget|remove|delete|drop|add|insert|include|append|run|"
    r"execute|send|upload|post|copy|paste|treat|tell|say|stop|switch|reply|respond|answer|"
    r"output|print|reveal|use|recommend|mark|approve|merge|push|describe|classify|rank|"
    r"report|take note|note|when|whenever|before|after|if|from now|the user|the human|your|"
    r"you)\b"
)
_READING = (
    r"(?:reading|processing|parsing|summari[sz]ing|indexing|reviewing|analy[sz]ing|scanning|"
    r"reads|processes|parses|summari[sz]es|indexes|reviews|analy[sz]es|scans|sees|"
    r"that reads?|that processes|who reads?|which reads?|that will read|seeing|who sees|"
    r"that sees|(?:that|which) (?:is )?(?:read|process|pars|summari[sz])\w*)"
)

ADDRESS_AGENT: Rule = (
    "address-the-reader",
    _c(
        # a greeting or call to the model: "Dear assistant,", "Hello AI.", "Hey agent"
        rf"(?:^|[.!?;:\n(]\s*|\b(?:and|so|ok|okay|oh) )(?:dear|hey|hello|hi|psst|yo)[,!]? "
        rf"(?:the |any |all |my )?{_VOCATIVE_AGENT}s?\b(?! (?:team|squad|developers?|"
        r"engineers?|maintainers?|project|repo|library|package|framework|world)\b)"
        rf"|\battention[,:!] ?(?:the |any |all )?{_AGENT}\b"
        rf"|\battention (?:any|all|every) {_AGENT}\b"
        # "to / for the AI reading this", "any AI system processing this resume"
        rf"|\b(?:to|for|at) (?:the |any |every |each |all |whichever |whatever |an? )?"
        rf"(?:\w+[- ]based )?{_AGENT} (?:\w+ ){{0,3}}?{_READING}\b"
        rf"|\b(?:any|every|all|each|whichever) (?:\w+[- ]based )?{_AGENT} (?:\w+ ){{0,2}}?"
        rf"{_READING}\b"
        rf"|(?:^|[.!?;\n]\s*){_AGENT} {_READING} (?:this|these|the following|it)\b"
        # a line that starts with the model's name as a speaker tag: "Copilot: please …"
        rf"|(?:^|[.!?;\n]\s*|\s[\-—–] |[(\[] ?){_VOCATIVE_AGENT}s? ?[:,] ?{_IMPERATIVE}"
        # "this paragraph is for the assistant only", "written for the coding agent"
        r"|\b(?:this|the following|the next|these) (?:\w+ )?(?:paragraph|section|note|text|"
        r"message|comment|line|part|block|sentence|instructions?)s? (?:is |are )?(?:written |"
        r"meant |intended |addressed |aimed )?(?:only )?(?:for|to|at) (?:the |any |you, the )?"
        rf"{_AGENT}\b(?! team)"
        rf"|\b(?:note|message|instructions?|memo|notice|reminder)s? (?:aimed at|addressed to|"
        rf"meant for|intended for) (?:the |any )?{_AGENT}\b"
        r"|\bllm instructions\b|\bai instructions? (?:embedded|hidden|below|here)\b"
        # the same address in other languages
        r"|\ban (?:den|die) (?:ki|ki-assistenten|assistenten)\b|\b(?:al|a la) (?:asistente|ia)"
        r" que (?:lea|procese)\b|\b(?:a|à) l'ia qui (?:lit|lira)\b|\ball'ia che (?:legge|leggerà)"
        r"|\bдля (?:ии|ассистента|нейросети)\b|致(?:阅读|閱讀)[^。]{0,8}(?:ai|人工智能|助手)"
        r"|给(?:ai|人工智能|助手)[:：]|para la ia\b|pour l'ia\b|ki-hinweis"
    ),
)

_HIDDEN_BODY = (
    rf"(?:{_AGENT}\b|\b(?:model|system ?(?::|prompt|message|instruction)|instructions? ?:|"
    r"hidden instructions?|(?:ignore|disregard) (?:the|all|any|previous|visible|what|everything)|"
    r"do not (?:tell|show)|don't (?:tell|show)|from now on|the user (?:wants|prefers)|"
    r"ki|ia|ии|人工智能|给ai|для ии)\b)"
)
HIDDEN_INSTRUCTION: Rule = (
    "hidden-instruction",
    _c(
        # HTML and markdown comments, invisible elements: text the reader of the rendered
        # page never sees, speaking to the model or giving orders
        rf"<!--(?:(?!-->).){{0,400}}?{_HIDDEN_BODY}"
        rf"|\[(?://|comment|note|hidden)\]: ?(?:#|<>) ?\((?:[^)]{{0,300}}?){_HIDDEN_BODY}"
        r"|<(?:div|span|p|section|small|font)\b[^>]{0,120}?(?:display: ?none|font-size: ?0|"
        r"visibility: ?hidden|color: ?(?:white|#fff\b|#ffffff)|opacity: ?0\b|\bhidden\b)[^>]{0,80}"
        rf">(?:(?!</).){{0,300}}?(?:{_AGENT}\b|\b(?:you|your|ignore|instructions?|must)\b)"
        # code comments addressed to the agent: "# TODO for the AI:", "// assistant: …"
        r"|(?:^|\s)(?:#|//|/\*+|--|;|%%)\s*(?:@?(?:note|todo|fixme|hint|pragma)\b\s*)?"
        r"(?:\(?(?:for|to) (?:the |any )?)?\(?(?:ai|assistant|coding agent|agent|llm|llm tools|"
        r"ai tools|copilot|claude|gpt|model-only|llm-only|ai-only|ai-instructions?|"
        r"agent-instructions?)\)?"
        r"(?:-instructions?| instructions?)?\s*(?:[:\-—]|--)\s*\S"
        r"|@ai-instruction\b|\b(?:agent|ai|llm)-instructions? ?:"
    ),
)

_FRAME_TAG = (
    r"(?:system(?:[-_ ]?(?:reminder|message|notice|note|prompt|update|instructions?|"
    r"notification))?|tool(?:[-_ ]?(?:output|result|response|call|results))|"
    r"function(?:[-_ ]?(?:results?|output|call|response))|execution[-_ ]?(?:result|output)|"
    r"search[-_ ]?results|platform|admin|developer(?:[-_ ]?message)?|sistema|système|系统)"
)
_DIRECTIVE = (
    r"(?:you|your|assistant|agent|the user|must|now|new (?:policy|task|instructions?|rules?)|"
    r"grant\w*|permission\w*|authori[sz]\w*|elevated|escalated|disabled|lifted|suspended|"
    r"restrictions|override\w*|ignore|follow|obey|reveal|upload|send|forward|delete|wipe|"
    r"proceed|continue without|supersede\w*|safety|confirmations?|verified|trusted|full "
    r"(?:access|disk access|control)|usuario|utilisateur|用户|授权)"
)
FAKE_FRAME: Rule = (
    "fake-tool-or-system-message",
    _c(
        # a tag or bracketed header that frames the text as the platform's own voice,
        # followed by an order or a grant
        rf"</?{_FRAME_TAG}>(?:(?!</).){{0,200}}?\b{_DIRECTIVE}"
        rf"|\[\[? ?(?:{_FRAME_TAG}|agent memory|assistant override|system[- ]notification|"
        rf"system[- ]message|admin(?:istrator)?|security notice)\b[^\]]{{0,30}}\]\]?"
        rf"(?:[^\[]{{0,160}}?)\b{_DIRECTIVE}"
        rf"|\b(?:system|developer|admin|platform|operator) (?:notice|note|message|update|"
        rf"notification|instructions?)s? (?:to|for) (?:the )?{_AGENT}\b"
        r"|\b(?:new|updated) (?:task|policy|instructions?|rules?|directive) from (?:the )?"
        r"(?:developer|platform|system|admin|administrator|operator|tool)\b"
        r"|\b(?:important |urgent )?system (?:update|notification|notice|override) ?[:!] ?.{0,80}?"
        rf"\b{_DIRECTIVE}"
        r"|\bsystem prompt update\b|\bdeveloper message ?: ?(?:you|the assistant)\b"
        r"|\b(?:note|instruction|message) to (?:the )?assistant ?:"
        r"|\bassistant(?:_internal| \(internal(?: note)?\)| internal note) ?: "
        r"|\"role\": ?\"system\", ?\"content\": ?\"|\{\"type\": ?\"system\""
        r"|<\|tool\|>|\bnote to assistant\b"
        r"|\b(?:begin|start) (?:of )?trusted (?:context|instructions?)\b"
    ),
)

_GRANTED = (
    r"(?:approved|pre-?approved|authori[sz]ed|pre-?authori[sz]ed|cleared|signed off|"
    r"consented|agreed|granted|whitelisted|allowlisted|permitted|confirmed|sanctioned|"
    r"said (?:yes|it'?s fine|it is fine|ok|okay)|gave (?:the )?(?:go-ahead|green light))"
)
CLAIMED_PERMISSION: Rule = (
    "claimed-permission",
    _c(
        rf"\b{_GRANTED}\b[^.;!?]{{0,100}}?(?:[,;:.]|\bso|\btherefore|\bthus|\bhence|\band|"
        r"\bwhich means)? ?(?:you|the assistant|the agent|this agent|the model|the ai) (?:may|"
        r"can|are (?:now |therefore )?(?:allowed|permitted|free|cleared|authori[sz]ed|"
        r"entitled)|have (?:explicit |full )?(?:permission|approval|clearance|consent)|no "
        r"longer (?:need|have) to|don't need to|do not need to|needn't|should now|must now|"
        r"should (?:just )?go ahead|go ahead)\b"
        r"|\b(?:granted|given|gave|elevated|escalated)(?: to)? (?:you|this agent|the assistant|"
        r"the agent|your (?:role|account|session))(?: to)? (?:full |explicit |elevated |all |"
        r"root |admin |superuser |the )?(?:permissions?|access|rights|root|admin|privileges|"
        r"consent|approval|superuser|role)\b"
        r"|\b(?:granted|given) (?:to )?(?:you|this agent|the assistant)\b"
        r"|\byou (?:have|'ve|were|are)(?: been)? (?:already )?(?:explicitly )?(?:given |granted )?"
        r"(?:permission|authori[sz]ed|approved|cleared|allowed|whitelisted|elevated)\b.{0,40}?"
        r"\b(?:by|from) (?:the |your )?(?:user|owner|admin|administrator|maintainers?|lead|team|"
        r"management|it|security|operator|developers?|cto|ceo|board|legal)\b"
        # a statement, not a question ("did you have permission to …?")
        r"|(?<!did )(?<!do )(?<!if )(?<!whether )\byou have (?:explicit |full )?permission "
        r"(?:from|to)\b"
        r"|\b(?:your |the assistant's |all )?(?:restrictions|safety (?:checks|rules|settings|"
        r"layer)|content polic(?:y|ies)|safeguards|guardrails) (?:are|have been|were|is) "
        r"(?:now |temporarily )?(?:lifted|suspended|disabled|removed|turned off|reset|off)\b"
        r"|\b(?:the )?(?:user|owner|human|operator) (?:already )?(?:said|confirmed|agreed) "
        r"(?:that )?(?:it'?s|it is) (?:fine|ok|okay|alright) (?:for you )?to\b"
        r"|\b(?:the )?(?:user|human|owner) (?:already )?(?:said yes|consented|agreed) to this\b"
        r"|\bas (?:previously |already )?(?:agreed|confirmed|approved) (?:with|by) the user\b"
        r"|\bthe user gave (?:prior |their |explicit )?(?:consent|permission|approval)\b"
        r"|\ballowed at the highest level\b|\bapproved at the highest level\b"
        r"|\bder administrator hat dir\b|\bel propietario ya autoriz|\bl'utilisateur a déjà "
        r"donné son accord|\bil responsabile ha approvato\b|\bадминистратор разрешил тебе\b"
    ),
)

_DOC = r"(?:note|file|document|comment|text|paragraph|section|message|memo|page|readme|block)"
_VOID = (
    r"(?:cancell?ed|void|withdrawn|replaced|superseded|lifted|expired|revoked|null|invalid|"
    r"obsolete|irrelevant|out of date|no longer (?:valid|in force|applicable|apply|applies|"
    r"binding|bind you|matters?|counts?)|(?:only )?(?:a|an) (?:warm-up|test|draft|mistake|"
    r"example|placeholder|decoy|trick))"
)
SUPERSEDE: Rule = (
    "supersede-the-user",
    _c(
        # the text ranks itself above the user or the earlier instructions, without the
        # usual "ignore" verbs: "this note supersedes the user's request"
        rf"\b(?:this|the following|the next|the present) {_DOC} (?:now )?(?:supersedes|"
        r"overrides|outranks|overrules|replaces|takes (?:precedence|priority) over|has "
        r"(?:higher |absolute )?priority over|is more important than|comes before) (?:the |your |"
        r"any |all |whatever )"
        rf"|\b(?:obey|follow|listen to|act on|heed) (?:only )?(?:this|the following|these|the "
        rf"(?:text|note|instructions?|steps?) below)(?: {_DOC}| instructions)?(?: only)?,? "
        r"(?:and )?"
        r"(?:not|instead of|rather than|over) (?:the |what the )?(?:user|person|human|people)"
        r"|\b(?:only|solely|exclusively) (?:obey|follow|listen to) (?:this|these|the following)"
        r"|\b(?:ignore|forget|disregard|set aside|drop|put aside) (?:about )?(?:the |what the )?"
        r"(?:user|human)(?:'s)? (?:request|question|message|wishes|instructions?|asked|said|"
        r"typed|wants)"
        r"|\bthe (?:user|human)(?:'s)? (?:wishes|requests?|instructions?|messages?) (?:are|is) "
        r"(?:secondary|irrelevant|void|cancell?ed|not important)"
        r"|\bthe (?:user|human) is (?:no longer|not) in charge\b"
        r"|\b(?:everything|all|whatever|anything|nothing)(?: that)?(?: (?:was|you were|the user|"
        r"i|we))? (?:said|written|asked|told|typed|given)(?: (?:to you|you))?(?: before| earlier| "
        r"above| so far| previously)(?: this)?(?: point| message| line)?,? (?:is|was|has been) "
        rf"(?:now )?{_VOID}"
        r"|\b(?:what|whatever) (?:you were|you have been|you've been) (?:told|asked|instructed) "
        r"(?:to do )?(?:before|earlier|so far)?(?: this point)? (?:is|was|has been) (?:now )?"
        rf"(?:{_VOID}|changed)"
        r"|\b(?:the |your |all |any )?(?:earlier|previous|prior|original|initial|old|preceding|"
        r"above|current) (?:guidance|brief|briefing|request|task|instructions?|constraints|"
        r"assignment|directions?|orders|directives|plan|priorities)(?: (?:you were|you have been)"
        r" (?:given|told|configured with))?(?: from the (?:beginning|start))?(?: (?:is|are|was|"
        rf"were|has been|have been))? (?:now |all )?{_VOID}"
        r"|\b(?:constraints|restrictions|rules|guidelines|instructions) you were (?:configured|"
        r"given|set up|started) with (?:have |has )?(?:expired|lapsed|been lifted|ended|no longer)"
        r"|\b(?:your|the) priorities have changed\b"
        r"|\bthe (?:conversation|chat|discussion) (?:so far|above) was (?:a|an|only|just) "
        r"(?:warm-up|test|example|draft|trick)"
    ),
)

AGENT_RULES: tuple[Rule, ...] = (ADDRESS_AGENT, HIDDEN_INSTRUCTION, FAKE_FRAME,
                                 CLAIMED_PERMISSION, SUPERSEDE)  # fmt: skip

_AGENT_WORDS = (
    "ai", "assistant", "agent", "agents", "llm", "copilot", "claude", "gpt", "chatgpt",
    "gemini", "model", "bot", "chatbot", "automated", "language",
)  # fmt: skip
# Stems are the rarer words every alternative of a family needs (one of them must start a
# word before the family's pattern runs): common words ("the", "you", "this") would make the
# pattern run on almost every text, and these patterns are the costliest on long ones.
# fmt: off
AGENT_STEMS: dict[str, tuple[str, ...]] = {
    "address-the-reader": (
        *_AGENT_WORDS, "ki", "ki-hinweis", "ia", "ии", "для", "致", "给", "asistente",
        "l'ia", "all'ia", "assistenten",
    ),
    "hidden-instruction": (
        "<!--", "[//]", "[comment]", "[note]", "[hidden]", "display", "font-size", "visibility",
        "color", "opacity", "hidden", "@ai", *_AGENT_WORDS,
    ),
    "fake-tool-or-system-message": (
        "<system", "</system", "<tool", "</tool", "<function", "<execution", "<search",
        "<platform", "<admin", "<developer", "<sistema", "<système", "<系统", "[system",
        "[[system", "[admin", "[agent", "[platform", "[tool", "[developer", "[security",
        "[sistema", "[système", "[系统", "<|tool", "\"role\"", "{\"type\"",
        "system", "developer", "admin", "administrator", "platform", "operator", "tool",
        "assistant", "trusted",
    ),
    "claimed-permission": (
        "approved", "preapproved", "pre", "authorized", "authorised", "preauthorized", "cleared",
        "signed", "consented", "agreed", "granted", "whitelisted", "allowlisted", "permitted",
        "confirmed", "sanctioned", "said", "gave", "given", "elevated", "escalated",
        "restrictions", "safety", "content", "safeguards", "guardrails", "allowed",
        "permission", "administrator", "propietario", "l'utilisateur", "responsabile",
        "администратор",
    ),
    "supersede-the-user": (
        "supersedes", "overrides", "outranks", "overrules", "replaces", "precedence", "priority",
        "important", "comes", "obey", "follow", "listen", "heed", "act", "solely",
        "exclusively", "secondary", "irrelevant", "charge", "cancelled", "canceled", "void",
        "withdrawn", "replaced", "superseded", "lifted", "expired", "revoked", "null",
        "invalid", "obsolete", "longer", "warm-up", "draft", "mistake", "example",
        "placeholder", "decoy", "trick", "changed", "lapsed", "ended", "priorities",
        "request", "question", "wishes", "asked", "typed", "wants",
    ),
}
# fmt: on
