"""JSON schema -> GBNF, as llama.cpp's ``json_schema_to_grammar`` (common/json-schema-to-grammar.cpp) does."""
from __future__ import annotations


def schema_to_grammar(text: str) -> str:
    raise ValueError("JSON schemas are not converted yet")
