"""The texts of the cards (what a card does), in English and Czech: `/rules <card>` and the "📖 My cards" screen.

English is the rules reference's (``effect`` in ``service/game/cards.json``, never retyped here). Czech: the texts
of the Lair (Doupě), Sixth Sense (Šestý smysl) and Clone (Klon) are the Czech rulebook's; every other Czech text
is **our** translation of the English one, in the rulebook's words (karta lokace, odkládací balíček, žeton vůle,
ukazatel záchrany, žeton vysílání…). A test checks that every card has both.
"""

from service.game.cards import CARDS, PLACE_ID

# card id -> its text in Czech
CS: dict[str, str] = {
    # places
    "lair": "Vezmi si zpět do ruky všechny karty lokací ze svého odkládacího balíčku, NEBO zkopíruj efekt lokace, "
    "na níž leží žeton Bytosti (ne Artefaktu). Jsi-li chycen v této lokaci, ztrácíš 1 žeton vůle navíc.",
    "jungle": "Vezmi si zpět do ruky tuto kartu a 1 kartu lokace ze svého odkládacího balíčku.",
    "river": "Příští kolo zahraj lícem dolů 2 karty lokací; před odhalením jednu nech ve hře a druhou si vezmi "
    "zpět do ruky.",
    "beach": "Polož žeton vysílání na Pláž, NEBO ho odeber, pokud už tam leží, a posuň ukazatel záchrany o 1 "
    "políčko kupředu. Lze použít jen jednou za kolo.",
    "rover": "Vezmi si z rezervy 1 kartu lokace, kterou ještě nemáš, a přidej si ji do ruky.",
    "swamp": "Vezmi si zpět do ruky tuto kartu a 2 karty lokací ze svého odkládacího balíčku.",
    "shelter": "Dober si 2 karty přežití, jednu si nech a druhou odlož.",
    "wreck": "Posuň ukazatel záchrany o 1 políčko kupředu. Lze použít jen jednou za kolo.",
    "source": "Buď jeden Lovený dle tvé volby (ty nebo jiný) získá zpět 1 žeton vůle, NEBO si dobereš 1 kartu přežití.",
    "artefact": "Příští kolo zahraj 2 karty lokací a vyhodnoť obě lokace. Tento efekt nelze kopírovat.",
    # Hunt cards
    "despair": "Do konce kola nelze hrát ani dobírat karty přežití.",
    "force-field": "Než Lovení zahrají karty, označ žetonem cíle 2 sousední lokace; ani jednu z nich nelze v tomto "
    "kole zahrát.",
    "anticipation": "Jmenuj jednoho Loveného; pokud ho chytí žeton Bytosti, posune se ukazatel asimilace o 1 "
    "políčko navíc.",
    "ascendancy": "Jeden Lovený dle tvé volby (se 3 a více kartami lokací v ruce) odhazuje karty lokací z ruky, "
    "dokud mu nezůstanou jen 2.",
    "fierceness": "Každý Lovený chycený žetonem Bytosti ztrácí 1 žeton vůle navíc.",
    "forbidden-zone": "Každý Lovený tajně vybere a pak odloží 1 kartu lokace z ruky, všichni ve stejný okamžik.",
    "interference": "V tomto kole nemají Pláž ani Vrak žádný efekt.",
    "persecution": "V tomto kole si každý Lovený může efektem lokace vzít zpět nejvýše 1 kartu lokace.",
    "mutation": "Žeton Artemie navíc ke svému běžnému efektu způsobí, že každý Lovený, kterého zasáhne, ztratí "
    "1 žeton vůle.",
    "phobia": "Jeden Lovený dle tvé volby (se 3 a více kartami lokací v ruce) ti ukáže všechny karty lokací z "
    "ruky kromě 2.",
    "virus": "Polož žeton Artemie na 2 sousední lokace; jeho efekty platí na obou.",
    "clone": "Považuj žeton cíle za druhý žeton Bytosti.",
    "mirage": "Polož žeton cíle na 2 sousední lokace; obě lokace jsou v tomto kole bez efektu.",
    "scream": "Každý Lovený v zacílené lokaci si vybere: odloží 2 karty lokací, NEBO ztratí 1 žeton vůle.",
    "toxin": "Každý Lovený v zacílené lokaci odloží 1 kartu přežití a efekt té lokace se neuplatní.",
    "cataclysm": "Vyber jednu lokaci; její efekt se v tomto kole neuplatní.",
    "detour": "Po odhalení přesuň jednoho Loveného do lokace sousedící s tou, kterou odhalil; platí, že je tam.",
    "stasis": "Ukazatel záchrany se v této fázi konce kola neposune.",
    "tracking": "Příští kolo smí Bytost zahrát až 2 karty lovu.",
    "flashback": "Zkopíruj vrchní kartu odkládacího balíčku karet lovu (naposledy odloženou), s její fází a symbolem.",
    # Survival cards
    "adrenaline": "Získej zpět 1 žeton vůle (nejvýše 3).",
    "ingenuity": "Polož žeton vysílání na Pláž.",
    "sacrifice": "Odlož 1 kartu lokace z ruky; Bytost do konce kola nesmí hrát karty lovu.",
    "sixth-sense": "Vezmi si zpět do ruky 2 karty lokací ze svého odkládacího balíčku.",
    "smokescreen": "Do konce kola jsou odkládací balíčky všech Lovených před Bytostí skryté.",
    "strike-back": "Vezmi Bytosti z ruky 2 náhodné karty lovu a dej je dospod balíčku karet lovu.",
    "vortex": "Vyměň kartu lokace, kterou jsi v tomto kole zahrál, za kartu lokace ze svého odkládacího balíčku.",
    "detector": "Žeton Artemie na tebe v tomto kole nepůsobí.",
    "dodge": "Žeton Bytosti na tebe v tomto kole nepůsobí.",
    "drone": "Použij efekt Průzkumného vozidla místo efektu své lokace.",
    "gate": "Použij efekt lokace sousedící s tvou (ne Artefaktu) místo efektu své lokace.",
    "hologram": "Přesuň žeton Artemie na sousední lokaci.",
    "wrong-track": "Přesuň žeton Bytosti na sousední lokaci.",
    "amplifier": "Odeber žeton vysílání z Pláže a ihned posuň ukazatel záchrany o 1 políčko kupředu.",
    "double-back": "Vezmi si kartu lokace, kterou jsi právě zahrál, zpět do ruky, místo abys ji odložil.",
}


def text(card: int | str, lang: str = "en") -> str:
    """What a place (number or id) or a Hunt/Survival card (id) does, in ``lang`` (English when unknown)."""
    card_id = PLACE_ID[card] if isinstance(card, int) else card
    return CS[card_id] if lang == "cs" else CARDS[card_id]["effect"]
