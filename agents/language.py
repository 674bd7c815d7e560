"""Whether the assistant understands a message: it understands English only (issue 21).

A message in another language made the small model loop until the step limit. The runtime asks
:func:`understood` before the model sees a chat message, and a message it does not understand gets
a fixed answer ("I can only help in English for now") without a model call.

Cheap and deterministic, no model and no download. A message is not understood when

- most of its letters are of another script than Latin (Devanagari, Cyrillic, Arabic, CJK, ...), or
- it has more words that mark another language than English words, and at least two of them or no
  English word at all: "mujhe bukhar hai", "Tengo fiebre y dolor de cabeza", "Hola".

A marker is a word that is frequent in one of the languages below and is no English word:
function words, greetings and the everyday words of a complaint. English words are a list of
function and chat words plus every word of the symptom lexicon. A word that is in neither counts
for nothing: names ("Priya", "Dr. Müller"), medicines ("metformin"), typos ("hedache"), numbers.
So English with typos, a name or a medicine is never refused; a message in a Latin-script
language without markers here (say Swahili) goes to the model as before.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

from django.template.loader import render_to_string

from agents.knowledge import symptom_bank

# The languages whose markers are listed: the most common in Latin script for this app's users,
# Hindi written in Latin letters (how it is typed on phones) among them.
_MARKERS = {
    "spanish": """
        el la los las un una unos unas y de del que qué por para con es está estoy estás están
        tengo tiene tienes tenemos siento siente duele duelen dolor cabeza fiebre tos
        garganta estómago estomago pecho espalda barriga vientre desde hace días dias ayer hoy mañana
        manana bien mal muy mucho mucha poco nada algo también tambien pero cuando cuándo donde dónde
        como cómo porque quiero necesito puedo puede ayuda hola gracias sí señor señora médico medico
        cita mareo mareado mareada náuseas nauseas vómito vómitos vomito cansado cansada gripe
        resfriado mis usted tu tú su sus nosotros ellos le les lo se más mas
    """,
    "french": """
        je j'ai ai suis es est sommes sont avoir être etre le la les un une des du de et à au aux avec
        dans sur mes tes sa ses mal tête tete fièvre fievre toux ventre
        estomac dos depuis hier aujourd'hui jours semaine bonjour bonsoir salut merci oui très
        tres beaucoup besoin rendez vous médecin medecin malade douleur douleurs qui quoi
        pourquoi aussi mais ne pas rien peu nuit matin tousse vomi vomir nausée nausees fatigué
        fatiguée fatiguee enrhumé rhume ça cette ce il elle nous ils j'ai m'aider aidez aider
    """,
    "german": """
        ich habe hab hast haben bist ist sind mir mich mein meine meinen meinem dein mit und
        oder der das des ein eine einen einem nicht kein keine sehr seit gestern heute morgen
        tagen woche fieber kopfschmerzen schmerzen husten halsschmerzen bauchschmerzen
        rückenschmerzen ruckenschmerzen übel uebel müde muede schwindlig auch aber wie wo warum hallo
        danke bitte ja nein kann können konnen arzt ärztin termin brauche geht tut weh hals bauch kopf
        rücken ruecken zu von für fuer schlecht guten sich wir sie es noch schon
    """,
    "italian": """
        ho hai abbiamo sono sei il lo la gli le di del della dei delle che ti si con
        tra fra mal testa febbre tosse gola stomaco pancia schiena giorni giorno ieri oggi domani
        molto poco anche grazie buongiorno buonasera sto stai dolore dolori mio miei
        sento stanco stanca vomito medico appuntamento aiuto perché perche quando
    """,
    "portuguese": """
        estou está estás tenho tem temos sinto sente dói doi dor dores de das dos para
        por uma cabeça cabeca febre tosse garganta barriga estômago estomago costas desde ontem hoje
        amanhã amanha dias muito muita não nao obrigado obrigada olá ola minha meu também tambem mas
        médico medico consulta cansado cansada enjoo enjoada vômito vomito tonto tontura ajuda
        você voce quero preciso
    """,
    "dutch": """
        ik heb hebt heeft mijn het een niet erg sinds gisteren vandaag morgen koorts
        hoofdpijn buikpijn keelpijn rugpijn hoest hoesten misselijk duizelig dokter huisarts
        afspraak hallo dank bedankt graag nee wel maar ook voor zijn pijn
        waarom
    """,
    "hindi (Latin letters)": """
        mujhe mujhko mujhse mera meri hai hain hoon nahi nahin nhi bahut bohot kya aur ko
        mein se ka ki ke raha rahi rahe gaya gayi thi kuch kal aaj bhi yeh woh wo haan
        kaise kab kyun kyunki lekin dard bukhar bukhaar khansi khaansi ulti dast chakkar kamzori
        thakan thakaan zukam jukam sardi galaa daant kamar dawai dawa hua hui hota hoti karo
        karna chahiye apna apni raat subah shaam abhi ji namaskar dhanyavad dhanyawad shukriya
    """,
    "indonesian and malay": """
        saya aku demam sakit kepala perut batuk pilek sejak kemarin ini itu tidak tak yang
        dengan sangat mual muntah pusing lelah capek tolong terima kasih selamat pagi dokter janji
        minggu sudah belum bisa mau ingin badan tenggorokan
    """,
}

# English words: function words, the words of a chat with a health assistant, and (added below)
# every word of the symptom lexicon. A word both English and a marker counts as English.
_ENGLISH = set(
    """
    a about above after again against all almost also am an and any anything are around as at away
    back be because been before being below between both but by can cannot can't could did do does
    doing don't done down during each either else enough even ever every few for from further get
    gets getting got had has have having he her here hers him his how however i i'm i've if in into
    is isn't it it's its just last least less like little lot lots made make many may maybe me might
    more most much must my myself near need needs never new next no nor not nothing now of off often
    on once one only or other our out over own please quite rather really same see seen she should
    since so some something soon still such than thank thanks that the their them then there these
    they thing things this those though through till to today tomorrow tonight too under until up
    upon us very was we week weeks well were what when where which while who whom whose why will with
    within without won't would yes yesterday yet you your yours hi hello hey ok okay fine good great
    sure yeah yep nope bad better worse worst day days night morning evening afternoon hour hours
    time times feel feeling felt help book booking appointment doctor doctors dr clinic hospital
    medicine medicines pill pills tablet tablets dose remind reminder sick ill unwell pain hurt hurts
    ache aching sore fever cough cold head throat stomach chest since ago first again two three four
    five six seven eight nine ten twice once daily want wanted would like know think said say tell
    go going went come came take taking took keep kept started start still right left side
    """.split()
)

_WORD = re.compile(r"[^\W\d_]+")


@cache
def _english() -> frozenset[str]:
    bank = symptom_bank()
    phrases = [s.clinical for s in bank.symptoms.values()] + [w for s in bank.symptoms.values() for w in s.lay]
    lexicon = {word for phrase in phrases for word in _WORD.findall(phrase.lower())}
    return frozenset(_ENGLISH | lexicon)


@cache
def _markers() -> frozenset[str]:
    english = _english()
    found = {word for words in _MARKERS.values() for word in words.split()}
    # "j'ai" and "aujourd'hui" are read as their parts: a marker is one run of letters.
    parts = {part for word in found for part in _WORD.findall(word)}
    return frozenset(parts - english)


def _latin(char: str) -> bool:
    return unicodedata.name(char, "").startswith("LATIN")


def understood(text: str) -> bool:
    """Whether ``text`` is English, or too little of anything to tell (a name, a number, "👍")."""
    letters = [char for char in str(text) if char.isalpha()]
    other_script = sum(not _latin(char) for char in letters)
    if other_script >= 2 and other_script > len(letters) - other_script:
        return False
    words = _WORD.findall(str(text).lower())
    english, markers = _english(), _markers()
    said_english = sum(word in english for word in words)
    said_other = sum(word in markers for word in words)
    return not (said_other > said_english and (said_other >= 2 or said_english == 0))


def english_only_reply() -> str:
    """What a message the assistant does not understand gets (agents/templates/agents/english_only.txt)."""
    return " ".join(render_to_string("agents/english_only.txt").split())
