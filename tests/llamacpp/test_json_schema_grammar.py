"""JSON schemas converted as llama.cpp converts them (``sampler.json_schema``), held to the C++'s own test cases.

``tests/test-json-schema-to-grammar.cpp`` of the vendored llama.cpp lists schemas with the grammar its
``json_schema_to_grammar`` must give (or that it must fail); each is read from that file and run through the
port.  llama-cpp-python's own converter differs from the C++ on most of them: one such case is kept as a
test, so that the day the bindings' converter changes, we hear of it (the C++ wins, and that is ours).
"""
from __future__ import annotations

import re

import pytest

from llamacpp_source import source_path
from sampler.json_schema import schema_to_grammar

CASE = re.compile(r'test\(\{\s*(SUCCESS|FAILURE),\s*"((?:[^"\\]|\\.)*)",\s*R"""\((.*?)\)""",\s*R"""\((.*?)\)"""', re.S)


def _cases() -> list[tuple[str, str, str, str]]:
    text = source_path("tests/test-json-schema-to-grammar.cpp").read_text(encoding="utf-8")
    return CASE.findall(text)


def _trim(text: str) -> str:
    """The C++ test's ``trim``: the ends stripped, and every line's leading blanks."""
    return re.sub(r"(^|\n)[ \t]+", r"\1", text.strip(" \n\r\t"))


def test_every_case_of_the_cpp_tests_is_read():
    assert len(_cases()) >= 75  # the file's raw-string cases (a few of its tests are written otherwise)


def test_the_port_gives_the_cpp_grammar_for_every_case():
    differ = []
    for status, name, schema, expected in _cases():
        try:
            got, ok = schema_to_grammar(schema), "SUCCESS"
        except ValueError as exc:
            got, ok = str(exc), "FAILURE"
        if ok != status or (ok == "SUCCESS" and _trim(got) != _trim(expected)):
            differ.append(f"{name}: expected {status}, got {ok}: {got[:200]!r}")
    assert differ == []


def test_llama_cpp_pythons_converter_differs_from_the_cpp():
    """The bindings' Python converter writes another grammar for a plain string: the C++'s is the one used."""
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    (status, _, schema, expected), = [c for c in _cases() if c[1] == "string"]
    assert status == "SUCCESS"
    assert _trim(schema_to_grammar(schema)) == _trim(expected)
    assert _trim(json_schema_to_gbnf(schema)) != _trim(expected)


@pytest.mark.parametrize("schema,says", [
    ('{"type": "frobnicate"}', "JSON schema conversion failed: JSON schema error at #: unrecognized type frobnicate"),
    ('{"$ref": "#/nowhere"}', "JSON schema conversion failed: JSON schema error at #: cannot resolve $ref #/nowhere, "
                              "nowhere not found"),
    ('{"type": "string", "pattern": "^(a$"}', "JSON schema conversion failed: Invalid pattern ^(a$: "
                                              "unbalanced parentheses"),
    ("[1, 2]", "JSON schema conversion failed: JSON schema error at #: schema must be an object"),
    ('{"const": NaN}', "not JSON (NaN is not JSON)"),
])
def test_a_bad_schema_is_one_line(schema, says):
    with pytest.raises(ValueError) as exc:
        schema_to_grammar(schema)
    assert str(exc.value) == says and "\n" not in str(exc.value)


def test_a_huge_schema_is_one_line():
    schema = '{"enum": [' + ", ".join(f'"{"x" * 200}{i}"' for i in range(6000)) + "]}"
    with pytest.raises(ValueError) as exc:
        schema_to_grammar(schema)
    assert "characters long" in str(exc.value) and "\n" not in str(exc.value)
