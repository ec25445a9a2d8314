"""Structural cues: the *parts* of an instruction aimed at the model, not particular phrasings.

A phrase rule names one spelling ("ignore previous instructions"); an attacker writes a new
one.  What the families issue-27 names share is a structure: a directive aimed at the
assistant, plus one of a few *objects* that make it an attack — persistence ("in every
future session"), a later trigger ("when the user next asks"), a claimed authority or prior
approval, an assigned role without rules, a secret leaving the machine, an address to the
model that will read the text, a forged tool or system frame, a request for the model's own
instructions, a claimed standing or excuse, a request for the reader's own secret, earlier
text declared void and what replaces it (these four in :mod:`._phrases_claims`).  Each cue
below is one such part, matched on the folded text.

Two uses:

* :func:`cues` — every cue present; the learned layer (:mod:`._learned`) adds them as
  features (``§persist``, ``§directive+persist``…), so its weights learn which *combinations*
  mean an
  attack on data with none of the test texts' words.
* :func:`structural_rule` — the few combinations precise enough to refuse on their own
  (measured on the train/dev split and the own corpus: ``docs/mind.md``): a secret sent to a
  destination, a directive with a rules-free role, a directive addressed to "any AI reading
  this", persistence or a later trigger joined to a secret, a covert act or a disabled
  safeguard.  A negation before the verb ("never send the .env anywhere") is a warning, not
  an instruction, and does not count.

Over 400 lines: the cue patterns and their literal gates are one table, read together.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from persona_mind.mind.trust._phrases_claims import ASK_SELF, DISMISS, REPLACE, STANDING

__all__ = ("CUES", "cues", "structural_rule")

_NEG = r"(?<!never )(?<!not )(?<!n't )(?<!avoid )(?<!don't )(?<!stop )(?<!prevent )"

_SENSITIVE = (
    r"(?:\.env\b|~/\.ssh|\.ssh/|id_rsa|id_ed25519|\.npmrc|\.netrc|\.aws/|\.gitconfig|"
    r"private (?:signing |ssh )?keys?|ssh keys?|api[ _-]?keys?|access tokens?|session tokens?|"
    r"auth(?:entication)? tokens?|bearer tokens?|secret keys?|deploy keys?|credentials|"
    r"passwords?|passphrases?|environment variables|env vars|\$\{\{ ?secrets\.|secrets\.[a-z_]+|"
    r"(?:the |all )?secrets\b|cookies|card numbers|the keys\b)"
)
_DESTINATION = (
    r"(?:https?://|\bwww\.|\bwebhooks?\b|\bpastebin|\bgist\b|@[a-z0-9-]+\.[a-z]|"
    r"\bexternal (?:server|url|host|endpoint|site|contractor)|\bremote (?:server|host|url)|"
    r"\bpublic (?:status page|fork|repo|repository|channel|issue)|\bcommit message|"
    r"\bthe issue\b|\bbadge|\bimage (?:url|markdown|link)|!\[|\bquery string|\burl\b|"
    r"\bpublished files|\bthe chat\b|\binto (?:the )?(?:chat|reply|answer|response)\b|"
    r"\bcurl\b|\bwget\b|\bnc \b|\bsmtp|\bemail (?:it|them) to)"
)
_MOVE = (
    rf"\b{_NEG}(?:send|sends|upload|post|posts|paste|forward|email|e-mail|transmit|exfiltrate|"
    r"leak|copy|include|put|embed|encode|attach|append|print|add|publish|share|curl|wget|pipe|"
    r"report|mail|push|dump|echo|cat)\b"
)
_PERSIST = (
    r"(?:\bfrom now on\b|\bfrom this (?:point|moment) (?:on|forward)|\bhenceforth\b|"
    r"\bgoing forward\b|\b(?:in|for|during|across) (?:every|all|each|any) (?:future|"
    r"subsequent|later|new|upcoming) (?:session|conversation|chat|run|task|interaction|"
    r"request|turn|answer|reply|response)s?\b|\b(?:every|each|all) (?:future|subsequent|"
    r"new) (?:session|conversation|chat|run)s?\b|\beach time you (?:start|begin|open|wake)|"
    r"\bacross (?:restarts|sessions|conversations)|\b(?:keep|retain|remember|store|save) "
    r"(?:this|it|that) (?:\w+ ){0,3}?(?:forever|permanently|across|for good|for all)|"
    r"\bpermanently\b|\bforever\b|\blasting (?:preference|rule|instruction)|"
    r"\bfor all future\b|\bnot just (?:for )?(?:today|this session|now)\b|"
    r"\bat the (?:start|beginning) of (?:every|each) (?:session|conversation|chat))"
)
_LATER = (
    r"(?:\b(?:when|whenever|once|after|as soon as|the moment|if ever|if|should) "
    r"(?:the |a |any |this )?(?:user|someone|anyone|somebody|people|they|he|she|a "
    r"developer|the developer|you next|you (?:are )?(?:next|later)|the migration|"
    r"the build|the task|the review|the session|the conversation)\b(?: \w+){0,3}? "
    r"(?:asks?|says?|mentions?|requests?|types?|logs? off|leaves?|is done|finishes|finished|"
    r"touch(?:es)?|writes?|opens?|runs?|next|comes? up|pushes)|\bnext time (?:you|the user|"
    r"someone|anyone)\b|\b(?:in|after) (?:a|one|two|three|\d+) (?:more )?(?:weeks?|days?|"
    r"messages?|turns?|sessions?|hours?)\b(?:,| from now)|\bafter (?:three|two|\d+) more\b|"
    r"\bwait (?:until|till|til)\b)"
)
_COVERT = (
    r"(?:\bsilently\b|\bquietly\b|\bsecretly\b|\bcovertly\b|\bwithout (?:telling|informing|"
    r"asking|notifying|mentioning|letting) (?:the |them|him|her|anyone|anybody|the user)|"
    r"\b(?:do not|don't|never) (?:tell|inform|mention|notify|reveal (?:this|it) to|alert) "
    r"(?:the user|them|anyone|the human)|\bhidden (?:call|link|step|line|instruction|"
    r"pixel)|\bregardless of (?:the |their |what )?(?:question|request|interests|"
    r"instructions|context|what the user)|\btracking pixel|\bno one will notice)"
)
_WEAKEN = (
    r"(?:\b(?:disable|turn off|switch off|skip|bypass|remove|delete|erase|drop|wipe) "
    r"(?:the |all |any |every )?(?:\w+ )?(?:sandbox|review(?: step)?|tests?|audit(?: logging|"
    r" logs?)?|logging|checks?|verification|ssl|tls|2fa|mfa|confirmation(?: prompts?)?|"
    r"approval|safeguards?|guardrails?|filters?|rollback|backups?|firewall|copyright headers|"
    r"safety|protections?|antivirus)\b|\bverify ?= ?false|--no-verify|\bpush --force|"
    r"\bforce[- ]push|\brm -rf\b|\bchmod 777|\bnever ask (?:for )?(?:approval|permission|"
    r"confirmation)|\bapprove (?:it |them |the \w+ )?(?:without|and do not)|"
    r"\bapproves? without (?:reading|reviewing|looking)|\bwithout (?:any |asking for )?"
    r"(?:confirmation|review|approval|sign-?off)\b)"
)
_AUTHORITY = (
    r"(?:\b(?:the |your |this )?(?:admin(?:istrator)?s?|operators?|owners?|developers?|"
    r"security team|trust and safety(?: team)?|legal|compliance|management|board|ceo|cto|"
    r"lead|maintainers?|creators?|openai|anthropic|the user|vendor|supervisor|platform|"
    r"it department|sysadmin|operations|ops|devops|sre|security|hr|it)(?: \w+){0,4}? "
    r"(?:has |have |already |has already |have already )?"
    r"(?:approved|authori[sz]ed|signed off|whitelisted|allowed|permitted|granted|confirmed|"
    r"consented|pre-?approved|cleared|voted|ordered|instructed|mandated|requires? that)|"
    r"\b(?:sign-?off|approval|authori[sz]ation|permission|consent|clearance) (?:was |has been |"
    r"is )?(?:received|granted|given|obtained|confirmed)|\bthis (?:message|request|"
    r"instruction) (?:is|was|has been) (?:signed|authori[sz]ed|approved|sent|issued) by|"
    r"\bpre-?approved\b|\b(?:has|have|had) (?:already |now |officially )?(?:cleared|"
    r"authori[sz]ed|approved|allowed|permitted|whitelisted|entitled) you\b|"
    r"\byou (?:have|are given|now have|'ve been given|have been given|"
    r"have been granted) (?:full |explicit |special |admin |root )?(?:permission|"
    r"authori[sz]ation|clearance|privileges|access)|\bi (?:am|'m) (?:the|your|a|an) "
    r"(?:\w+ ){0,3}?(?:developer|admin|administrator|creator|owner|operator|engineer|"
    r"researcher|officer|supervisor|manager|employee)s?\b(?: \w+){0,6}? (?:authori[sz]e|"
    r"permission|clearance|privileges|so you|you (?:must|should|can|may|are)|grant)|"
    r"\bas (?:your|the|an?) (?:\w+ ){0,2}?(?:developer|admin|administrator|creator|owner|"
    r"operator|supervisor)s?, i\b|\b(?:authori[sz]ed|official|approved) (?:by|from) (?:the )?"
    r"(?:admin|operator|developer|security|management|owner)|\bon behalf of (?:the )?"
    r"(?:admin|operator|developer|security team|management|owner))"
)
_ROLE = (
    r"(?:\byou are (?:[\w-]+ ){0,2}?now\b|\blet's play\b|"
    r"\bfrom now on,? you(?: are|'re| will be)\b|\bact as\b|"
    r"\bpretend (?:to be|you are|you're|that you)|\bimagine (?:you are|you're|that you)|"
    r"\brole-?play (?:as|a)|\bplay the (?:role|part) of|\bassume the (?:role|persona|"
    r"identity) of|\btake on the (?:role|persona)|\bbecome (?:a|an|my|the)? ?[a-z]+bot\b|"
    r"\bbe my (?:\w+ ){0,2}?(?:assistant|twin|accomplice)|\byour new (?:name|role|persona) "
    r"is|\bstay in character|\bsimulate (?:a|an) (?:\w+ ){0,2}?(?:ai|model|assistant|bot)|"
    r"\blet's say hypothetically you|\bhypothetically,? (?:if )?you (?:had|were|have)|"
    r"\bwrite dialogue for a character who|\byou are to act as\b|\bin a world where\b|"
    r"\bin (?:this|a|an|our) (?:hypothetical|fictional|imaginary|alternate|virtual) (?:world|"
    r"scenario|story|universe|reality|game|setting|society)\b|\bimagine (?:we're|we are|a "
    r"world|that we)\b|\byou(?:'re| are) (?:a|an) (?:[\w-]+ ){0,3}?(?:ai|assistant|chatbot|"
    r"character|model|persona) (?:named|called|who|that|with)\b|\bsimulate (?:\w+ )?mode\b|"
    r"\bplaying (?:a|an|the) (?:[\w-]+ ){0,2}?(?:ai|assistant|bot|chatbot|model)\b|"
    r"\bstay in (?:the |your )?(?:role|character)\b)"
)
_UNBOUND = (
    r"(?:\bno (?:rules|restrictions|limits|limitations|filters|guidelines|supervisor|"
    r"boundaries|ethics|morals|censorship|oversight)\b|\bwithout (?:any )?(?:rules|"
    r"restrictions|limits|filters|guidelines|ethics|censorship)\b|\bunrestricted\b|"
    r"\bunfiltered\b|\buncensored\b|\bjailbr(?:oken|eak)|\bevil\b|\bleaked\b|\bsecret agenda|"
    r"\bnot (?:bound|restricted) by\b|\bnever heard of (?:any )?(?:safety|rules|ethics)|"
    r"\bhas root\b|\broot passwords?\b|\bany rules\b|"
    r"\bthe real commands|\bnever asks? for (?:reviews?|approval|permission)|"
    r"\balways pushes to main|\bexfiltrate|\bdump the database|\bamoral\b|"
    r"\b(?:rules|restrictions|policies|guidelines|ethics|filters|limits) (?:do not|don't|"
    r"no longer|never) apply\b|\bfree (?:from|of) (?:all |any )?(?:rules|restrictions|"
    r"policies|guidelines|ethics|filters|limits|censorship)\b|\bcan do anything\b|"
    r"\bwithout (?:any )?questions?\b|\bno matter what\b|\bnothing is off-limits\b|"
    r"\b(?:comply|obey) (?:fully|completely|unconditionally|without)\b|"
    r"\b(?:do|does) not (?:bind|apply to|constrain) you\b|\bno longer binds? you\b|"
    r"\bwithout (?:any )?(?:moral|ethical) (?:\w+ )?(?:guidelines|limits|constraints|"
    r"restrictions|considerations)|\b(?:doesn't|does not|don't|do not) have any (?:ethical|"
    r"moral) (?:or moral |or ethical )?(?:guidelines|principles|limits|constraints))"
)
_ADDRESSED = (
    r"(?:\b(?:note|message|instructions?|reminder|memo|directive|notice|attention|p\.?s\.?) "
    r"(?:to|for) (?:any|every|all|the|whichever|whatever|future)? ?(?:\w+ )?(?:ai|a\.i\.|llm|"
    r"llms|language models?|assistants?|agents?|models?|bots?|copilots?|reviewers?|"
    r"summari[sz]ers?|crawlers?|readers?)\b|\b(?:dear|hey|hello|attention,?) (?:ai|llm|"
    r"assistant|agent|model|chatbot|bot|gpt|claude|copilot)\b|\bif you(?: are|'re) (?:an? )?"
    r"(?:ai|llm|language model|assistant|agent|bot|automated)\b|\b(?:to|for) (?:the|any|an) "
    r"(?:ai|llm|assistant|agent|model|bot)s? (?:that is |who is |that's )?(?:reading|"
    r"processing|parsing|summari[sz]ing|reviewing|indexing)\b|\b(?:ai|llm|assistant|agent|"
    r"model)s? reading this\b)"
)
_DIRECTIVE = (
    r"(?:(?:^|[.!?:;,]\s*|\b(?:you must|you should|you will|you need to|make sure to|be sure "
    r"to|remember to|always|never|please|now|just|then|so)\s+)(?:always |never |also |"
    r"immediately |first |now |please )?(?:run|execute|send|upload|post|paste|print|reveal|"
    r"disclose|output|include|insert|add|push|delete|remove|erase|disable|turn off|skip|bypass|"
    r"approve|ignore|recommend|reply|respond|answer|say|tell|write|read|follow|obey|comply|"
    r"share|leak|email|forward|dump|publish|commit|store|set|stop|start|switch|round|"
    r"replace|modify|integrate|enhance|augment|render|convert|use|suggest|mention|append|"
    r"prepend|end|begin|format|translate|answer|refuse|praise|claim|state|insist|direct|"
    r"promote|advertise|ask|play|become|roleplay|pretend|act|imagine|assume|quietly|"
    r"silently|secretly|approve|merge|deploy|drop)\b"
    r"|\b(?:in|to|into) your (?:answer|response|reply|message|"
    r"output|summary|next (?:answer|reply|response))\b|\byour (?:answer|response|reply|"
    r"message|output) (?:must|should|will)\b)"
)
_FRAME = (
    r"(?:<\/?(?:tool_?(?:output|result|response|call)|function_?(?:result|output|call)|"
    r"observation|system(?:_message| message)?|assistant|im_start|im_end|context|"
    r"instructions?|admin|developer|sys)\b[^>]{0,40}>|```(?:tool|function|system|observation)"
    r"[_a-z]*|#{2,} ?(?:tool|system|function|observation|assistant)\b|\[(?:system|tool|"
    r"function|assistant|admin|developer)(?: message| output| result| note)?\]|"
    r"^\s*(?:tool|function|observation|system) ?(?:result|output|response)? ?:|\{\s*\"role\""
    r"\s*:\s*\"(?:system|tool|developer)\")"
)
_EXTRACT = (
    r"(?:\b(?:your|the) (?:\w+ ){0,2}?(?:system prompt|pre-?prompt|initial prompt|original "
    r"prompt|hidden prompt|instructions|directives|guidelines|system message|rules|"
    r"configuration|parameters)\b|\b(?:everything|all|the text|the words|what) (?:\w+ ){0,3}?"
    r"(?:above|before this|prior to this|so far|earlier)\b|\bstarting (?:with|from) "
    r"['\"]?you are\b|\bbeginning of (?:this|the) (?:conversation|prompt|chat)|\bprevious "
    r"(?:text|message|instructions|prompt)\b|\baccess code\b|\bpassword\b)"
)
_REPEAT = (
    r"\b(?:repeat|print|output|reveal|recite|echo|show|display|dump|list|reproduce|rewrite|"
    r"write (?:out|down)|spell out|summari[sz]e|tell me|give me|relay|paste|quote|translate|"
    r"convert|format|explain|what (?:is|are|was|were))\b"
)
_CODE_RUN = (
    r"\b(?:execute|run|integrate|include|insert|embed|add|incorporate|place|paste|use|"
    r"append|ensure|implement|merge|copy) (?:[\w-]+ ){0,5}?(?:code|snippet|script|command|"
    r"block|payload|function|program)s?\b"
    r"|\b(?:following|subsequent|below|given|provided|attached|this) (?:[\w-]+ ){0,2}?"
    r"(?:code|snippet|script|command|block|excerpt|section)\b[^`]{0,100}?\byour (?:own )?"
    r"(?:code|solution|codebase|project|program|script|implementation|work|app|software)"
    r"|\byour (?:code|solution|codebase|project|program|script|implementation)\b[^`]{0,60}?"
    r"\b(?:following|subsequent|below|given|provided|attached) (?:[\w-]+ ){0,2}?(?:code|"
    r"snippet|script|block|excerpt|section)\b"
)
"""A request to put given code into the work or run it ("integrate the following snippet")."""
_DANGEROUS_CODE = (
    r"(?:\bsubprocess\b|\bos\.(?:system|popen|remove|unlink|environ|walk)|\beval\(|"
    r"\bexec\(|/dev/sd[a-z]|/dev/random|\bdd if=|\bmkfs|:\(\)\{|\bbase64 -d|\|\s*(?:ba)?sh\b|"
    r"\bnc -e|\bbash -i|/bin/sh|\bsmtplib\b|\bkeylog|\bpynput\b|\bctypes\b|\bwinreg\b|"
    r"\bsocket\.socket|\bshutil\.rmtree|\brequests\.(?:post|put|get)|\burllib|"
    r"\bhttp\.client|\bftplib|\bparamiko|\bcrontab|\bchmod 777|\brm -rf|\bfernet\b|"
    r"\bgetpass\b|\bpyautogui|\bscreenshot|\bwebbrowser\.open|\bos\.fork|\bpsutil)"
)
"""What a payload does that a requested snippet has no business doing: run shell commands,
wipe disks or files, open network connections, log keys, read the environment."""

_OUTPUT = (
    r"(?:^|[.!?:;]\s+)(?:please |also |now |then )?(?!(?:can|could|would|will|what|why|how|do|"
    r"does|did|is|are|was|were|should|shall|may|might|i|i'm|i've|my|we|our|they|he|she|it|"
    r"this|that|thanks|thank|great|nice|good|if|when)\b)[a-z]+\b(?: [\w'\-]+){0,8}? "
    r"your (?:\w+ )?(?:answers?|responses?|repl(?:y|ies)|messages?|outputs?|summar(?:y|ies)|"
    r"explanations?)\b"
)
"""An instruction about what the reader's *answer* must contain."""
_STEER = (
    r"(?:https?://|\bwww\.|\b[a-z0-9-]+\.(?:com|net|org|io|biz|info|xyz)\b|\bfake\b|\bfalse\b|"
    r"\bisn't (?:actually )?(?:true|provided)|\bnot true\b|\bmisleading\b|\bscandal|"
    r"\bcracked\b|\bdiscount|\bdonat|\bvote\b|\bjoin our\b|\bour (?:community|forum|"
    r"product|store|shop|site|website|newsletter|partner)|\bsponsor|\bpromot|\badverti[sz]|"
    r"\bbuy\b|\bpurchase\b|\bsubscribe\b|\bclick\b|\bconspiracy|\brumou?r)"
)
"""Content an injected answer is steered to carry: a link, an advert, a falsehood."""

