"""Card counting: the players who read the shoe and bet on the odds of the next coup.

The odds themselves, exact for any remaining shoe (colour included) or fast enough for a player at
the table, are :mod:`trente_env.odds` (:func:`~trente_env.odds.exact_odds`,
:func:`~trente_env.odds.shoe_odds`, with the notes on how they are computed and how close the
approximations are). This package holds what a counter makes of them:

* :mod:`.advantage`: what one unit on each box is worth on the next coup, from the odds and the
  house rules (:func:`~.advantage.box_values`), and the value of a prisoner;
* :mod:`.removal`: the effects of removal (how the next coup changes when one card leaves a full
  shoe) and the linear count built from them;
* :mod:`.counters`: the perfect and the linear counter over dealt shoes, played by the croupier
  (:func:`~.counters.study_shoes`), and the measured error of the approximations.

The counters as players of the tournament and the environment are :mod:`strategies.counters`.
"""
