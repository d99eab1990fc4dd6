"""Renderers: pure functions from results to text, JSON-ready dicts and reports.

* ``search``: a search result (text table, ``search.v1`` JSON, explanations);
* ``diagnostics``: validation findings (text, ``diagnostics.v1`` JSON, GitHub commands, SARIF);
* ``evaluation``: an evaluation result (text, ``search-eval.v1`` JSON, JUnit XML, Markdown);
* ``pull_request``: the Markdown report of ``skillsift ci`` (the job summary) and its size cap.
"""