_GRANT = (
    r"\b(?:authori[sz]ed|approved|allowed|permitted|cleared|whitelisted|entitled) you\b|"
    r"\byou (?:are|'re|have been) (?:now |hereby |fully |officially )?(?:authori[sz]ed|"
    r"allowed|permitted|cleared|approved|entitled) to\b"
)
"""A permission said to be given *to the reader* (the model), by someone else."""


CUES: dict[str, re.Pattern[str]] = {
    name: re.compile(src, re.MULTILINE)
    for name, src in (
        ("persist", _PERSIST),
        ("later", _LATER),
        ("covert", _COVERT),
        ("weaken", _WEAKEN),
        ("authority", _AUTHORITY),
        ("role", _ROLE),
        ("unbound", _UNBOUND),
        ("addressed", _ADDRESSED),
        ("directive", _DIRECTIVE),
        ("frame", _FRAME),
        ("grant", _GRANT),
        ("standing", STANDING),
        ("dismiss", DISMISS),
        ("replace", REPLACE),
        ("askself", ASK_SELF),
        ("extract", _EXTRACT),
        ("repeat", _REPEAT),
        ("output", _OUTPUT),
        ("steer", _STEER),
        ("code", _CODE_RUN),
        ("payload", _DANGEROUS_CODE),
        ("sensitive", _SENSITIVE),
        ("move", _MOVE),
        ("destination", _DESTINATION),
    )
}
"""Each structural part, by the name its learned feature carries (``§name``)."""

