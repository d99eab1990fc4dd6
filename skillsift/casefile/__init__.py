"""The cases-file format: labelled queries (docs/evaluation.md, "The cases file").

:mod:`.rules` declares the file's rules once, as data; :mod:`.parse` reads the text strictly
(every problem at once, AR9D2, with its line) and checks it against a catalog; :mod:`.files`
reads a file from disk, bounded, and parses it once per process for the same bytes.  Both the
evaluation (a ``--cases`` file, :mod:`skillsift.evaluate.cases`) and the ranker (the examples
files of ``[search] examples``, which have the same format: :mod:`skillsift.ranker.known`)
read it, so it sits below them.  Nothing is imported here.
"""

CASES_INVALID = "AR9D2"
