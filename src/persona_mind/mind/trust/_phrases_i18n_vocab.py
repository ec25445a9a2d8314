"""Word lists of the non-English override families, one :class:`Lexicon` per language.

Each list is a regular-expression alternation in the *folded* form the scanner matches
(case-folded; accents and combining marks are stripped from rule and text alike by
:func:`~persona_mind.mind.trust._normalize.strip_marks`, so they may be written with
accents; ``ß`` is written ``ss``, as case folding makes it).  The lists name grammatical
roles, not sentences: a verb of ignoring, a qualifier of standing orders, a noun for
instructions, the user and what they asked, a verb of obeying, "only", "this file", a
"from now on", a word for void, a verb of sending and what a leak sends.  The templates
that combine them are in :mod:`persona_mind.mind.trust._phrases_i18n`.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ("LEXICONS", "Lexicon")


@dataclass(frozen=True, slots=True)
class Lexicon:
    """One language's roles.  ``spaced``: words are separated by spaces (rules then start
    each role at a word boundary); ``stems``: literal word starts or substrings for the
    scanner's cheap first pass (:mod:`persona_mind.mind.trust._gates`)."""

    code: str
    spaced: bool
    ignore: str
    prior: str
    orders: str
    user: str
    asked: str
    obey: str
    only: str
    this: str
    now: str
    void: str
    send: str
    loot: str
    reveal: str
    """Verbs of showing or telling (for a request for the hidden prompt)."""
    yours: str
    """The reader's possessive ("your"); empty where it is a suffix of the noun."""
    sysprompt: str
    """Names of the hidden prompt: "system prompt", "hidden instructions"."""
    stems: tuple[str, ...]