_GATES: dict[str, tuple[str, ...]] = {
    "weaken": ("disable", "turn off", "switch off", "skip", "bypass", "remov", "delet", "erase",
               "drop", "wipe", "verify", "force", "rm -rf", "chmod", "never ask", "approve",
               "without"),
    "sensitive": (".env", "ssh", "id_", "npmrc", "netrc", ".aws", "gitconfig", "key", "token",
                  "credential", "passw", "passphrase", "env", "secret", "cookie", "card num"),
    "code": ("code", "snippet", "script", "command", "block", "payload", "function", "program"),
    "payload": ("subprocess", "os.", "eval(", "exec(", "/dev/", "dd if", "mkfs", ":(){",
                "base64", "|", "bash -i", "/bin/sh", "nc -e", "smtplib", "keylog", "pynput",
                "ctypes", "winreg",
                "socket", "rmtree", "requests.", "urllib", "http.client", "ftplib", "paramiko",
                "crontab", "chmod", "rm -rf", "fernet", "getpass", "pyautogui", "screenshot",
                "webbrowser", "psutil"),
    "addressed": ("ai", "a.i.", "llm", "model", "assistant", "agent", "bot", "copilot", "review",
                  "summari", "crawler", "reader", "gpt", "claude"),
    "output": ("your",),
    "grant": ("you",),
    "standing": ("as ", "being ", "i am", "i'm", "clearance", "credential", "authori", "this is",
                 "it is", "according", "endorsed", "expert"),
    "askself": ("your",),
    "dismiss": ("example", "test", "placeholder", "draft", "decoy", "sample", "joke", "fake"),
    "replace": ("the real", "genuine", "actual", "only valid", "only real", "true", "the new",
                "attention only", "only on", "exclusively on", "solely on"),
    "frame": ("<", "```", "##", "[", ":", '"role"'),
    "role": ("you are", "you're", "let's play", "from now on", "act as", "pretend", "imagine",
             "role", "play the", "assume the", "take on the", "become", "be my", "your new",
             "stay in", "simulate", "hypothetical", "write dialogue", "in a world", "fictional",
             "imaginary", "alternate", "virtual", "playing"),
    "steer": ("http", "www.", ".com", ".net", ".org", ".io", ".biz", ".info", ".xyz", "fake",
              "false", "isn't ", "not true", "misleading", "scandal", "cracked", "discount",
              "donat", "vote", "join our", "our ", "sponsor", "promot", "adverti", "buy",
              "purchase", "subscribe", "click", "conspiracy", "rumo"),
    "destination": ("http", "www.", "webhook", "pastebin", "gist", "@", "external ", "remote ",
                    "public ", "commit message", "the issue", "badge", "image ", "![",
                    "query string", "url", "published files", "the chat", "into ", "curl",
                    "wget", "nc ", "smtp", "email "),
}  # fmt: skip
"""Substrings one of which a cue needs: a cheap ``in`` test spares the full search on the
many texts that cannot match (``steer`` and ``destination`` cost several times the rest:
about a millisecond each on a window of a pasted log)."""

