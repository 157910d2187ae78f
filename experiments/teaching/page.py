"""The words and the looks of the HTML report (:mod:`experiments.teaching.report`): the bilingual
glossary and the rules in a few sentences (both read from the table's rules), the style sheet, the
Content-Security-Policy that keeps the page offline and the script that checks every image decoded."""

from __future__ import annotations

from trente_env.odds import house_edges
from trente_env.rules import Refait, RuleSet
from trente_env.settle import refait_words, share_words


def glossary(rules: RuleSet) -> tuple[tuple[str, str, str], ...]:
    """The game's French terms with their meaning in English and in French, at the table of ``rules``:
    what a refait, a partage and the insurance cost there is read from the rules."""
    share, part = share_words(rules)
    caught = {
        Refait.PRISON: ("stakes go to prison", "les mises vont en prison"),
        Refait.CHOICE: (
            f"each stake loses {share} of itself or goes to prison, as the player chooses",
            f"chaque mise perd {part} d'elle-même ou va en prison, au choix du joueur",
        ),
    }.get(rules.refait, (f"each stake loses {share} of itself", f"chaque mise perd {part} d'elle-même"))
    rate = f"{rules.insurance_rate:.0%}".replace("%", " %")
    return (
        (
            "coup",
            "One deal: the Noir row, then the Rouge row, and the result they give.",
            "Une donne : la rangée Noire puis la rangée Rouge, et le résultat qu'elles donnent.",
        ),
        (
            "noir / rouge",
            "The two rows and the two main boxes. The row whose total is lower (closer to 31) wins; "
            "Noir and Rouge pay even money.",
            "Les deux rangées et les deux grands tableaux. La rangée au total le plus bas (le plus près de 31) "
            "gagne ; noir et rouge paient à égalité.",
        ),
        (
            "couleur / inverse",
            "The other two boxes. Couleur wins when the first card dealt has the colour of the winning row; "
            "otherwise inverse wins. Both pay even money.",
            "Les deux autres chances. La couleur gagne quand la première carte tirée est de la couleur de la "
            "rangée gagnante ; sinon l'inverse gagne. Elles paient à égalité.",
        ),
        (
            "après",
            "Both rows tie on 32 to 40: nothing is won or lost, the stakes stay where they are.",
            "Les deux rangées sont égales de 32 à 40 : le coup est nul, les mises restent en place.",
        ),
        (
            "refait",
            f"Both rows make 31 (about 2.2% of coups). The bank's whole edge comes from it: at this table {caught[0]}.",
            "Les deux rangées font trente et un (environ 2,2 % des coups). Tout l'avantage de la banque en "
            f"vient : à cette table {caught[1]}.",
        ),
        (
            "prison",
            "After a refait the stake stays locked on its box for the next coup: freed (returned, not paid) "
            "if the box wins, lost if it loses.",
            "Après un refait la mise reste « en prison » sur son tableau pour le coup suivant : libérée "
            "(rendue, non payée) si le tableau gagne, perdue s'il perd.",
        ),
        (
            "partage",
            f"The other refait rule: the player loses {share} of the stake at once and takes back the rest.",
            f"L'autre règle du refait : le joueur perd tout de suite {part} de sa mise et reprend le reste.",
        ),
        (
            "assurance",
            f"Insurance against the refait: a premium of {rules.insurance_rate:.0%} of the stake, always kept by "
            "the bank, returns the stake whole on a refait.",
            f"Assurance contre le refait : une prime de {rate} de la mise, toujours acquise à la banque, rend "
            "la mise entière en cas de refait.",
        ),
        (
            "sabot",
            "The shoe: the box that holds the shuffled cards (six packs of 52); a cut card marks where it is "
            "reshuffled.",
            "La boîte d'où l'on tire les cartes mêlées (six jeux de 52) ; une carte de coupe marque le moment "
            "de les remêler.",
        ),
        (
            "tailleur",
            "The dealer who draws the cards from the shoe, lays out the rows and announces the result "
            "(« Rouge gagne et couleur perd »).",
            "Le croupier qui tire les cartes du sabot, aligne les rangées et annonce le résultat "
            "(« Rouge gagne et couleur perd »).",
        ),
    )


