"""Secret detection (docs/secrets.md): :mod:`.scan` holds the rules and the scanner.

Nothing is imported here, so that importing the package costs nothing.
"""
