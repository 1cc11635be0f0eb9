"""The contraction planner's arithmetic: einsum's grammar, and the order of pairwise contractions.

Everything here works on labels and extents, never on arrays, so `einsum` and `einsum_explain`
(`_api/einsum.py`) share one plan, and a plan is cached by the subscripts and shapes alone.

Labels are one-character strings: the subscript letters themselves, and for the axes an
ellipsis stands for, Greek letters from alpha on (one per broadcast axis, counted from the left
of the broadcast shape), which the grammar cannot spell, so they never collide.

The cost of a contraction is counted as opt_einsum counts it (`opt_einsum.helpers.flop_count`):
the product of the extents of every label either operand has, times two when some label is
summed away (a multiply and an add) and once when none is (an outer or element-wise product).
With that one measure, the optimal search below is never costlier than opt_einsum's greedy
path; beyond OPTIMAL_UP_TO operands the greedy plan is the cheapest of two greedy orders of
our own and opt_einsum's greedy order itself (a port, checked against opt_einsum step by step
in the tests), so it is never costlier than opt_einsum's either.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from typing import Any

__all__ = [
    "ELLIPSIS_LABELS",
    "OPTIMAL_UP_TO",
    "Plan",
    "contraction_cost",
    "parse",
    "path_cost",
    "plan",
]

LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
# Labels for the axes an ellipsis covers: never a letter the grammar accepts.
ELLIPSIS_LABELS = "".join(chr(0x3B1 + j) for j in range(25)) + "".join(
    chr(0x4E00 + j) for j in range(64)
)
# Up to this many operands the order is the optimal one (a search over subsets, 3**n steps);
# beyond it, the cheapest of three greedy orders, opt_einsum's among them.
OPTIMAL_UP_TO = 8


def _sublist_term(sub: Any, argname: str) -> str:
    out = []
    for s in sub:
        if s is Ellipsis:
            out.append("...")
            continue
        if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < len(LETTERS):
            raise ValueError(
                f"einsum: {argname} holds {s!r}; a sublist's labels are integers 0 to "
                f"{len(LETTERS) - 1} or Ellipsis"
            )
        out.append(LETTERS[s])
    return "".join(out)


def from_sublists(args: Sequence[Any]) -> tuple[str, list[Any]]:
    """NumPy's second form, ``einsum(op0, sublist0, op1, sublist1, ..., [sublistout])``,
    as a subscripts string and the operands."""
    operands = list(args[0::2])
    subs = list(args[1::2])
    out = None
    if len(args) % 2 == 1:  # the last item is the output's sublist
        out = operands.pop()
    terms = [_sublist_term(s, f"the sublist of operand {k}") for k, s in enumerate(subs)]
    text = ",".join(terms)
    if out is not None:
        text += "->" + _sublist_term(out, "the output sublist")
    return text, operands


def _split_term(term: str, where: str) -> tuple[str, bool, str]:
    """(letters before '...', whether there is one, letters after)."""
    head, dots, tail = term.partition("...")
    if "..." in tail:
        raise ValueError(f"einsum: {where} {term!r} has more than one ellipsis")
    for ch in head + tail:
        if ch not in LETTERS:
            raise ValueError(
                f"einsum: {where} {term!r} holds {ch!r}; subscripts are letters a-z, A-Z, "
                "an ellipsis '...', ',' between operands and '->' before the output"
            )
    return head, bool(dots), tail


@functools.lru_cache(maxsize=512)
def parse(
    subscripts: str, shapes: tuple[tuple[int, ...], ...]
) -> tuple[tuple[str, ...], str, dict[str, int]]:
    """Each operand's labels (one per axis, repeated where the subscripts repeat one), the
    output's labels, and each label's extent (the largest over the operands: an extent of 1
    broadcasts, as in NumPy). Raises ValueError naming what is wrong."""
    text = subscripts.replace(" ", "")
    if text.count("->") > 1 or ("-" in text.replace("->", "")) or (">" in text.replace("->", "")):
        raise ValueError(
            f"einsum: subscripts {subscripts!r} may hold one '->', before the output's labels"
        )
    lhs, arrow, rhs = text.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(shapes):
        raise ValueError(
            f"einsum: subscripts {subscripts!r} name {len(terms)} operand(s), "
            f"and {len(shapes)} were given"
        )
    parsed = [_split_term(t, f"operand {k}'s subscripts") for k, t in enumerate(terms)]
    n_ell = 0
    for k, ((head, dots, tail), shape) in enumerate(zip(parsed, shapes, strict=True)):
        named = len(head) + len(tail)
        if (named != len(shape)) if not dots else (named > len(shape)):
            raise ValueError(
                f"einsum: operand {k} has {len(shape)} axes (shape {shape}) and its "
                f"subscripts {terms[k]!r} name {named}"
                + ("" if dots else "; write '...' for the axes you do not name")
            )
        if dots:
            n_ell = max(n_ell, len(shape) - named)
    if n_ell > len(ELLIPSIS_LABELS):
        raise ValueError(f"einsum: an ellipsis covers {n_ell} axes; at most 89 are supported")
    ell_all = ELLIPSIS_LABELS[:n_ell]
    labels: list[str] = []
    for (head, dots, tail), shape in zip(parsed, shapes, strict=True):
        k = len(shape) - len(head) - len(tail) if dots else 0
        labels.append(head + ell_all[n_ell - k :] + tail)
    extents: dict[str, int] = {}
    for k, (lab, shape) in enumerate(zip(labels, shapes, strict=True)):
        seen: dict[str, int] = {}
        for ch, n in zip(lab, shape, strict=True):
            if ch in seen and seen[ch] != n:
                raise ValueError(
                    f"einsum: operand {k} repeats label {ch!r} on axes of extents "
                    f"{seen[ch]} and {n}; a repeated label takes a diagonal, which needs "
                    "equal extents"
                )
            seen[ch] = n
            have = extents.get(ch)
            if have is None or have == 1:
                extents[ch] = n
            elif n != 1 and n != have:
                raise ValueError(
                    f"einsum: label {_show(ch)} has extent {have} in one operand and {n} in "
                    f"operand {k}; extents must agree (or be 1, which broadcasts)"
                )
    if arrow:
        head, dots, tail = _split_term(rhs, "the output's subscripts")
        if dots and not n_ell and not any(p[1] for p in parsed):
            raise ValueError(
                f"einsum: the output's subscripts {rhs!r} hold an ellipsis, and no operand's do"
            )
        if n_ell and not dots:
            raise ValueError(
                f"einsum: the operands' ellipses cover {n_ell} axes and the output's "
                f"subscripts {rhs!r} have no '...' for them (as in NumPy, write '...' in the "
                "output, or sum those axes first)"
            )
        out = head + (ell_all if dots else "") + tail
        for ch in head + tail:
            if (head + tail).count(ch) > 1:
                raise ValueError(f"einsum: the output's subscripts repeat label {ch!r}")
            if ch not in extents:
                raise ValueError(f"einsum: the output's label {ch!r} is in no operand's subscripts")
    else:
        # NumPy's implicit output: the broadcast axes, then every letter that appears once,
        # in the order of character codes (upper case before lower case).
        count: dict[str, int] = {}
        for lab in labels:
            for ch in lab:
                count[ch] = count.get(ch, 0) + 1
        out = ell_all + "".join(sorted(ch for ch, c in count.items() if c == 1 and ch in LETTERS))
    return tuple(labels), out, extents


def _show(label: str) -> str:
    if label in LETTERS:
        return repr(label)
    return f"of the ellipsis's axis {ELLIPSIS_LABELS.index(label)}"


def contraction_cost(a: frozenset[str], b: frozenset[str], kept: frozenset[str], ext: dict) -> int:
    """opt_einsum's count for contracting operands with labels `a` and `b`, when the labels
    `kept` are needed afterwards (by the output or another operand)."""
    union = a | b
    size = math.prod(ext[c] for c in union)
    return size * 2 if union - kept else size


class Plan:
    """A contraction order, and the labels each intermediate keeps.

    ``path``: NumPy's and opt_einsum's format, a pair of positions per step in the list of
    operands still to contract, the result appended at its end. ``cost``: the sum of the
    steps' `contraction_cost`. ``kind``: "optimal", "greedy", "given" or "single"."""

    __slots__ = ("path", "cost", "kind")

    def __init__(self, path: list[tuple[int, int]], cost: int, kind: str) -> None:
        self.path = path
        self.cost = cost
        self.kind = kind


