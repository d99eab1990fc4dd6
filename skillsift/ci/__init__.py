"""Pull-request checks (``skillsift ci`` and the GitHub Action in ``action.yml``).

The head of a pull request is evaluated, compared with its base and validated; the
outcome becomes a Markdown job summary, annotations and step outputs.  Layers:

* :mod:`.gitbase` finds the base commit and checks it out into a temporary worktree (git I/O);
* :mod:`skillsift.evaluate.outcomes` reduces an evaluation (or a saved baseline result) to
  per-case outcomes;
* :mod:`skillsift.evaluate.compare` pairs base and head: flips, rank changes, paired
  differences (pure);
* :mod:`skillsift.evaluate.verdict` holds the whole run and decides its verdict and exit
  code (pure);
* :mod:`skillsift.render.pull_request` renders the Markdown report and caps it to GitHub's
  summary size (pure);
* :mod:`.github` formats step outputs and annotations and writes the runner's files;
* :mod:`.pipeline` ties them together (the only module that evaluates and runs git);
* :mod:`.install_plan` is run by the action before skillsift is installed (stdlib only).
"""
