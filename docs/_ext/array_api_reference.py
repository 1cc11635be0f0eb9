"""Sphinx extension for the API reference: links to the Array API standard, a completeness check.

* Every documented object that the Array API standard (2025.12) specifies gets, below its
  summary line, a link to the standard's page for it. Which names the standard specifies, and
  where its pages are, is the table `STANDARD` below: the chapter lists of the standard's own
  documentation (spec/2025.12 in data-apis/array-api), whose pages are
  ``<SPEC>/<section>/generated/<module>.<name>.html``.
* When the build ends, every public name of `stridedarray`, `stridedarray.linalg`,
  `stridedarray.fft` and of the `Array` class must have been documented somewhere; a missing
  one is a warning (so ``sphinx-build -W`` fails), as is a name of the standard that
  stridedarray does not provide.
* The role ``:array-api:`linalg.svd``` links a standard name in running text.
* A type annotation naming a Python builtin (``bool`` in ``x: Array | bool``) refers to the
  builtin, not to the namespace's data type `stridedarray.bool` of the same name.
"""

from __future__ import annotations

import builtins
import importlib
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

SPEC_VERSION = "2025.12"
SPEC = f"https://data-apis.org/array-api/{SPEC_VERSION}"

# section of the standard's site, the standard's module, the names its chapter lists.
STANDARD: dict[str, tuple[str, str, str]] = {
    "array object": (
        "API_specification",
        "array_api.array",
        """
        dtype device mT ndim shape size T __abs__ __add__ __and__ __array_namespace__ __bool__
        __complex__ __dlpack__ __dlpack_device__ __eq__ __float__ __floordiv__ __ge__
        __getitem__ __gt__ __index__ __int__ __invert__ __le__ __lshift__ __lt__ __matmul__
        __mod__ __mul__ __ne__ __neg__ __or__ __pos__ __pow__ __rshift__ __setitem__ __sub__
        __truediv__ __xor__ to_device""",
    ),
    "constants": ("API_specification", "array_api.constants", "e inf nan newaxis pi"),
    "creation": (
        "API_specification",
        "array_api",
        """
        arange asarray empty empty_like eye from_dlpack full full_like linspace meshgrid ones
        ones_like tril triu zeros zeros_like""",
    ),
    "data type functions": (
        "API_specification",
        "array_api",
        """
        astype can_cast finfo iinfo isdtype result_type""",
    ),
    "element-wise": (
        "API_specification",
        "array_api",
        """
        abs acos acosh add asin asinh atan atan2 atanh bitwise_and bitwise_left_shift
        bitwise_invert bitwise_or bitwise_right_shift bitwise_xor ceil clip conj copysign cos
        cosh divide equal exp expm1 floor floor_divide greater greater_equal hypot imag
        isfinite isinf isnan less less_equal log log1p log2 log10 logaddexp logical_and
        logical_not logical_or logical_xor maximum minimum multiply negative nextafter
        not_equal positive pow real reciprocal remainder round sign signbit sin sinh square
        sqrt subtract tan tanh trunc""",
    ),
    "indexing": ("API_specification", "array_api", "take take_along_axis"),
    "inspection": ("API_specification", "array_api.info", "__array_namespace_info__"),
    "linear algebra": (
        "API_specification",
        "array_api",
        "matmul matrix_transpose tensordot vecdot",
    ),
    "manipulation": (
        "API_specification",
        "array_api",
        """
        broadcast_arrays broadcast_shapes broadcast_to concat expand_dims flip moveaxis
        permute_dims repeat reshape roll squeeze stack tile unstack""",
    ),
    "searching": (
        "API_specification",
        "array_api",
        "argmax argmin count_nonzero nonzero searchsorted where",
    ),
    "sets": (
        "API_specification",
        "array_api",
        "isin unique_all unique_counts unique_inverse unique_values",
    ),
    "sorting": ("API_specification", "array_api", "argsort sort"),
    "statistical": (
        "API_specification",
        "array_api",
        "cumulative_prod cumulative_sum max mean min prod std sum var",
    ),
    "utility": ("API_specification", "array_api", "all any diff"),
    "version": ("API_specification", "array_api", "__array_api_version__"),
    "linalg extension": (
        "extensions",
        "array_api.linalg",
        """
        cholesky cross det diagonal eig eigh eigvals eigvalsh inv matmul matrix_norm
        matrix_power matrix_rank matrix_transpose outer pinv qr slogdet solve svd svdvals
        tensordot trace vecdot vector_norm""",
    ),
    "fft extension": (
        "extensions",
        "array_api.fft",
        """
        fft ifft fftn ifftn rfft irfft rfftn irfftn hfft ihfft fftfreq rfftfreq fftshift
        ifftshift""",
    ),
}

# The data types have one page in the standard, not one per name.
DTYPES = (
    "bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float32 float64 complex64 complex128"
).split()
DTYPES_PAGE = f"{SPEC}/API_specification/data_types.html"

# our module (or class) -> the standard's module whose names it provides
OURS = {
    "stridedarray": ("array_api", "array_api.constants", "array_api.info"),
    "stridedarray.Array": ("array_api.array",),
    "stridedarray.linalg": ("array_api.linalg",),
    "stridedarray.fft": ("array_api.fft",),
}


def _spec_pages() -> dict[str, str]:
    """The standard's qualified name (array_api.linalg.svd) -> the URL of its page."""
    pages = {}
    for section, module, names in STANDARD.values():
        for name in names.split():
            qualified = f"{module}.{name}"
            pages[qualified] = f"{SPEC}/{section}/generated/{qualified}.html"
    return pages


