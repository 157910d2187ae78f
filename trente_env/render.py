"""The table as a picture: what ``render_mode="rgb_array"`` shows (and gymnasium's ``RecordVideo`` films).

One frame is the croupier's layout after a coup: the Noir row above the Rouge row with their totals,
the announcement, the scoreboard of the last coups, the four boxes with their stakes (insured or in
prison) and what came back, and the bankroll. It is drawn with Pillow (matplotlib's own dependency)
in matplotlib's DejaVu Sans, the font that has the suits' symbols.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from trente_env.cards import card_name, is_black
from trente_env.codes import BOXES, COULEUR_WINS, INVERSE_WINS, NO_COUP, Result

#: Frame size in pixels (width, height): multiples of 16, as video encoders like.
SIZE = (640, 368)
FELT, INK, GOLD, RED, BLACK, CARD = (
    (18, 92, 58),
    (235, 240, 230),
    (232, 196, 90),
    (200, 30, 40),
    (20, 20, 20),
    (250, 250, 245),
)
#: The scoreboard's marks: result code -> (letter, colour).
MARKS = {
    Result.NOIR: ("N", BLACK),
    Result.ROUGE: ("R", RED),
    Result.APRES: ("A", (90, 90, 160)),
    Result.REFAIT: ("31", GOLD),
    Result.VOID: ("-", (120, 120, 120)),
}


@cache
def _font(size: int, bold: bool = False) -> Any:
    from matplotlib import font_manager
    from PIL import ImageFont

    path = font_manager.findfont(font_manager.FontProperties(family="DejaVu Sans", weight="bold" if bold else "normal"))
    return ImageFont.truetype(path, size)


def draw_table(
    coups: int,
    bankroll: float,
    prison: np.ndarray,
    results: np.ndarray,
    couleurs: np.ndarray,
    last: dict[str, Any] | None,
) -> np.ndarray:
    """The table as an RGB picture, ``(368, 640, 3)`` uint8.

    :param coups: coups dealt this session; ``bankroll``: money in hand, in units.
    :param prison: stakes in prison, ``(4, 2)``: box by prison level.
    :param results: the scoreboard's result codes, most recent first; ``couleurs`` its Couleur codes.
    :param last: the last coup's details, :meth:`~trente_env.env.TrenteEtQuaranteEnv.coup_details` (None before
        the first coup).
    """
    from PIL import Image, ImageDraw

    image = Image.new("RGB", SIZE, FELT)
    draw = ImageDraw.Draw(image)
    small, text, big = _font(13), _font(16), _font(20, bold=True)
    draw.text((16, 10), f"Coup {coups}", font=big, fill=INK)
    draw.text((SIZE[0] - 16, 10), f"Bankroll {bankroll:,.2f}", font=big, fill=GOLD, anchor="ra")
    if last is None:
        draw.text((SIZE[0] // 2, 120), "Faites vos jeux.", font=big, fill=INK, anchor="mm")
    else:
        for y, name, cards, total in (
            (44, "Noir", last["noir_cards"], last["noir"]),
            (112, "Rouge", last["rouge_cards"], last["rouge"]),
        ):
            draw.text((16, y + 20), name, font=big, fill=INK)
            step = min(42, (SIZE[0] - 96 - 70) // max(len(cards), 1))  # a long row overlaps its cards
            for i, card in enumerate(cards):
                x = 96 + step * i
                draw.rounded_rectangle((x, y, x + 38, y + 56), radius=5, fill=CARD, outline=BLACK)
                colour = BLACK if is_black(card) else RED
                draw.text((x + 19, y + 28), card_name(card), font=text, fill=colour, anchor="mm")
            draw.text((SIZE[0] - 16, y + 20), str(total or "-"), font=big, fill=INK, anchor="ra")
        from trente_env.coup import Coup

        coup = Coup(last["noir_cards"], last["rouge_cards"], last["noir"], last["rouge"])
        draw.text((SIZE[0] // 2, 186), coup.announcement(), font=big, fill=GOLD, anchor="mm")
    _scoreboard(draw, results, couleurs, small)
    _boxes(draw, prison, last, text, small)
    return np.asarray(image, dtype=np.uint8)


def _scoreboard(draw: Any, results: np.ndarray, couleurs: np.ndarray, font: Any) -> None:
    """The last coups, most recent on the left: the result, and a dot for Couleur (gold) or Inverse (white)."""
    draw.text((16, 212), "Scoreboard", font=font, fill=INK)
    draw.text((SIZE[0] - 16, 204), "• Couleur", font=font, fill=GOLD, anchor="ra")
    draw.text((SIZE[0] - 16, 222), "• Inverse", font=font, fill=INK, anchor="ra")
    for i, (code, couleur) in enumerate(zip(results.tolist(), couleurs.tolist(), strict=True)):
        if code == NO_COUP or i >= 14:  # room for 14 marks beside the legend
            break
        x = 110 + 26 * i
        letter, colour = MARKS[Result(code)]
        draw.rectangle((x, 208, x + 22, 230), fill=colour, outline=INK)
        draw.text((x + 11, 219), letter, font=font, fill=INK, anchor="mm")
        if couleur in (COULEUR_WINS, INVERSE_WINS):
            dot = GOLD if couleur == COULEUR_WINS else INK
            draw.ellipse((x + 8, 234, x + 14, 240), fill=dot)


def _boxes(draw: Any, prison: np.ndarray, last: dict[str, Any] | None, font: Any, small: Any) -> None:
    """The four boxes: this coup's stake (and whether insured), what came back, stakes in prison."""
    width = (SIZE[0] - 32) // 4
    for b, name in enumerate(BOXES):
        x, y = 16 + b * width, 252
        draw.rectangle((x + 2, y, x + width - 4, SIZE[1] - 12), outline=GOLD, width=2)
        draw.text((x + width // 2, y + 14), name.capitalize(), font=font, fill=GOLD, anchor="mm")
        lines = []
        if last is not None and (last["stakes"][b] > 0 or last["back"][b] > 0):
            lines.append(f"stake {last['stakes'][b]:g}" + (" (insured)" if last["insured"][b] else ""))
            lines.append(f"back {last['back'][b]:g}")
        held = [f"{prison[b, level]:g}" for level in range(prison.shape[1]) if prison[b, level] > 0]
        if held:
            lines.append("en prison " + " + ".join(held))
        for i, line in enumerate(lines or ["no bet"]):
            draw.text((x + 12, y + 34 + 22 * i), line, font=small, fill=INK)


__all__ = ["SIZE", "draw_table"]
