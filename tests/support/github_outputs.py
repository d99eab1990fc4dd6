"""Reading the step outputs skillsift writes to ``$GITHUB_OUTPUT`` (``key=value`` lines and
``key<<DELIMITER`` blocks), as the GitHub runner does, so tests can check what a workflow sees."""

from __future__ import annotations


def parse_outputs(text: str) -> dict[str, str]:
    """Read ``$GITHUB_OUTPUT`` text back, as the runner does."""
    out: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i].rstrip("\r")
        i += 1
        if not line:
            continue
        eq, heredoc = line.find("="), line.find("<<")
        if eq >= 0 and (heredoc < 0 or eq < heredoc):
            out[line[:eq]] = line[eq + 1:]
            continue
        if heredoc < 0:
            raise ValueError(f"output line {line!r} is neither key=value nor key<<DELIMITER")
        key, delimiter = line[:heredoc], line[heredoc + 2:]
        body = []
        while i < len(lines) and lines[i].rstrip("\r") != delimiter:
            body.append(lines[i])
            i += 1
        if i >= len(lines):
            raise ValueError(f"output {key!r}: delimiter {delimiter!r} not found")
        i += 1
        out[key] = "\n".join(body)
    return out
