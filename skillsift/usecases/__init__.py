"""The use cases: what one command does, between the door that parses it and the engine below.

Each module takes plain values (paths, flags) and returns data (the loaded project, an outcome,
the messages to show); nothing here prints, reads a flag or chooses an exit code
(docs/development.md, "Layers").  :mod:`.project` opens a repository, :mod:`.validate` runs the
checks, :mod:`.run_eval` and :mod:`.run_tune` evaluate and tune, :mod:`.judge_run` asks the agent,
:mod:`.index_build` writes the index and :mod:`.starter` drafts what ``init`` writes.
"""