def rules_text(rules: RuleSet) -> tuple[str, ...]:
    """The rules in a few sentences, at the table of ``rules``: what a refait costs and the bank's
    edge (exact, first coup of a full shoe) are read from the rules."""
    edge = house_edges(rules).noir
    text = (
        "Cards count their pips; tens and faces count 10, the ace 1. Suits matter only for colour.",
        "The tailleur deals the Noir row one card at a time while its total is 30 or less: it ends on 31 to "
        "40. Then the Rouge row is dealt from the following cards in the same way.",
        "The row with the lower total wins; 31 is best. Noir and Rouge pay 1 to 1.",
        "Couleur wins when the very first card of the coup has the colour of the winning row, Inverse "
        "otherwise; both pay 1 to 1.",
        f"Equal rows on 32 to 40 (après) change nothing. Equal rows on 31 (refait) cost the player: at this "
        f"table {refait_words(rules)}. That is the bank's edge on a Noir stake: {edge:.2%}.",
    )
    if rules.insurance:
        text += (
            f"Insurance against the refait costs {rules.insurance_rate:.0%} of the stake and returns it whole "
            "on a refait.",
        )
    return text


STYLE = """
body { font-family: "DejaVu Sans", "Helvetica Neue", Arial, sans-serif; color: #1d2733; background: #fbfaf7;
       max-width: 1100px; margin: 0 auto; padding: 24px 32px 64px; line-height: 1.45; }
h1 { font-size: 28px; margin: 0 0 4px; }
h1 .rouge { color: #b3261e; } h1 .noir { color: #1d2733; }
h2 { font-size: 21px; border-bottom: 2px solid #b3261e; padding-bottom: 4px; margin-top: 40px; }
h3 { font-size: 16px; margin: 24px 0 6px; }
.meta, .note, figcaption { color: #5b6673; font-size: 13px; }
nav a { margin-right: 14px; color: #b3261e; text-decoration: none; font-size: 14px; }
table { border-collapse: collapse; margin: 10px 0 6px; font-size: 13px; width: 100%; }
th, td { border-bottom: 1px solid #dcd8cf; padding: 4px 8px; text-align: right; vertical-align: top; }
th { background: #efe9dc; font-weight: 600; }
td.l, th.l { text-align: left; }
td.ci { white-space: nowrap; }
th[colspan] { text-align: center; }
tr.miss td.f { color: #b3261e; font-weight: 700; }
td.good { color: #1e7b34; } td.bad { color: #b3261e; font-weight: 600; }
figure { margin: 18px 0; } figure img { max-width: 100%; border: 1px solid #dcd8cf; background: white; }
.box { background: #fff; border: 1px solid #dcd8cf; border-left: 4px solid #b3261e; padding: 10px 14px; }
.warn { background: #fff4e5; border-left-color: #e08a00; }
.gloss td { text-align: left; } .gloss td:first-child { font-weight: 700; white-space: nowrap; }
"""

#: Inline script: records in attributes of ``<body>`` whether every embedded image decoded (read by
#: the browser test; nothing is shown on the page).
CHECK_SCRIPT = """
window.addEventListener("load", function () {
  var imgs = Array.prototype.slice.call(document.images);
  var ok = imgs.filter(function (i) { return i.complete && i.naturalWidth > 0; }).length;
  document.body.setAttribute("data-images-decoded", String(ok));
  document.body.setAttribute("data-images-total", String(imgs.length));
  document.body.setAttribute("data-images-ok", ok === imgs.length ? "yes" : "no");
});
"""

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'"


__all__ = ["CHECK_SCRIPT", "CSP", "STYLE", "glossary", "rules_text"]