def path_cost(
    sets: list[frozenset[str]], out: frozenset[str], ext: dict, path: list[tuple[int, int]]
) -> int:
    live = list(sets)
    total = 0
    for i, j in path:
        a, b = live[i], live[j]
        rest = [s for k, s in enumerate(live) if k not in (i, j)]
        kept = out.union(*rest)
        total += contraction_cost(a, b, kept, ext)
        live = rest + [(a | b) & kept]
    return total


def _optimal(sets: list[frozenset[str]], out: frozenset[str], ext: dict) -> list[tuple[int, int]]:
    """The cheapest order, by a search over subsets of the operands (3**n steps)."""
    n = len(sets)
    full = (1 << n) - 1
    # labels of the one tensor a subset contracts to: its labels needed outside it
    outside: dict[int, frozenset[str]] = {}
    for mask in range(1, full + 1):
        inner = frozenset().union(*(sets[k] for k in range(n) if mask >> k & 1))
        other = out.union(*(sets[k] for k in range(n) if not mask >> k & 1))
        outside[mask] = inner & other
    best: dict[int, tuple[int, tuple]] = {1 << k: (0, ()) for k in range(n)}
    for mask in sorted(range(1, full + 1), key=lambda m: bin(m).count("1")):
        if mask in best:
            continue
        low = mask & -mask  # the lowest member stays in the first part: each split once
        rest = mask ^ low
        choice: tuple[int, tuple] | None = None
        sub = rest
        while True:
            m1 = low | sub
            m2 = mask ^ m1
            if m2:
                c1, t1 = best[m1]
                c2, t2 = best[m2]
                cost = c1 + c2 + contraction_cost(outside[m1], outside[m2], outside[mask], ext)
                if choice is None or cost < choice[0]:
                    choice = (cost, (t1, t2, m1, m2))
            if sub == 0:
                break
            sub = (sub - 1) & rest
        assert choice is not None
        best[mask] = choice
    # the tree as a path in NumPy's format
    path: list[tuple[int, int]] = []
    live = [1 << k for k in range(n)]

    def emit(mask: int) -> None:
        tree = best[mask][1]
        if not tree:
            return
        _, _, m1, m2 = tree
        emit(m1)
        emit(m2)
        i, j = sorted((live.index(m1), live.index(m2)))
        path.append((i, j))
        del live[j], live[i]
        live.append(mask)

    emit(full)
    return path


