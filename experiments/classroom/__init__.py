"""``trente-lab classroom``: a live table in the browser where every student predicts before each coup.

:mod:`~experiments.classroom.state` is the classroom as plain Python (students, predictions, coups, the
class's tables, the session file); :mod:`~experiments.classroom.systems` the betting systems mode;
:mod:`~experiments.classroom.fast` the fast-forward; :mod:`~experiments.classroom.app` the web app
(Starlette); :mod:`~experiments.classroom.serve` the addresses, the QR code and the server. The pages
are the files of ``static/``. The web parts need the ``classroom`` extra; the state needs nothing
beyond the lab.
"""
