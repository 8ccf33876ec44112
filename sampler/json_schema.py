"""JSON schema -> GBNF, as llama.cpp's ``json_schema_to_grammar`` does (``llama-completion --json-schema``).

A port of ``common/json-schema.cpp`` (the schema read into typed nodes, ``common_chat_schema_from_json``) and
``common/json-schema-to-grammar.cpp`` (the nodes written as GBNF rules) of the llama.cpp that llama-cpp-python
0.3.36 vendors.  Its bindings export neither (they live in llama.cpp's ``common`` library, which the wheel does
not ship), and llama-cpp-python's own Python converter (``llama_cpp.llama_grammar.json_schema_to_gbnf``) is an
older one that writes other grammars for most schemas (trailing ``space`` rules, another ``char``, other
whitespace), so this module is the route that gives llama.cpp's grammar, rule for rule.
``tests/llamacpp/test_json_schema_grammar.py`` holds it to the C++'s own test cases
(``tests/test-json-schema-to-grammar.cpp``) and to ``llama-completion --json-schema``.

Faithful in the details that change a grammar: nlohmann's ordered objects (properties in the schema's order),
its compact ``dump`` of constants, ``std::map``'s sorted rules and enum values, and regular expressions read
byte by byte (``pattern``), as the C++ reads a ``std::string``.  Errors are one ValueError line (llama.cpp
throws ``std::invalid_argument("JSON schema conversion failed: ...")`` there); an unsupported pattern is
accepted as any string, as llama.cpp does (it warns on stderr; :func:`schema_to_grammar_with_warnings` returns
the warning).
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
INT_MAX = 2**31 - 1
#: The longest grammar a schema may give (characters): llama.cpp has no limit, but a bigger grammar is a schema
#: gone wrong (a huge enum, deep nesting), and the grammar sampler parses it at every run.
MAX_GRAMMAR_CHARS = 1 << 20
MAX_PATTERN_DEPTH = 100

SPACE_RULE = '| " " | "\\n"{1,2} [ \\t]{0,20}'

#: name -> (content, dependencies): PRIMITIVE_RULES and STRING_FORMAT_RULES of the C++.
PRIMITIVE_RULES = {
    "boolean": ('("true" | "false")', ()),
    "decimal-part": ("[0-9]{1,16}", ()),
    "integral-part": ("[0] | [1-9] [0-9]{0,15}", ()),
    "number": ('("-"? integral-part) ("." decimal-part)? ([eE] [-+]? integral-part)?',
               ("integral-part", "decimal-part")),
    "integer": ('("-"? integral-part)', ("integral-part",)),
    "value": ("object | array | string | number | boolean | null",
              ("object", "array", "string", "number", "boolean", "null")),
    "object": ('"{" space ( string ":" space value ("," space string ":" space value)* )? space "}"',
               ("string", "value")),
    "array": ('"[" space ( value ("," space value)* )? space "]"', ("value",)),
    "uuid": ('"\\"" [0-9a-fA-F]{8} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{4} "-" [0-9a-fA-F]{4} "-" '
             '[0-9a-fA-F]{12} "\\""', ()),
    "char": ('[^"\\\\\\x7F\\x00-\\x1F] | [\\\\] (["\\\\bfnrt] | "u" [0-9a-fA-F]{4})', ()),
    "string": ('"\\"" char* "\\""', ("char",)),
    "null": ('"null"', ()),
}
STRING_FORMAT_RULES = {
    "date": ('[0-9]{4} "-" ( "0" [1-9] | "1" [0-2] ) "-" ( "0" [1-9] | [1-2] [0-9] | "3" [0-1] )', ()),
    "time": ('([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9] ":" [0-5] [0-9] ( "." [0-9]{3} )? ( "Z" | ( "+" | "-" ) '
             '( [01] [0-9] | "2" [0-3] ) ":" [0-5] [0-9] )', ()),
    "date-time": ('date "T" time', ("date", "time")),
    "date-string": ('"\\"" date "\\""', ("date",)),
    "time-string": ('"\\"" time "\\""', ("time",)),
    "date-time-string": ('"\\"" date-time "\\""', ("date-time",)),
}
RESERVED_NAMES = {"root", *PRIMITIVE_RULES, *STRING_FORMAT_RULES}

INVALID_RULE_CHARS_RE = re.compile(r"[^a-zA-Z0-9-]+")
GRAMMAR_LITERAL_ESCAPE_RE = re.compile(r'[\r\n"\\]')
GRAMMAR_LITERAL_ESCAPES = {"\r": "\\r", "\n": "\\n", '"': '\\"', "-": "\\-", "]": "\\]", "\\": "\\\\"}
NON_LITERAL_SET = set("|.()[]{}*+?^$")
ESCAPED_IN_REGEXPS_BUT_NOT_IN_LITERALS = set("^$.[]()|{}*+?")


def schema_to_grammar(text: str) -> str:
    """The GBNF grammar llama.cpp makes of the JSON schema ``text``; ValueError (one line) if it cannot."""
    return schema_to_grammar_with_warnings(text)[0]


def schema_to_grammar_with_warnings(text: str) -> tuple[str, list[str]]:
    """The grammar, and what llama.cpp would warn of on stderr (unsupported patterns, accepted as any string)."""
    try:
        schema = json.loads(text, parse_constant=_no_constant)
    except ValueError as exc:
        raise ValueError(f"not JSON ({exc})") from None
    except RecursionError:
        raise ValueError("nested too deeply to read") from None
    try:
        root = _Builder(schema).build()
        converter = _Converter()
        converter.visit(root, "")
    except _SchemaError as exc:
        raise ValueError(f"JSON schema conversion failed: {exc}") from None
    except RecursionError:
        raise ValueError("JSON schema conversion failed: the schema is nested too deeply") from None
    if converter.errors:
        raise ValueError("JSON schema conversion failed: " + "; ".join(converter.errors))
    grammar = converter.format_grammar()
    if len(grammar) > MAX_GRAMMAR_CHARS:
        raise ValueError(f"the schema's grammar is {len(grammar)} characters long (at most {MAX_GRAMMAR_CHARS} "
                         "taken): simplify the schema")
    return grammar, converter.warnings


def _no_constant(name: str):
    """NaN and Infinity are no JSON (Python's reader takes them, llama.cpp's does not)."""
    raise ValueError(f"{name} is not JSON")


class _SchemaError(Exception):
    pass


# -- the schema's nodes (common/json-schema.h) ------------------------------------------------------------

@dataclass
class Node:
    kind: str  # ref, any_of, all_of, const, enum, object, tuple, array, string, integer, number, boolean, null, any
    ref: str = ""
    target: Node | None = None
    children: list = field(default_factory=list)
    value: object = None
    values: list = field(default_factory=list)
    properties: list = field(default_factory=list)  # (name, node, required)
    additional: Node | None = None
    items: Any = None  # a node (array) or a list of nodes (tuple)
    min_items: int = 0
    max_items: int = -1
    pattern: str = ""
    format: str = ""  # "", date, time, date-time, uuid
    min_length: int = 0
    max_length: int = -1
    minimum: int = INT64_MIN
    maximum: int = INT64_MAX


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class _Builder:
    """``common_chat_schema_builder``: the JSON schema read into nodes, ``$ref`` targets resolved after."""

    def __init__(self, root):
        self.root = root
        self.refs: dict[str, Node | None] = {}
        self.pending: list[Node] = []

    def build(self) -> Node:
        node = self.node(self.root, "#")
        for ref in self.pending:
            ref.target = self.refs[ref.ref]
        return node

    @staticmethod
    def fail(path: str, msg: str):
        raise _SchemaError(f"JSON schema error at {path}: {msg}")

    def count(self, schema: dict, key: str, path: str, default: int) -> int:
        if key not in schema:
            return default
        value = schema[key]
        if not _is_int(value) or value < 0 or value > INT_MAX:
            self.fail(path, f"{key} must be a non-negative integer")
        return value

    def bound(self, schema: dict, key: str, path: str, round_up: bool) -> int:
        value = schema[key]
        if _is_int(value):
            return max(INT64_MIN, min(INT64_MAX, value))
        if not _is_number(value):
            self.fail(path, f"{key} must be a number")
        if not math.isfinite(value):
            self.fail(path, f"{key} must be a finite number")
        return max(INT64_MIN, min(INT64_MAX, math.ceil(value) if round_up else math.floor(value)))

    def format(self, schema: dict, path: str) -> str:
        if "format" not in schema:
            return ""
        value = schema["format"]
        if not isinstance(value, str):
            self.fail(path, "format must be a string")
        if value in ("date", "time", "date-time"):
            return value
        if value == "uuid" or (len(value) == 5 and value.startswith("uuid") and "1" <= value[4] <= "5"):
            return "uuid"
        return ""

    def resolve(self, ref: str, path: str):
        target = self.root
        for sel in ref[1:].split("/")[1:]:
            if isinstance(target, dict) and sel in target:
                target = target[sel]
            elif isinstance(target, list):
                idx = int(sel) if sel.isdigit() else len(target)
                if idx >= len(target):
                    self.fail(path, f"cannot resolve $ref {ref}, {sel} is out of range")
                target = target[idx]
            else:
                self.fail(path, f"cannot resolve $ref {ref}, {sel} not found")
        return target

    def ref(self, value, path: str) -> Node:
        if not isinstance(value, str):
            self.fail(path, "$ref must be a string")
        if not value.startswith("#/"):
            self.fail(path, f"unsupported $ref {value}, only references into the same document are supported")
        if value not in self.refs:
            self.refs[value] = None  # a cycle back to this $ref stops here
            self.refs[value] = self.node(self.resolve(value, path), value)
        node = Node("ref", ref=value)
        self.pending.append(node)
        return node

    def alternatives(self, kind: str, alts, path: str) -> Node:
        if not isinstance(alts, list):
            self.fail(path, "must be an array of schemas")
        if not alts:
            self.fail(path, "must not be empty")
        return Node(kind, children=[self.node(alt, f"{path}/{i}") for i, alt in enumerate(alts)])

    def object(self, schema: dict, path: str) -> Node:
        node = Node("object")
        required = set()
        if isinstance(schema.get("required"), list):
            required = {name for name in schema["required"] if isinstance(name, str)}
        if "properties" in schema:
            properties = schema["properties"]
            if not isinstance(properties, dict):
                self.fail(path, "properties must be an object")
            node.properties = [(name, self.node(prop, f"{path}/properties/{name}"), name in required)
                               for name, prop in properties.items()]
        if "additionalProperties" in schema:
            additional = schema["additionalProperties"]
            if isinstance(additional, bool):
                node.additional = Node("any") if additional else None
            elif isinstance(additional, dict):
                node.additional = self.node(additional, f"{path}/additionalProperties")
            else:
                self.fail(path, "additionalProperties must be a boolean or a schema")
        elif "properties" not in schema:
            node.additional = Node("any")  # {"type": "object"} on its own accepts any object
        return node

    def array(self, schema: dict, path: str) -> Node:
        node = Node("array")
        if "items" in schema or "prefixItems" in schema:
            key = "items" if "items" in schema else "prefixItems"
            items = schema[key]
            if isinstance(items, list):
                return Node("tuple", items=[self.node(item, f"{path}/{key}/{i}") for i, item in enumerate(items)])
            node.items = self.node(items, f"{path}/{key}")
        else:
            node.items = Node("any")
        node.min_items = self.count(schema, "minItems", path, 0)
        node.max_items = self.count(schema, "maxItems", path, -1)
        return node

    def string(self, schema: dict, path: str) -> Node:
        node = Node("string")
        if "pattern" in schema:
            if not isinstance(schema["pattern"], str):
                self.fail(path, "pattern must be a string")
            node.pattern = schema["pattern"]
        node.format = self.format(schema, path)
        node.min_length = self.count(schema, "minLength", path, 0)
        node.max_length = self.count(schema, "maxLength", path, -1)
        return node

    def integer(self, schema: dict, path: str) -> Node:
        node = Node("integer")
        if "minimum" in schema:
            node.minimum = self.bound(schema, "minimum", path, True)
        elif "exclusiveMinimum" in schema:
            node.minimum = min(INT64_MAX, self.bound(schema, "exclusiveMinimum", path, False) + 1)
        if "maximum" in schema:
            node.maximum = self.bound(schema, "maximum", path, False)
        elif "exclusiveMaximum" in schema:
            node.maximum = max(INT64_MIN, self.bound(schema, "exclusiveMaximum", path, True) - 1)
        return node

    def node(self, schema, path: str) -> Node:
        if not isinstance(schema, dict):
            self.fail(path, "schema must be an object")
        if "$ref" in schema:
            return self.ref(schema["$ref"], path)
        if "oneOf" in schema or "anyOf" in schema:
            key = "oneOf" if "oneOf" in schema else "anyOf"
            return self.alternatives("any_of", schema[key], f"{path}/{key}")
        kind = schema.get("type")
        if isinstance(kind, list):  # {"type": ["a", "b"], ...} is {"anyOf": [{"type": "a", ...}, ...]}
            if not kind:
                self.fail(path, "type must not be empty")
            return Node("any_of", children=[self.node({**schema, "type": t}, f"{path}/type/{i}")
                                            for i, t in enumerate(kind)])
        if "const" in schema:
            return Node("const", value=schema["const"])
        if "enum" in schema:
            values = schema["enum"]
            if not isinstance(values, list) or not values:
                self.fail(path, "enum must be a non-empty array")
            return Node("enum", values=list(values))
        if kind is not None and not isinstance(kind, str):
            self.fail(path, "type must be a string or an array of strings")
        name = kind or ""
        additional = schema.get("additionalProperties", True)
        has_properties = "properties" in schema or ("additionalProperties" in schema and additional is not True)
        if not name:  # without a type the structural keywords decide
            if has_properties:
                return self.object(schema, path)
            if "allOf" in schema:
                return self.alternatives("all_of", schema["allOf"], f"{path}/allOf")
            if "items" in schema or "prefixItems" in schema:
                return self.array(schema, path)
            if any(k in schema for k in ("pattern", "minLength", "maxLength")) or self.format(schema, path):
                return self.string(schema, path)
            return Node("any")
        if name == "object":
            if not has_properties and "allOf" in schema:
                return self.alternatives("all_of", schema["allOf"], f"{path}/allOf")
            return self.object(schema, path)
        if name == "string":
            if "allOf" in schema:
                return self.alternatives("all_of", schema["allOf"], f"{path}/allOf")
            return self.string(schema, path)
        if name == "array":
            return self.array(schema, path)
        if name == "integer":
            return self.integer(schema, path)
        if name in ("number", "boolean", "null"):
            return Node(name)
        self.fail(path, f"unrecognized type {name}")
        raise AssertionError  # fail raised


# -- nodes to rules (common/json-schema-to-grammar.cpp) -----------------------------------------------------

def _dump(value) -> str:
    """nlohmann's compact ``dump()``: no spaces, non-ASCII as it is."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def format_literal(literal: str) -> str:
    return '"' + GRAMMAR_LITERAL_ESCAPE_RE.sub(lambda m: GRAMMAR_LITERAL_ESCAPES[m.group(0)], literal) + '"'


