"""The skills folders a repository's Claude Code plugin manifests name, read bounded.

A repository shipped as a Claude Code plugin marketplace lists its plugins in
``.claude-plugin/marketplace.json``: each entry of ``plugins`` has a ``source`` (a relative
path is a plugin folder in the repository, resolved against ``metadata.pluginRoot`` when that
is set; other sources, git or npm, live elsewhere and are skipped) and may list ``skills``,
folders relative to the plugin holding ``<name>/SKILL.md`` or a ``SKILL.md`` itself.  Without
``skills``, the plugin's own ``.claude-plugin/plugin.json`` ``skills`` (a string or a list)
names them, else its ``skills/`` folder (code.claude.com/docs/en/plugin-marketplaces and
plugins-reference).  A repository that is one plugin has ``.claude-plugin/plugin.json`` at
its root.  A repository that is a Gemini CLI extension has ``gemini-extension.json`` at its root
and bundles the skills of its ``skills/`` folder (geminicli.com/docs/cli/using-agent-skills,
"Extension Skills").

Bounds: a manifest is read up to :data:`MAX_BYTES`, at most :data:`MAX_PLUGINS` plugins and
:data:`MAX_PATHS` folders in all; a path that is absolute, holds ``..`` past the root, or whose
real path leaves the repository is skipped with a note.  Nothing here raises on what a
repository holds: a manifest that does not parse is a note.
"""

from __future__ import annotations

import json
import os
import posixpath

from skillsift.catalog.agents import CLAUDE_PLUGIN, GEMINI_EXTENSION
from skillsift.files import read_bounded

from ..records import record

MARKETPLACE = ".claude-plugin/marketplace.json"
PLUGIN = ".claude-plugin/plugin.json"
MAX_BYTES = 1 << 20
MAX_PLUGINS = 500
MAX_PATHS = 2000


@record(frozen=True)
class ManifestRoots:
    """``roots``: (relative folder parts, ``<manifest>:<plugin name>``, the manifest being
    :data:`~skillsift.catalog.agents.CLAUDE_PLUGIN` or ``GEMINI_EXTENSION``) in manifest order, no
    repeats; ``notes``:
    (manifest path, why something it names is not read)."""

    roots: tuple[tuple[tuple[str, ...], str], ...] = ()
    notes: tuple[tuple[str, str], ...] = ()


def _read_json(root: str, rel: str, notes: list) -> object:
    path = os.path.join(root, *rel.split("/"))
    if not os.path.isfile(path):
        return None
    real_root = os.path.realpath(root)
    if os.path.commonpath([os.path.realpath(path), real_root]) != real_root:
        notes.append((rel, f"{rel} is a symlink to outside the repository; it is not read"))
        return None
    try:
        data = read_bounded(path, MAX_BYTES)
    except OSError as exc:
        notes.append((rel, f"{rel} cannot be read ({exc.strerror or exc}); its skills are not read"))
        return None
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        notes.append((rel, f"{rel} is not valid JSON ({exc}); its skills are not read"))
        return None


def _relative(base: str, path: object) -> str | None:
    """``path`` (relative, "./" allowed) joined to ``base`` and normalised; None when it is not a
    relative path inside the repository."""
    if not isinstance(path, str) or not path.strip() or "\\" in path or "\0" in path:
        return None
    path = path.strip()
    if path.startswith("/") or (len(path) > 1 and path[1] == ":"):
        return None
    joined = posixpath.normpath(posixpath.join(base, path))
    if joined == ".." or joined.startswith("../"):
        return None
    return "" if joined == "." else joined


def _paths(value: object) -> list[object]:
    if isinstance(value, str):
        return [value]
    return list(value) if isinstance(value, list) else []


