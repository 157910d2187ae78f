"""``trente-lab classroom``: a live table in the browser where every student predicts before each coup.

:mod:`~experiments.classroom.state` is the room as plain Python (the coups, the predictions, the
teacher's switches), with its parts: :mod:`~experiments.classroom.roster` (who is in the room),
:mod:`~experiments.classroom.store` (the session file and its journal), :mod:`~experiments.classroom.views`
(what the pages show), :mod:`~experiments.classroom.exports` (the downloads),
:mod:`~experiments.classroom.systems` (the betting systems mode) and :mod:`~experiments.classroom.fast`
(the fast-forward); :mod:`~experiments.classroom.app` is the web app (Starlette) and
:mod:`~experiments.classroom.serve` the addresses, the QR code and the server. The pages are the files
of ``static/``. The web parts need the ``classroom`` extra; the room needs nothing beyond the lab.
"""