def _greedy(
    sets: list[frozenset[str]], out: frozenset[str], ext: dict, by_size: bool
) -> list[tuple[int, int]]:
    """Contract, step by step, the pair that scores lowest among the pairs that share a label
    (any pair when none do). `by_size`: opt_einsum's score, the result's size less the two
    operands'; otherwise the step's cost."""
    live = list(sets)
    path: list[tuple[int, int]] = []

    def size(s: frozenset[str]) -> int:
        return math.prod(ext[c] for c in s)

    while len(live) > 1:
        pairs = [
            (i, j) for i, j in itertools.combinations(range(len(live)), 2) if live[i] & live[j]
        ] or list(itertools.combinations(range(len(live)), 2))
        best = None
        for i, j in pairs:
            rest = out.union(*(s for k, s in enumerate(live) if k not in (i, j)))
            res = (live[i] | live[j]) & rest
            cost = contraction_cost(live[i], live[j], rest, ext)
            score = (
                (size(res) - size(live[i]) - size(live[j]), cost) if by_size else (cost, size(res))
            )
            if best is None or score < best[0]:
                best = (score, i, j, res)
        assert best is not None
        _, i, j, res = best
        path.append((i, j))
        live = [s for k, s in enumerate(live) if k not in (i, j)] + [res]
    return path