def manifest_roots(root: str) -> ManifestRoots:
    """The skills folders the plugin manifests of ``root`` name (module docstring)."""
    notes: list[tuple[str, str]] = []
    roots: dict[tuple[str, ...], str] = {}

    def add(rel: str | None, plugin: str, manifest: str) -> None:
        if len(roots) >= MAX_PATHS:
            return
        if rel is None:
            notes.append((manifest, f"{manifest} names a skills path outside the repository; it is not read"))
            return
        parts = tuple(p for p in rel.split("/") if p) if rel else ()
        real = os.path.realpath(os.path.join(root, *parts))
        real_root = os.path.realpath(root)
        if real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep):
            notes.append((manifest, f"{manifest}: {rel} leaves the repository through a symlink; it is not read"))
            return
        roots.setdefault(parts, f"{CLAUDE_PLUGIN}:{plugin}" if manifest != GEMINI_EXTENSION else
                         f"{GEMINI_EXTENSION}:{plugin}")

    def plugin_skills(plugin_dir: str, plugin: str, listed: object, manifest: str) -> None:
        paths = _paths(listed)
        if not paths:
            own_rel = posixpath.join(plugin_dir, PLUGIN) if plugin_dir else PLUGIN
            own = _read_json(root, own_rel, notes) if own_rel != manifest else None
            paths = _paths(own.get("skills")) if isinstance(own, dict) else []
        for path in paths or ["skills"]:
            add(_relative(plugin_dir, path), plugin, manifest)

    extension = _read_json(root, GEMINI_EXTENSION, notes)  # first: its skills/ may be a Claude plugin's too
    if isinstance(extension, dict):
        given = extension.get("name")
        add("skills", given if isinstance(given, str) and given else "extension", GEMINI_EXTENSION)
    market = _read_json(root, MARKETPLACE, notes)
    if isinstance(market, dict):
        meta = market.get("metadata")
        base = _relative("", meta.get("pluginRoot")) if isinstance(meta, dict) and meta.get("pluginRoot") else ""
        plugins = market.get("plugins")
        for entry in (plugins if isinstance(plugins, list) else [])[:MAX_PLUGINS]:
            if not isinstance(entry, dict) or not isinstance(entry.get("source"), str):
                continue  # a git, GitHub or npm source: the plugin lives elsewhere
            plugin_dir = _relative(base or "", entry["source"])
            given = entry.get("name")
            name = given if isinstance(given, str) and given else posixpath.basename(plugin_dir or "") or "plugin"
            if plugin_dir is None:
                notes.append((MARKETPLACE, f"{MARKETPLACE}: plugin {name or '?'} has a source outside the "
                                           "repository; it is not read"))
                continue
            plugin_skills(plugin_dir, name, entry.get("skills"), MARKETPLACE)
    elif market is not None:
        notes.append((MARKETPLACE, f"{MARKETPLACE} is not a JSON object; its skills are not read"))
    single = _read_json(root, PLUGIN, notes)
    if isinstance(single, dict):
        given = single.get("name")
        name = given if isinstance(given, str) and given else "plugin"
        plugin_skills("", name, single.get("skills"), PLUGIN)
    return ManifestRoots(roots=tuple(roots.items()), notes=tuple(dict.fromkeys(notes)))


def scan_manifests(scan) -> dict:
    """Walk the skills folders the plugin manifests name with ``scan`` (the discovery's walk,
    skillsift/catalog/discovery.py); the found SKILL.md parts -> ``<manifest>:<plugin name>``.  A folder already
    searched as a default root is not walked again."""
    manifests = manifest_roots(scan.root)
    scan.notes.extend(manifests.notes)
    named: dict[tuple[str, ...], str] = {}
    for parts, plugin in manifests.roots:
        if not parts or not os.path.isdir(os.path.join(scan.root, *parts)):
            continue
        if "/".join(parts) not in scan.searched:
            scan.scan_root(parts)
        named.setdefault(parts, plugin)
    out: dict[tuple[str, ...], str] = {}
    for hit in scan.hits:
        for end in range(len(hit) - 1, 0, -1):  # the nearest folder a manifest names
            if hit[:end] in named:
                out[hit] = named[hit[:end]]
                break
    return out

