"""No import circles in the app: a module never reaches itself through its imports (those inside functions too).

The graph is grimp's (what import-linter reads), built from the source without importing it.
"""
from __future__ import annotations

import grimp

#: Circles not yet broken, by the package they lie in (empty once every circle is gone).
KNOWN = ()


def circles(imports: dict[str, set[str]]) -> list[list[str]]:
    """The groups of two or more modules that reach each other (strongly connected components, Tarjan's)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out: list[list[str]] = []
    for root in sorted(imports):
        if root in index:
            continue
        work = [(root, iter(sorted(imports[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        while work:
            node, nexts = work[-1]
            child = next(nexts, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    work.append((child, iter(sorted(imports.get(child, ())))))
                elif child in stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    out.append(sorted(group))
    return out


def test_circles_finds_a_circle_and_only_it():
    imports = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert circles(imports) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_the_app_has_no_import_circles():
    graph = grimp.build_graph("app", cache_dir=None)
    imports = {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    found = [group for group in circles(imports) if not all(m.startswith(KNOWN) for m in group)]
    assert found == [], f"import circles: {found}"