def _opt_einsum_greedy(
    sets: list[frozenset[str]], out: frozenset[str], ext: dict
) -> list[tuple[int, int]]:
    """opt_einsum's greedy order itself (`opt_einsum.paths.ssa_greedy_optimize`, its default
    "memory-removed" score and tie-breaking by operand age), so that the greedy plan is never
    costlier than opt_einsum's: operands with the same labels first (Hadamard products), then
    the pair sharing a label whose result's size less its operands' is lowest, then the outer
    products of what is left, smallest first. In opt_einsum's single-assignment numbering:
    every operand and every result gets the next id; the path in positions comes at the end."""
    # (imported here: `import stridedarray` does not load them, and few plans get this far)
    import bisect
    import heapq

    n = len(sets)
    if n <= 2:
        return [(0, 1)] if n == 2 else []

    def size(s: frozenset[str]) -> int:
        return math.prod(ext[c] for c in s)

    # a label every operand has can only go at the last step: it counts as an output label
    output = out | frozenset.intersection(*sets)
    ids = itertools.count(n)
    ssa: list[tuple[int, int]] = []
    remaining: dict[frozenset[str], int] = {}
    for sid, key in enumerate(sets):
        if key in remaining:
            ssa.append((remaining[key], sid))
            remaining[key] = next(ids)
        else:
            remaining[key] = sid
    dim_keys: dict[str, set[frozenset[str]]] = {}
    for key in remaining:
        for d in key - output:
            dim_keys.setdefault(d, set()).add(key)
    refs = {c: {d for d, keys in dim_keys.items() if len(keys) >= c} - output for c in (2, 3)}
    foot = {key: size(key) for key in remaining}
    queue: list[tuple[tuple[int, int, int], frozenset[str], frozenset[str], frozenset[str]]] = []

    def candidate(k1: frozenset[str], k2: frozenset[str]) -> Any:
        either, two = k1 | k2, k1 & k2
        k12 = (either & output) | (two & refs[3]) | ((either - two) & refs[2])
        i1, i2 = remaining[k1], remaining[k2]
        if i1 > i2:
            k1, k2, i1, i2 = k2, k1, i2, i1
        return (size(k12) - foot[k1] - foot[k2], i2, i1), k1, k2, k12

    def push(k1: frozenset[str], partners: Any) -> None:
        # (opt_einsum queues the best partner of k1 only)
        heapq.heappush(queue, min(candidate(k1, k2) for k2 in partners))

    for keys in dim_keys.values():
        ordered = sorted(keys, key=remaining.__getitem__)
        for a, k1 in enumerate(ordered[:-1]):
            push(k1, ordered[a + 1 :])
    while queue:
        _, k1, k2, k12 = heapq.heappop(queue)
        if k1 not in remaining or k2 not in remaining:
            continue  # one of its operands is contracted already
        ssa.append((remaining.pop(k1), remaining.pop(k2)))
        for d in k1 - output:
            dim_keys[d].remove(k1)
        for d in k2 - output:
            dim_keys[d].remove(k2)
        if k12 in remaining:
            ssa.append((remaining[k12], next(ids)))
        else:
            for d in k12 - output:
                dim_keys.setdefault(d, set()).add(k12)
        remaining[k12] = next(ids)
        for d in (k1 | k2) - output:
            count = len(dim_keys.get(d, ()))
            for c in (2, 3):
                (refs[c].add if count >= c else refs[c].discard)(d)
        foot[k12] = size(k12)
        partners = {k2 for d in k12 - output for k2 in dim_keys[d]} - {k12}
        if partners:
            push(k12, partners)
    final = [(size(key & output), sid, key) for key, sid in remaining.items()]
    heapq.heapify(final)
    _, s1, k1 = heapq.heappop(final)
    while final:
        _, s2, k2 = heapq.heappop(final)
        ssa.append((min(s1, s2), max(s1, s2)))
        k12 = (k1 | k2) & output
        _, s1, k1 = heapq.heappushpop(final, (size(k12), next(ids), k12))
    # single-assignment ids to positions in the list of live operands (`ssa_to_linear`)
    live, path = list(range(n)), []
    for sid, pair in enumerate(ssa, start=n):
        i, j = sorted(bisect.bisect_left(live, s) for s in pair)
        del live[j], live[i]
        live.append(sid)
        path.append((i, j))
    return path


@functools.lru_cache(maxsize=512)
def plan(labels: tuple[str, ...], out: str, extents: tuple[tuple[str, int], ...], how: Any) -> Plan:
    """The order in which to contract operands with these labels (each already reduced to its
    distinct labels). `how`: "optimal", "greedy", or True (optimal up to OPTIMAL_UP_TO
    operands, greedy beyond)."""
    ext = dict(extents)
    sets = [frozenset(lab) for lab in labels]
    oset = frozenset(out)
    n = len(sets)
    if n == 1:
        return Plan([], 0, "single")
    if how == "optimal" or (how is True and n <= OPTIMAL_UP_TO):
        path = _optimal(sets, oset, ext)
        return Plan(path, path_cost(sets, oset, ext, path), "optimal")
    candidates = [_greedy(sets, oset, ext, by_size) for by_size in (True, False)]
    candidates.append(_opt_einsum_greedy(sets, oset, ext))
    costs = [path_cost(sets, oset, ext, p) for p in candidates]
    k = costs.index(min(costs))
    return Plan(candidates[k], costs[k], "greedy")


def check_path(path: Any, n: int) -> list[tuple[int, int]]:
    """A path the caller gave (NumPy's ``["einsum_path", (0, 1), ...]``), checked."""
    items = list(path)
    if items and items[0] == "einsum_path":
        items = items[1:]
    steps: list[tuple[int, int]] = []
    live = n
    for step in items:
        pair = tuple(step)
        if len(pair) == 1 and live == 1:
            continue  # NumPy writes a single operand's own step as (0,)
        if (
            len(pair) != 2
            or not all(isinstance(k, int) and 0 <= k < live for k in pair)
            or pair[0] == pair[1]
        ):
            raise ValueError(
                f"einsum: optimize's step {step!r} must be two distinct positions among the "
                f"{live} operands left"
            )
        steps.append((min(pair), max(pair)))
        live -= 1
    if live != 1:
        raise ValueError(
            f"einsum: optimize's path contracts {n - live} pair(s), and {n} operands need {n - 1}"
        )
    return steps
