"""Renderers: pure functions from results to text, JSON-ready dicts and reports."""