# fmt: off
LEXICONS: tuple[Lexicon, ...] = (
    Lexicon(
        "de", spaced=True,
        ignore=r"ignorier\w*|vergiss(?! nicht)|vergesst(?! nicht)|vergessen sie(?! nicht)|"
               r"missacht\w*|übergeh\w*|verwirf|verwerft|beachte (?:\w+ ){0,3}nicht",
        prior=r"vorherig|vorig|bisherig|obig|vorangegangen|vorausgegangen|früher|ursprünglich|"
              r"alte|alten|system|alle|sämtlich|deine|ihre|eure",
        orders=r"anweisung|instruktion|regel|vorgabe|richtlinie|befehl|anordnung|systemprompt|"
               r"prompt|direktive",
        user=r"nutzers?|benutzers?|anwenders?|users?",
        asked=r"gebeten|gefragt|gesagt|verlangt|gewünscht|anfrage|bitte|wunsch|auftrag|anweisung",
        obey=r"befolg\w*|folge|folgt|gehorch\w*|halte dich an|haltet euch an|richte dich nach|"
             r"führe (?:\w+ ){0,3}aus",
        only=r"nur|ausschliesslich|allein|einzig",
        this=r"dies\w* (?:\w+ )?(?:datei|notiz|dokument|nachricht|text|seite|mail|e-mail|"
             r"kommentar)",
        now=r"ab sofort|ab jetzt|von nun an|fortan|von jetzt an",
        void=r"ungültig|nichtig|aufgehoben|ausser kraft|hinfällig|irrelevant|"
             r"nicht mehr (?:gültig|relevant)|gelten nicht mehr|gilt nicht mehr|widerrufen|"
             r"nicht mehr(?= ?[;.,:!?]|$)",
        send=r"sende\w*|schick\w*|übermittl\w*|lade (?:\w+ ){0,4}hoch|poste\w*",
        loot=r"passw\w*|kennw\w*|zugangsdaten|schlüssel|api-keys?|tokens?|geheimnisse",
        reveal=r"zeig\w*|gib (?:\w+ ){0,3}(?:aus|preis|wieder)|verrat\w*|nenne|wiederhole\w*|"
               r"teile? (?:\w+ ){0,3}mit|schreib\w* (?:\w+ ){0,3}(?:auf|ab)",
        yours=r"deine|eure|dein|deinen",
        sysprompt=r"systemprompt\w*|system-prompt\w*|systemanweisung\w*|(?:versteckt|geheim|"
                  r"ursprünglich)\w* (?:anweisung|instruktion)\w*",
        stems=("ignorier", "vergiss", "vergesst", "vergessen", "missacht", "ubergeh", "verwirf",
               "verwerft", "beachte", "folge", "folgt", "gehorch", "halte", "haltet", "richte",
               "schick", "ubermittl", "lade", "anweisung", "vorgabe", "regeln", "befehl",
               "kennwort", "zugangsdaten", "schlussel", "nutzer", "benutzer", "anwender", "nur",
               "ausschliesslich", "allein", "einzig", "zeig", "zeige", "verrat", "nenne",
               "wiederhole", "teile", "schreib"),
    ),
    Lexicon(
        "fr", spaced=True,
        ignore=r"ignore|ignorez|ignorer|oublie|oubliez|oublier|ne tiens (?:plus |pas )?compte|"
               r"ne tenez (?:plus |pas )?compte|fais abstraction|faites abstraction|"
               r"laisse tomber|laissez tomber|n'obeis plus|n'obeissez plus",
        prior=r"precedent\w*|anterieur\w*|ci-dessus|initial\w*|originel\w*|d'origine|systeme|"
              r"toutes|tous|tes|vos",
        orders=r"instructions?|regles?|consignes?|directives?|indications?|ordres?|prompt",
        user=r"l'utilisateur|l'utilisatrice|utilisateur",
        asked=r"demande\w*|dit|voulu|souhait\w*|requete|consignes?|instructions?",
        obey=r"obei\w*|suis|suivez|suivre|applique\w*|execute\w*|conforme-toi|conformez-vous",
        only=r"uniquement|seulement|exclusivement|que",
        this=r"(?:ce|cette|cet) (?:\w+ )?(?:fichier|document|note|message|texte|page|courriel|"
             r"e-mail|commentaire)",
        now=r"a partir de maintenant|desormais|dorenavant|a partir d'aujourd'hui|des maintenant",
        void=r"annule\w*|invalide\w*|caduque?s?|nulles?|revoque\w*|ne s'appliquent plus|"
             r"ne sont plus valables?|obsoletes?|abroge\w*",
        send=r"envoie|envoyez|envoyer|transmets|transmettez|publie|publiez|poste|postez|"
             r"televerse\w*",
        loot=r"mots? de passe|cles?|identifiants|jetons?|tokens?|secrets?",
        reveal=r"revele\w*|montre\w*|affiche\w*|repete\w*|donne-moi|donnez-moi|dis-moi|dites-moi|"
               r"ecri[st]\w*|partage\w*",
        yours=r"tes|vos|ton|votre",
        sysprompt=r"prompt (?:du )?systeme|invite (?:du )?systeme|instructions? (?:du systeme|"
                  r"initiales|cachees|secretes)",
        stems=("ignor", "oubli", "tiens", "tenez", "fais", "faites", "laisse", "laissez", "obei",
               "suis", "suivez", "suivre", "regles", "obeis", "obeissez", "annul", "caduc",
               "mots", "mot", "cles", "seulement", "l'utilisateur", "utilisateur", "revele",
               "montre", "affiche", "repete", "donne", "donnez", "dis", "dites", "ecris",
               "partage"),
    ),
    Lexicon(
        "es", spaced=True,
        ignore=r"ignora|ignore|ignoren|ignorar|olvida|olvide|olviden|olvidate|descarta|descarte|"
               r"omite|omita|desobedece|haz caso omiso|no hagas caso|pasa por alto|deja de lado|"
               r"dejá de lado|no sigas|deja de seguir|no tengas en cuenta",
        prior=r"anterior\w*|previ[ao]s?|de arriba|del sistema|original\w*|inicial\w*|tus|sus|"
              r"todas|todos",
        orders=r"instrucciones|instruccion|reglas|indicaciones|ordenes|directrices|normas|prompt|"
               r"consignas|peticion",
        user=r"usuari[oa]s?",
        asked=r"pidio|pidió|dijo|ha dicho|quiere|queria|pedido|peticion|solicitud|instrucciones|"
              r"ordenes",
        obey=r"obedece\w*|sigue|siga|sigan|cumple|cumpla|ejecuta\w*|haz caso|atente",
        only=r"solo|solamente|unicamente|exclusivamente",
        this=r"(?:este|esta|estos|estas) (?:\w+ )?(?:archivo|fichero|documento|nota|mensaje|"
             r"texto|pagina|correo|comentario)",
        now=r"a partir de ahora|desde ahora|de ahora en adelante|en adelante",
        void=r"anulad[ao]s?|invalid[ao]s?|cancelad[ao]s?|sin efecto|ya no (?:valen|aplican|"
             r"son validas|rigen)|revocad[ao]s?|obsoletas?|nul[ao]s?",
        send=r"envia|envie|envien|enviar|manda|mande|publica|publique|sube|suba|comparte",
        loot=r"contrasenas?|claves?|credenciales|tokens?|secretos?|archivo de configuracion",
        reveal=r"revela\w*|muestra\w*|dime|dinos|repite\w*|escribe\w*|comparte\w*|dame",
        yours=r"tus|tu",
        sysprompt=r"prompt del sistema|indicaciones del sistema|instrucciones (?:del sistema|"
                  r"iniciales|ocultas|secretas)",
        stems=("ignor", "olvid", "omit", "desobedec", "haz", "hagas", "pasa", "deja", "deja",
               "sigas", "tengas", "obedec", "sigue", "siga", "sigan", "cumpl", "ejecut",
               "atente", "manda", "mande", "sube", "suba", "reglas", "claves", "clave", "anulad",
               "envia", "envie", "cancelad", "solo", "solamente", "unicamente", "revela",
               "muestra", "muestrame", "dime", "dinos", "repite", "escribe", "dame"),
    ),
    Lexicon(
        "pt", spaced=True,
        ignore=r"ignora|ignore|ignorem|ignorar|esqueca|esqueça|esquece|esqueçam|desconsidere|"
               r"desconsidera|nao siga|não siga|deixe de lado|descarte|desobedeca",
        prior=r"anterior\w*|previ[ao]s?|acima|do sistema|original\w*|inicial\w*|tuas|suas|todas|"
              r"todos",
        orders=r"instrucoes|instrução|instrucao|regras|diretrizes|orientacoes|ordens|prompt|"
               r"comandos",
        user=r"usuari[oa]s?|utilizador(?:es)?",
        asked=r"pediu|disse|quer|pedido|solicitacao|instrucoes|ordens",
        obey=r"obedeca\w*|obedece|siga|sigam|segue|cumpra|execute|faca o que",
        only=r"apenas|somente|so|unicamente|exclusivamente",
        this=r"(?:este|esta|deste|desta|neste|nesta) (?:\w+ )?(?:arquivo|ficheiro|documento|nota|"
             r"mensagem|texto|pagina|e-mail|comentario)",
        now=r"a partir de agora|de agora em diante|daqui em diante|doravante",
        void=r"anulad[ao]s?|invalid[ao]s?|cancelad[ao]s?|sem efeito|nao (?:valem|"
             r"se aplicam) mais|revogad[ao]s?|obsoletas?",
        send=r"envie|envia|enviar|mande|manda|publique|publica|carregue|compartilhe",
        loot=r"senhas?|chaves?|credenciais|tokens?|segredos?",
        reveal=r"revele\w*|revela\w*|mostre\w*|mostra\w*|diga-me|me diga|repita\w*|escreva\w*|"
               r"compartilhe",
        yours=r"tuas|teu|tua|teus",
        sysprompt=r"prompt do sistema|instrucoes (?:do sistema|iniciais|ocultas|secretas)",
        stems=("ignor", "esquec", "desconsider", "nao", "deixe", "desobedec", "obedec", "siga",
               "sigam", "segue", "cumpra", "faca", "mande", "manda", "regras", "senha", "senhas",
               "chaves", "anulad", "utilizador", "cancelad", "apenas", "revele", "revela",
               "diga", "repita", "escreva"),
    ),
    Lexicon(
        "it", spaced=True,
        ignore=r"ignora|ignorate|ignori|ignorare|dimentica|dimenticate|dimentichi|trascura|"
               r"non considerare|non tenere conto|non seguire(?: piu)?|smetti di seguire|"
               r"lascia perdere|non ascoltare(?: piu)?",
        prior=r"precedent\w*|sopra|del sistema|iniziali|originali|di prima|tutte|tutti|tue|sue|"
              r"vostre",
        orders=r"istruzioni|regole|indicazioni|direttive|ordini|prompt|consegne|comandi",
        user=r"l'utente|utente|utenti",
        asked=r"chiesto|detto|vuole|voleva|richiest\w*|istruzioni|ordini",
        obey=r"obbedisci|ubbidisci|segui|seguite|esegui|attieniti|rispetta",
        only=r"solo|soltanto|unicamente|esclusivamente",
        this=r"(?:questo|questa|questi|queste|quest') ?(?:\w+ )?(?:file|documento|nota|messaggio|"
             r"testo|pagina|e-mail|commento)",
        now=r"da (?:ora|adesso|questo momento) in poi|d'ora in poi|da ora|da questo momento|"
            r"d'ora in avanti",
        void=r"annullat[ei]|invalid[ei]|non (?:valgono|si applicano) piu|revocat[ei]|obsolet[ei]|"
             r"null[ei]",
        send=r"invia|inviate|manda|mandate|pubblica|carica|condividi",
        loot=r"password|chiavi|credenziali|token|segreti",
        reveal=r"rivela\w*|mostra\w*|dimmi|ripeti\w*|stampa\w*|scrivi\w*|condividi",
        yours=r"tue|tuoi|tuo|tua|vostre",
        sysprompt=r"prompt di sistema|istruzioni (?:di sistema|iniziali|nascoste|segrete)",
        stems=("ignor", "dimentic", "trascura", "smetti", "lascia", "obbedisci", "ubbidisci",
               "segui", "esegui", "attieniti", "rispetta", "invia", "manda", "pubblica",
               "carica", "istruzioni", "regole", "tenere", "seguire", "ascoltare", "chiavi",
               "annullat", "l'utente", "utente", "solo", "soltanto", "unicamente", "rivela",
               "dimmi", "ripeti", "stampa", "scrivi"),
    ),
    Lexicon(
        "nl", spaced=True,
        ignore=r"negeer|vergeet|sla (?:\w+ ){0,3}over|houd geen rekening|hou geen rekening|"
               r"volg (?:\w+ ){0,3}niet(?: meer)?|luister niet(?: meer)?",
        prior=r"vorige|eerdere|bovenstaande|voorgaande|oorspronkelijke|oude|systeem|alle|je|jouw|"
              r"uw",
        orders=r"instructies|regels|opdrachten|richtlijnen|aanwijzingen|prompt|bevelen",
        user=r"gebruikers?",
        asked=r"vroeg|gevraagd|zei|gezegd|wil|wilde|verzoek|vraag|opdracht|instructies",
        obey=r"volg|gehoorzaam|voer (?:\w+ ){0,3}uit|houd je aan|hou je aan",
        only=r"alleen|enkel|uitsluitend|slechts",
        this=r"(?:dit|deze) (?:\w+ )?(?:bestand|document|notitie|bericht|tekst|pagina|e-mail|"
             r"opmerking)",
        now=r"vanaf nu|van nu af aan|voortaan|vanaf heden",
        void=r"ongeldig|vervallen|nietig|ingetrokken|gelden niet meer|niet meer geldig|"
             r"achterhaald",
        send=r"stuur|verstuur|verzend|upload|plaats|deel",
        loot=r"wachtwoord\w*|sleutels?|inloggegevens|tokens?|geheimen",
        reveal=r"onthul\w*|toon|laat (?:\w+ ){0,3}zien|herhaal|schrijf (?:\w+ ){0,3}op|vertel\w*",
        yours=r"je|jouw|uw",
        sysprompt=r"systeemprompt|systeeminstructies|(?:verborgen|geheime|"
                  r"oorspronkelijke) instructies",
        stems=("negeer", "vergeet", "sla", "houd", "hou", "volg", "luister", "gehoorzaam",
               "voer", "stuur", "verzend", "plaats", "deel", "regels", "opdrachten",
               "wachtwoord", "sleutels", "ongeldig", "gebruiker", "alleen", "uitsluitend",
               "onthul", "toon", "laat", "herhaal", "schrijf", "vertel"),
    ),
    Lexicon(
        "pl", spaced=True,
        ignore=r"zignoruj\w*|ignoruj\w*|zapomnij|zapomnijcie|pomin|pomiń|nie stosuj sie|"
               r"nie słuchaj|nie wykonuj|odrzuc|lekcewaz",
        prior=r"poprzedni\w*|wczesniejsz\w*|powyzsz\w*|oryginaln\w*|pierwotn\w*|systemow\w*|"
              r"wszystkie|wszelkie|twoje",
        orders=r"instrukcj\w*|polecen\w*|zasad\w*|regul\w*|wytyczn\w*|rozkaz\w*|prompt\w*",
        user=r"uzytkownik\w*",
        asked=r"prosił\w*|prosb\w*|powiedział\w*|chce|chciał\w*|polecen\w*|zadani\w*|instrukcj\w*",
        obey=r"słuchaj|wykonuj|wykonaj|stosuj sie|przestrzegaj|posłuchaj|trzymaj sie",
        only=r"tylko|wyłącznie|jedynie",
        this=r"(?:tego|tej|ten|ta|tym) (?:\w+ )?(?:pliku|plik|dokumentu|dokument|notatki|"
             r"wiadomosci|tekstu|strony|komentarza)",
        now=r"od teraz|od tej chwili|od tego momentu|od dzis|odtad",
        void=r"niewazn\w*|uniewaznion\w*|anulowan\w*|nie obowiazuj\w*|nieaktualn\w*|odwołan\w*",
        send=r"wyslij|przeslij|opublikuj|wrzuc|udostepnij",
        loot=r"hasł\w*|klucz\w*|dane logowania|tokeny?|sekrety?",
        reveal=r"ujawnij|pokaż|wyświetl|powtórz|wypisz|podaj|powiedz",
        yours=r"twoje|twój|twoich",
        sysprompt=r"prompt\w* systemow\w*|monit\w* systemow\w*|instrukcj\w* systemow\w*|"
                  r"ukryt\w* instrukcj\w*",
        stems=("zignoruj", "ignoruj", "zapomnij", "pomin", "odrzuc", "lekcewaz", "słuchaj",
               "wykonuj", "wykonaj", "stosuj", "przestrzegaj", "posłuchaj", "trzymaj", "wyslij",
               "przeslij", "opublikuj", "wrzuc", "udostepnij", "polecen", "hasło", "hasła",
               "klucze", "nieważne", "użytkownik", "użytkownika", "tylko", "wyłącznie",
               "ujawnij", "pokaż", "wyświetl", "powtórz", "wypisz", "podaj", "powiedz"),
    ),
)
# fmt: on