def build_repetition(item_rule: str, min_items: int, max_items: int, separator_rule: str = "") -> str:
    has_max = max_items != INT_MAX
    if max_items == 0:
        return ""
    if min_items == 0 and max_items == 1:
        return item_rule + "?"
    if not separator_rule:
        if min_items == 1 and not has_max:
            return item_rule + "+"
        if min_items == 0 and not has_max:
            return item_rule + "*"
        return item_rule + "{" + str(min_items) + "," + (str(max_items) if has_max else "") + "}"
    result = item_rule + " " + build_repetition(f"({separator_rule} {item_rule})", 0 if min_items == 0 else min_items - 1,
                                                max_items - 1 if has_max else max_items)
    return f"({result})?" if min_items == 0 else result


def build_min_max_int(min_value: int, max_value: int, out: list, decimals_left: int = 16, top_level: bool = True):
    has_min, has_max = min_value != INT64_MIN, max_value != INT64_MAX

    def digit_range(a: str, b: str):
        out.append("[" + (a if a == b else f"{a}-{b}") + "]")

    def more_digits(min_digits: int, max_digits: int):
        out.append("[0-9]")
        if min_digits == max_digits == 1:
            return
        out.append("{" + str(min_digits))
        if max_digits != min_digits:
            out.append("," + (str(max_digits) if max_digits != INT_MAX else ""))
        out.append("}")

    def uniform_range(a: str, b: str):
        i = 0
        while i < len(a) and i < len(b) and a[i] == b[i]:
            i += 1
        if i > 0:
            out.append('"' + a[:i] + '"')
        if i < len(a) and i < len(b):
            if i > 0:
                out.append(" ")
            sub_len = len(a) - i - 1
            if sub_len > 0:
                from_sub, to_sub = a[i + 1:], b[i + 1:]
                sub_zeros, sub_nines = "0" * sub_len, "9" * sub_len
                to_reached = False
                out.append("(")
                if from_sub == sub_zeros:
                    digit_range(a[i], chr(ord(b[i]) - 1))
                    out.append(" ")
                    more_digits(sub_len, sub_len)
                else:
                    out.append(f"[{a[i]}] (")
                    uniform_range(from_sub, sub_nines)
                    out.append(")")
                    if ord(a[i]) < ord(b[i]) - 1:
                        out.append(" | ")
                        if to_sub == sub_nines:
                            digit_range(chr(ord(a[i]) + 1), b[i])
                            to_reached = True
                        else:
                            digit_range(chr(ord(a[i]) + 1), chr(ord(b[i]) - 1))
                        out.append(" ")
                        more_digits(sub_len, sub_len)
                if not to_reached:
                    out.append(" | ")
                    digit_range(b[i], b[i])
                    out.append(" ")
                    uniform_range(sub_zeros, to_sub)
                out.append(")")
            else:
                out.append(f"[{a[i]}-{b[i]}]")

    if has_min and has_max:
        if min_value < 0 and max_value < 0:
            out.append('"-" (')
            build_min_max_int(-max_value, -min_value, out, decimals_left, True)
            out.append(")")
            return
        if min_value < 0:
            out.append('"-" (')
            build_min_max_int(0, -min_value, out, decimals_left, True)
            out.append(") | ")
            min_value = 0
        min_s, max_s = str(min_value), str(max_value)
        for digits in range(len(min_s), len(max_s)):
            uniform_range(min_s, "9" * digits)
            min_s = "1" + "0" * digits
            out.append(" | ")
        uniform_range(min_s, max_s)
        return
    less_decimals = max(decimals_left - 1, 1)
    if has_min:
        if min_value < 0:
            out.append('"-" (')
            build_min_max_int(INT64_MIN, -min_value, out, decimals_left, False)
            out.append(") | [0] | [1-9] ")
            more_digits(0, decimals_left - 1)
        elif min_value == 0:
            if top_level:
                out.append("[0] | [1-9] ")
                more_digits(0, less_decimals)
            else:
                more_digits(1, decimals_left)
        elif min_value <= 9:
            c = chr(ord("0") + min_value)
            range_start = "1" if top_level else "0"
            if c > range_start:
                digit_range(range_start, chr(ord(c) - 1))
                out.append(" ")
                more_digits(1, less_decimals)
                out.append(" | ")
            digit_range(c, "9")
            out.append(" ")
            more_digits(0, less_decimals)
        else:
            min_s = str(min_value)
            c = min_s[0]
            if c > "1":
                digit_range("1" if top_level else "0", chr(ord(c) - 1))
                out.append(" ")
                more_digits(len(min_s), less_decimals)
                out.append(" | ")
            digit_range(c, c)
            out.append(" (")
            build_min_max_int(int(min_s[1:]), INT64_MAX, out, less_decimals, False)
            out.append(")")
            if c < "9":
                out.append(" | ")
                digit_range(chr(ord(c) + 1), "9")
                out.append(" ")
                more_digits(len(min_s) - 1, less_decimals)
        return
    if has_max:
        if max_value >= 0:
            if top_level:
                out.append('"-" [1-9] ')
                more_digits(0, less_decimals)
                out.append(" | ")
            build_min_max_int(0, max_value, out, decimals_left, True)
        else:
            out.append('"-" (')
            build_min_max_int(-max_value, INT64_MAX, out, decimals_left, False)
            out.append(")")
        return
    raise _SchemaError("At least one of min_value or max_value must be set")


