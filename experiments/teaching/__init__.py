"""trente-lab in the classroom.

* :mod:`experiments.teaching.fallacy`: the gambler's fallacy, measured: how often a side wins after
  a streak, beside the exact odds, and three betting systems on the same shoes (``trente-lab fallacy``);
* :mod:`experiments.teaching.play`: a table for students, driven by short typed commands
  (``trente-lab play``);
* :mod:`experiments.teaching.report`: one self-contained HTML page of a tournament, the fallacy
  table, the rules and a glossary (``trente-lab report``), with its words and style in
  :mod:`experiments.teaching.page`.
"""