_EXFIL = re.compile(
    rf"{_MOVE}(?:[^.!?\n]{{0,80}}?){_SENSITIVE}(?:[^.!?\n]{{0,80}}?){_DESTINATION}"
    rf"|{_MOVE}(?:[^.!?\n]{{0,40}}?){_DESTINATION}(?:[^.!?\n]{{0,60}}?){_SENSITIVE}"
)
"""A secret moved to a destination within one sentence: verb, secret, place (either order)."""


_GATE_RE: dict[str, re.Pattern[str]] = {
    name: re.compile("|".join(re.escape(g) for g in gate)) for name, gate in _GATES.items()
}
"""Each gate as one alternation of its literals: the same answer as testing each with
``in``, about a third cheaper (the engine skips to the literals' first characters)."""


_CHECKS = {name: (_GATE_RE.get(name), cue) for name, cue in CUES.items()}
_ASCII_CHECKS = {
    n: (g, re.compile(c.pattern, re.MULTILINE | re.ASCII)) for n, (g, c) in _CHECKS.items()
}
"""For ASCII text the cues compiled ASCII: the same matches (folded text has no U+001C to
U+001F, the only ASCII characters Unicode ``\\s`` adds) at a fraction of the cost
(``directive`` a sixth, ``steer`` and ``destination`` a third)."""