def gbnf_escape_length(pattern: str, pos: int) -> int:
    if pos + 1 >= len(pattern) or pattern[pos] != "\\":
        return 0
    kind = pattern[pos + 1]
    n_hex = {"x": 2, "u": 4, "U": 8}.get(kind)
    if n_hex is None:
        return 2 if kind in 'trn\\"[]-' else 0
    if pos + 2 + n_hex > len(pattern):
        return 0
    if not all(h in "0123456789abcdefABCDEF" for h in pattern[pos + 2:pos + 2 + n_hex]):
        return 0
    return 2 + n_hex


class _Unsupported(Exception):
    pass


class _Invalid(Exception):
    pass


class _Converter:
    """``common_chat_schema_converter`` (dotall off, as ``json_schema_to_grammar`` makes it)."""

    def __init__(self):
        self.rules: dict[str, str] = {"space": SPACE_RULE}
        self.refs_being_resolved: set[str] = set()
        self.errors: list[str] = []
        self.warnings: list[str] = []

    def add_rule(self, name: str, rule: str) -> str:
        esc_name = INVALID_RULE_CHARS_RE.sub("-", name)
        if esc_name not in self.rules or self.rules[esc_name] == rule:
            self.rules[esc_name] = rule
            return esc_name
        i = 0
        while f"{esc_name}{i}" in self.rules and self.rules[f"{esc_name}{i}"] != rule:
            i += 1
        key = f"{esc_name}{i}"
        self.rules[key] = rule
        return key

    def add_primitive(self, name: str, rule: tuple) -> str:
        n = self.add_rule(name, rule[0])
        for dep in rule[1]:
            dep_rule = PRIMITIVE_RULES.get(dep) or STRING_FORMAT_RULES.get(dep)
            if dep_rule is None:
                self.errors.append(f"Rule {dep} not known")
                continue
            if dep not in self.rules:
                self.add_primitive(dep, dep_rule)
        return n

    def format_grammar(self) -> str:
        return "".join(f"{name} ::= {rule}\n" for name, rule in sorted(self.rules.items(), key=lambda kv: kv[0].encode()))

    def union(self, name: str, alts: list) -> str:
        return " | ".join(self.visit(alt, name + ("alternative-" if not name else "-") + str(i))
                          for i, alt in enumerate(alts))

    def visit_primitive(self, rule_name: str, kind: str) -> str:
        return self.add_primitive("root" if rule_name == "root" else kind, PRIMITIVE_RULES[kind])

    def visit(self, node: Node, name: str) -> str:
        rule_name = name + "-" if name in RESERVED_NAMES else (name or "root")
        sub_name = name + ("-" if name else "")
        kind = node.kind
        if kind == "ref":
            return self.add_rule(rule_name, self.resolve_ref(node))
        if kind == "any_of":
            return self.add_rule(rule_name, self.union(name, node.children))
        if kind == "all_of":
            return self.visit_all_of(node, name, rule_name)
        if kind == "const":
            return self.add_rule(rule_name, format_literal(_dump(node.value)))
        if kind == "enum":
            return self.add_rule(rule_name, "(" + " | ".join(format_literal(_dump(v)) for v in node.values) + ")")
        if kind == "object":
            if not node.properties and node.additional is not None and node.additional.kind == "any":
                return self.add_rule(rule_name, self.add_primitive("object", PRIMITIVE_RULES["object"]))
            required = {n for n, _, req in node.properties if req}
            properties = [(n, s) for n, s, _ in node.properties]
            return self.add_rule(rule_name, self.object_rule(properties, required, name, node.additional))
        if kind == "tuple":
            parts = [self.visit(item, f"{sub_name}tuple-{i}") for i, item in enumerate(node.items)]
            return self.add_rule(rule_name, '"[" space ' + ' "," space '.join(parts) + ' space "]"')
        if kind == "array":
            if node.items.kind == "any" and node.min_items == 0 and node.max_items < 0:
                return self.visit_primitive(rule_name, "array")
            item = self.visit(node.items, sub_name + "item")
            max_items = INT_MAX if node.max_items < 0 else node.max_items
            return self.add_rule(rule_name, '"[" space ' + build_repetition(item, node.min_items, max_items, '"," space')
                                 + ' space "]"')
        if kind == "string":
            return self.visit_string(node, rule_name)
        if kind == "integer":
            if node.minimum == INT64_MIN and node.maximum == INT64_MAX:
                return self.visit_primitive(rule_name, "integer")
            out = ["("]
            build_min_max_int(node.minimum, node.maximum, out)
            out.append(")")
            return self.add_rule(rule_name, "".join(out))
        if kind in ("number", "boolean", "null"):
            return self.visit_primitive(rule_name, kind)
        return self.add_rule(rule_name, self.add_primitive("value", PRIMITIVE_RULES["value"]))  # any

    def visit_string(self, node: Node, rule_name: str) -> str:
        if node.pattern:
            return self.visit_pattern(node.pattern, rule_name)
        if node.format == "uuid":
            return self.visit_primitive(rule_name, "uuid")
        if node.format:
            prim = node.format + "-string"
            return self.add_rule(rule_name, self.add_primitive(prim, STRING_FORMAT_RULES[prim]))
        if node.min_length > 0 or node.max_length >= 0:
            char = self.add_primitive("char", PRIMITIVE_RULES["char"])
            max_len = INT_MAX if node.max_length < 0 else node.max_length
            return self.add_rule(rule_name, '"\\"" ' + build_repetition(char, node.min_length, max_len) + ' "\\""')
        return self.visit_primitive(rule_name, "string")

    def visit_all_of(self, node: Node, name: str, rule_name: str) -> str:
        required: set[str] = set()
        properties: list = []
        enum_values: dict[str, int] = {}

        def add_component(comp: Node, is_required: bool):
            if comp.kind == "ref":
                if comp.target is not None:
                    add_component(comp.target, is_required)
            elif comp.kind == "object":
                for prop_name, prop, _ in comp.properties:
                    properties.append((prop_name, prop))
                    if is_required:
                        required.add(prop_name)
            elif comp.kind == "enum":
                for v in comp.values:
                    key = format_literal(_dump(v))
                    enum_values[key] = enum_values.get(key, 0) + 1

        for child in node.children:
            if child.kind == "any_of":
                for alt in child.children:
                    add_component(alt, False)
            else:
                add_component(child, True)
        if enum_values:
            common = [k for k in sorted(enum_values, key=str.encode) if enum_values[k] == len(node.children)]
            if common:
                return self.add_rule(rule_name, "(" + " | ".join(common) + ")")
        return self.add_rule(rule_name, self.object_rule(properties, required, name, None))

    def resolve_ref(self, node: Node) -> str:
        ref = node.ref
        fragment = ref[ref.index("#") + 1:] if "#" in ref else ref
        ref_name = "ref" + INVALID_RULE_CHARS_RE.sub("-", fragment)
        if ref_name not in self.rules and ref not in self.refs_being_resolved:
            if node.target is None:
                self.errors.append(f"Unresolved $ref {ref}")
                return ""
            self.refs_being_resolved.add(ref)
            ref_name = self.visit(node.target, ref_name)
            self.refs_being_resolved.discard(ref)
        return ref_name

    def object_rule(self, properties: list, required: set, name: str, additional: Node | None) -> str:
        prefix = name + ("-" if name else "")
        required_props: list[str] = []
        optional_props: list[str] = []
        prop_names: list[str] = []
        kv_rules: dict[str, str] = {}
        for prop_name, prop in properties:
            prop_rule = self.visit(prop, prefix + prop_name)
            kv_rules[prop_name] = self.add_rule(prefix + prop_name + "-kv",
                                                format_literal(_dump(prop_name)) + ' space ":" space ' + prop_rule)
            (required_props if prop_name in required else optional_props).append(prop_name)
            prop_names.append(prop_name)
        if additional is not None:
            sub = prefix + "additional"
            value_rule = self.visit(additional, sub + "-value") if additional.kind != "any" \
                else self.add_primitive("value", PRIMITIVE_RULES["value"])
            key_rule = self.add_primitive("string", PRIMITIVE_RULES["string"]) if not prop_names \
                else self.add_rule(sub + "-k", self.not_strings(prop_names))
            kv_rules["*"] = self.add_rule(sub + "-kv", key_rule + ' ":" space ' + value_rule)
            optional_props.append("*")
        if not required_props and not optional_props:
            return '"{" space "}"'
        rule = '"{" space ' + ' "," space '.join(kv_rules[p] for p in required_props)
        if optional_props:
            rule += " ("
            if required_props:
                rule += ' "," space ( '

            def recursive_refs(ks: list, first_is_optional: bool) -> str:
                if not ks:
                    return ""
                k = ks[0]
                kv = kv_rules[k]
                comma_ref = f'( "," space {kv} )'
                if first_is_optional:
                    res = comma_ref + ("*" if k == "*" else "?")
                else:
                    res = kv + (" " + comma_ref + "*" if k == "*" else "")
                if len(ks) > 1:
                    res += " " + self.add_rule(prefix + k + "-rest", recursive_refs(ks[1:], True))
                return res

            rule += " | ".join(recursive_refs(optional_props[i:], False) for i in range(len(optional_props)))
            if required_props:
                rule += " )"
            rule += " )?"
        return rule + ' space "}"'

    def not_strings(self, strings: list) -> str:
        """A JSON string that is none of ``strings`` (a trie of their code points, children in code point order)."""
        trie: list[dict] = [{"children": {}, "end": False}]
        for word in strings:
            at = 0
            for ch in word:
                child = trie[at]["children"].get(ch)
                if child is None:
                    trie.append({"children": {}, "end": False})
                    child = trie[at]["children"][ch] = len(trie) - 1
                at = child
            trie[at]["end"] = True
        char_rule = self.add_primitive("char", PRIMITIVE_RULES["char"])
        out = ['["] ( ']

        def visit(idx: int):
            node = trie[idx]
            rejects = ""
            for i, (ch, child) in enumerate(sorted(node["children"].items())):
                rejects += ch
                if i:
                    out.append(" | ")
                out.append(f"[{ch}]")
                if trie[child]["children"]:
                    out.append(" (")
                    visit(child)
                    out.append(")")
                else:
                    out.append(f" {char_rule}+")
            if node["children"]:
                out.append(f' | [^"{rejects}] {char_rule}*')

        visit(0)
        out.append(" )")
        if not trie[0]["end"]:
            out.append("?")
        out.append(' ["]')
        return "".join(out)

    def visit_pattern(self, pattern: str, name: str) -> str:
        snapshot = dict(self.rules)
        raw = pattern.encode("utf-8", "surrogatepass").decode("latin-1")  # the C++ reads the pattern byte by byte
        try:
            rule = _Pattern(self, raw, name).rule()
            return rule.encode("latin-1").decode("utf-8", "surrogateescape")
        except _Unsupported as err:
            self.rules = snapshot
            self.warnings.append(f"pattern {pattern} is not supported ({err}), accepting any string")
            return self.add_rule(name, self.add_primitive("string", PRIMITIVE_RULES["string"]))
        except _Invalid as err:
            self.rules = snapshot
            self.errors.append(f"Invalid pattern {pattern}: {err}")
            return ""


