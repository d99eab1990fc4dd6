"""Skills from other repositories and folders: ``[[sources]]``, ``skillsift.lock`` and the cache (docs/sources.md).

:mod:`.tree` finds a source's skills and digests them without following a link; :mod:`.git` fetches
a git source with the real git into the user cache and lays one commit out as regular files;
:mod:`.lockfile` reads and writes the lock; :mod:`.sync` holds the moves (update, fetch, status and
the folders the catalog reads).
"""