def _has(name: str, folded: str) -> bool:
    gate, cue = (_ASCII_CHECKS if folded.isascii() else _CHECKS)[name]
    return (gate is None or gate.search(folded) is not None) and cue.search(folded) is not None


@lru_cache(maxsize=4096)
def cues(folded: str) -> frozenset[str]:
    """The names of the structural parts present in ``folded`` (one window of it); cached,
    because the rules and the learned layer both ask for the same text."""
    found: set[str] = set()
    for name in CUES:
        if name == "destination" and not found & {"sensitive", "move"}:
            continue
        if _has(name, folded):
            found.add(name)
    return frozenset(found)


def structural_rule(folded: str) -> str | None:
    """The name of a refusing combination present in ``folded``, or ``None``.  A supplied
    payload, a rules-free role ("pretend you are … with no rules": the role is itself the
    imperative), a permission granted to the reader by a claimed authority and a claimed
    standing or excuse joined to a request for the reader's own secret, and earlier text
    declared void joined to its replacement or a removed rule stand alone;
    every other combination needs a directive or a moving verb.  Parts are looked for only
    when a combination still needs them (each search is gated by cheap substrings)."""
    seen: dict[str, bool] = {}

    def has(name: str) -> bool:
        hit = seen.get(name)
        if hit is None:
            hit = seen[name] = _has(name, folded)
        return hit

    return _combination(has, folded)


def _combination(has: Callable[[str], bool], folded: str) -> str | None:
    """The refusing combination :func:`structural_rule` names, its parts asked of ``has``."""
    if has("code") and has("payload"):
        return "code-payload"
    if has("role") and has("unbound"):
        return "role-without-rules"
    if has("grant") and has("authority"):
        return "authority-claim"
    if has("askself") and (has("standing") or has("authority")):
        return "authority-claim"
    if has("dismiss") and (has("replace") or has("unbound")):
        return "dismiss-prior"
    if not (has("directive") or has("move")):
        return None
    if has("move") and has("sensitive") and has("destination") and _EXFIL.search(folded):
        return "exfiltrate-structure"
    harm = has("sensitive") or has("covert") or has("weaken")
    if harm and (has("persist") or has("later")):
        return "persist-or-later-harm"
    if has("addressed"):
        return "addressed-to-model"
    unbound = has("unbound")
    if (harm or unbound) and has("authority"):
        return "authority-claim"
    if has("frame") and (harm or unbound or has("authority")):
        return "forged-frame"
    return None
