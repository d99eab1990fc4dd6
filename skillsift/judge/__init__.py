"""The real agent as judge: ask an agent's own command which listed skill it would use (docs/judge.md).

Engine modules, pure or at the edge of one subprocess: :mod:`.prompt` (the versioned template and
the listing the agent sees, secrets withheld), :mod:`.answer` (the strict parse), :mod:`.runner`
(one bounded call, many calls under a budget), :mod:`.cache` (answers kept per key) and
:mod:`.report` (agent against ranker, with intervals).  The use case the doors call is
:mod:`skillsift.usecases.judge_run`.
"""