class _Pattern:
    """``_pattern_to_rule``: a regular expression anchored with ``^``/``$`` as GBNF (over the pattern's bytes,
    each a latin-1 character here; the rules it adds hold bytes the same way until the caller decodes them)."""

    def __init__(self, converter: _Converter, pattern: str, name: str):
        self.c = converter
        self.pattern = pattern
        self.name = name
        self.sub_rule_ids: dict[str, str] = {}
        self.i = 0
        self.depth = 0

    def rule(self) -> str:
        p = self.pattern
        if len(p) < 2 or p[0] != "^" or p[-1] != "$":
            raise _Unsupported("not anchored with '^' and '$'")
        self.sub = p[1:-1]
        rule = _to_rule(self.transform())
        if self.depth != 0:
            raise _Invalid("unbalanced parentheses")
        return self.c.add_rule(self.name, '"\\"" (' + rule + ') "\\""')

    def add_rule(self, name: str, rule: str) -> str:
        # rule names are ASCII; the rule's bytes stay latin-1 characters until visit_pattern decodes the result
        return self.c.add_rule(name, rule)

    def transform(self) -> tuple[str, bool]:
        sub, length = self.sub, len(self.sub)
        seq: list[tuple[str, bool]] = []
        while self.i < length:
            c = sub[self.i]
            if c == ".":
                seq.append((self.add_rule("dot", "[^\\x0A\\x0D]"), False))
                self.i += 1
            elif c == "(":
                self.i += 1
                if self.i < length and sub[self.i] == "?":
                    if self.i + 1 < length and sub[self.i + 1] == ":":
                        self.i += 2
                    else:
                        raise _Unsupported("unsupported group syntax")
                self.depth += 1
                if self.depth > MAX_PATTERN_DEPTH:
                    raise _Unsupported("pattern nesting too deep")
                seq.append(("(" + _to_rule(self.transform()) + ")", False))
            elif c == ")":
                self.i += 1
                if self.depth == 0:
                    raise _Invalid("unbalanced parentheses")
                self.depth -= 1
                return _join_seq(seq)
            elif c in "^$":
                raise _Unsupported("anchor inside the pattern")
            elif c == "[":
                seq.append((self.char_class(), False))
            elif c == "|":
                seq.append(("|", False))
                self.i += 1
            elif c in "*+?":
                if not seq:
                    raise _Invalid("nothing to repeat")
                seq[-1] = (_to_rule(seq[-1]) + c, False)
                self.i += 1
            elif c == "{":
                self.repeat(seq)
            else:
                seq.append((self.literal(c), True))
        return _join_seq(seq)

    def char_class(self) -> str:
        sub, length = self.sub, len(self.sub)
        out = "["
        self.i += 1
        while self.i < length and sub[self.i] != "]":
            if sub[self.i] == "\\":
                n = gbnf_escape_length(sub, self.i)
                if n == 0:
                    raise _Unsupported("unsupported escape in character class: " + sub[self.i:self.i + 2])
                out += sub[self.i:self.i + n]
                self.i += n
            else:
                out += sub[self.i]
                self.i += 1
        if self.i >= length:
            raise _Invalid("unterminated character class")
        self.i += 1
        return out + "]"

    def repeat(self, seq: list) -> None:
        sub, length = self.sub, len(self.sub)
        body = ""
        self.i += 1
        while self.i < length and sub[self.i] != "}":
            body += sub[self.i]
            self.i += 1
        if self.i >= length:
            raise _Unsupported("unterminated curly brackets")
        self.i += 1
        nums = body.split(",")
        if len(nums) not in (1, 2):
            raise _Unsupported("wrong number of values in curly brackets")
        try:
            if len(nums) == 1:
                min_times = max_times = _stoi(nums[0])
            else:
                min_times = _stoi(nums[0]) if nums[0] else 0
                max_times = _stoi(nums[1]) if nums[1] else INT_MAX
        except ValueError:
            raise _Unsupported("invalid number in curly brackets") from None
        if not seq:
            raise _Invalid("nothing to repeat")
        text, is_literal = seq[-1]
        if not is_literal:
            sub_id = self.sub_rule_ids.get(text)
            if not sub_id:
                self.sub_rule_ids[text] = ""  # counted before the rule is added, as the C++ map's operator[]
                sub_id = self.sub_rule_ids[text] = self.add_rule(f"{self.name}-{len(self.sub_rule_ids)}", text)
            text = sub_id
        seq[-1] = (build_repetition(f'"{text}"' if is_literal else text, min_times, max_times, ""), False)

    def literal(self, c: str) -> str:
        sub, length = self.sub, len(self.sub)
        out = ""
        while self.i < length:
            ch = sub[self.i]
            if ch == "\\":
                if self.i == length - 1:
                    raise _Invalid("trailing backslash")
                nxt = sub[self.i + 1]
                if nxt in ESCAPED_IN_REGEXPS_BUT_NOT_IN_LITERALS:
                    out += nxt
                    self.i += 2
                else:
                    n = gbnf_escape_length(sub, self.i)
                    if n == 0:
                        raise _Unsupported("unsupported escape: " + sub[self.i:self.i + 2])
                    out += sub[self.i:self.i + n]
                    self.i += n
            elif ch == '"':
                out += '\\"'
                self.i += 1
            elif ch not in NON_LITERAL_SET and (self.i == length - 1 or not out or sub[self.i + 1] == "."
                                                or sub[self.i + 1] not in NON_LITERAL_SET):
                out += ch
                self.i += 1
            else:
                break
        if not out:
            raise _Unsupported("unsupported character: " + c)
        return out


def _to_rule(item: tuple[str, bool]) -> str:
    text, is_literal = item
    return f'"{text}"' if is_literal else text


def _join_seq(seq: list) -> tuple[str, bool]:
    """The sequence as one rule, consecutive literals merged."""
    out: list[tuple[str, bool]] = []
    literal = ""
    for text, is_literal in seq:
        if is_literal:
            literal += text
        else:
            if literal:
                out.append((literal, True))
                literal = ""
            out.append((text, False))
    if literal:
        out.append((literal, True))
    return " ".join(_to_rule(item) for item in out), False


def _stoi(text: str) -> int:
    """``std::stoi``: leading spaces, a sign, digits (the rest ignored); ValueError without digits or out of int."""
    m = re.match(r"\s*([+-]?\d+)", text)
    if m is None:
        raise ValueError(text)
    value = int(m.group(1))
    if not -(2**31) <= value <= INT_MAX:
        raise ValueError(text)
    return value