SPEC_PAGES = _spec_pages()


def standard_link(fullname: str) -> tuple[str, str] | None:
    """(the standard's name, URL) for one of our documented names, or None if not standard."""
    owner, _, name = fullname.rpartition(".")
    if owner == "stridedarray" and name in DTYPES:
        return f"array_api.{name}", DTYPES_PAGE
    for module in OURS.get(owner, ()):
        url = SPEC_PAGES.get(f"{module}.{name}")
        if url:
            return f"{module}.{name}", url
    return None


def _link_paragraph(spec_name: str, url: str) -> nodes.paragraph:
    ref = nodes.reference("", "", nodes.literal(text=spec_name), refuri=url, internal=False)
    para = nodes.paragraph("", "", nodes.Text(f"Array API standard ({SPEC_VERSION}): "), ref)
    para["classes"].append("array-api-link")
    return para


def add_standard_link(app: Sphinx, domain: str, objtype: str, contentnode: nodes.Element) -> None:
    """Below the summary of a standard object's description, link the standard's page."""
    if domain != "py":
        return
    signature = contentnode.parent[0] if len(contentnode.parent) else None
    if signature is None or "fullname" not in signature:
        return
    fullname = ".".join(p for p in (signature.get("module"), signature["fullname"]) if p)
    link = standard_link(fullname)
    if link is None:
        return
    first = contentnode.children[0] if contentnode.children else None
    where = 1 if isinstance(first, nodes.paragraph) else 0
    contentnode.insert(where, _link_paragraph(*link))


def array_api_role(
    name: str,
    rawtext: str,
    text: str,
    lineno: int,
    inliner: Any,
    options: dict | None = None,
    content: list | None = None,
):
    """:array-api:`linalg.svd` -> a link to the standard's page for array_api.linalg.svd."""
    qualified = f"array_api.{text}"
    url = SPEC_PAGES.get(qualified) or (DTYPES_PAGE if text in DTYPES else None)
    if url is None:
        msg = inliner.reporter.error(
            f"{text!r} is not a name of the Array API standard {SPEC_VERSION}", line=lineno
        )
        return [inliner.problematic(rawtext, rawtext, msg)], [msg]
    ref = nodes.reference(rawtext, "", nodes.literal(text=qualified), refuri=url, internal=False)
    return [ref], []


def builtin_annotations(app: Sphinx, doctree: nodes.document) -> None:
    """Point annotation references to builtins (bool, int, ...) at `builtins`, not at ours."""
    for ref in doctree.findall(addnodes.pending_xref):
        target = ref.get("reftarget", "")
        if (
            ref.get("refdomain") == "py"
            and ref.get("reftype") == "class"
            and hasattr(builtins, target)
        ):
            ref["reftarget"] = f"builtins.{target}"


def drop_array_signature(
    app: Sphinx,
    what: str,
    name: str,
    obj: Any,
    options: Any,
    signature: str | None,
    return_annotation: str | None,
) -> tuple[str, str | None] | None:
    """Show `class stridedarray.Array` without a signature: calling the class raises TypeError."""
    if what == "class" and name == "stridedarray.Array":
        return "", return_annotation
    return None


def public_names() -> set[str]:
    """Every public name users reach: the namespace, its two extensions, NumPy's
    `lib.stride_tricks` (what it adds to the namespace's own), the Array class."""
    import stridedarray

    names = {
        f"stridedarray.{n}"
        for n in dir(stridedarray)
        if not n.startswith("_") and n not in ("fft", "lib", "linalg")
    }
    tricks = importlib.import_module("stridedarray.lib.stride_tricks")
    names |= {
        f"stridedarray.lib.stride_tricks.{n}"
        for n in tricks.__all__
        if not hasattr(stridedarray, n)
    }
    names |= {
        "stridedarray.__array_namespace_info__",
        "stridedarray.__array_api_version__",
        "stridedarray.__version__",
    }
    for module in ("stridedarray.linalg", "stridedarray.fft"):
        names |= {f"{module}.{n}" for n in importlib.import_module(module).__all__}
    array_dunders = {n for n in STANDARD["array object"][2].split() if n.startswith("__")}
    names |= {
        f"stridedarray.Array.{n}"
        for n in dir(stridedarray.Array)
        if not n.startswith("_") or n in array_dunders
    }
    return names


def check_complete(app: Sphinx, env: Any) -> None:
    """Warn for each public name the reference does not document, and each standard name we lack."""
    domain = env.get_domain("py")
    documented = {name for name, *_ in domain.get_objects()}
    for name in sorted(public_names() - documented):
        logger.warning("API reference: public name %s is not documented", name)
    for qualified in sorted(SPEC_PAGES):
        ours = (
            qualified.replace("array_api.array.", "stridedarray.Array.")
            .replace("array_api.constants.", "stridedarray.")
            .replace("array_api.info.", "stridedarray.")
        )
        ours = ours.replace("array_api.", "stridedarray.", 1)
        if ours not in documented:
            logger.warning(
                "API reference: %s of the standard is not documented as %s", qualified, ours
            )


def setup(app: Sphinx) -> dict:
    app.connect("object-description-transform", add_standard_link)
    app.connect("env-check-consistency", check_complete)
    app.connect("doctree-read", builtin_annotations)
    app.connect("autodoc-process-signature", drop_array_signature)
    app.add_role("array-api", array_api_role)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
